"""Estimated cost of model runs from a price table (``pricing=<name>``).

Contract: a price table is ``{models: {<model>: {input: X, output: Y}}}``, US dollars per
million prompt (input) and completion (output) tokens, keyed by the model name a run's
``agentIdentity`` records. :func:`price_table` checks one (a one-line
:class:`~silo.errors.ConfigError` ``pricing_invalid`` naming the bad entry).
:func:`estimated_cost` is a run's cost: its ``usage`` tokens at its model's prices, rounded to
a millionth of a dollar; None when the run has no model, no usage, or a model the table does
not list. :func:`record_costs` adds ``estimatedCost`` to the ``run.json`` of finished run
folders (after the rollouts, so a sweep's loop pays nothing for it). :func:`summed_cost` is
the cost of several runs (None when none has one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from silo.artifacts.atomic import write_json_atomic
from silo.errors import ConfigError
from silo.json_types import JSON

__all__ = ["PriceTable", "estimated_cost", "price_table", "record_costs", "summed_cost"]

PriceTable = Mapping[str, tuple[float, float]]  # model -> (input, output) $ per million tokens


def _price(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(
            "pricing_invalid",
            f"{where} must be a price in dollars per million tokens (a number >= 0), got {value!r}",
        )
    return float(value)


def price_table(config: Any) -> PriceTable:
    """The checked price table of a ``pricing`` config (``{}`` for none)."""
    if config is None:
        return {}
    models = config.get("models") if isinstance(config, Mapping) else None
    if models is None:
        models = {}
    if not isinstance(models, Mapping):
        raise ConfigError(
            "pricing_invalid",
            "pricing.models must map model names to {input: X, output: Y} (dollars per million "
            "tokens)",
        )
    table = {}
    for model, prices in models.items():
        where = f"pricing.models.{model}"
        if not isinstance(prices, Mapping) or set(prices) != {"input", "output"}:
            raise ConfigError(
                "pricing_invalid", f"{where} must be {{input: X, output: Y}}, got {prices!r}"
            )
        table[str(model)] = (_price(prices["input"], f"{where}.input"),
                             _price(prices["output"], f"{where}.output"))  # fmt: skip
    return table


def estimated_cost(run: Mapping[str, JSON], table: PriceTable) -> float | None:
    """The run's cost at ``table``'s prices, or None (no model, usage or price for it)."""
    identity = run.get("agentIdentity")
    usage = run.get("usage")
    if not isinstance(identity, Mapping) or not isinstance(usage, Mapping):
        return None
    prices = table.get(str(identity.get("model")))
    if prices is None:
        return None
    tokens: list[float] = []
    for key in ("promptTokens", "completionTokens"):
        count = usage.get(key, 0)
        if isinstance(count, bool) or not isinstance(count, int | float):
            return None
        tokens.append(float(count))
    return round((tokens[0] * prices[0] + tokens[1] * prices[1]) / 1_000_000, 6)


def record_costs(run_dirs: Iterable[Path | None], table: PriceTable) -> None:
    """Add ``estimatedCost`` to each finished run folder's ``run.json`` that has a price."""
    if not table:
        return
    import json

    for folder in run_dirs:
        if folder is None or not (folder / "run.json").is_file():
            continue
        run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        cost = estimated_cost(run, table)
        if cost is not None and run.get("estimatedCost") != cost:
            write_json_atomic(folder / "run.json", {**run, "estimatedCost": cost})


def summed_cost(runs: Iterable[Mapping[str, JSON]]) -> float | None:
    """The ``estimatedCost`` of the runs summed; None when none records one."""
    costs = [
        run["estimatedCost"] for run in runs if isinstance(run.get("estimatedCost"), int | float)
    ]
    return round(sum(costs), 6) if costs else None
