"""JSON text shared by every layer: canonical text, the artifacts' pretty text, exact copies.

Contract: ``pretty`` gives the exact text of every JSON artifact (2-space indent, UTF-8, a
trailing newline); ``canonical`` gives a key-order-independent text used for equality. Writing
files (atomically, redacted) is the artifacts layer's job: :mod:`silo.artifacts.atomic`.
``json_copy`` gives the compact text of a value and a fresh copy read back from it: the same
copy and the same errors as ``compact`` with ``exact_loads``, only faster (orjson where it
provably agrees, the standard library everywhere else). Values and texts deeper than the
standard library reaches without raising the interpreter's recursion limit (which this module
never touches) go to :func:`silo.jsondepth.dumps_deep` and :func:`silo.jsondepth.loads_deep`,
up to :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

from silo.json_types import JSON
from silo.jsondepth import MAX_DEPTH as MAX_DEPTH
from silo.jsondepth import dumps_deep, loads_deep

__all__ = [
    "compact",
    "canonical",
    "compact_encoder",
    "exact_loads",
    "json_copy",
    "plain_copy",
    "json_copy_utf8",
    "pretty",
]


OrjsonFunctions = tuple[Callable[..., bytes], Callable[[bytes], JSON], int]


def orjson_functions() -> OrjsonFunctions | None:
    """The ``(dumps, loads, option)`` of orjson for :func:`json_copy`, or None without orjson.

    orjson makes the copy that every tool input and output needs about ten times faster than
    the standard library. It is a hard dependency, but the standard library path is always
    exact, so a missing orjson only costs speed. datetime and dataclass instances pass through
    to raise instead of being serialised natively (the standard library rejects them too);
    orjson's other leniencies are caught by comparing its copy with the value.
    """
    try:
        import orjson
    except ImportError:
        return None
    option = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
    return orjson.dumps, orjson.loads, option


_ORJSON = orjson_functions()  # fixed at import: the hot path reads it, nothing rebinds it


def _orjson_round_trip(value: JSON, option: int) -> tuple[bytes, JSON] | None:
    """The text orjson writes for ``value`` (with ``option``) and the copy read back, or None.

    None unless the copy compares equal to ``value``: that rules out everything orjson is more
    lenient about (NaN and the infinities become null, tuples lists, enums and UUIDs their
    values), and whatever it refuses (non-string keys, integers beyond 64 bits, lone
    surrogates, nesting deeper than 255, cycles) or ``==`` raises on. Every fast path of this
    module starts here; each adds what its own text needs.
    """
    fast = _ORJSON
    if fast is None:
        return None
    dumps, loads, _ = fast
    try:
        data = dumps(value, option=option)
        copied = loads(data)
        if copied == value:
            return data, copied
    except Exception:  # orjson refused, or ``==`` raised: the caller's exact path decides
        pass
    return None


def compact_encoder(encoder: json.JSONEncoder) -> Callable[[JSON], str]:
    """The function that writes values as one line of JSON with ``encoder``'s settings.

    ``encoder`` must be compact (``indent=None``): the text is one line, as a trace event or an
    equality key needs. The text and every error are ``encoder.encode``'s: TypeError for what
    is not JSON, ValueError for NaN when ``allow_nan`` is off or for a circular value. Each call
    first tries a twin encoder without the circular-reference registry (about twice as fast on
    nested values); a circular value makes that one recurse until RecursionError, and then
    ``encoder.encode`` itself runs and raises what it always raised. A subclass of
    :class:`json.JSONEncoder` may override anything, so it gets its own ``encode`` unchanged.
    """
    if encoder.indent is not None:
        raise ValueError("compact_encoder needs an encoder with indent=None")
    if type(encoder) is not json.JSONEncoder or not encoder.check_circular:
        return encoder.encode
    exact = _exact_compact(encoder)
    option = _orjson_compact_option(encoder)
    if option is None:
        return exact

    def encode(value: JSON) -> str:
        # orjson's text where it provably is the encoder's (see pretty): it reads back equal
        # to ``value`` and holds no small float, which the two spell differently.
        found = _orjson_round_trip(value, option)
        if found is not None and not _small_float_in(found[0]):
            return found[0].decode()
        return exact(value)

    return encode


def _orjson_compact_option(encoder: json.JSONEncoder) -> int | None:
    """The orjson option that writes ``encoder``'s text, or None where orjson cannot.

    orjson writes compact text, UTF-8 as it is (``ensure_ascii=False``), keys in insertion order
    or, with ``OPT_SORT_KEYS``, in code-point order (UTF-8 byte order is code-point order):
    exactly such encoders get it.
    """
    if _ORJSON is None or encoder.ensure_ascii:
        return None
    if (encoder.item_separator, encoder.key_separator) != (",", ":"):
        return None
    import orjson

    return _ORJSON[2] | (orjson.OPT_SORT_KEYS if encoder.sort_keys else 0)


def _exact_compact(encoder: json.JSONEncoder) -> Callable[[JSON], str]:
    """``encoder.encode``, first tried without the circular-reference registry."""
    unchecked = json.JSONEncoder(
        skipkeys=encoder.skipkeys,
        ensure_ascii=encoder.ensure_ascii,
        check_circular=False,
        allow_nan=encoder.allow_nan,
        sort_keys=encoder.sort_keys,
        separators=(encoder.item_separator, encoder.key_separator),
        default=encoder.default,
    ).encode
    checked = encoder.encode
    separators = (encoder.item_separator, encoder.key_separator)
    sort_keys, ensure_ascii = encoder.sort_keys, encoder.ensure_ascii

    def encode(value: JSON) -> str:
        try:
            return unchecked(value)
        except RecursionError:
            pass
        try:
            return checked(value)
        except RecursionError:  # deep, not circular: the same text, written without recursion
            return dumps_deep(
                value, sort_keys=sort_keys, ensure_ascii=ensure_ascii, separators=separators
            )

    return encode


_decode = json.JSONDecoder().decode


def exact_loads(text: str) -> JSON:
    """``json.loads`` for text this module's encoders made (deep text read without recursion)."""
    try:
        return _decode(text)
    except RecursionError:
        return loads_deep(text)


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
compact = compact_encoder(_COMPACT)
"""Compact JSON of a value that must be JSON (raises TypeError/ValueError otherwise)."""
_compact_exact = _exact_compact(_COMPACT)  # for callers whose orjson attempt already failed
_canonical = compact_encoder(
    json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False, default=repr
    )
)
# A JSON string literal exactly as ``json.dumps(text, ensure_ascii=False)`` writes it.
_encode_str: Callable[[str], str] = json.JSONEncoder(ensure_ascii=False).encode


