"""The options of a config group as Hydra will see them for one command line.

Contract: :func:`group_options` lists a group's options from the project's ``conf/``, Silo's
packaged ``conf/`` and (for ``env``) the environment folders: a directory listing, cheap
enough for every start. :func:`command_line_options` adds what the command line itself puts
on Hydra's search path: the ``--config-dir`` folder (``-cd``) and, through Hydra's own config
loader, ``hydra.searchpath=`` entries and the configs Hydra plugins store (``joblib``,
``submitit_local``). The loader costs a config load, so it is asked only for a choice the
listings lack: a valid command line never pays for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from silo.loading.environment import available_environments

__all__ = ["command_line_options", "config_dir", "group_options", "has_option"]


# Options Hydra and its plugins store, known without asking the loader (the pre-check makes
# sure the joblib plugin is installed before it looks here).
_PLUGIN_OPTIONS = {"hydra/launcher": ("basic", "joblib"), "hydra/sweeper": ("basic", "silo")}


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


def config_dir(args: Sequence[str]) -> Path | None:
    """The folder ``--config-dir DIR`` / ``-cd DIR`` / ``--config-dir=DIR`` adds, if any."""
    for i, arg in enumerate(args):
        if arg in ("--config-dir", "-cd") and i + 1 < len(args):
            return Path(args[i + 1]).absolute()
        if arg.startswith("--config-dir="):
            return Path(arg.partition("=")[2]).absolute()
    return None


def has_option(group: str, value: str, project: Path, args: Sequence[str]) -> bool:
    """Whether Hydra will find ``group/value`` for the command line ``args``.

    The listings first (:func:`group_options`, the ``--config-dir`` folder), then Hydra's
    loader.
    """
    if value in group_options(group, project) or value in _PLUGIN_OPTIONS.get(group, ()):
        return True
    directory = config_dir(args)
    if directory is not None and value in _yaml_names(directory / group):
        return True
    return value in command_line_options(group, project, args)


def command_line_options(group: str, project: Path, args: Sequence[str]) -> list[str]:
    """Every option of ``group`` on the search path Hydra composes ``args`` with (the union)."""
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra

    names = set(group_options(group, project))
    directory = config_dir(args)
    if directory is not None:
        names |= _yaml_names(directory / group)
    if GlobalHydra.instance().is_initialized():  # e.g. silo-baseline, inside its compose context
        return sorted(names | _loader_options(group, args))
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        return sorted(names | _loader_options(group, args))


def _loader_options(group: str, args: Sequence[str]) -> set[str]:
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.object_type import ObjectType

    searchpath = [a for a in args if a.lstrip("+").partition("=")[0] == "hydra.searchpath"]
    loader = GlobalHydra.instance().config_loader()
    try:
        found = loader.get_group_options(
            group, results_filter=ObjectType.CONFIG, config_name="silo", overrides=searchpath[-1:]
        )
    except Exception:  # a malformed hydra.searchpath: Hydra reports it in its own words
        return set()
    return set(found)
