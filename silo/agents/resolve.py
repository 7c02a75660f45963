"""Finding the agent a rollout should run.

Contract: :func:`resolve_agent` accepts a callable, a built-in name (``solver`` — the
environment's own ``solver.py`` —, ``noop``, ``human``, ``random``, ``replay``, ``openai``,
``anthropic``), a file
(``agents/mine.py`` or ``agents/mine.py:attr``, relative to the project), a Python target
(``pkg.module:attr``), or a config mapping with ``name``, ``path`` or ``_target_`` (the other
keys are keyword arguments for the factory). A class or a target given keyword arguments is a
factory: it is called and its result is the agent. A file's agent is its ``agent`` attribute.
A mapping's ``isolation`` key (``thread``, the default, or ``process``) is not passed on: it
says where the agent runs (see :mod:`silo.rollout.isolation`), and with ``process`` the result
carries the :class:`AgentRecipe` a child process resolves the same agent from. Every mistake is
a one-line :class:`SiloError`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

from silo.agents.contract import Agent, AgentError
from silo.errors import AgentLoadError
from silo.json_types import JSON
from silo.loading.environment import Environment
from silo.loading.modules import load_file, package_for_dir

__all__ = [
    "ISOLATIONS",
    "AgentChoice",
    "AgentRecipe",
    "ResolvedAgent",
    "resolve_agent",
    "BUILTIN_AGENTS",
]

BUILTIN_AGENTS: dict[str, str] = {
    "noop": "silo.agents.noop:agent",
    "human": "silo.agents.human:HumanAgent",
    "random": "silo.agents.random:RandomAgent",
    "replay": "silo.agents.replay:ReplayAgent",
    "openai": "silo.agents.openai:OpenAIAgent",
    "anthropic": "silo.agents.anthropic:AnthropicAgent",
}


ISOLATIONS = ("thread", "process")
"""Where an agent may run: on a thread of the rollout's process, or in a child process."""


@dataclass(frozen=True)
class AgentRecipe:
    """How another process resolves the same agent: the spec without ``isolation``, and where."""

    spec: Any
    project_dir: str
    env_root: str | None  # the environment's folder (``solver`` is found there)


@dataclass(frozen=True)
class ResolvedAgent:
    """An agent ready to run: the callable, where it came from, and whether it is deterministic.

    ``isolation`` is where it runs; ``recipe`` is set when that is ``process``.
    """

    fn: Agent
    path: str  # the agent's file or Python target, recorded in run.json
    label: str
    deterministic: bool
    isolation: str = "thread"
    recipe: AgentRecipe | None = None


