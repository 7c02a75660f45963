r"""Strings that match a JSON Schema ``pattern``: the regex subset schemas use, parsed and drawn.

Contract: :func:`parse_pattern` reads a pattern into a :class:`Pattern` or raises
:class:`PatternError` naming the construct it does not support; :meth:`Pattern.draw` returns a
string the pattern matches (``re.search``), drawing every choice from the given ``random.Random``.
The subset: literals and escapes, ``.``, ``\d \w \s`` and their negations, character classes
with ranges and negation, groups (capturing, ``(?:...)``, ``(?P<name>...)``), alternation, the
quantifiers ``* + ? {m} {m,} {m,n}`` (greedy, lazy or possessive) and the anchors
``^ $ \A \Z \b \B``, which are taken as satisfied. Lookarounds, back-references and inline flags are not supported.

Characters come from a small printable pool (:data:`PRINTABLE`), so a drawn string reads well
in a trace; a class that matches nothing in the pool cannot be drawn. Unbounded repeats draw at
most three more than their minimum. Written here rather than taken from a library: the ones
for this (exrex, rstr's ``xeger``) parse with the standard library's private regex parser, and
exrex draws from the global ``random`` module, which would break a seeded run's determinism.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from random import Random

from silo.errors import SiloException

__all__ = ["PRINTABLE", "Pattern", "PatternError", "parse_pattern"]

PRINTABLE = string.ascii_letters + string.digits + " -_.@:/"
"""The characters drawn strings are made of (and what a negated class picks from)."""

_CLASSES = {
    "d": string.digits,
    "D": string.ascii_letters + " -_",
    "w": string.ascii_letters + string.digits + "_",
    "W": " -.:/",
    "s": " ",
    "S": string.ascii_letters + string.digits,
}
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}
_ANCHORS = frozenset("AZbB")
_MAX_EXTRA = 3  # repeats drawn beyond a quantifier's minimum, at most
_MAX_RANGE = 256  # characters of a class range considered, from its start


class PatternError(SiloException, ValueError):
    """A pattern outside the supported subset, or not a valid regex."""


@dataclass(frozen=True)
class _Chars:
    choices: str  # one of these characters


@dataclass(frozen=True)
class _Repeat:
    low: int
    high: int
    node: _Node


@dataclass(frozen=True)
class _Sequence:
    nodes: tuple[_Node, ...]


@dataclass(frozen=True)
class _Alternatives:
    branches: tuple[_Sequence, ...]


_Node = _Chars | _Repeat | _Sequence | _Alternatives


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern; :meth:`draw` makes strings it matches."""

    source: str
    root: _Alternatives

    def draw(self, rng: Random) -> str:
        """A string the pattern matches, every choice made with ``rng``."""
        out: list[str] = []
        _draw(self.root, rng, out)
        return "".join(out)


def _draw(node: _Node, rng: Random, out: list[str]) -> None:
    if isinstance(node, _Chars):
        out.append(rng.choice(node.choices))
    elif isinstance(node, _Sequence):
        for item in node.nodes:
            _draw(item, rng, out)
    elif isinstance(node, _Alternatives):
        _draw(rng.choice(node.branches), rng, out)
    else:
        for _ in range(rng.randint(node.low, node.high)):
            _draw(node.node, rng, out)


def parse_pattern(source: str) -> Pattern:
    """Parse ``source``; :class:`PatternError` names what is unsupported or wrong."""
    parser = _Parser(source)
    root = parser.alternatives()
    if parser.pos < len(source):  # only an unmatched ")" stops the top level early
        raise PatternError(f"unbalanced parenthesis at position {parser.pos}")
    return Pattern(source, root)


