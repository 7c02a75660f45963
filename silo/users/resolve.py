"""Finding the simulated user a conversational rollout should run.

Contract: :func:`resolve_user` accepts ``None`` or ``"scripted"`` (the default), ``"none"`` (no
user: the agent gets the task's instruction and no user channel), ``"openai"`` /
``"anthropic"``, a ``pkg.module:attr`` target, an object with a ``reply`` method, or a config
mapping with ``name`` or ``_target_`` (the other keys are keyword arguments of the factory). It
returns a :class:`ResolvedUser`, or None for ``none``. Every mistake is one line: a
:class:`~silo.errors.ConfigError` ``user_invalid`` or ``user_not_found``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from silo.errors import ConfigError
from silo.json_types import JSON
from silo.users.base import SimulatedUser, UserFailure
from silo.users.scripted import ScriptedUser

__all__ = ["BUILTIN_USERS", "ResolvedUser", "UserChoice", "resolve_user"]

BUILTIN_USERS: dict[str, str] = {
    "scripted": "silo.users.scripted:ScriptedUser",
    "openai": "silo.users.model:ModelUser",
    "anthropic": "silo.users.model:ModelUser",
}
_MODEL_USERS = ("openai", "anthropic")  # ModelUser with the API its name gives


@dataclass(frozen=True)
class ResolvedUser:
    """A user ready to answer: the object, its label in reports, and whether it is deterministic."""

    user: SimulatedUser
    label: str
    deterministic: bool


def _import(target: str) -> Any:
    module_name, sep, attr = target.partition(":")
    if not sep:
        module_name, _, attr = target.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            "user_not_found", f'cannot import user target "{target}": {exc}; check the dotted path'
        ) from None


def _build(factory: Any, kwargs: dict[str, JSON], label: str) -> ResolvedUser:
    obj = factory
    if inspect.isclass(factory) or kwargs:
        try:
            obj = factory(**kwargs)
        except UserFailure as exc:
            raise ConfigError("user_invalid", str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise ConfigError("user_invalid", f"cannot build user {label}: {exc}") from None
    if not callable(getattr(obj, "reply", None)):
        raise ConfigError(
            "user_invalid", f"user {label} has no reply(view) method; see silo.users.base"
        )
    return ResolvedUser(obj, label, bool(getattr(obj, "deterministic", False)))


def _builtin(name: str, kwargs: dict[str, JSON]) -> ResolvedUser:
    """A user Silo ships, by name; a model user speaks the API its name gives."""
    if name in _MODEL_USERS:
        kwargs = {**kwargs, "api": name}
    return _build(_import(BUILTIN_USERS[name]), kwargs, name)


UserChoice: TypeAlias = SimulatedUser | ResolvedUser | str | Mapping[str, JSON] | None
"""What names a simulated user: the object, a name, a Python target, a config, or None (scripted)."""


def resolve_user(spec: UserChoice) -> ResolvedUser | None:
    """The user ``spec`` names (see the module docstring); None when it is ``none``."""
    if spec is None or spec == "scripted":
        return ResolvedUser(ScriptedUser(), "scripted", True)
    if isinstance(spec, ResolvedUser):
        return spec
    if isinstance(spec, Mapping):
        kwargs = {k: v for k, v in spec.items() if k not in ("name", "_target_")}
        if spec.get("_target_"):
            target = str(spec["_target_"])
            return _build(_import(target), kwargs, target.replace(":", ".").rpartition(".")[2])
        name = spec.get("name")
        if name == "none":
            return None
        if name in BUILTIN_USERS:
            return _builtin(str(name), kwargs)
        raise ConfigError(
            "user_invalid", "a user config needs name (scripted, openai, ...) or _target_"
        )
    if isinstance(spec, str):
        if spec == "none":
            return None
        if spec in BUILTIN_USERS:
            return _builtin(spec, {})
        if "." in spec or ":" in spec:
            return _build(_import(spec), {}, spec.replace(":", ".").rpartition(".")[2])
        known = ", ".join([*BUILTIN_USERS, "none"])
        raise ConfigError(
            "user_not_found",
            f'unknown user "{spec}"; use one of {known} or a pkg.module:attr target',
        )
    if callable(getattr(spec, "reply", None)):
        return ResolvedUser(spec, type(spec).__name__, bool(getattr(spec, "deterministic", False)))
    raise ConfigError("user_invalid", f"user must be a name, a target or a config, not {spec!r}")