def canonical(value: JSON) -> str:
    """Key-order-independent JSON text, for comparing two values structurally."""
    return _canonical(value)


def json_copy(value: JSON) -> tuple[str, JSON]:
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


def json_copy_utf8(value: JSON) -> tuple[bytes | str, JSON]:
    """:func:`json_copy`, with the text as UTF-8 ``bytes`` when orjson made it.

    The text is ``str`` when the standard library made it. For a caller that stores the text
    and decodes it only when it is read (the trace).
    """
    fast = _ORJSON
    found = None if fast is None else _orjson_round_trip(value, fast[2])
    if found is not None:
        return found
    text = _compact_exact(value)  # the standard library decides: the text or the error
    return text, exact_loads(text)


def plain_copy(value: JSON) -> JSON:
    """A deep copy of ``value`` that shares no container with it and compares equal to it.

    orjson copies where its copy provably equals ``value`` (plain JSON data, read from dict
    and list storage, so a copy-on-write view is copied as it stands without copying into
    its world; a value equal to its JSON form, such as an ``IntEnum``, comes back as that
    form); anything else, tuples and sets and NaN included, goes to ``copy.deepcopy``.
    Five to ten times faster than ``copy.deepcopy`` on records.
    """
    fast = _ORJSON
    found = None if fast is None else _orjson_round_trip(value, fast[2])
    return copy.deepcopy(value) if found is None else found[1]


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


def _key_text(key: JSON) -> str:
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


_PRETTY_DEPTH = 2 * 64 + 1  # the indent (a newline, 2 spaces a level) of the 64th level


def _pretty(value: JSON, indent: str) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` at nesting ``indent`` (newline, spaces).

    Same checks in the same order as the standard library's encoder, so the text is identical;
    anything it would reject (or call ``default`` for) raises :class:`_Unusual` instead. Plain
    strings, numbers, booleans and nulls inside containers are formatted inline (most values).
    """
    cls = type(value)
    if cls is str:
        return _encode_str(value)
    if len(indent) > _PRETTY_DEPTH:
        # Each level copies the text of the levels inside it: quadratic in the depth, where
        # ``json.dumps`` streams its pieces.
        raise _Unusual
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


def _orjson_pretty_option() -> int | None:
    """The orjson option for 2-space-indented text (None without orjson)."""
    if _ORJSON is None:
        return None
    import orjson

    return _ORJSON[2] | orjson.OPT_INDENT_2


_PRETTY_OPTION = _orjson_pretty_option()  # fixed at import, like _ORJSON


def _small_float_in(data: bytes) -> bool:
    """Whether orjson's ``data`` may hold a float below 1e-4, which it writes otherwise.

    orjson writes 0.00001 and 2.5e-7 where Python's repr (and so json) writes 1e-05 and
    2.5e-07: a digit followed by ``e-`` or ``.0000`` sends the value to the exact path (text that
    merely looks like one costs speed, never a different byte). ``bytes.find``, not a regex:
    this runs on every artifact, and a pattern that starts with a digit class is scanned at
    every position (~20 ns a byte here).
    """
    for mark in (b"e-", b".0000"):
        at = data.find(mark)
        while at > 0:
            if 48 <= data[at - 1] <= 57:  # an ASCII digit
                return True
            at = data.find(mark, at + 1)
    return False


def pretty(value: JSON) -> str:
    """The text of a JSON artifact: ``json.dumps(value, indent=2, ensure_ascii=False)`` + newline.

    The same text, byte for byte. orjson writes it where it provably agrees: its text must read
    back equal to ``value`` (which rules out NaN, enums, UUIDs, tuples and fragments it writes
    where json would not, or would write otherwise) and hold no small float (which the two
    format differently). Otherwise a hand-written printer with the standard encoder's checks, two
    to three times faster than ``json.dumps``; anything unusual goes to ``json.dumps`` itself,
    which gives its own text or its own error.
    """
    option = _PRETTY_OPTION
    found = None if option is None else _orjson_round_trip(value, option)
    if found is not None and not _small_float_in(found[0]):
        return found[0].decode() + "\n"
    try:
        return _pretty(value, "\n") + "\n"
    except (_Unusual, RecursionError):
        pass
    # Not plain JSON, or deep: the standard encoder gives the same text or the same error it
    # always gave; too deep for it, the text it would give is written without recursion.
    try:
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    except RecursionError:
        return dumps_deep(value, indent=2) + "\n"
