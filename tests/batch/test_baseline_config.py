"""The baselines config refuses what it would otherwise ignore or run twice (issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.batch.baseline_config import load_entries
from silo.errors import SiloError


def _load(tmp_path: Path, text: str) -> None:
    path = tmp_path / "silo-baselines.yaml"
    path.write_text(text)
    load_entries(path)


def test_an_unknown_top_level_key_is_refused_with_the_closest_one(tmp_path: Path) -> None:
    text = "baselines:\n  - {env: crm, agent: solver}\nbaseline:\n  - {env: crm, agent: noop}\n"
    with pytest.raises(SiloError) as caught:
        _load(tmp_path, text)
    assert caught.value.code == "baselines_config_invalid"
    assert caught.value.message == (
        "silo-baselines.yaml: unknown key 'baseline'; did you mean 'baselines'? known: baselines"
    )


def test_an_entry_listed_twice_is_refused(tmp_path: Path) -> None:
    text = "baselines:\n  - {env: crm, agent: solver}\n  - {env: crm, agent: noop}\n"
    text += "  - {env: crm, agent: solver}\n"
    with pytest.raises(SiloError, match=r"baselines\[2\] repeats baselines\[0\] \(crm x solver\)"):
        _load(tmp_path, text)


def test_an_unknown_entry_key_gets_the_closest_one(tmp_path: Path) -> None:
    with pytest.raises(SiloError, match="unknown key 'task'; did you mean 'tasks'?"):
        _load(tmp_path, "baselines:\n  - {env: crm, agent: solver, task: [TASK-001]}\n")
