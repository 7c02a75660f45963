"""Dependency floors: install the lowest version every direct dependency allows, run the suite.

Contract: reads ``pyproject.toml``, pins each requirement of ``[project] dependencies`` and of
the extras named in ``EXTRAS`` to the version its ``>=`` floor names (``==`` pins stay, bare
names are left to pip), installs Silo editable with those pins as constraints into its own venv
(``.venv-floors`` by default; ``--venv DIR``) and runs pytest there, passing on any further
arguments (the whole suite on 2 workers by default). Test tools (pytest, mypy, ruff) are not
pinned: they are not what a user of Silo installs. Exits with pytest's status, so a floor
that no longer works turns CI red; raise it in pyproject.toml then.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Extras whose packages the suite imports; their floors are promises too. Not [mcp]: its only
# allowed release (2.3) needs pydantic>=2.12 and jsonschema>=4.20, so it cannot sit beside the
# core floors; its floor is its newest release, which the main CI run tests.
EXTRAS = ("parallel", "openai", "anthropic", "gym")
SKIPPED_TESTS = (
    "tests/integrations/test_mcp_server.py",
    "tests/integrations/test_mcp_user.py",
    "tests/integrations/test_mcp_stdio.py",
    "tests/integrations/test_mcp_host.py",
    "tests/integrations/test_mcp_http.py",
    "tests/integrations/test_mcp_exposure.py",
    "tests/integrations/test_mcp_drops.py",
    "tests/integrations/test_mcp_inspector.py",
)
# What runs the suite rather than what Silo uses: the dev extra's versions, never floored.
TEST_TOOLS = ("pytest", "pytest-xdist")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


def _test_tools(pyproject: Path) -> list[str]:
    dev = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    return [r for r in dev["dev"] if _REQUIREMENT.match(r) and r.split(">")[0] in TEST_TOOLS]


def floor_pins(pyproject: Path) -> list[str]:
    """``name==floor`` for every floored direct requirement, sorted by name."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in EXTRAS:
        requirements += project["optional-dependencies"][extra]
    pins: dict[str, str] = {}
    for requirement in requirements:
        match = _REQUIREMENT.match(requirement)
        if match is None:
            raise SystemExit(f"floors: cannot read requirement {requirement!r}")
        name, _, spec = match.groups()
        key = name.lower().replace("_", "-")
        floor = re.search(r"(?:>=|==)\s*([0-9][^,;\s]*)", spec)
        if floor is None:
            continue
        pins[key] = f"{key}=={floor.group(1)}"
    return [pins[k] for k in sorted(pins)]


def main() -> int:
    """Build the floors venv and run pytest in it; pytest's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=REPO / ".venv-floors")
    parser.add_argument("pytest_args", nargs="*", default=["-n", "2", "-q", "-p", "no:warnings"])
    options = parser.parse_args()
    pins = floor_pins(REPO / "pyproject.toml")
    env_dir: Path = options.venv
    if not (env_dir / "bin" / "python").exists():
        venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    constraints = env_dir / "floors.txt"
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    print("floors:", " ".join(pins), flush=True)
    extras = ",".join(EXTRAS)
    install = [python, "-m", "pip", "install", "-q", "-c", str(constraints), "-e", f".[{extras}]"]
    subprocess.run([*install, *_test_tools(REPO / "pyproject.toml")], cwd=REPO, check=True)
    skipped = [f"--ignore={path}" for path in SKIPPED_TESTS]
    pytest = [python, "-m", "pytest", *skipped, *options.pytest_args]
    return subprocess.run(pytest, cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
