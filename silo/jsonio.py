"""JSON helpers shared by the artifacts: canonical text, pretty files, atomic writes, copies.

Contract: ``pretty`` gives the exact text of every JSON artifact (2-space indent, UTF-8, a
trailing newline); ``canonical`` gives a key-order-independent text used for equality; and
``write_json_atomic`` never leaves a half-written file (temporary file, then ``os.replace``).
``json_copy`` gives the compact text of a value and a fresh copy read back from it: the same
copy and the same errors as ``compact`` with ``exact_loads``, only faster (orjson where it
provably agrees, the standard library everywhere else).
"""

from __future__ import annotations

import json
import os
from json.encoder import encode_basestring as _encode_str  # the C function when available
from pathlib import Path
from typing import Any

__all__ = [
    "compact",
    "canonical",
    "compact_encoder",
    "exact_loads",
    "json_copy",
    "json_copy_utf8",
    "pretty",
    "write_json_atomic",
    "write_text_atomic",
]

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def compact_encoder(encoder: json.JSONEncoder) -> Any:
    """``encoder.encode`` for a compact (``indent=None``) encoder, minus its per-call setup.

    The standard ``encode`` builds a C encoder and a circular-reference registry on every call;
    this one is built once and skips the registry. A circular value (or one nested deeper than
    the recursion limit) falls back to ``encoder.encode``, which raises exactly what it always
    raised, so the text and the errors are unchanged.
    """
    from json.encoder import c_make_encoder  # type: ignore[attr-defined]

    if c_make_encoder is None or encoder.indent is not None:
        return encoder.encode
    from json.encoder import encode_basestring_ascii

    c_encode = c_make_encoder(
        None,
        encoder.default,
        encode_basestring_ascii if encoder.ensure_ascii else _encode_str,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )
    slow = encoder.encode
    join = "".join

    def encode(value: Any) -> str:
        try:
            return join(c_encode(value, 0))
        except RecursionError:
            return slow(value)

    return encode


def _exact_loads() -> Any:
    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

    def loads(text: str) -> Any:
        """``json.loads`` for text this module's encoders made (one value, no padding)."""
        return scan(text, 0)[0]

    return loads


exact_loads = _exact_loads()


compact = compact_encoder(
    json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
)
"""Compact JSON of a value that must be JSON (raises TypeError/ValueError otherwise)."""
_canonical = compact_encoder(
    json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False, default=repr
    )
)


def canonical(value: Any) -> str:
    """Key-order-independent JSON text, for comparing two values structurally."""
    return _canonical(value)


# orjson makes the copy that every tool input and output needs about ten times faster than the
# standard library. It is imported on first use, not with this module: its import costs ~0.6 ms
# even after silo's own imports (and ~12 ms in a bare interpreter), which start-up must not pay.
# None until then; afterwards (dumps, loads, option), or False when orjson is not installed.
_fast: Any = None


def _load_fast() -> Any:
    global _fast
    try:
        import orjson
    except ImportError:  # a hard dependency, but the standard library path is always exact
        _fast = False
    else:
        # datetime and dataclass instances raise instead of being serialised natively (the
        # standard library rejects them too); other leniencies are caught by the comparison.
        option = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
        _fast = (orjson.dumps, orjson.loads, option)
    return _fast


def json_copy(value: Any) -> tuple[str, Any]:
    """The compact JSON text of ``value`` and a fresh copy of ``value`` read back from it.

    The copy shares no container with ``value`` and equals ``exact_loads(compact(value))``; a
    value that is not JSON raises what ``compact`` raises (TypeError, ValueError). orjson does
    the work where its result provably agrees: its copy must compare equal to ``value``, which
    rules out everything it is more lenient about (NaN and the infinities become null, tuples
    lists, enums and UUIDs their values: none compares equal). Whatever it rejects (non-string
    keys, integers beyond 64 bits, lone surrogates, nesting deeper than 255, datetimes,
    dataclasses, cycles) goes to the standard library, which gives the verdict and the error.

    The text is ``compact``'s, except that a float below 1e-4 in magnitude may be spelt as
    ECMAScript does (``0.00001`` for ``1e-05``, ``1e-7`` for ``1e-07``): the same number, valid
    JSON; spotting such floats means scanning every text, a tenth of a call's budget. Containers
    are read as ``dict``/``list`` store them: a dict subclass overriding ``items`` would be
    serialised by its stored items (the standard library calls ``items``), and an object whose
    own ``__eq__`` claims to equal its JSON form (an enum equal to its value) is taken at its
    word.
    """
    text, copy = json_copy_utf8(value)
    return (text.decode() if isinstance(text, bytes) else text), copy


