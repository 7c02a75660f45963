"""Every console example in README.md and docs/*.md runs and prints what the page shows.

A console example is a fenced block whose first line starts with ``$ ``: each ``$ command``
line is followed by the output it shows. The command runs in a fresh empty folder that is its
project (the installed environments answer there, as for a new user), with a placeholder API key so a
model agent's example reaches the check it documents without any network. Run ids, times and
the folder's path are replaced by placeholders on both sides before comparing, and a failure
names the page, the line and a diff, so whoever changed the output can fix the page fast.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import BIN, REPO
from tests.waiting import SAFETY_S

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(```+|~~~+)")
_PLACEHOLDERS = [
    (re.compile(r"run_\d{14}_[a-z0-9]{6}"), "run_<id>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b"), "<time>"),
]


@dataclass(frozen=True)
class Example:
    """One ``$ command`` of a page and the output the page shows under it."""

    page: str
    line: int
    command: str
    shown: str


def examples(page: Path) -> list[Example]:
    """The console examples of ``page``, in page order."""
    found: list[Example] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    block: list[tuple[int, str]] | None = None
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            if block is None:
                block = []
                continue
            found.extend(_commands(page.relative_to(REPO).as_posix(), block))
            block = None
        elif block is not None:
            block.append((number, line))
    return found


def _commands(page: str, block: list[tuple[int, str]]) -> list[Example]:
    if not block or not block[0][1].startswith("$ "):
        return []  # a listing, a config or a command to copy: not a console example
    found: list[Example] = []
    for i, (number, line) in enumerate(block):
        if line.startswith("$ "):
            rest = [text for _, text in block[i + 1 :]]
            end = next((j for j, text in enumerate(rest) if text.startswith("$ ")), len(rest))
            shown = "\n".join(rest[:end])
            found.append(Example(page, number, line[2:], shown))
    return found


def normalized(text: str, folder: Path) -> str:
    """``text`` with the run's folder, run ids and times replaced by placeholders."""
    text = text.replace(str(folder.resolve()), "<folder>").replace(str(folder), "<folder>")
    for pattern, placeholder in _PLACEHOLDERS:
        text = pattern.sub(placeholder, text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


ALL = [example for page in PAGES for example in examples(page)]


def test_the_pages_hold_console_examples() -> None:
    assert {e.page for e in ALL} >= {"README.md", "docs/getting-started.md"}


@pytest.mark.parametrize("example", ALL, ids=[f"{e.page}:{e.line}" for e in ALL])
def test_console_example_prints_what_the_page_shows(example: Example, tmp_path: Path) -> None:
    words = shlex.split(example.command)
    installed = BIN / words[0]
    argv = [str(installed) if installed.is_file() else words[0], *words[1:]]
    # The fresh folder is the project, whatever folders above it hold.
    env = os.environ | {"SILO_PROJECT_DIR": str(tmp_path)}
    env |= {"OPENAI_API_KEY": "sk-doc-example", "ANTHROPIC_API_KEY": "sk-doc-example"}
    proc = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=SAFETY_S
    )
    got = normalized(proc.stdout + proc.stderr, tmp_path)
    want = normalized(example.shown, tmp_path)
    if got != want:
        diff = "\n".join(
            difflib.unified_diff(
                want.splitlines(), got.splitlines(), "shown", "printed", lineterm=""
            )
        )
        pytest.fail(
            f"{example.page}:{example.line}: `$ {example.command}` (exit {proc.returncode}) "
            f"no longer prints what the page shows; update the page or the output:\n{diff}",
            pytrace=False,
        )
