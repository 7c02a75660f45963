"""What every Hydra-based Silo command sets up before Hydra runs.

Contract: :func:`prepare` registers the resolvers the primary config uses
(``silo_project_dir``, ``silo_group_id``), offers every folder under ``environments/`` as an
``env`` option even without a YAML file, silences Hydra's warning about a project without a
``conf/`` folder, and checks group choices on the command line (``env=``, ``agent=``,
``budget=``) so a typo gets one line listing the options instead of Hydra's search-path dump.
"""

from __future__ import annotations

import warnings
from importlib import resources
from pathlib import Path

from silo.distribution import install_hint
from silo.errors import CODES, ConfigError
from silo.loading.environment import available_environments, find_project_dir

__all__ = ["GROUPS", "check_group_overrides", "group_options", "prepare"]

GROUPS = ("env", "agent", "budget")
TOP_KEYS = (
    "env",
    "agent",
    "budget",
    "task",
    "runs",
    "seed",
    "resume",
    "fail_on_error",
    "progress",
    "max_concurrency",
    "runs_dir",
    "hydra",
    "sweep",
)
BUDGET_KEYS = ("max_tool_calls", "timeout_ms")


def _yaml_names(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.yaml")} if folder.is_dir() else set()


def group_options(group: str, project: Path, *, with_folders: bool = True) -> list[str]:
    """Options of a config group: project and packaged YAML files (+ env folders)."""
    names = _yaml_names(project / "conf" / group)
    packaged = resources.files("silo.conf").joinpath(group)
    if packaged.is_dir():
        names |= {Path(p.name).stem for p in packaged.iterdir() if p.name.endswith(".yaml")}
    if group == "env" and with_folders:
        names |= set(available_environments(project))
    return sorted(names)


def prepare(project: Path | None = None) -> Path:
    """Set Hydra up for a Silo command run in ``project`` (found from the cwd by default).

    Registers the resolvers the primary config uses, stores every environment folder without
    a YAML file as an ``env`` option and silences the warning about a project without
    ``conf/``. Returns the project folder.
    """
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    from silo.artifacts.run_folder import new_run_id

    project = project or find_project_dir()
    OmegaConf.register_new_resolver(
        "silo_project_dir", lambda: str(project), replace=True, use_cache=True
    )
    OmegaConf.register_new_resolver(
        "silo_group_id", lambda: new_run_id("sweep"), replace=True, use_cache=True
    )
    store = ConfigStore.instance()
    declared = set(group_options("env", project, with_folders=False))
    for name in available_environments(project):
        if name not in declared:
            store.store(group="env", name=name, node={"name": name})
    warnings.filterwarnings(
        "ignore", message=r"provider=hydra\.searchpath in main, path=.* is not available"
    )
    return project


def check_group_overrides(args: list[str], project: Path) -> None:
    """Raise a one-line SiloError for an unknown env/agent/budget choice on the command line."""
    words = [a for a in args if not a.startswith("-") and "=" in a]
    if not words:
        return
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        overrides = OverridesParser.create().parse_overrides(words)
    except Exception as exc:  # Hydra's parser explains the syntax problem itself
        raise ConfigError("override_invalid", " ".join(str(exc).split())) from None
    for override in overrides:
        group = override.key_or_group
        if not override.is_add() and not override.is_force_add():
            _check_key(group)
        if group == "hydra/launcher" and not override.is_delete():
            _check_launcher(override.get_value_element_as_str())
        if group not in GROUPS or override.package or override.is_delete():
            continue
        values = (
            list(override.sweep_string_iterator())
            if override.is_sweep_override()
            else [override.get_value_element_as_str()]
        )
        known = group_options(group, project)
        for value in values:
            if value not in known:
                code = f"{group}_not_found"
                raise CODES[code].error(
                    code,
                    f'unknown {group} "{value}"; available: {", ".join(known)}'
                    + (f" (or add conf/{group}/{value}.yaml)" if group != "env" else ""),
                )


# Launchers Silo ships configs for, and the plugin package each needs (an optional extra).
_LAUNCHER_PLUGINS = {
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "parallel"),
    "ray_local": ("hydra_plugins.hydra_ray_launcher", "ray"),
    "ray_cluster": ("hydra_plugins.hydra_ray_launcher", "ray"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
    "slurm_local": ("hydra_plugins.hydra_submitit_launcher", "slurm"),
}


def _check_launcher(choice: str) -> None:
    """Refuse a launcher whose plugin is missing in one line naming the extra to install.

    Hydra would say it cannot find a config the user never typed.
    """
    found = _LAUNCHER_PLUGINS.get(choice)
    if found is None:
        return
    from importlib.util import find_spec

    module, extra = found
    try:
        installed = find_spec(module) is not None
    except (ImportError, ValueError):
        installed = False
    if not installed:
        raise ConfigError(
            "launcher_missing",
            f"hydra/launcher={choice} needs its Hydra plugin; install it with {install_hint(extra)}",
        )


def _check_key(key: str) -> None:
    head, _, rest = key.partition(".")
    if head in ("hydra", "agent") or "/" in head:
        return  # Hydra checks these itself; agents take arbitrary keys
    choices: tuple[str, ...]
    if head not in TOP_KEYS:
        wrong, choices = head, TOP_KEYS
    elif head == "budget" and rest and rest not in BUDGET_KEYS:
        wrong, choices = rest, BUDGET_KEYS
    else:
        return
    import difflib  # only to word the error: a 2 ms import no valid command line should pay

    close = difflib.get_close_matches(wrong, choices, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    raise ConfigError(
        "override_invalid",
        f'unknown key "{key}"; {hint}known: {", ".join(choices)} (use +{key}=... to add a new key)',
    )
