"""Validating tool input against the tool's JSON Schema (Draft 2020-12).

Contract: :func:`validator_for` gives the one :class:`InputValidator` of a schema, compiled once
per process. :meth:`InputValidator.problems` returns ``None`` for valid input and otherwise
every problem as one readable line.

Two validators and no more. The fast check is the schema compiled to one plain Python function
(:mod:`silo.schema.codegen`): it says "valid" only where jsonschema would, and hands everything
else ("invalid", or "not sure") to jsonschema, the authority, which gives the verdict and writes
the full report. So verdicts never depend on which of the two ran. A schema outside the
generated subset is checked by jsonschema alone. The pair was chosen by benchmark (see
``docs/performance.md``): fastjsonschema was twice as slow per call and five times as slow to
compile, and a schema interpreter for the first calls saved nothing once compiling got cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from silo.json_types import JSON
from silo.jsonio import canonical
from silo.schema.codegen import compile_check

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["InputValidator", "ValidatorCache", "schema_problems", "validator_for"]


class InputValidator:
    """Validation of input against one schema: a fast verdict, then jsonschema's full report.

    ``quick(value)`` true means valid; false means "ask :meth:`problems`" (invalid, or a value
    the fast check is not sure about). A caller on a hot path tests ``quick`` first and calls
    :meth:`problems` only when it is false.
    """

    __slots__ = ("schema", "quick", "_full")

    def __init__(self, schema: Mapping[str, JSON]) -> None:
        """Compile ``schema``'s fast check; jsonschema is built on the first invalid input.

        jsonschema is imported only then, so a rollout whose input is always valid never pays
        for importing it.
        """
        self.schema = schema
        self._full: Draft202012Validator | None = None
        generated = compile_check(schema)
        self.quick: Callable[[JSON], bool] = (
            generated if generated is not None else self._full_is_valid
        )

    def _full_validator(self) -> Draft202012Validator:
        if self._full is None:
            from jsonschema import Draft202012Validator

            self._full = Draft202012Validator(self.schema)
        return self._full

    def _full_is_valid(self, value: JSON) -> bool:
        valid: bool = self._full_validator().is_valid(value)
        return valid

    def problems(self, value: JSON) -> list[str] | None:
        """``None`` when ``value`` is valid, else every schema violation, one line each."""
        if self.quick(value):
            return None
        return schema_problems(self._full_validator(), value) or None


def _path(parts: Iterable[str | int]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def schema_problems(validator: Draft202012Validator, value: JSON) -> list[str]:
    """Every schema violation of ``value`` as one line each, required and unknown keys first.

    Missing and unknown parameters lead because they are what an agent most often gets wrong
    and the cheapest to fix; an unknown key names the declared ones, so the fix is in the text.
    """
    required: list[str] = []
    unknown: list[str] = []
    other: list[str] = []
    for error in validator.iter_errors(value):
        where = _path(error.absolute_path)
        if error.validator == "required":
            name = str(error.message).split("'")[1] if "'" in str(error.message) else "?"
            required.append(f'"{where + "." if where else ""}{name}" is required')
        elif error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            schema = error.schema if isinstance(error.schema, Mapping) else {}
            declared = list(schema.get("properties", {}))
            hint = f"; expected one of: {', '.join(declared)}" if declared else ""
            for key in error.instance:
                if key not in declared:
                    unknown.append(
                        f'"{where + "." if where else ""}{key}" is not a parameter{hint}'
                    )
        else:
            other.append(f'"{where}": {error.message}' if where else str(error.message))
    return required + unknown + other


class ValidatorCache:
    """Compiled validators, one per distinct schema, found by the schema object itself.

    A tool call looks its schema up by identity (a dict lookup, no serialising); a schema
    object seen for the first time is looked up by its canonical JSON text, so equal schemas
    of reloaded environments share one compiled validator. The identity table keeps each schema
    it has seen alive (so an id is never reused while listed) and is emptied when it reaches
    ``max_schemas``, which bounds it in a process that loads environments again and again.
    """

    def __init__(self, max_schemas: int = 4096) -> None:
        """An empty cache holding at most ``max_schemas`` entries in each table."""
        self.max_schemas = max_schemas
        self._by_id: dict[int, tuple[Mapping[str, JSON], InputValidator]] = {}
        self._by_text: dict[str, InputValidator] = {}

    def get(self, schema: Mapping[str, JSON]) -> InputValidator:
        """The validator of ``schema``, compiled on first sight of an equal schema."""
        entry = self._by_id.get(id(schema))
        if entry is not None and entry[0] is schema:
            return entry[1]
        return self._add(schema)

    def _add(self, schema: Mapping[str, JSON]) -> InputValidator:
        key = canonical(schema)
        found = self._by_text.get(key)
        if found is None:
            if len(self._by_text) >= self.max_schemas:
                self._by_text.clear()
            found = self._by_text[key] = InputValidator(schema)
        if len(self._by_id) >= self.max_schemas:
            self._by_id.clear()
        self._by_id[id(schema)] = (schema, found)
        return found


validator_for = ValidatorCache().get
"""The process's validator of a schema (:meth:`ValidatorCache.get` of one shared cache).

Shared because compiling is a per-process cost that every rollout of every world would
otherwise pay again; what it holds is derived from the schemas alone, never from a run.
"""
