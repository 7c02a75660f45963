"""silo-ls flags an environment that does not validate and marks its broken tool."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import run
from tests.cli._helpdesk import helpdesk_project

BROKEN_TOOL = """
from silo import define_tool

TOOLS.append(
    define_tool(
        "count_books",
        "How many books.",
        {"type": "object", "properties": {"n": {"type": "nope"}}},
        lambda state, args: len(state["books"]),
    )
)
"""


def _broken(tmp_path: Path) -> Path:
    project = helpdesk_project(tmp_path)
    tools = project / "environments" / "helpdesk" / "tools" / "__init__.py"
    tools.write_text(tools.read_text() + BROKEN_TOOL)
    return project


def test_a_tool_with_a_broken_schema_is_marked_and_the_exit_is_2(tmp_path: Path) -> None:
    proc = run("silo-ls", _broken(tmp_path), "env=helpdesk")
    assert proc.returncode == 2
    row = next(line for line in proc.stdout.splitlines() if "count_books" in line)
    assert row.split()[:4] == ["count_books", "BROKEN", "tool", '"count_books":']
    (line,) = proc.stderr.splitlines()
    assert line.startswith('silo-ls: environment "helpdesk" does not validate (1 error(s)): ')
    assert line.endswith("; run silo-validate env=helpdesk")


def test_the_listing_of_environments_flags_it_too(tmp_path: Path) -> None:
    project = _broken(tmp_path)
    proc = run("silo-ls", project)
    assert proc.returncode == 2
    assert "  helpdesk  minimal  2 tasks  does not validate (1 error(s))" in proc.stdout
    document = json.loads(run("silo-ls", project, "--json").stdout)
    (row,) = document["environments"]
    assert row["errors"] and row["errors"][0].startswith('tool "count_books"')


def test_a_valid_environment_lists_with_exit_0(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-ls", project, "env=helpdesk", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    document = json.loads(proc.stdout)
    assert "errors" not in document and not any("problem" in t for t in document["tools"])
