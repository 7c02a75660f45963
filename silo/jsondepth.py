"""How deep a JSON value Silo accepts, and copying any value into one without recursion.

Contract: :data:`MAX_DEPTH` is the deepest JSON document Silo writes and reads back: 1,024
levels, the limit of orjson's reader (its writer stops at 255, where the standard library
takes over). Importing this module raises the interpreter's recursion limit, never lowering
it, to :data:`RECURSION_ROOM` so that the standard library's encoder and decoder reach that
depth from any thread, however deep its stack already is. :func:`plain_copy_of` copies any
value into plain JSON without recursing, and :func:`cut_to_depth` bounds a plain JSON value
to a depth: neither ever raises for what the value's methods do.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = ["MAX_DEPTH", "RECURSION_ROOM", "NotPlain", "cut_to_depth", "depth_of", "plain_copy_of"]

MAX_DEPTH = 1024
"""The deepest JSON document Silo writes and reads back (orjson's reading limit)."""

RECURSION_ROOM = 3 * MAX_DEPTH
"""The recursion limit Silo needs: a document of MAX_DEPTH levels, from a deep call stack."""

if sys.getrecursionlimit() < RECURSION_ROOM:
    # The standard library's JSON encoder, decoder and Silo's pretty printer use one level of
    # recursion per level of nesting; at the interpreter's default (1,000) a worker thread
    # already some frames deep fails near 980 levels, a depth that depends on the caller.
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
