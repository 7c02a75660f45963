"""Validating tool input against the tool's JSON Schema (Draft 2020-12).

Contract: :func:`validator_for` gives one compiled :class:`InputValidator` per distinct schema
(cached for the process). :meth:`InputValidator.problems` returns ``None`` for valid input and
otherwise every problem as one readable line. The complete report always comes from jsonschema,
which is the authority: every faster tier only ever says "valid" where jsonschema would, and
hands everything else ("invalid", or "not sure") to jsonschema, so verdicts never depend on
which tier ran.

Valid input takes the fastest tier the schema allows. A schema's first ``COMPILE_AFTER``
checks use a small interpreter (compiling costs more than a single short rollout's first calls
save); then it is compiled once for the process. Schemas made only of the everyday keywords
(one ``type`` per subschema; properties, required, additionalProperties; string lengths,
pattern and string enums; numeric bounds; items and item counts; annotations) become one
generated Python function of plain ``if`` statements (:mod:`silo.schema.codegen`), several
times faster than anything else here; the bridge calls it directly (``InputValidator.quick``).
Other schemas whose keywords mean the same in draft-07 and 2020-12 use a fastjsonschema
function, else a jsonschema validator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from silo.jsonio import canonical
from silo.schema.interp import Invalid, check, interpretable

__all__ = ["InputValidator", "validator_for", "schema_problems"]

_FAST_KEYWORDS = frozenset(
    [
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "description",
        "title",
        "default",
        "examples",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "multipleOf",
        "minProperties",
        "maxProperties",
        "format",
    ]
)
_SCHEMA_MAPS = ("properties",)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")


def _fast_safe(schema: Any) -> bool:
    """True when every keyword is one whose draft-07 meaning equals its 2020-12 meaning."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or not set(schema) <= _FAST_KEYWORDS:
        return False
    for key in _SCHEMA_MAPS:
        if key in schema and not all(_fast_safe(s) for s in schema[key].values()):
            return False
    for key in _SCHEMA_LISTS:
        if key in schema and not all(_fast_safe(s) for s in schema[key]):
            return False
    for key in ("items", "not", "additionalProperties"):
        if key in schema and not (isinstance(schema[key], bool) or _fast_safe(schema[key])):
            return False
    return True


COMPILE_AFTER = 64  # checks of one schema before it is compiled


class InputValidator:
    """Validation of input against one schema; ``quick``, once set, is the generated tier.

    ``quick(value)`` true means valid; false means "ask :meth:`problems`" (invalid, or a value
    it is not sure about). Callers on a hot path test ``quick`` first and skip a call.
    """

    __slots__ = ("schema", "quick", "_fast", "_full", "_cold", "_checks")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self.quick: Callable[[Any], bool] | None = None
        self._full: Any = None
        self._fast: Callable[[Any], Any] | None = None
        self._cold = False  # interpreting until COMPILE_AFTER checks
        self._checks = 0
        # The generated tier's keywords are all fast-safe: such schemas interpret first too.
        if _fast_safe(schema):
            if interpretable(schema):
                self._cold = True
            else:
                self._compile()

    def _compile(self) -> None:
        self._cold = False
        # Imported here: a single short rollout only ever interprets, and never pays for it.
        from silo.schema.codegen import compile_check

        self.quick = compile_check(self.schema)  # a few hundred µs, once per schema
        if self.quick is not None:
            return
        import fastjsonschema

        try:
            self._fast = fastjsonschema.compile(dict(self.schema), use_default=False)
        except Exception:  # an exotic schema fastjsonschema cannot compile
            self._fast = None

    def _full_validator(self) -> Any:
        if self._full is None:
            from jsonschema import Draft202012Validator

            self._full = Draft202012Validator(self.schema)
        return self._full

    def problems(self, value: Any) -> list[str] | None:
        quick = self.quick
        if quick is not None:
            if quick(value):
                return None
            return schema_problems(self._full_validator(), value) or None
        if self._cold:
            self._checks += 1
            if self._checks >= COMPILE_AFTER:
                self._compile()
            try:
                check(self.schema, value)
                return None
            except Invalid:
                found = schema_problems(self._full_validator(), value)
                return found or None
            except RecursionError:
                pass  # absurdly deep input: the compiled tiers decide below
        fast = self._fast
        if fast is not None:
            try:
                fast(value)
                return None
            except Exception:  # invalid (or a fastjsonschema quirk): jsonschema decides below
                pass
        elif self._full_validator().is_valid(value):
            return None
        found = schema_problems(self._full_validator(), value)
        return found or None


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def schema_problems(validator: Any, value: Any) -> list[str]:
    """Every schema violation of ``value`` as one line each, required and unknown keys first."""
    required: list[str] = []
    unknown: list[str] = []
    other: list[str] = []
    for error in validator.iter_errors(value):
        where = _path(error.absolute_path)
        if error.validator == "required":
            name = str(error.message).split("'")[1] if "'" in str(error.message) else "?"
            required.append(f'"{where + "." if where else ""}{name}" is required')
        elif error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            declared = list(error.schema.get("properties", {}))
            hint = f"; expected one of: {', '.join(declared)}" if declared else ""
            for key in error.instance:
                if key not in declared:
                    unknown.append(
                        f'"{where + "." if where else ""}{key}" is not a parameter{hint}'
                    )
        else:
            other.append(f'"{where}": {error.message}' if where else str(error.message))
    return required + unknown + other


_CACHE: dict[str, InputValidator] = {}


def validator_for(schema: Mapping[str, Any]) -> InputValidator:
    key = canonical(schema)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = InputValidator(schema)
    return found
