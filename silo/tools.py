"""Tools: what an agent may do to a world.

Contract: a :class:`Tool` is a name, a description, a JSON Schema (Draft 2020-12) for its input
object and ``run(state, input)``. The engine validates every call against the schema before
``run`` executes, and copies whatever ``run`` returns before the agent sees it. ``run`` signals a
deliberate, agent-readable refusal by raising :class:`ToolError`; any other exception is counted
as a crash of the tool (``tool_crashed``).

Two ways to write one: :func:`define_tool` with an explicit schema, or the :func:`tool`
decorator, which derives the schema from a typed signature and its docstring (pydantic).
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = ["Tool", "ToolError", "define_tool", "tool"]

RunFn = Callable[[Any, dict[str, JSON]], Any]
"""A tool's body: ``run(state, input)`` with the validated input object; returns JSON."""


class ToolError(SiloException):
    """A refusal the agent can read and act on.

    Conventional codes: ``invalid_input``, ``not_found``, ``invalid_state``, ``not_allowed``,
    ``conflict``, ``limit_exceeded``; any string is allowed.
    """

    def __init__(self, code: str, message: str, details: Mapping[str, JSON] | None = None) -> None:
        """Refuse with ``code`` (what kind of refusal), ``message`` and optional ``details``.

        ``message`` is what the agent reads, so it should say what to do instead; ``details``
        must be JSON and is copied, so later changes to the mapping do not leak into the result.
        """
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = dict(details) if details is not None else None

    def to_output(self) -> dict[str, JSON]:
        """The error result the agent sees: ``{code, message}``, plus ``details`` when given."""
        out: dict[str, JSON] = {"code": self.code, "message": self.message}
        if self.details is not None:
            out["details"] = self.details
        return out


@dataclass(frozen=True, eq=False)
class Tool:
    """One capability offered to the agent; build it with :func:`define_tool` or :func:`tool`.

    Attributes:
        name: What the agent calls it by; unique within an environment.
        description: What it does and when to use it, as the agent reads it.
        input_schema: JSON Schema (Draft 2020-12) of the input object; every call is validated
            against it before ``run`` executes, and invalid input never reaches ``run``.
        run: ``run(state, input)``, the tool's body (see :data:`RunFn`).
        read_only: A promise that ``run`` does not change the state. The engine does not
            check it; ``silo-ls`` shows it, so agents and people can tell reads from writes.
    """

    name: str
    description: str
    input_schema: Mapping[str, JSON]
    run: RunFn
    read_only: bool = False

    @cached_property
    def _spec_document(self) -> dict[str, JSON]:
        # Built once per tool: every rollout offers the same spec, and the tool is immutable.
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }

    def spec(self) -> dict[str, JSON]:
        """What the agent sees: ``{name, description, inputSchema}``."""
        return self._spec_document


def define_tool(
    name: str,
    description: str,
    input_schema: Mapping[str, JSON],
    run: RunFn,
    read_only: bool = False,
) -> Tool:
    """Build a tool from an explicit JSON Schema for its input object."""
    if not isinstance(name, str) or not name:
        raise ValueError("a tool needs a non-empty string name")
    return Tool(
        name=name,
        description=description,
        input_schema=dict(input_schema),
        run=run,
        read_only=read_only,
    )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, read_only: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a typed function ``f(state, a: int, b: str = "x")`` into a :class:`Tool`.

    The first parameter receives the state; the others become the input object's properties
    (required unless they have a default). The docstring's first paragraph is the description
    and an ``Args:`` section describes the parameters. Pydantic ``Field`` constraints in
    ``Annotated`` types (``ge``, ``le``, ``min_length``, …) become schema keywords. A
    parameter without an annotation accepts any value, and warns saying so.
    """

    def build(func: Callable[..., Any]) -> Tool:
        schema, doc = _schema_from_signature(func)
        params = list(inspect.signature(func).parameters)[1:]

        def run(state: Any, args: dict[str, JSON]) -> Any:
            return func(state, **{key: args[key] for key in params if key in args})

        return define_tool(name or func.__name__, description or doc, schema, run, read_only)

    return build(fn) if fn is not None else build


# Compiled on first use (re caches it): environments built with define_tool never need it.
_ARG_LINE = r"^(\w+)\s*(?:\([^)]*\))?:\s*(.*)$"
_ARG_HEADERS = ("Args:", "Arguments:", "Parameters:")


def _parse_docstring(func: Callable[..., Any], names: list[str]) -> tuple[str, dict[str, str]]:
    """Summary paragraph and per-parameter text from a Google-style docstring."""
    summary, _, rest = (inspect.getdoc(func) or "").partition("\n\n")
    arg_docs: dict[str, str] = {}
    current: str | None = None
    in_args = False
    for line in rest.splitlines():
        text = line.strip()
        if text in _ARG_HEADERS:
            in_args = True
        elif in_args and not text:
            in_args, current = False, None
        elif in_args:
            match = re.match(_ARG_LINE, text)
            if match and match.group(1) in names:
                current = match.group(1)
                arg_docs[current] = match.group(2)
            elif current:
                arg_docs[current] = f"{arg_docs[current]} {text}".strip()
    return " ".join(summary.split()), arg_docs


def _schema_from_signature(func: Callable[..., Any]) -> tuple[dict[str, JSON], str]:
    from pydantic import ConfigDict, Field, create_model  # lazy: pydantic is slow to import

    params = list(inspect.signature(func).parameters.values())
    if not params:
        raise TypeError(f"tool {func.__name__!r} must take the state as its first parameter")
    summary, arg_docs = _parse_docstring(func, [p.name for p in params[1:]])
    hints = inspect.get_annotations(func, eval_str=True)
    fields: dict[str, JSON] = {}
    for param in params[1:]:
        if param.name not in hints:
            warnings.warn(
                f"@tool {func.__name__}: parameter {param.name!r} has no type annotation, so "
                f"its schema accepts any value; annotate it (e.g. {param.name}: str)",
                stacklevel=4,
            )
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
    model = create_model(f"{func.__name__}_input", __config__=ConfigDict(extra="forbid"), **fields)
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema.setdefault("required", [])
    return schema, summary