class _Parser:
    """Recursive descent over the pattern text; ``pos`` is the next character to read."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.pos = 0

    def peek(self) -> str:
        return self.source[self.pos] if self.pos < len(self.source) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise PatternError("the pattern ends too early")
        self.pos += 1
        return char

    def alternatives(self) -> _Alternatives:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return _Alternatives(tuple(branches))

    def sequence(self) -> _Sequence:
        nodes: list[_Node] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            if atom is None:  # an anchor: nothing to draw, nothing to repeat
                continue
            nodes.append(self.quantified(atom))
        return _Sequence(tuple(nodes))

    def atom(self) -> _Node | None:
        char = self.take()
        if char in "^$":
            return None
        if char == ".":
            return _Chars(string.ascii_letters + string.digits)
        if char == "[":
            return self.char_class()
        if char == "(":
            return self.group()
        if char == "\\":
            escaped = self.take()
            if escaped in _ANCHORS:
                return None
            return _Chars(self.escape(escaped))
        if char in "*+?":
            raise PatternError(f"nothing to repeat at position {self.pos - 1}")
        return _Chars(char)

    def group(self) -> _Node:
        if self.source.startswith("?:", self.pos):
            self.pos += 2
        elif self.source.startswith("?P<", self.pos):
            end = self.source.find(">", self.pos)
            if end < 0:
                raise PatternError("unterminated group name")
            self.pos = end + 1
        elif self.peek() == "?":
            raise PatternError(
                f"unsupported group construct (?{self.source[self.pos + 1 : self.pos + 2]}"
            )
        inner = self.alternatives()
        if self.peek() != ")":
            raise PatternError("missing )")
        self.pos += 1
        return inner

    def escape(self, escaped: str) -> str:
        """The characters one escape (after the backslash) stands for."""
        if escaped in _CLASSES:
            return _CLASSES[escaped]
        if escaped in _CONTROL:
            return _CONTROL[escaped]
        if escaped in "xu":
            width = 2 if escaped == "x" else 4
            digits = self.source[self.pos : self.pos + width]
            if len(digits) != width or not all(c in string.hexdigits for c in digits):
                raise PatternError(f"bad \\{escaped} escape")
            self.pos += width
            return chr(int(digits, 16))
        if escaped.isalnum():
            raise PatternError(f"unsupported escape \\{escaped}")
        return escaped

    def char_class(self) -> _Chars:
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        chars = ""
        first = True
        while True:
            char = self.take()
            if char == "]" and not first:
                break
            first = False
            if char == "\\":
                chars += self.escape(self.take())
                continue
            if self.peek() == "-" and self.source[self.pos + 1 : self.pos + 2] not in ("]", ""):
                self.pos += 1
                end = self.take()
                if end == "\\":
                    end = self.escape(self.take())
                    if len(end) != 1:
                        raise PatternError("a class range cannot end in a class")
                if ord(end) < ord(char):
                    raise PatternError(f"bad class range {char}-{end}")
                last = min(ord(end), ord(char) + _MAX_RANGE - 1)
                chars += "".join(chr(c) for c in range(ord(char), last + 1))
                continue
            chars += char
        if negate:
            chars = "".join(c for c in PRINTABLE if c not in chars)
        if not chars:
            raise PatternError("a character class matches nothing drawable")
        return _Chars(chars)

    def quantified(self, atom: _Node) -> _Node:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            low = 1 if char == "+" else 0
            high = 1 if char == "?" else low + _MAX_EXTRA
        elif char == "{" and (bounds := self.braces()) is not None:
            low, high = bounds
        else:
            return atom
        if self.peek() in ("?", "+"):  # lazy or possessive: the same strings match
            self.pos += 1
        return _Repeat(low, high, atom)

    def braces(self) -> tuple[int, int] | None:
        """``{m}``, ``{m,}``, ``{m,n}`` as (low, high drawn); None when ``{`` is a literal."""
        end = self.source.find("}", self.pos)
        if end < 0:
            return None
        low_text, comma, high_text = self.source[self.pos + 1 : end].partition(",")
        if not (low_text.isdigit() or (comma and high_text)):  # ``{,n}`` means ``{0,n}``
            return None
        if (low_text and not low_text.isdigit()) or (high_text and not high_text.isdigit()):
            return None
        low = int(low_text or 0)
        high = int(high_text) if high_text else low + _MAX_EXTRA if comma else low
        if high < low:
            raise PatternError(f"bad repeat {{{low_text},{high_text}}}")
        self.pos = end + 1
        return low, min(high, low + _MAX_EXTRA)