def _finish(obj: Any, kwargs: dict[str, JSON], path: str, label: str) -> ResolvedAgent:
    if inspect.isclass(obj) or kwargs:
        try:
            obj = obj(**kwargs)
        except AgentError as exc:  # the factory's own word on its settings
            raise AgentLoadError("agent_invalid", str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise AgentLoadError(
                "agent_invalid", f"cannot build agent {label} from {path}: {exc}"
            ) from None
    if not callable(obj):
        raise AgentLoadError("agent_invalid", f"agent {label} ({path}) is not callable")
    return ResolvedAgent(obj, path, label, bool(getattr(obj, "deterministic", True)))


def _import_target(target: str) -> Any:
    module_name, sep, attr = target.partition(":")
    if not sep:
        module_name, _, attr = target.rpartition(".")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise AgentLoadError(
            "agent_not_found",
            f'cannot import agent target "{target}": {exc}; check the dotted path',
        ) from None


def _from_file(spec: str, project_dir: Path, env: Environment | None) -> tuple[Any, str]:
    file_part, _, attr = spec.partition(":") if not spec.endswith(".py") else (spec, "", "")
    path = Path(file_part)
    path = path if path.is_absolute() else project_dir / path
    if not path.is_file():
        raise AgentLoadError(
            "agent_not_found",
            f"agent file {file_part} does not exist (looked in {path.parent}); give a path to a "
            "Python file relative to the project folder",
        )
    package = package_for_dir(path.parent, f"agent_{path.parent.name}")
    module = load_file(path.resolve(), f"{package}.{path.stem}")
    attr = attr or "agent"
    if not hasattr(module, attr):
        raise AgentLoadError(
            "agent_invalid",
            f"{file_part} does not define {attr}(inp); export a function named {attr}",
        )
    return getattr(module, attr), str(path)


AgentChoice: TypeAlias = Agent | str | Mapping[str, JSON]
"""What names an agent: the callable itself, a name, a file, a Python target or a config."""


def _isolated(spec: Mapping[str, Any], env: Environment | None, project: Path) -> ResolvedAgent:
    """``spec`` resolved without its ``isolation`` key, which says where the agent runs."""
    isolation = spec["isolation"]
    if isolation not in ISOLATIONS:
        raise AgentLoadError(
            "agent_invalid",
            f"agent isolation must be one of {', '.join(ISOLATIONS)}, not {isolation!r}",
        )
    rest = {k: v for k, v in spec.items() if k != "isolation"}
    # A bare {"agent": callable} names a callable: the only way a mapping can hold one.
    inner = rest["agent"] if set(rest) == {"agent"} else rest
    resolved = resolve_agent(inner, env, project)
    if isolation == "thread":
        return resolved
    recipe = AgentRecipe(inner, str(project), str(env.root) if env is not None else None)
    return replace(resolved, isolation="process", recipe=recipe)


def resolve_agent(
    spec: AgentChoice, env: Environment | None = None, project_dir: Path | None = None
) -> ResolvedAgent:
    """The agent ``spec`` names (see the module docstring for every form it takes).

    Args:
        spec: a callable, a built-in name, a file, a Python target or a config mapping.
        env: the environment, for ``solver``; ``None`` when no environment is at hand.
        project_dir: what relative agent files are resolved against (default: the cwd).

    Raises:
        SiloError: one line naming what is wrong with ``spec`` and how to fix it.
    """
    project = project_dir or Path.cwd()
    if isinstance(spec, Mapping) and "isolation" in spec:
        return _isolated(spec, env, project)
    if callable(spec) and not isinstance(spec, str):
        label = getattr(spec, "__name__", type(spec).__name__)
        module = getattr(spec, "__module__", None) or type(spec).__module__
        return ResolvedAgent(
            spec,
            f"{module}:{getattr(spec, '__qualname__', label)}",
            label,
            bool(getattr(spec, "deterministic", True)),
        )
    if isinstance(spec, Mapping):
        kwargs = {k: v for k, v in spec.items() if k not in ("name", "path", "attr", "_target_")}
        if spec.get("_target_"):
            target = str(spec["_target_"])
            return _finish(_import_target(target), kwargs, target, target.rpartition(".")[2])
        if spec.get("path"):
            file_spec = str(spec["path"]) + (f":{spec['attr']}" if spec.get("attr") else "")
            obj, path = _from_file(file_spec, project, env)
            return _finish(obj, kwargs, path, Path(path).stem)
        if spec.get("name"):
            resolved = resolve_agent(str(spec["name"]), env, project)
            return (
                _finish(resolved.fn, kwargs, resolved.path, resolved.label) if kwargs else resolved
            )
        raise AgentLoadError("agent_invalid", "an agent config needs one of name, path or _target_")
    if not isinstance(spec, str) or not spec:
        raise AgentLoadError(
            "agent_invalid", f"agent must be a callable, a name or a path, not {spec!r}"
        )
    if spec == "solver":
        if env is None or not env.solver_path.is_file():
            where = f'environment "{env.name}"' if env else "this environment"
            raise AgentLoadError(
                "agent_not_found",
                f"{where} has no agents/solver.py (or solver.py); write one exporting "
                "agent(inp), or choose another agent",
            )
        module = load_file(env.solver_path, env.solver_module)
        if not callable(getattr(module, "agent", None)):
            where = f"environments/{env.name}/{env.solver_path.relative_to(env.root).as_posix()}"
            raise AgentLoadError("agent_invalid", f"{where} must export agent(inp)")
        return ResolvedAgent(
            module.agent,
            str(env.solver_path),
            "solver",
            bool(getattr(module.agent, "deterministic", True)),
        )
    if spec in BUILTIN_AGENTS:
        target = BUILTIN_AGENTS[spec]
        return _finish(_import_target(target), {}, target, spec)
    if spec.endswith(".py") or ".py:" in spec or "/" in spec:
        obj, path = _from_file(spec, project, env)
        return _finish(obj, {}, path, Path(path).stem)
    if "." in spec or ":" in spec:
        return _finish(_import_target(spec), {}, spec, spec.rpartition(".")[2])
    known = ", ".join(["solver", *BUILTIN_AGENTS])
    raise AgentLoadError(
        "agent_not_found",
        f'unknown agent "{spec}"; use one of {known}, a path to a .py file or a pkg.module:attr target',
    )
