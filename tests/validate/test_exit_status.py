"""silo-validate's status: 2 for a file it cannot read as it must be, 1 for what a file says."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from silo.validate.report import Report
from tests.validate.conftest import task

Check = Callable[..., Report]


@pytest.mark.parametrize(
    ("files", "code"),
    [
        ({"tasks/TASK-001.json": "{"}, "task_invalid"),
        ({"tasks/TASK-001.json": "[1, 2]"}, "task_invalid"),
        ({"silo.environment.json": "{nope"}, "manifest_invalid"),
        ({"silo.environment.json": "[]"}, "manifest_invalid"),
        ({"data/broken.json": ""}, "data_invalid_json"),
    ],
    ids=["task-not-json", "task-not-object", "manifest-not-json", "manifest-not-object", "data"],
)
def test_a_malformed_file_is_exit_2(check_env: Check, files: dict[str, str], code: str) -> None:
    report = check_env(files=files)
    [finding] = report.malformed()
    assert finding.code == code and finding.to_json()["malformed"] is True
    assert report.exit_status == 2


@pytest.mark.parametrize(
    "files",
    [
        {"tasks/TASK-001.json": '{"id": "TASK-001", "instruction": "x", "verifierId": "VER-001"}'},
        {"tasks/TASK-001b.json": task()},  # an id declared twice
        {"silo.environment.json": '{"name": "mini", "tools": 3}'},
    ],
    ids=["task-missing-title", "task-twice", "manifest-wrong-type"],
)
def test_what_a_readable_file_says_is_exit_1(check_env: Check, files: dict[str, str]) -> None:
    report = check_env(files=files)
    assert not report.ok and report.malformed() == []
    assert report.exit_status == 1
    assert all("malformed" not in f.to_json() for f in report.findings)


def test_a_sound_environment_is_exit_0(check_env: Check) -> None:
    assert check_env().exit_status == 0
