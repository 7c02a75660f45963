"""Every malformed environment file is one line, never a traceback or a hang, in every command.

Task files, the manifest and data files that are invalid UTF-8, 100,000 levels deep, a folder,
a broken symbolic link, a link to ``/dev/zero``, a FIFO, empty, invalid or not an object;
``env.py`` that raises ``KeyboardInterrupt`` on import; ``create_state()`` that raises during
the run. ``silo-run`` and ``silo-ls`` say so in one line with exit 2; ``silo-validate`` reports
it as a finding marked malformed, says so in one line on stderr and exits 2 (a file it cannot
read is not a finding about the environment's content, which is exit 1), without a traceback.
No read may block: the FIFO cases would hang.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run

DEEP = b"[" * 100_000 + b"]" * 100_000
FILES = {
    "task": "tasks/TASK-001.json",
    "manifest": "silo.environment.json",
    "data": "data/counters.json",
}


def _put(data: bytes) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.unlink()
        path.write_bytes(data)

    return make


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _dangling(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "nowhere.json")


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


BREAKS: dict[str, Callable[[Path], None]] = {
    "utf8": _put(b'{"id": "\xff\xfe"}'),
    "deep": _put(DEEP),
    "folder": _folder,
    "dangling": _dangling,
    "devzero": _dev_zero,
    "fifo": _fifo,
    "empty": _put(b""),
    "invalid": _put(b"{nope"),
    "array": _put(b"[1, 2]"),
}
# A data file that holds valid JSON of another shape is for the environment's code to judge.
CASES = [(f, b) for f in FILES for b in BREAKS if (f, b) != ("data", "array")]
QUICK = {("task", "fifo"), ("task", "deep"), ("manifest", "devzero"), ("data", "utf8")}


def _check(project: Path, name: str) -> None:
    """Every command: one line naming the file, exit 2; silo-validate also lists the finding."""
    for command, args in (
        ("silo-run", ("env=toy", "task=TASK-001", "agent=noop")),
        ("silo-ls", ("env=toy",)),
    ):
        proc = run(command, project, *args, timeout=120)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        line = one_line_error(proc, command)
        # A data file is read by the environment's own code: the line names where it failed.
        assert name in line or "env.py" in line, line
    proc = run("silo-validate", project, "env=toy", timeout=120)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = one_line_error(proc, "silo-validate")
    assert name in line and line.partition(" (and ")[0] in proc.stdout, (line, proc.stdout)
    proc = run("silo-validate", project, "env=toy", "--json", timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert any(f.get("malformed") is True and name in f["message"] for f in findings), findings


@pytest.mark.parametrize(
    ("which", "how"),
    [
        pytest.param(f, b, marks=() if (f, b) in QUICK else pytest.mark.slow, id=f"{f}-{b}")
        for f, b in CASES
    ],
)
def test_a_malformed_file_is_one_line_in_every_command(
    toy_project: Path, which: str, how: str
) -> None:
    path = toy_project / "environments" / "toy" / FILES[which]
    BREAKS[how](path)
    _check(toy_project, path.name)


def test_create_state_raising_during_the_run_is_the_environments_error(toy_project: Path) -> None:
    env_py = toy_project / "environments" / "toy" / "env.py"
    head = "def create_state() -> dict[str, Any]:\n"
    env_py.write_text(
        env_py.read_text().replace(head, head + '    raise RuntimeError("no state")\n')
    )
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=noop")
    assert proc.returncode == 2
    assert one_line_error(proc, "silo-run") == (
        "environments/toy: building the world failed at environments/toy/env.py:20: "
        "RuntimeError: no state; fix the environment's create_state() or bind_tools()"
    )


def test_keyboard_interrupt_raised_by_env_py_on_import_is_one_line(toy_project: Path) -> None:
    (toy_project / "environments" / "toy" / "env.py").write_text("raise KeyboardInterrupt\n")
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=noop")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-run")
    assert "env.py:1: KeyboardInterrupt" in line and line.endswith("while importing; remove it")
