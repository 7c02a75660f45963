"""silo-run composes a single run's config once, and gets what Hydra's two compositions give.

Each case runs a ``@hydra.main`` app with silo-run's primary config in this process, once the
way Hydra does it and once inside :func:`silo.cli.hydra.setup.compose_once`, and compares the config
the task received (job and ``hydra`` node), the exit status, stderr and how many times the
config was composed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import hydra
import pytest
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.hydra import Hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from silo.cli.hydra.setup import compose_once, prepare

CAPTURED: list[tuple[str, str]] = []


@hydra.main(version_base="1.3", config_path="pkg://silo._main", config_name="silo")
def _capture(cfg: DictConfig) -> None:
    hydra_yaml = OmegaConf.to_yaml(HydraConfig.get())
    # A multirun's folder is named with a fresh id each time: the only expected difference.
    CAPTURED.append((OmegaConf.to_yaml(cfg), re.sub(r"sweep_\d+_\w+", "sweep_<id>", hydra_yaml)))


def _run(
    project: Path, args: list[str], once: bool, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> dict[str, Any]:
    monkeypatch.chdir(project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    monkeypatch.setattr(sys, "argv", ["silo-run", *args])
    prepare()
    composed = []
    compose = ConfigLoaderImpl.load_configuration

    def counting(self: Any, *a: Any, **kw: Any) -> Any:
        composed.append(kw.get("run_mode"))
        return compose(self, *a, **kw)

    monkeypatch.setattr(ConfigLoaderImpl, "load_configuration", counting)
    CAPTURED.clear()
    capsys.readouterr()
    status: Any = 0
    try:
        if once:
            with compose_once():
                _capture()
        else:
            _capture()
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return {
        "configs": list(CAPTURED),
        "status": status,
        "stderr": out.err,
        "compositions": len(composed),
    }


@pytest.mark.parametrize(
    "args",
    [
        ["env=toy", "task=TASK-001"],
        ["env=toy", "task=TASK-001", "agent=noop", "budget.max_tool_calls=3", "seed=4"],
        ["env=toy", "task=TASK-001", "hydra.mode=RUN"],  # Hydra appends no hydra.mode=RUN
        ["env=toy", "task=TASK-001", "+hydra.mode=RUN"],
        ["env=toy", "task=TASK-001", "hydra.job.name=other"],
    ],
)
def test_a_single_run_is_composed_once_into_the_same_config(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[str]
) -> None:
    twice = _run(toy_project, args, False, monkeypatch, capsys)
    once = _run(toy_project, args, True, monkeypatch, capsys)
    assert (twice["compositions"], once["compositions"]) == (2, 1)
    assert len(once["configs"]) == 1
    assert once["configs"] == twice["configs"]
    assert (once["status"], once["stderr"]) == (twice["status"], twice["stderr"]) == (0, "")
    hydra_yaml = once["configs"][0][1]
    assert "mode: RUN" in hydra_yaml
    assert hydra_yaml.count("hydra.mode=RUN") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["env=toy", "task=TASK-001,TASK-002"],  # a sweep without -m
        ["env=toy", "task=TASK-001", "hydra.nope=1"],
        ["env=toy", "task=TASK-001", "hydra/launcher=nope"],
    ],
)
def test_a_config_that_does_not_compose_fails_as_with_hydra(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[str]
) -> None:
    twice = _run(toy_project, args, False, monkeypatch, capsys)
    once = _run(toy_project, args, True, monkeypatch, capsys)
    assert once["configs"] == twice["configs"] == []
    assert (once["status"], once["stderr"]) == (twice["status"], twice["stderr"])
    assert once["status"] == 1 and "HYDRA_FULL_ERROR" in once["stderr"]


def test_a_config_that_asks_for_a_multirun_still_gets_one(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    # Hydra's own sweeper, so that this case needs nothing registered beforehand.
    args = ["env=toy", "task=TASK-001", "hydra.mode=MULTIRUN", "hydra/sweeper=basic"]
    twice = _run(toy_project, args, False, monkeypatch, capsys)
    once = _run(toy_project, args, True, monkeypatch, capsys)
    assert len(once["configs"]) == 1
    assert once["configs"] == twice["configs"]
    assert (once["status"], once["stderr"]) == (twice["status"], twice["stderr"]) == (0, "")
    assert "mode: MULTIRUN" in once["configs"][0][1]
    assert once["compositions"] == twice["compositions"]


def test_hydra_is_left_as_it_was(toy_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hydra.get_mode
    monkeypatch.chdir(toy_project)
    monkeypatch.setattr(sys, "argv", ["silo-run", "env=toy", "task=TASK-001"])
    prepare()
    with compose_once():
        assert Hydra.get_mode is not original
        _capture()
    assert Hydra.get_mode is original
    monkeypatch.setattr(sys, "argv", ["silo-run", "env=toy", "task=TASK-001", "hydra.nope=1"])
    with pytest.raises(SystemExit), compose_once():
        _capture()
    assert Hydra.get_mode is original
