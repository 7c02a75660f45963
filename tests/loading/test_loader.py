"""The one loader: the first problem raised, or every problem collected, and an explicit cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo.errors import EnvironmentLoadError, SiloError, TaskError
from silo.loading.environment import EnvironmentCache, load_environment, read_environment

ENV_PY = """
from silo import check, define_tool, define_verifier

def create_state():
    return {"items": {"A": 1}}

def bind_tools(state):
    return [define_tool(name="get", description="Read A.", input_schema={"type": "object"},
                        run=lambda args: state["items"]["A"])]

verifiers = [define_verifier(id="VER-001", name="A is 1",
                             check=lambda final, initial, ctx: [check("A is 1", True)])]
"""
TASK = {"id": "TASK-001", "title": "T", "instruction": "Read A.", "verifierId": "VER-001"}


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "environments" / "mini"
    for name, text in {"env.py": ENV_PY, "tasks/TASK-001.json": json.dumps(TASK), **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


BROKEN = {
    "silo.environment.json": "{not json",
    "tasks/TASK-002.json": json.dumps({"id": "TASK-002"}),
    "env.py": "verifiers = ['not a verifier']\n",
}


def test_a_raising_load_stops_at_the_first_problem(tmp_path: Path) -> None:
    with pytest.raises(EnvironmentLoadError) as info:
        read_environment(make(tmp_path, BROKEN))
    assert info.value.code == "manifest_invalid"
    assert "environments/mini/silo.environment.json is not valid JSON" in info.value.message


def test_a_collecting_load_lists_every_problem_in_order(tmp_path: Path) -> None:
    problems: list[SiloError] = []
    parts = read_environment(make(tmp_path, BROKEN), on_problem=problems.append)
    assert [p.code for p in problems] == [
        "manifest_invalid",
        "task_invalid",
        "runtime_contract_invalid",  # create_state
        "runtime_contract_invalid",  # bind_tools
        "verifier_invalid",
    ]
    assert isinstance(problems[1], TaskError)
    assert "verifiers[0] is a str" in problems[4].message
    assert list(parts.tasks) == ["TASK-001"] and parts.verifiers == []
    assert parts.declared_verifiers == 1
    with pytest.raises(ValueError, match="did not load completely"):
        parts.environment()


def test_the_same_checks_raise_one_at_a_time(tmp_path: Path) -> None:
    root = make(tmp_path, {"env.py": ENV_PY.replace("verifiers = [", "verifiers = ['x', ")})
    with pytest.raises(EnvironmentLoadError, match=r"env.py: verifiers\[0\] is a str") as info:
        load_environment(root, cache=EnvironmentCache())
    assert info.value.code == "verifier_invalid"


def test_exit_on_import_is_a_load_problem_not_the_end_of_the_process(tmp_path: Path) -> None:
    root = make(tmp_path, {"env.py": "raise SystemExit(3)\n"})
    with pytest.raises(EnvironmentLoadError, match="called exit\\(\\) on import") as info:
        load_environment(root, cache=EnvironmentCache())
    assert info.value.code == "module_load_failed"


def test_the_cache_is_an_object_the_caller_holds(tmp_path: Path) -> None:
    root = make(tmp_path, {})
    mine, other = EnvironmentCache(), EnvironmentCache()
    first = load_environment(root, cache=mine)
    assert load_environment(root, cache=mine) is first
    assert load_environment(root, cache=other) is not first
    assert load_environment(root, cache=mine, reload=True) is not first
    mine.clear()
    assert load_environment(root, cache=mine) is not first
    assert first.tool_specs() == [
        {"name": "get", "description": "Read A.", "inputSchema": {"type": "object"}}
    ]


def _count_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names the loader looks for on disk from now on (in order)."""
    import silo.loading.environment as loader

    looked: list[str] = []
    real = loader.resolve_environment_dir

    def counting(name: str, project_dir: Path | None = None) -> Path:
        looked.append(name)
        return real(name, project_dir)

    monkeypatch.setattr(loader, "resolve_environment_dir", counting)
    return looked


def test_a_name_under_an_absolute_project_is_found_once_and_reload_finds_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {})
    looked = _count_lookups(monkeypatch)
    cache = EnvironmentCache()
    first = load_environment("mini", tmp_path, cache=cache)
    assert load_environment("mini", tmp_path, cache=cache) is first
    assert looked == ["mini"]  # a session per episode looks for the folder once
    # The same folder by its path shares the environment; reload looks again and reloads.
    assert load_environment(tmp_path / "environments" / "mini", cache=cache) is first
    again = load_environment("mini", tmp_path, cache=cache, reload=True)
    assert again is not first and looked == ["mini", "mini"]
    assert load_environment("mini", tmp_path, cache=cache) is again
    cache.clear()
    assert load_environment("mini", tmp_path, cache=cache) is not again
    assert looked == ["mini", "mini", "mini"]


def test_a_name_found_from_the_working_folder_is_looked_for_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {})
    looked = _count_lookups(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    cache = EnvironmentCache()
    first = load_environment("mini", cache=cache)
    assert load_environment("mini", Path("."), cache=cache) is first  # relative: the cwd's
    assert looked == ["mini", "mini"]  # the working folder may change between calls


def test_an_unknown_environment_names_the_known_ones(tmp_path: Path) -> None:
    make(tmp_path, {})
    with pytest.raises(
        EnvironmentLoadError, match='unknown environment "nope".*known: crm, erp, mini, project'
    ):
        load_environment("nope", tmp_path, cache=EnvironmentCache())
