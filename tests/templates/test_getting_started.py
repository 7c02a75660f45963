"""docs/getting-started.md, "Write your own environment", followed command by command.

Every command of the section's ``bash`` blocks runs as a user would type it, in a fresh folder,
in order; each must exit 0 unless its comment says ``exit code 1``. The page cannot drift from
what the commands do.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.cli._console import run
from tests.waiting import SAFETY_S

PAGE = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
SECTION = "## Write your own environment"


def _commands() -> list[tuple[list[str], int]]:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", len(SECTION))]
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append((words, 1 if "exit code 1" in line else 0))
    return commands


def test_the_page_uses_the_minimal_template() -> None:
    first = _commands()[0][0]
    assert first == ["silo-init", "library", "template=minimal"]


@pytest.mark.slow  # the whole page in a fresh folder (.ci/run runs it; docs/quality.md)
def test_following_the_page_in_a_fresh_folder(tmp_path: Path) -> None:
    commands = _commands()
    assert len(commands) >= 10
    for words, expected in commands:
        proc = run(words[0], tmp_path, *words[1:], timeout=SAFETY_S)
        assert proc.returncode == expected, (words, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
    root = tmp_path / "environments" / "library"
    task = json.loads((root / "tasks" / "TASK-003.json").read_text())
    assert task["verifierId"] == "VER-003" and task["entities"] == {"bookId": "BOOK-2"}
    assert (root / "tools" / "return_book.py").is_file()
    assert (tmp_path / "baselines" / "library" / "solver" / "TASK-001.result.json").is_file()
    listing = run("silo-env", tmp_path, "tool", "list", "env=library", "--json")
    assert [t["name"] for t in json.loads(listing.stdout)][-1] == "return_book"
    stub = run("silo-run", tmp_path, "env=library", "task=TASK-003", "agent=noop")
    assert stub.returncode == 1 and "x TODO: what a correct run leaves in the world" in stub.stdout
