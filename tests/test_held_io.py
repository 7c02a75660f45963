"""silo.held_io: the record's file calls, GIL held while crowded, behave exactly as ``os``'s."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import silo
from silo import held_io


@pytest.fixture(params=["crowded", "alone"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both paths: the C library's (as with hundreds of threads alive) and ``os``'s."""
    monkeypatch.setattr(held_io, "CROWD", 0 if request.param == "crowded" else 10**6)
    return str(request.param)


def test_the_crowded_path_is_the_c_librarys_where_it_loads(mode: str) -> None:
    if os.name != "posix":
        pytest.skip("the C library is only called on POSIX")
    expected = "_held_write_all" if mode == "crowded" else "_os_write_all"
    assert held_io.writer().__name__ == expected


def test_write_close_replace_and_mkdir_do_what_os_does(mode: str, tmp_path: Path) -> None:
    folder = str(tmp_path / "made")
    held_io.mkdir(folder)
    assert os.path.isdir(folder)
    source, target = os.path.join(folder, "a.tmp"), os.path.join(folder, "a.json")
    fd = os.open(source, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    data = "é".encode() * 100_000  # more than one page, not ASCII
    held_io.write_all(fd, data)
    held_io.write_all(fd, b"")
    held_io.close(fd)
    held_io.replace(source, target)
    assert Path(target).read_bytes() == data
    assert not os.path.exists(source)


def test_create_makes_or_truncates_a_file_as_os_open_does(mode: str, tmp_path: Path) -> None:
    path = str(tmp_path / "made.json")
    fd = held_io.create(path)
    try:
        assert not os.get_inheritable(fd)  # as os.open leaves it: a child never holds it
        held_io.write_all(fd, b"first, longer text")
    finally:
        held_io.close(fd)
    fd = held_io.create(path, 0o600)  # an existing file: truncated, its mode kept
    held_io.write_all(fd, b"second")
    held_io.close(fd)
    assert Path(path).read_bytes() == b"second"
    fresh = str(tmp_path / "fresh")
    mask = os.umask(0o022)
    try:
        held_io.close(held_io.create(fresh, 0o640))
    finally:
        os.umask(mask)
    assert os.stat(fresh).st_mode & 0o777 == 0o640


def _error_of(call: Callable[[], object]) -> OSError:
    with pytest.raises(OSError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    "what",
    [
        "write to a closed descriptor",
        "close it again",
        "replace a missing file",
        "mkdir twice",
        "create in a missing folder",
        "create over a folder",
    ],
)
def test_failures_raise_the_same_error_os_raises(mode: str, what: str, tmp_path: Path) -> None:
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o666)
    os.close(fd)
    missing, there = str(tmp_path / "missing"), str(tmp_path / "there")
    os.mkdir(there)
    ours, theirs = {
        "write to a closed descriptor": (
            lambda: held_io.write_all(fd, b"x"), lambda: os.write(fd, b"x"),
        ),
        "close it again": (lambda: held_io.close(fd), lambda: os.close(fd)),
        "replace a missing file": (
            lambda: held_io.replace(missing, there + "/x"), lambda: os.replace(missing, there + "/x"),
        ),
        "mkdir twice": (lambda: held_io.mkdir(there), lambda: os.mkdir(there)),
        "create in a missing folder": (
            lambda: held_io.create(missing + "/x"),
            lambda: os.open(missing + "/x", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666),
        ),
        "create over a folder": (
            lambda: held_io.create(there),
            lambda: os.open(there, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666),
        ),
    }[what]  # fmt: skip
    mine, os_error = _error_of(ours), _error_of(theirs)
    assert type(mine) is type(os_error)
    assert (mine.errno, mine.filename, mine.filename2) == (
        os_error.errno, os_error.filename, os_error.filename2,
    )  # fmt: skip
    assert str(mine) == str(os_error)


def test_a_rollout_recorded_while_crowded_writes_the_same_artifacts(
    mode: str, toy_project: Path, tmp_path: Path
) -> None:
    result = silo.run_task(
        "toy", "TASK-001", "solver", project_dir=toy_project, runs_dir=tmp_path / mode
    )
    assert result.run_dir is not None
    memory = silo.run_task("toy", "TASK-001", "solver", project_dir=toy_project,
                           write_artifacts=False)  # fmt: skip
    written = (result.run_dir / "trace.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["type"] for line in written]
    assert kinds == [json.loads(line)["type"] for line in memory.trace_lines]
    assert json.loads((result.run_dir / "result.json").read_text()) == memory.result
    assert json.loads((result.run_dir / "state-diff.json").read_text()) == memory.state_diff
    assert sorted(os.listdir(result.run_dir)) == [
        "result.json", "run.json", "state-changes.json", "state-diff.json", "trace.jsonl",
    ]  # fmt: skip
