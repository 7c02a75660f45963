"""docs/cli.md's table of silo-run keys says what the composed config and ``--help`` say.

Every key the composed config holds has a row, every row names a key the config holds (a config
group such as ``budget`` counts by its name), each row's default is the config's, and ``--help``
names every key and every agent config Silo ships. A failure lists what differs and where.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, script
from tests.waiting import SAFETY_S

CLI_MD = REPO / "docs" / "cli.md"
SHIPPED_AGENTS = sorted(p.stem for p in (REPO / "conf" / "agent").glob("*.yaml"))


def _silo_run(folder: Path, *args: str) -> str:
    env = os.environ | {"SILO_PROJECT_DIR": str(folder)}  # a fresh project, nothing above it
    proc = subprocess.run(
        [script("silo-run"), *args], cwd=folder, env=env, capture_output=True, text=True,
        timeout=SAFETY_S,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def keys_table() -> dict[str, tuple[str, str]]:
    """The rows of cli.md's `### Keys` table: key -> (default, meaning)."""
    text = CLI_MD.read_text(encoding="utf-8").split("### Keys", 1)[1]
    rows: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 3:
            rows[cells[0].strip("`")] = (cells[1].strip("`"), cells[2])
        elif rows and not line.startswith("|"):
            break
    return rows


def flat(config: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted keys of the composed config; a group's ``name`` stands for the group itself."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            if "name" in value:
                out[dotted] = value["name"]
            out |= {k: v for k, v in flat(value, f"{dotted}.").items() if not k.endswith(".name")}
        else:
            out[dotted] = value
    return out


@pytest.fixture(scope="module")
def composed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    folder = tmp_path_factory.mktemp("empty")
    config = yaml.safe_load(_silo_run(folder, "--cfg", "job"))
    return flat(config), _silo_run(folder, "--help")


def test_every_key_has_a_row_and_every_row_a_key(composed: tuple[dict[str, Any], str]) -> None:
    config, _ = composed
    rows = set(keys_table())
    missing = sorted(set(config) - rows)
    # budget=, env= and pricing= pick a config group's file by name; env and pricing have
    # none by default, so the composed config holds no key for them.
    unknown = sorted(rows - set(config) - {"budget", "env", "pricing"})
    assert not missing and not unknown, (
        f"docs/cli.md's keys table: add rows for {missing}; remove or fix rows {unknown}"
    )


def test_every_row_gives_the_configs_default(composed: tuple[dict[str, Any], str]) -> None:
    config, _ = composed
    wrong = [
        f"{key}: the table says {default!r}, the config holds {config[key]!r}"
        for key, (default, _) in keys_table().items()
        if key in config
        and key != "runs_dir"  # <project>/.silo/runs: resolved per project
        and default != _shown(config[key])
    ]
    assert not wrong, "docs/cli.md's keys table:\n" + "\n".join(wrong)


def _shown(value: Any) -> str:
    """A config value as the table writes it: ``required``, ``null``, YAML's spelling."""
    if value == "???":
        return "required"
    return "null" if value is None else str(value).lower()


def test_help_names_every_key(composed: tuple[dict[str, Any], str]) -> None:
    _, help_text = composed
    usage = help_text.split("Composed config", 1)[0]
    absent = [key for key in keys_table() if not re.search(rf"(?<![\w.]){re.escape(key)}=", usage)]
    assert not absent, f"silo-run --help (silo/_main/silo.yaml) names no {absent}"


def test_the_agent_row_and_help_list_every_shipped_agent(
    composed: tuple[dict[str, Any], str],
) -> None:
    _, help_text = composed
    row = keys_table()["agent"][1]
    agents_line = next(line for line in help_text.splitlines() if "agent=<name>" in line)
    assert [a for a in SHIPPED_AGENTS if f"`{a}`" not in row] == [], "docs/cli.md's agent row"
    assert [a for a in SHIPPED_AGENTS if a not in agents_line] == [], "silo-run --help"