def json_copy_utf8(value: Any) -> tuple[bytes | str, Any]:
    """:func:`json_copy`, with the text as UTF-8 ``bytes`` when orjson made it (``str`` when
    the standard library did), for a caller that stores it and decodes only when read."""
    fast = _fast
    if fast is None:
        fast = _load_fast()
    if fast:
        dumps, loads, option = fast
        try:
            data = dumps(value, option=option)
            copy = loads(data)
            if copy == value:
                return data, copy
        except Exception:  # orjson refused, or ``==`` raised: the standard library decides
            pass
    text = compact(value)
    return text, exact_loads(text)


class _Unusual(Exception):
    """A value the fast pretty printer leaves to ``json.dumps`` (which explains the error)."""


_float_repr = float.__repr__
_int_repr = int.__repr__
_INF = float("inf")


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INF:
        return "Infinity"
    if value == -_INF:
        return "-Infinity"
    return _float_repr(value)


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return _encode_str(key)
    if isinstance(key, float):
        return _encode_str(_float_text(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _encode_str(_int_repr(key))
    raise _Unusual


def _pretty(value: Any, indent: str) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` at nesting ``indent`` ("\\n" + spaces).

    Same checks in the same order as the standard library's encoder, so the text is identical;
    anything it would reject (or call ``default`` for) raises :class:`_Unusual` instead. Plain
    strings, numbers, booleans and nulls inside containers are formatted inline (most values).
    """
    cls = type(value)
    if cls is str:
        return _encode_str(value)
    if cls is dict or (cls is not list and isinstance(value, dict)):
        if not value:
            return "{}"
        inner = indent + "  "
        parts = []
        for key, item in value.items():
            ktext = _encode_str(key) if type(key) is str else _key_text(key)
            kind = type(item)
            if kind is str:
                text = _encode_str(item)
            elif item is None:
                text = "null"
            elif item is True:
                text = "true"
            elif item is False:
                text = "false"
            elif kind is int:
                text = _int_repr(item)
            elif kind is float:
                text = _float_text(item)
            else:
                text = _pretty(item, inner)
            parts.append(f"{inner}{ktext}: {text}")
        return "{" + ",".join(parts) + indent + "}"
    if cls is list or cls is tuple or isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = indent + "  "
        parts = []
        for item in value:
            kind = type(item)
            if kind is str:
                parts.append(inner + _encode_str(item))
            elif kind is dict:
                parts.append(inner + _pretty(item, inner))
            elif item is None:
                parts.append(inner + "null")
            elif kind is int:
                parts.append(inner + _int_repr(item))
            else:
                parts.append(inner + _pretty(item, inner))
        return "[" + ",".join(parts) + indent + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if cls is int:
        return _int_repr(value)
    if cls is float:
        return _float_text(value)
    if isinstance(value, str):
        return _encode_str(value)
    if isinstance(value, int):
        return _int_repr(value)
    if isinstance(value, float):
        return _float_text(value)
    raise _Unusual


def pretty(value: Any) -> str:
    try:
        return _pretty(value, "\n") + "\n"
    except (_Unusual, RecursionError):
        # Not plain JSON (or absurdly deep): the standard encoder gives the same text or the
        # same error it always gave.
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    data = text.encode("utf-8")
    fd = os.open(tmp, _WRITE_FLAGS, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, target)


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, pretty(value))
