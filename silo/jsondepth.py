"""How deep a JSON value Silo accepts, and copying any value into one without recursion.

Contract: :data:`MAX_DEPTH` is the deepest JSON document Silo writes and reads back: 1,024
levels, the limit of orjson's reader. Nothing here touches the interpreter's recursion limit
(a process-wide setting that belongs to the program, not to a library): the standard
library's encoder and decoder recurse once per level and stop near 1,000 levels less the
caller's stack, and orjson's writer stops at 255, so values deeper than those are written by
:func:`dumps_deep` and read by :func:`loads_deep`, neither of which recurses (Silo's writers
and its file reader fall back to them). A program may call :func:`make_recursion_room` at its
start so that code reading artifacts with the standard library (its own, or Silo's readers of
run folders) reaches :data:`MAX_DEPTH` too: Silo's console scripts do.
:func:`plain_copy_of` copies any value into plain JSON without recursing, and
:func:`cut_to_depth` bounds a plain JSON value to a depth: neither ever raises for what the
value's methods do.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import Any

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = [
    "MAX_DEPTH",
    "RECURSION_ROOM",
    "NotPlain",
    "cut_to_depth",
    "depth_of",
    "dumps_deep",
    "loads_deep",
    "make_recursion_room",
    "plain_copy_of",
]

MAX_DEPTH = 1024
"""The deepest JSON document Silo writes and reads back (orjson's reading limit)."""

RECURSION_ROOM = 3 * MAX_DEPTH
"""The recursion limit the standard library's JSON needs for MAX_DEPTH from a deep stack."""


def make_recursion_room() -> None:
    """Raise the interpreter's recursion limit to :data:`RECURSION_ROOM`, never lowering it.

    Process-wide, so for a program's entry point (Silo's console scripts call it), never done
    on import: the standard library's JSON reader and writer, and ``==`` or ``copy.deepcopy``
    on a value, recurse once per level, and at the default limit (1,000) stop short of
    :data:`MAX_DEPTH` by however deep the caller's stack already is.
    """
    if sys.getrecursionlimit() < RECURSION_ROOM:
        sys.setrecursionlimit(RECURSION_ROOM)


class NotPlain(SiloException):
    """A value that is not plain JSON (a cycle, a set, NaN, a non-string key, ...)."""


_SCALARS = (str, int, bool, type(None))


def depth_of(value: JSON, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of a plain JSON ``value`` (a scalar is 0), counted up to ``limit + 1``."""
    deepest = 0
    stack: list[tuple[JSON, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if type(item) is dict:
            items: Iterable[JSON] = item.values()
        elif type(item) is list:
            items = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth) for child in items)
    return deepest


def plain_copy_of(value: JSON, limit: int) -> JSON:
    """A plain ``dict``/``list`` copy of ``value``, its containers below ``limit`` levels kept.

    A container deeper than ``limit`` becomes the string ``"…"`` (so a deep value is cut, not
    refused). Raises :class:`NotPlain` for anything JSON cannot hold as it stands: cycles,
    non-string keys, NaN, sets, objects; never for what such an object's methods do, since
    only exact ``dict``/``list``/``tuple`` and scalar types are looked into.
    """
    root: list[JSON] = [None]
    # Each entry: the source value, the container that receives its copy, the slot, depth,
    # and the ids of the containers above it (a cycle returns to one of them).
    stack: list[tuple[JSON, JSON, JSON, int, frozenset[int]]] = [(value, root, 0, 0, frozenset())]
    while stack:
        item, parent, slot, depth, above = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            parent[slot] = item
        elif kind is float:
            if not math.isfinite(item):
                raise NotPlain("NaN or Infinity")
            parent[slot] = item
        elif kind is dict or kind is list or kind is tuple:
            if id(item) in above:
                raise NotPlain("a value that contains itself")
            if depth >= limit:
                parent[slot] = "…"
                continue
            inner = above | {id(item)}
            if kind is dict:
                copy: JSON = {}
                for key, child in item.items():
                    if type(key) is not str:
                        raise NotPlain(f"a {type(key).__name__} key")
                    copy[key] = None
                    stack.append((child, copy, key, depth + 1, inner))
            else:
                copy = [None] * len(item)
                stack.extend((child, copy, i, depth + 1, inner) for i, child in enumerate(item))
            parent[slot] = copy
        else:
            raise NotPlain(f"a {kind.__name__}")
    return root[0]


def cut_to_depth(value: JSON, limit: int) -> JSON:
    """A plain JSON ``value`` with every container deeper than ``limit`` replaced by ``"…"``."""
    return plain_copy_of(value, limit)


_END: Any = object()
_first = itemgetter(0)


def dumps_deep(
    value: Any,
    indent: int | None = None,
    sort_keys: bool = False,
    ensure_ascii: bool = False,
    separators: tuple[str, str] | None = None,
) -> str:
    """``json.dumps(value, ...)`` of a plain JSON value, the same text, without recursion.

    For values the standard library cannot write for their depth. Raises ``RecursionError``
    (as ``json.dumps`` would) for a value nested deeper than :data:`MAX_DEPTH`, one that
    contains itself, or one that is not plain JSON (exact ``dict`` with ``str`` keys, ``list``,
    ``tuple``, ``str``, ``int``, finite ``float``, ``bool``, ``None``): those keep the
    standard library's verdict, which that error stands for.
    """
    item_sep, key_sep = separators or ((",", ": ") if indent is not None else (", ", ": "))
    string: Callable[[str], str] = json.JSONEncoder(ensure_ascii=ensure_ascii).encode
    out: list[str] = []
    # Each open container: its items left, whether it is a dict, its id, items written so far.
    stack: list[list[Any]] = []
    open_ids: set[int] = set()

    def pad(level: int) -> str:
        return "" if indent is None else "\n" + " " * (indent * level)

    def emit(item: Any) -> None:
        kind = type(item)
        if kind is str:
            out.append(string(item))
        elif item is None or item is True or item is False:
            out.append("null" if item is None else "true" if item else "false")
        elif kind is int:
            out.append(int.__repr__(item))
        elif kind is float and math.isfinite(item):
            out.append(float.__repr__(item))
        elif kind is dict or kind is list or kind is tuple:
            if id(item) in open_ids or len(stack) >= MAX_DEPTH:
                raise RecursionError("a value nested too deeply (or containing itself) for JSON")
            if not item:
                out.append("{}" if kind is dict else "[]")
                return
            items: Iterator[Any]
            if kind is dict:
                pairs = sorted(item.items(), key=_first) if sort_keys else item.items()
                items = iter(pairs)
            else:
                items = iter(item)
            out.append("{" if kind is dict else "[")
            open_ids.add(id(item))
            stack.append([items, kind is dict, id(item), 0])
        else:
            raise RecursionError(f"a {kind.__name__} nested too deeply for JSON")

    emit(value)
    while stack:
        frame = stack[-1]
        item: Any = next(frame[0], _END)
        if item is _END:
            stack.pop()
            open_ids.discard(frame[2])
            out.append(pad(len(stack)) + ("}" if frame[1] else "]"))
            continue
        if frame[3]:
            out.append(item_sep)
        frame[3] += 1
        out.append(pad(len(stack)))
        if frame[1]:
            key, item = item
            if type(key) is not str:
                raise RecursionError("a dict key that is not a string, nested too deeply")
            out.append(string(key) + key_sep)
        emit(item)
    return "".join(out)


def loads_deep(text: str | bytes) -> Any:
    """The JSON value in ``text``, read without Python recursion, up to :data:`MAX_DEPTH` levels.

    For text the standard library's reader cannot read for its depth. Raises
    ``RecursionError`` when the text nests deeper than :data:`MAX_DEPTH` or orjson cannot read
    it (integers beyond 64 bits, NaN, lone surrogates): the standard library's verdict stands.
    """
    import orjson

    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, UnicodeEncodeError, TypeError):
        raise RecursionError(f"JSON text nested deeper than {MAX_DEPTH:,} levels") from None
