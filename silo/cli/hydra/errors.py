"""One line for a command line Hydra could not compose.

Contract: :func:`composition_error` turns the exception Hydra or OmegaConf raised while
composing a command line (an unknown key such as ``agent.modle=x``, an unknown option such as
``hydra/launcher=jobib`` or ``+sweep=nosuch``, an override that does not parse) into a
:class:`~silo.errors.ConfigError` whose message is one line: what is wrong, the closest known
name when there is one, and the options or keys to choose from. Hydra's own text spans several
lines (the search path, a hint about ``HYDRA_FULL_ERROR``) and would exit 1.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from hydra.errors import MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError

from silo.errors import CODES, ConfigError, SiloError

__all__ = ["composition_error", "suggestion", "unknown_option"]

_OWN_CODES = ("env", "agent", "budget")  # groups whose unknown option has its own code
_LISTED = 12  # names listed after "available:"; a long list ends with "…"


def suggestion(wrong: str, known: Iterable[str]) -> str:
    """``"did you mean X? "`` for the known name closest to ``wrong``; empty when none is close."""
    close = difflib.get_close_matches(wrong, list(known), n=1)
    return f"did you mean {close[0]}? " if close else ""


def _listed(names: Iterable[str]) -> str:
    shown = sorted(names)
    more = ", …" if len(shown) > _LISTED else ""
    return ", ".join(shown[:_LISTED]) + more


def unknown_option(group: str, value: str, known: Iterable[str]) -> SiloError:
    """The error for ``group=value`` when ``value`` is none of the group's ``known`` options.

    Its code is ``<group>_not_found`` for ``env``, ``agent`` and ``budget``, else
    ``override_invalid``.
    """
    options = list(known)
    code = f"{group}_not_found" if group in _OWN_CODES else "override_invalid"
    hint = "" if group == "env" else f" (or add conf/{group}/{value}.yaml)"
    return CODES[code].error(
        code,
        f'unknown {group} "{value}"; {suggestion(value, options)}'
        f"available: {_listed(options) or 'none'}{hint}",
    )


def _unknown_key(exc: ConfigAttributeError | ConfigKeyError) -> ConfigError:
    full_key = str(exc.full_key or exc.key)
    parent = exc.parent_node
    known = [str(k) for k in parent] if isinstance(parent, DictConfig) else []
    head, _, leaf = full_key.rpartition(".")
    prefix = f"{head}." if head else ""
    close = suggestion(leaf, known).replace("did you mean ", f"did you mean {prefix}")
    return ConfigError(
        "override_invalid",
        f'unknown key "{full_key}"; {close}known: {_listed(known) or "none"}'
        f" (use +{full_key}=... to add a new key)",
    )


def composition_error(exc: BaseException) -> SiloError:
    """A one-line :class:`ConfigError` for ``exc``, raised while Hydra composed a command line."""
    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and exc.options:
        group, _, value = str(exc.missing_cfg_file).rpartition("/")
        return unknown_option(group, value, exc.options)
    cause = exc.__cause__
    if isinstance(cause, ConfigAttributeError | ConfigKeyError) and cause.full_key:
        return _unknown_key(cause)
    lines = [line.strip() for line in str(exc).splitlines()]
    if "Config search path:" in lines:  # Hydra appends the search path to missing configs
        lines = lines[: lines.index("Config search path:")]
    text = " ".join(line for line in lines if line and "HYDRA_FULL_ERROR" not in line)
    if cause is not None and str(cause) not in text:
        text = f"{text}: {' '.join(str(cause).split())}"
    return ConfigError("override_invalid", text or type(exc).__name__)
