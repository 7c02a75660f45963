"""What every Hydra-based Silo command sets up before Hydra runs.

Contract: :func:`prepare` registers the resolvers the primary config uses
(``silo_project_dir``, ``silo_project_conf``, ``silo_group_id``, ``silo_hydra_groups``,
``silo_cpu_count``) and offers every folder under
``environments/`` as an ``env`` option even without a YAML file. :func:`check_group_overrides`
checks keys and group choices on the command line (``env=``, ``agent=``, ``budget=``,
``+sweep=``, ``hydra/launcher=``) against what Hydra will see, so a typo gets one line with
the closest name and the options instead of Hydra's search-path dump.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from silo.cli.hydra.errors import suggestion, unknown_option
from silo.cli.hydra.help import hydra_groups_text, store_hydra_help
from silo.cli.hydra.options import group_options, has_option
from silo.distribution import install_hint, installed
from silo.errors import ConfigError
from silo.loading.environment import available_environments, find_project_dir

__all__ = ["GROUPS", "RUN_KEYS", "check_group_overrides", "group_options", "prepare"]

GROUPS = (
    "env",
    "agent",
    "budget",
    "user",
    "sweep",
    "pricing",
    "judge",
)  # silo's config groups (sweep= is added: +sweep=)
RUN_KEYS = (  # the top-level keys of silo-run's primary config (silo/_main/silo.yaml)
    "env",
    "agent",
    "budget",
    "user",
    "pricing",
    "task",
    "variant",
    "judge",
    "runs",
    "seed",
    "resume",
    "fail_on_error",
    "progress",
    "max_concurrency",
    "workers",
    "runs_dir",
    "hydra",
    "sweep",
)
BUDGET_KEYS = ("max_tool_calls", "timeout_ms", "max_user_turns")


def project_conf_source(project: Path) -> str:
    """The search-path entry of the project's ``conf/``: ``file://<project>/conf``.

    Without that folder, Silo's packaged configs again (Hydra would warn, in every process
    that composes, e.g. each joblib worker, that the folder is not available).
    """
    conf = project / "conf"
    return f"file://{conf}" if conf.is_dir() else "pkg://silo.conf"


def usable_cores() -> int:
    """The cores this process may run on (its affinity, which containers and ``taskset`` limit)."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def prepare(project: Path | None = None) -> Path:
    """Set Hydra up for a Silo command run in ``project`` (found from the cwd by default).

    Registers the resolvers the primary config uses and stores every environment folder
    without a YAML file as an ``env`` option. Returns the project folder.
    """
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    from silo.artifacts.run_folder import new_run_id

    project = project or find_project_dir()
    OmegaConf.register_new_resolver(
        "silo_project_dir", lambda: str(project), replace=True, use_cache=True
    )
    OmegaConf.register_new_resolver(
        "silo_project_conf", lambda: project_conf_source(project), replace=True, use_cache=True
    )
    OmegaConf.register_new_resolver("silo_hydra_groups", hydra_groups_text, replace=True)
    OmegaConf.register_new_resolver("silo_cpu_count", usable_cores, replace=True, use_cache=True)
    OmegaConf.register_new_resolver(
        "silo_group_id", lambda: new_run_id("sweep"), replace=True, use_cache=True
    )
    store_hydra_help()
    store = ConfigStore.instance()
    declared = set(group_options("env", project, with_folders=False))
    for name in available_environments(project):
        if name not in declared:
            store.store(group="env", name=name, node={"name": name})
    return project


def check_group_overrides(
    args: Sequence[str], project: Path, keys: Collection[str] = RUN_KEYS
) -> None:
    """Raise a one-line SiloError for an unknown key or group choice on the command line.

    ``keys`` are the top-level keys and groups of the command's primary config (silo-run's
    by default). A choice counts as known when Hydra will find it for this command line
    (``--config-dir``, ``hydra.searchpath=`` and plugins included, see
    :mod:`silo.cli.hydra.options`).
    """
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
            _check_key(group, keys)
        if group == "hydra/launcher" and not override.is_delete():
            _check_launcher(override.get_value_element_as_str())
        if (group not in GROUPS and "/" not in group) or override.package or override.is_delete():
            continue
        if override.value() is None:
            continue  # group=null: no option to find
        values = (
            list(override.sweep_string_iterator())
            if override.is_sweep_override()
            else [override.get_value_element_as_str()]
        )
        for value in values:
            if not has_option(group, value, project, args):
                from silo.cli.hydra.options import command_line_options

                raise unknown_option(group, value, command_line_options(group, project, args))


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
    module, extra = found
    if not installed(module):
        raise ConfigError(
            "launcher_missing",
            f"hydra/launcher={choice} needs its Hydra plugin; install it with {install_hint(extra)}",
        )


def _check_key(key: str, keys: Collection[str]) -> None:
    head, _, rest = key.partition(".")
    if "/" in head or (head in ("hydra", "agent", "user", "judge") and head in keys):
        return  # Hydra checks these itself (see silo.cli.hydra.errors for agent.* typos)
    choices: Sequence[str]
    if head not in keys:
        wrong, choices = head, list(keys)
    elif head == "budget" and rest and rest not in BUDGET_KEYS:
        wrong, choices = rest, BUDGET_KEYS
    else:
        return
    raise ConfigError(
        "override_invalid",
        f'unknown key "{key}"; {suggestion(wrong, choices)}known: {", ".join(choices)}'
        f" (use +{key}=... to add a new key)",
    )
