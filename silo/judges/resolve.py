"""Which judges ``judge=`` names: the choices of the ``judge`` config group, or targets.

Contract: :func:`resolve_judges` turns ``judge=`` choices into judges. A choice is a name
(``scripted``, ``openai``, ``anthropic``; ``none`` is no judge), a ``pkg.module:attr`` target
(a factory called with no argument, returning a callable ``judge(item, material) -> Verdict``
with ``name``, ``model`` and ``deterministic``), or a mapping: a ``conf/judge/`` node
(``name`` plus the model judge's settings, or ``_target_`` plus the factory's keyword
arguments) whose ``also`` lists more choices to grade beside it. A bad choice is one
:class:`~silo.errors.ConfigError` line. :func:`model_judges` names the judges of some choices
that are not deterministic, building none it can tell by name (``silo-baseline`` refuses
them). Model judges are imported only when named.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from silo.errors import ConfigError
from silo.judges.rubric import Judge
from silo.judges.scripted import ScriptedJudge

__all__ = ["model_judges", "resolve_judges"]

_MODEL_JUDGES = ("openai", "anthropic")


def resolve_judges(specs: Sequence[str | Mapping[str, Any]]) -> list[Judge]:
    """The judges ``specs`` name (see the module docstring); a bad one is one line."""
    judges: list[Judge] = []
    for spec in specs:
        if isinstance(spec, Mapping):
            node = dict(spec)
            also = node.pop("also", None) or []
            judges += _from_node(node)
            judges += resolve_judges([str(a) for a in (also if isinstance(also, list) else [also])])
        elif spec == "none":
            continue
        elif spec == "scripted":
            judges.append(ScriptedJudge())
        elif spec in _MODEL_JUDGES:
            judges += _from_node({"name": spec})
        elif ":" in spec:
            judges.append(_target(spec, {}))
        else:
            raise ConfigError(
                "config_invalid",
                f"judge={spec!r}: use none, scripted, openai, anthropic or a target "
                "pkg.module:factory",
            )
    return judges


def model_judges(specs: Sequence[str | Mapping[str, Any]]) -> list[str]:
    """The judges ``specs`` name that are not deterministic (model judges).

    ``openai`` and ``anthropic`` are found by name, without being built (no model needed); a
    target is built and asked.
    """
    found: list[str] = []
    for spec in specs:
        if isinstance(spec, Mapping):
            node = dict(spec)
            also = node.pop("also", None) or []
            name = node.get("name")
            if name in _MODEL_JUDGES:
                found.append(str(name))
            elif node.get("_target_"):
                found += model_judges([str(node["_target_"])])
            found += model_judges([str(a) for a in (also if isinstance(also, list) else [also])])
        elif spec in _MODEL_JUDGES:
            found.append(spec)
        elif ":" in spec or "." in spec:
            found += [j.name for j in resolve_judges([spec]) if not j.deterministic]
    return found


def _from_node(node: dict[str, Any]) -> list[Judge]:
    """The judge of one ``conf/judge/`` node (``name`` or ``_target_``, and settings)."""
    target = node.pop("_target_", None)
    if target:
        return [_target(str(target), node)]
    name = node.pop("name", None)
    if name in _MODEL_JUDGES:
        from silo.judges.model import ModelJudge

        return [ModelJudge(api=str(name), **node)]
    if name in (None, "none") and not node:
        return []
    if isinstance(name, str) and not node:
        return resolve_judges([name])
    raise ConfigError(
        "config_invalid",
        f"judge={name}: judge.{sorted(node)[0]} is not a setting of this judge"
        if node and name in ("none", "scripted")
        else f"judge={name!r}: use none, scripted, openai, anthropic or target",
    )


def _target(spec: str, settings: Mapping[str, Any]) -> Judge:
    # pkg.module:factory, or Hydra's spelling pkg.module.factory
    module, _, attr = spec.partition(":") if ":" in spec else spec.rpartition(".")
    try:
        factory = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError("config_invalid", f"judge={spec} cannot be imported ({exc})") from None
    judge: Judge = factory(**settings)
    return judge
