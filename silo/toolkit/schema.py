"""Builders for the JSON Schemas (Draft 2020-12) of tool inputs.

Contract: every builder returns a fresh plain dict, so a caller may extend what it gets without
touching anyone else's schema. :func:`obj` is the one way an input object is made: it always
carries ``type``, ``properties``, ``required`` and ``additionalProperties: false``, and refuses
a required name that is not a property. Every property builder takes a description, because the
schema is what a model reads to learn how to call the tool; ranges (lengths, bounds, enums,
patterns) go in the schema so the engine refuses bad input before the tool runs. Keys come out
in a fixed order (``type``, ``description``, then the constraints), so the schema an agent is
offered, and any golden recording it, stays the same text.

What is generic lives here; a world's vocabularies and id shapes (``ACC-012``, ``PO-203``)
belong to the environment, which passes them in as a ``pattern`` or an ``enum``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from silo.json_types import JSON

__all__ = [
    "actor_id",
    "DATE_PATTERN",
    "EMAIL_PATTERN",
    "QUERY_DESCRIPTION",
    "Schema",
    "choice",
    "day",
    "email",
    "flag",
    "integer",
    "matching",
    "no_input",
    "nullable",
    "number",
    "obj",
    "query",
    "text",
]

Schema = dict[str, JSON]
"""A JSON Schema as a plain dict."""

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
"""A calendar date written YYYY-MM-DD (whether it is a real date is the tool's check)."""

EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
"""Something that looks like an email address: one ``@`` and a dot after it, no spaces."""

QUERY_DESCRIPTION = "Text to look for; matched case-insensitively anywhere in the searched fields."
"""What :func:`query` tells a model about a search tool's ``query``."""


def obj(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object: only the listed properties, the named ones required.

    Args:
        properties: Each property's schema, by name, in the order a model should read them.
        required: The names a call must give; each must be one of ``properties``.

    Returns:
        ``{type: object, properties, required, additionalProperties: false}``.

    Raises:
        ValueError: A required name is not a property (the environment's mistake).
    """
    unknown = [name for name in required if name not in properties]
    if unknown:
        raise ValueError(f"required names missing from properties: {unknown}")
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def text(description: str, *, min_length: int = 1, max_length: int = 200) -> Schema:
    """A free-text string of ``min_length`` to ``max_length`` characters."""
    return {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }


def matching(description: str, pattern: str) -> Schema:
    """A string that must match ``pattern``: an id of the environment's shape, a code, a date."""
    return {"type": "string", "description": description, "pattern": pattern}


def actor_id(pattern: str, kind: str, example: str, description: str = "") -> Schema:
    """The ``actorId`` of a mutating tool: who makes the change, an id matching ``pattern``.

    Unless ``description`` words it otherwise, the model reads "Id of the active {kind} making
    this change (e.g. {example}); recorded in the audit log."
    """
    default = (
        f"Id of the active {kind} making this change (e.g. {example}); recorded in the audit log."
    )
    return matching(description or default, pattern)


def day(description: str) -> Schema:
    """A calendar date written YYYY-MM-DD."""
    return matching(description, DATE_PATTERN)


def email(description: str, *, max_length: int = 200) -> Schema:
    """An email address (see :data:`EMAIL_PATTERN`)."""
    return {
        "type": "string",
        "description": description,
        "pattern": EMAIL_PATTERN,
        "maxLength": max_length,
    }


def number(
    description: str,
    *,
    minimum: float | None = None,
    exclusive_minimum: float | None = None,
    maximum: float | None = None,
) -> Schema:
    """A number (fractions allowed) within the bounds given; a bound left out is not stated."""
    schema: Schema = {"type": "number", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if exclusive_minimum is not None:
        schema["exclusiveMinimum"] = exclusive_minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def integer(description: str, minimum: int, maximum: int, default: int | None = None) -> Schema:
    """A whole number from ``minimum`` to ``maximum``; ``default`` is stated when given."""
    schema: Schema = {
        "type": "integer",
        "description": description,
        "minimum": minimum,
        "maximum": maximum,
    }
    if default is not None:
        schema["default"] = default
    return schema


def choice(values: Iterable[str], description: str) -> Schema:
    """One string out of a fixed set (an ``enum``, in the order given)."""
    return {"type": "string", "description": description, "enum": list(values)}


def flag(description: str, default: bool | None = None) -> Schema:
    """A boolean; filters leave ``default`` out (omitted means "either"), switches state it."""
    schema: Schema = {"type": "boolean", "description": description}
    if default is not None:
        schema["default"] = default
    return schema


def nullable(schema: Schema, description: str) -> Schema:
    """``schema`` or ``null`` (null clears a link or a date), described once more at the top."""
    return {"anyOf": [schema, {"type": "null"}], "description": description}


def query() -> Schema:
    """The free-text term of a search tool (read it with :func:`silo.toolkit.search_term`)."""
    return text(QUERY_DESCRIPTION)


def no_input() -> Schema:
    """The input of a tool that takes no arguments."""
    return obj({})
