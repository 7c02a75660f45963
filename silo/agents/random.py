"""A fuzzing agent: random tools with random, schema-valid arguments.

Contract: ``RandomAgent(seed=None, calls=20)`` makes up to ``calls`` tool calls. Each picks a tool
at random and draws an input from the tool's ``inputSchema`` (types, ``enum``, ``const``,
numeric bounds incl. exclusive ones and ``multipleOf``, string lengths, ``format`` (date,
date-time, email, uuid, uri), ``pattern`` (a generator for the common regex subset), required
and random optional properties, arrays with ``items``/``prefixItems``/``minItems``/``maxItems``/
``uniqueItems``, nested objects, ``anyOf``/``oneOf`` (a random branch), ``allOf``, and ``$ref`` to
``$defs``). Every drawn input is checked against the schema with ``jsonschema`` (formats too) and
redrawn if invalid; a tool whose schema cannot be satisfied is skipped and named in the output.
Strings for properties named ``...Id`` (and items of ``...Ids``) are often taken from ids seen in
earlier outputs, so calls reach real records. Which strings are ids the environment says: those
under an ``id`` or ``...Id`` key, and those matching the ``pattern`` its tool schemas give their
``...Id`` properties (:func:`~silo.agents.sampler.id_patterns`).

Determinism: all choices come from one ``random.Random(seed)``; with ``seed=None`` the run's seed
(``AgentInput.seed``) is used instead, so by default the agent follows the run's seed.
``RunLimitError`` ends the loop cleanly. The output is one line summarising the calls and the
error codes they returned.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import ClassVar

from silo.agents.contract import AgentInput, RunLimitError
from silo.agents.sampler import SchemaSampler, Unsatisfiable, id_patterns, ids_in
from silo.json_types import JSON

__all__ = ["RandomAgent"]


class RandomAgent:
    """Random schema-valid tool calls; see the module docstring for the contract."""

    deterministic: ClassVar[bool] = True

    def __init__(self, seed: int | None = None, calls: int = 20) -> None:
        """Make up to ``calls`` calls, drawn from ``seed`` (the run's seed when None)."""
        self.seed = seed
        self.calls = calls

    def __call__(self, inp: AgentInput) -> dict[str, JSON]:
        """Run the fuzzing loop against ``inp``'s tools; the output summarises what happened."""
        seed = inp.seed if self.seed is None else self.seed
        rng = Random(seed)
        ids: dict[str, None] = {}
        sampler = SchemaSampler(rng, ids)
        usable = [spec for spec in inp.tools if isinstance(spec.get("name"), str)]
        patterns = id_patterns(spec.get("inputSchema") for spec in usable)
        skipped: list[str] = []
        codes: Counter[str] = Counter()
        made = ok = 0
        stopped = ""
        while made < self.calls and usable and not inp.signal.aborted:
            spec = rng.choice(usable)
            try:
                arguments = sampler.sample_valid(spec.get("inputSchema") or {"type": "object"})
            except Unsatisfiable:
                usable.remove(spec)
                skipped.append(spec["name"])
                continue
            try:
                result = inp.call_tool(spec["name"], arguments)
            except RunLimitError as exc:
                stopped = exc.reason
                break
            made += 1
            output = result.get("output")
            if result.get("isError"):
                code = output.get("code") if isinstance(output, dict) else None
                codes[str(code or "error")] += 1
            else:
                ok += 1
                ids.update(dict.fromkeys(ids_in(output, patterns)))
        if inp.signal.aborted and not stopped:
            stopped = inp.signal.reason or "cancelled"
        summary = f"random agent (seed {seed}): {made} calls, {ok} ok, {made - ok} errors"
        if codes:
            summary += " (" + ", ".join(f"{c} x{n}" for c, n in sorted(codes.items())) + ")"
        if skipped:
            summary += f"; skipped (schema not satisfiable): {', '.join(sorted(skipped))}"
        if stopped:
            summary += f"; stopped: {stopped}"
        return {"output": summary}
