"""Compose a command line the way ``hydra.main`` will, to word its errors in one line.

Contract: :func:`check_composes` composes the primary config of ``silo-run`` for a command line
that ``hydra.main`` is about to run (a sweep with ``-m``, or a single run with flags or
``hydra.*`` keys), with the same search path (``--config-dir`` included) and run mode, and
raises the one-line :class:`~silo.errors.SiloError` of :mod:`silo.cli.hydra.errors` when it
cannot: Hydra itself would print several lines and exit 1. A command line naming another
primary config (``--config-path``/``--config-name``) is left to Hydra. It costs one
composition, paid only by command lines that do not take the single-composition path of
:func:`silo.cli.run.compose_single_run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from silo.cli.hydra.errors import composition_error
from silo.cli.hydra.options import config_dir

__all__ = ["check_composes", "hydra_overrides"]

_FLAGS_WITH_VALUE = ("--config-dir", "-cd", "--experimental-rerun", "--package", "-p")
_OTHER_PRIMARY = ("--config-path", "-cp", "--config-name", "-cn")


def hydra_overrides(args: Sequence[str]) -> list[str]:
    """The override words of a ``silo-run`` command line: its arguments minus Hydra's flags."""
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _FLAGS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            words.append(arg)
    return words


def _quoted(entry: str) -> str:
    return "'" + entry.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _with_config_dir(words: list[str], directory: Path, default_path: Sequence[str]) -> list[str]:
    """``words`` with ``directory`` first on ``hydra.searchpath``, where ``--config-dir`` puts it.

    Hydra searches the ``--config-dir`` folder after the primary config's package and before
    the ``hydra.searchpath`` entries; the Compose API takes no such flag.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    given = [w for w in words if w.lstrip("+").partition("=")[0] == "hydra.searchpath"]
    entries = list(default_path)
    if given:
        value = OverridesParser.create().parse_override(given[-1]).value()
        entries = [str(v) for v in value] if isinstance(value, list) else [str(value)]
    rest = [w for w in words if w not in given]
    listed = ",".join(_quoted(e) for e in [f"file://{directory}", *entries])
    return [*rest, f"hydra.searchpath=[{listed}]"]


def check_composes(args: Sequence[str], default_path: Sequence[str]) -> None:
    """Raise a one-line SiloError when ``hydra.main`` could not compose ``args``.

    ``default_path`` is the primary config's own ``hydra.searchpath`` (resolved), which a
    ``--config-dir`` folder is put in front of.
    """
    if any(a in _OTHER_PRIMARY or a.startswith(_OTHER_PRIMARY) for a in args):
        return
    from hydra import initialize_config_module
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    words = hydra_overrides(args)
    directory = config_dir(args)
    if directory is not None:
        if not directory.is_dir():
            return  # Hydra says so in one line
        words = _with_config_dir(words, directory, default_path)
    mode = RunMode.MULTIRUN if ("-m" in args or "--multirun" in args) else RunMode.RUN
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        try:
            loader.load_configuration("silo", words, run_mode=mode)
        except Exception as exc:  # whatever Hydra or OmegaConf raised composing the line
            raise composition_error(exc) from None
