"""Text that is safe to write or print: secrets redacted, any object's text, terminal escapes.

Contract: :func:`redact` is the one redaction every writer of text applies (error lines, the
trace, ``result.json``, ``run.json``, summaries, console lines, the viewer). It replaces with
``***``: every known secret value wherever it appears (the values of environment variables
whose names say they hold one, ``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, and
any value passed to :func:`add_secret`), the password of a ``user:password@`` URL, the value of
a credential-named query parameter (``api_key=``, ``token=``, ``sig=``, ...), a URL's fragment,
and the token after ``Bearer``, ``Basic`` or ``Token`` (capitalised, as HTTP writes them). It never raises. :func:`redact_value` does the same to every
string (and key) of a JSON value. :func:`safe_str` is an object's ``str`` even when its
``__str__`` or ``__repr__`` raises; :func:`terminal_safe` escapes control characters so that
text an agent, a tool or an environment produced cannot move the cursor, retitle the window or
fake a line on a terminal.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Mapping

from silo.json_types import JSON

__all__ = [
    "MASK",
    "add_secret",
    "redact",
    "redact_value",
    "safe_str",
    "terminal_safe",
]

MASK = "***"
"""What a redacted secret reads as."""

MIN_SECRET_CHARS = 6
"""Shorter values are never treated as secrets (masking "1" everywhere would hide numbers)."""

_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|_KEY)$|PASSWORD", re.I)
_URL_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/@\s:]*):[^/@\s]*@")
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&;](?:[a-z0-9_.-]*(?:key|token|secret|password|passwd|sig|signature|auth"
    r"|credential)[a-z0-9_.-]*))=(?P<value>[^&#\s\"'<>]*)",
    re.I,
)
_URL_FRAGMENT = re.compile(r"(?P<url>[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>#]*)#[^\s\"'<>]+")
# As HTTP spells them (capitalised): "basic hydra/launcher=joblib" is no credential.
_BEARER = re.compile(r"(?P<word>\b(?:Bearer|Basic|Token) +)[A-Za-z0-9._~+/-]{8,}=*")
# What any match of _BEARER contains. A pattern that starts with an alternation is tried at
# every position of the text, far slower than looking for these words, and trace lines can be
# long (a model's first turn holds every tool spec): docs/performance.md.
_BEARER_WORDS = ("Bearer ", "Basic ", "Token ")

_added: set[str] = set()
_lock = threading.Lock()
_cache: tuple[tuple[tuple[str, str], ...], re.Pattern[str] | None] = ((), None)


def add_secret(value: str) -> None:
    """Treat ``value`` as a secret in every text redacted from now on (short values ignored)."""
    global _cache
    if isinstance(value, str) and len(value) >= MIN_SECRET_CHARS:
        with _lock:
            if value not in _added:
                _added.add(value)
                _cache = ((), None)
                _looked[0] = -_ENV_LOOK_S


_ENV_LOOK_S = 1.0  # how often the environment is looked at again for new secrets
_looked: list[float] = [-_ENV_LOOK_S, -1]  # when, and how many variables there were


def _secrets_pattern() -> re.Pattern[str] | None:
    """One pattern matching every known secret value (rebuilt when the environment changes)."""
    global _cache
    now = time.monotonic()
    found, pattern = _cache
    # Looked at again each second, and at once when a variable was added or removed.
    fresh = now - _looked[0] < _ENV_LOOK_S and _looked[1] == len(os.environ)
    if fresh and (pattern is not None or not _added):
        return pattern
    _looked[:] = [now, len(os.environ)]
    named = tuple(
        sorted(
            (name, value)
            for name, value in os.environ.items()
            if len(value) >= MIN_SECRET_CHARS and _SECRET_NAME.search(name)
        )
    )
    if found == named and (pattern is not None or not (named or _added)):
        return pattern
    with _lock:
        values = {value for _, value in named} | _added
        # Longest first, so a secret that contains another is masked whole.
        ordered = sorted(values, key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        _cache = (named, pattern)
    return pattern


def redact(text: str) -> str:
    """``text`` with every secret it holds replaced by :data:`MASK` (see the module's contract)."""
    if not isinstance(text, str) or not text:
        return text
    pattern = _secrets_pattern()
    if pattern is not None:
        text = pattern.sub(MASK, text)
    if "://" in text:
        text = _URL_USERINFO.sub(rf"\g<scheme>\g<user>:{MASK}@", text)
        text = _URL_FRAGMENT.sub(rf"\g<url>#{MASK}", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(rf"\g<name>={MASK}", text)
    if " " in text and any(word in text for word in _BEARER_WORDS):
        text = _BEARER.sub(rf"\g<word>{MASK}", text)
    return text


def redact_value(value: JSON) -> JSON:
    """``value`` (plain JSON) with :func:`redact` applied to every string and key.

    The value itself when nothing in it changes, so a clean document is not copied.
    """
    stack: list[JSON] = [value]
    changed = False
    while stack and not changed:
        item = stack.pop()
        if isinstance(item, str):
            changed = redact(item) != item
        elif isinstance(item, Mapping):
            for key, child in item.items():
                if isinstance(key, str) and redact(key) != key:
                    changed = True
                    break
                stack.append(child)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return _redacted_copy(value) if changed else value


def _redacted_copy(value: JSON) -> JSON:
    root: list[JSON] = [None]
    stack: list[tuple[JSON, JSON, JSON]] = [(value, root, 0)]
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, str):
            parent[slot] = redact(item)
        elif isinstance(item, Mapping):
            copy: dict[JSON, JSON] = {}
            for key, child in item.items():
                new_key = redact(key) if isinstance(key, str) else key
                copy[new_key] = None
                stack.append((child, copy, new_key))
            parent[slot] = copy
        elif isinstance(item, (list, tuple)):
            items: list[JSON] = [None] * len(item)
            stack.extend((child, items, i) for i, child in enumerate(item))
            parent[slot] = items
        else:
            parent[slot] = item
    return root[0]


def safe_str(value: object) -> str:
    """``str(value)``; when that raises, its ``repr``; when both raise, a description of it."""
    for make in (str, repr):
        try:
            text = make(value)
            if isinstance(text, str):
                return text
        except Exception:  # the object's own method raised: try the next way to show it
            continue
    return f"<{type(value).__name__} whose __str__ and __repr__ raise>"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str, newlines: bool = True) -> str:
    r"""``text`` with control characters written as ``\x1b``-style escapes.

    Escape sequences (ESC, CSI, OSC, BEL, carriage returns, bidirectional overrides) cannot
    reach the terminal as themselves. Tabs stay; newlines stay when ``newlines`` is True and
    are written ``\n`` otherwise (for text that must stay on one line).
    """
    if text.isprintable() and (newlines or "\n" not in text):
        return text
    text = _CONTROL.sub(_escape_one, text)
    return text if newlines else text.replace("\n", "\\n")


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
