"""One test per finding code, each on the small environment of conftest.py broken one way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from silo.errors import SiloError
from silo.validate.report import Finding, Report, validate_environment
from tests.validate.conftest import task

Check = Callable[..., Report]


def only(report: Report, code: str, level: str = "error") -> Finding:
    """The single finding with ``code``; fails listing every finding otherwise."""
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, report.to_text()
    assert found[0].level == level
    return found[0]


def test_a_sound_environment_has_no_findings(check_env: Check) -> None:
    report = check_env(deep=True)
    assert report.findings == [], report.to_text()
    assert report.ok
    assert report.counts == {"data": 1, "tasks": 1, "tools": 2, "verifiers": 1}
    assert report.to_text() == "OK  mini  data=1 tasks=1 tools=2 verifiers=1"
    assert report.to_json() == {
        "environment": "mini",
        "ok": True,
        "findings": [],
        "counts": {"data": 1, "tasks": 1, "tools": 2, "verifiers": 1},
    }


def test_unknown_environment_raises(tmp_path: Path) -> None:
    with pytest.raises(SiloError) as info:
        validate_environment("nope", tmp_path)
    assert info.value.code == "environment_not_found"


# --- files --------------------------------------------------------------------------------


def test_data_dir_missing(check_env: Check) -> None:
    report = check_env(files={"data/items.json": None})
    assert "no data/ folder" in only(report, "data_dir_missing", "warning").message
    assert report.ok


def test_data_invalid_json(check_env: Check) -> None:
    report = check_env(files={"data/broken.json": '{"a": '})
    message = only(report, "data_invalid_json").message
    assert "data/broken.json is not valid JSON (line 1" in message
    assert report.counts["data"] == 1 and not report.ok


def test_manifest_missing(check_env: Check) -> None:
    report = check_env(files={"silo.environment.json": None})
    only(report, "manifest_missing", "warning")
    assert report.ok


def test_manifest_invalid(check_env: Check) -> None:
    report = check_env(files={"silo.environment.json": "{nope"})
    assert "not valid JSON" in only(report, "manifest_invalid").message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"id": "TASK-001", "instruction": "x", "verifierId": "VER-001"}', 'string "title"'),
        ("[1, 2]", "one JSON object"),
        ("{", "is not valid JSON (line 1"),
    ],
)
def test_task_invalid(check_env: Check, text: str, expected: str) -> None:
    report = check_env(files={"tasks/TASK-001.json": text})
    message = only(report, "task_invalid").message
    assert "tasks/TASK-001.json" in message and expected in message
    assert report.counts["tasks"] == 0


def test_task_declared_twice(check_env: Check) -> None:
    report = check_env(files={"tasks/TASK-001b.json": task()})
    assert "declared twice" in only(report, "task_invalid").message


# --- the entrypoint -------------------------------------------------------------------------


def test_runtime_load_failed_names_file_and_line(check_env: Check) -> None:
    report = check_env(env_py={"def create_state():": "def create_state(:"})
    message = only(report, "runtime_load_failed").message
    assert message == (
        "the entrypoint does not import: environments/mini/env.py:9: SyntaxError: invalid syntax"
    )


def test_runtime_load_failed_on_import_error(check_env: Check) -> None:
    report = check_env(env_py={"from silo.tools import Tool": "import not_a_module_xyz"})
    message = only(report, "runtime_load_failed").message
    assert "env.py:4: ModuleNotFoundError" in message


def test_runtime_load_failed_for_each_missing_export(check_env: Check) -> None:
    report = check_env(
        env_py={"def bind_tools(state):": "def bind(state):", "verifiers = [": "_v = ["}
    )
    messages = [f.message for f in report.findings if f.code == "runtime_load_failed"]
    assert len(messages) == 2, report.to_text()
    assert "does not export bind_tools()" in messages[0]
    assert "does not export a verifiers list" in messages[1]


def test_runtime_load_failed_without_entrypoint(check_env: Check) -> None:
    report = check_env(files={"env.py": None})
    assert "entrypoint ./env.py does not exist" in only(report, "runtime_load_failed").message


def test_verifier_invalid(check_env: Check) -> None:
    report = check_env(env_py={"verifiers = [": "verifiers = ['VER-9', "})
    assert "verifiers[0] is a str" in only(report, "verifier_invalid").message


def test_create_state_failed(check_env: Check) -> None:
    report = check_env(env_py={'    return {"items"': '    1 / 0\n    return {"items"'})
    message = only(report, "create_state_failed").message
    assert "environments/mini/env.py:10: ZeroDivisionError" in message
    assert "bind_tools_failed" not in report.codes()


def test_bind_tools_failed(check_env: Check) -> None:
    report = check_env(env_py={"    return TOOLS": "    return TOOLS[state['missing']]"})
    assert "KeyError: 'missing'" in only(report, "bind_tools_failed").message


def test_bind_tools_returning_no_list(check_env: Check) -> None:
    report = check_env(env_py={"    return TOOLS": "    return None"})
    assert "returned a NoneType" in only(report, "bind_tools_failed").message


# --- tools ------------------------------------------------------------------------------------


def test_tool_unnamed(check_env: Check) -> None:
    report = check_env(
        env_py={"TOOLS = [GET, SET]": "TOOLS = [GET, Tool('', 'x', {'type': 'object'}, _get)]"}
    )
    assert "tool #2 has no name" in only(report, "tool_unnamed").message


def test_tool_duplicate_name(check_env: Check) -> None:
    report = check_env(env_py={'"set_item",': '"get_item",'})
    message = only(report, "tool_duplicate_name").message
    assert 'tools #1 and #2 are both named "get_item"' in message


def test_tool_no_description(check_env: Check) -> None:
    report = check_env(env_py={'"Read one item.",': '"  ",'})
    assert '"get_item" has no description' in only(report, "tool_no_description", "warning").message
    assert report.ok


def test_tool_schema_invalid(check_env: Check) -> None:
    report = check_env(env_py={'{"type": "integer"}': '{"type": "int"}'})
    message = only(report, "tool_schema_invalid").message
    assert (
        '"set_item"' in message
        and "Draft 2020-12" in message
        and "properties/value/type" in message
    )


def test_tool_schema_not_an_object(check_env: Check) -> None:
    report = check_env(
        env_py={'{"type": "object", "properties": {"id": ID}, "required": ["id"]}': "ID"}
    )
    assert '"type": "object"' in only(report, "tool_schema_invalid").message


def test_tool_invalid(check_env: Check) -> None:
    report = check_env(env_py={"TOOLS = [GET, SET]": "TOOLS = [GET, SET, _get]"})
    assert "item #3 is a function" in only(report, "tool_invalid").message


def test_no_tools_and_no_tasks(check_env: Check) -> None:
    report = check_env(
        env_py={"TOOLS = [GET, SET]": "TOOLS = []", "verifiers = [": "verifiers = []\n_v = ["},
        files={"tasks/TASK-001.json": None},
    )
    assert report.codes() == ["no_tasks", "no_tools"]
    assert report.ok


# --- verifiers and tasks ----------------------------------------------------------------------


def test_verifier_duplicate_id(check_env: Check) -> None:
    report = check_env(
        env_py={
            'verifiers = [define_verifier("VER-001", "A set to 5", _a_is_five)]': (
                "verifiers = [\n"
                '    define_verifier("VER-001", "A set to 5", _a_is_five),\n'
                '    define_verifier("VER-001", "again", _a_is_five),\n'
                "]"
            )
        }
    )
    assert 'two verifiers have the id "VER-001"' in only(report, "verifier_duplicate_id").message
    assert report.counts["verifiers"] == 2


# The orphan check reads the task id that only the deprecated form still names.
@pytest.mark.filterwarnings("ignore:define_verifier:DeprecationWarning")
def test_verifier_orphan(check_env: Check) -> None:
    # Only the deprecated form names a task from the verifier's side, so only it can orphan one.
    with pytest.warns(DeprecationWarning, match="the task id is no longer needed"):
        report = check_env(
            env_py={
                "verifiers = [": 'verifiers = [define_verifier("VER-9", "TASK-9", "x", _a_is_five), '
            }
        )
    assert '"VER-9" grades task "TASK-9"' in only(report, "verifier_orphan", "warning").message
    assert report.ok


def test_task_verifier_unresolved(check_env: Check) -> None:
    report = check_env(files={"tasks/TASK-001.json": task(verifier_id="VER-404")})
    message = only(report, "task_verifier_unresolved").message
    assert 'verifierId "VER-404"' in message and "known: VER-001" in message
    assert only(report, "verifier_unused", "warning")


# The mismatch check reads the task id that only the deprecated form still names.
@pytest.mark.filterwarnings("ignore:define_verifier:DeprecationWarning")
def test_verifier_task_mismatch(check_env: Check) -> None:
    # Only the deprecated form names a task from the verifier's side, so only it can disagree.
    with pytest.warns(DeprecationWarning, match="the task id is no longer needed"):
        report = check_env(
            files={"tasks/TASK-002.json": task("TASK-002", "VER-001")},
            env_py={'"VER-001", "A set': '"VER-001", "TASK-001", "A set'},
        )
    message = only(report, "verifier_task_mismatch").message
    assert "TASK-002.json" in message and 'grades task "TASK-001"' in message


def test_every_problem_is_reported_not_just_the_first(check_env: Check) -> None:
    report = check_env(
        files={
            "data/broken.json": "[",
            "tasks/TASK-002.json": '{"id": "TASK-002"}',
            "tasks/TASK-003.json": task("TASK-003", "VER-404"),
        },
        env_py={'"Read one item.",': '"",', '"set_item",': '"get_item",'},
    )
    assert report.codes() == [
        "data_invalid_json",
        "task_invalid",
        "tool_no_description",
        "tool_duplicate_name",
        "task_verifier_unresolved",
    ]
    assert report.to_text().splitlines()[-1] == "FAILED  mini  data=1 tasks=2 tools=2 verifiers=1"
    assert report.to_text().startswith("ERROR  data_invalid_json  environments/mini/data/broken")


# --- deep checks ------------------------------------------------------------------------------


def test_deep_checks_run_by_default_with_a_solver(check_env: Check) -> None:
    report = check_env(deep=None, files={"solver.py": "def agent(inp):\n    return 'idle'\n"})
    assert (
        'does not pass task "TASK-001" (failed required checks: A is 5)'
        in only(report, "solver_failed").message
    )


def test_no_deep_checks_by_default_without_a_solver(check_env: Check) -> None:
    assert check_env(deep=None, files={"solver.py": None}).findings == []


def test_no_solver_when_deep_is_asked(check_env: Check) -> None:
    report = check_env(deep=True, files={"solver.py": None})
    only(report, "no_solver", "warning")
    assert report.ok


def test_deep_checks_wait_for_static_errors(check_env: Check) -> None:
    report = check_env(deep=True, files={"data/broken.json": "["})
    assert report.codes() == ["data_invalid_json", "deep_skipped"]


def test_solver_failed_names_the_error(check_env: Check) -> None:
    report = check_env(deep=True, files={"solver.py": "def agent(inp):\n    raise KeyError('k')\n"})
    message = only(report, "solver_failed").message
    assert 'task "TASK-001"' in message and "error: " in message and "KeyError" in message


def test_solver_that_does_not_load(check_env: Check) -> None:
    report = check_env(deep=True, files={"solver.py": "def agent(:\n"})
    assert "solver.py failed to load" in only(report, "solver_failed").message


def test_noop_passes(check_env: Check) -> None:
    report = check_env(deep=True, env_py={'final["items"]["A"]["value"] == 5': "True"})
    message = only(report, "noop_passes").message
    assert 'task "TASK-001"' in message and "a task an idle agent passes is broken" in message


FLOOR = {
    "from silo import check,": "from silo import optional, check,",
    'return [check("A is 5", final["items"]["A"]["value"] == 5)]': (
        'return [check("A is 5", final["items"]["A"]["value"] == 5), '
        'optional("B kept", final["items"]["B"]["value"] == 2)]'
    ),
}


def test_noop_rewarded_names_the_checks_an_idle_agent_passes(check_env: Check) -> None:
    report = check_env(deep=True, env_py=FLOOR)
    message = only(report, "noop_rewarded", "warning").message
    assert 'task "TASK-001"' in message and "reward 0.5 from 1 passed check(s): B kept" in message
    assert report.ok


@pytest.mark.parametrize(
    "files",
    [
        {"tasks/TASK-001.json": task(reward="binary")},
        {"silo.environment.json": json.dumps({"name": "mini", "reward": "binary"})},
    ],
)
def test_a_binary_reward_gives_the_idle_agent_nothing(
    check_env: Check, files: dict[str, str]
) -> None:
    report = check_env(deep=True, env_py=FLOOR, files=files)
    assert report.findings == [], report.to_text()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"tasks/TASK-001.json": task(reward="shaped")}, "\"reward\" is 'shaped'; use one of"),
        (
            {"silo.environment.json": json.dumps({"name": "mini", "reward": 1})},
            '"reward" is 1; use one of weighted, binary',
        ),
    ],
)
def test_an_unknown_reward_mode_is_one_line(
    check_env: Check, files: dict[str, str], message: str
) -> None:
    report = check_env(files=files)
    assert message in " ".join(f.message for f in report.findings), report.to_text()
    assert not report.ok


def test_nondeterministic(check_env: Check) -> None:
    solver = "def agent(inp):\n    return str(inp.call_tool('get_item', {'id': 'A'}))\n"
    report = check_env(
        deep=True,
        files={"solver.py": solver, "tasks/TASK-001.json": task(verifier_id="VER-ALL")},
        env_py={
            "verifiers = [": 'verifiers = [define_verifier("VER-ALL", "any", '
            'lambda f, i, c: [check("answered", bool(c.agent_output))]), ',
            "def _get(state, args):": "import itertools\nCOUNT = itertools.count()\n\n\n"
            "def _get(state, args):",
            '    return dict(state["items"][args["id"]])': (
                '    return {**state["items"][args["id"]], "n": next(COUNT)}'
            ),
        },
    )
    message = only(report, "nondeterministic").message
    assert (
        'task "TASK-001"' in message
        and 'result.json (first difference at "agentOutput")' in message
    )


def test_create_state_shared(check_env: Check) -> None:
    report = check_env(
        deep=True,
        env_py={
            'def create_state():\n    return {"items": {': 'B = {"value": 2}\n\n\n'
            'def create_state():\n    return {"items": {"B": B, ',
            ', "B": {"value": 2}}}': "}}",
        },
    )
    assert "share state['items']['B']" in only(report, "create_state_shared").message


def test_tool_leaks_state(check_env: Check) -> None:
    report = check_env(
        deep=True,
        env_py={'    return dict(state["items"][args["id"]])': '    return state["items"]'},
    )
    message = only(report, "tool_leaks_state").message
    assert '"get_item"' in message and "(output)" in message


def test_tool_leaks_state_found_without_solver_calls(check_env: Check) -> None:
    report = check_env(
        deep=True,
        env_py={
            "TOOLS = [GET, SET]": "TOOLS = [GET, SET, define_tool('dump', 'All items.', "
            "{'type': 'object'}, lambda state, args: {'all': [state['items']['A']]})]"
        },
    )
    assert (
        "\"dump\" returns a live part of the state (output['all'][0])"
        in only(report, "tool_leaks_state").message
    )


def test_world_not_reset(check_env: Check) -> None:
    untracked = 'dict.__setitem__(state["items"]["A"], "value", args["value"])'
    report = check_env(
        deep=True, env_py={'state["items"][args["id"]]["value"] = args["value"]': untracked}
    )
    message = only(report, "world_not_reset").message
    assert 'differs from a fresh create_state() at "items"' in message


def test_task_unknown_id(check_env: Check) -> None:
    # The mini world's ids ("A", "B") have no shape, so the manifest declares the id patterns.
    manifest = json.dumps({"name": "mini", "idPatterns": ["ITEM-\\d+", "ACC-\\d+"]})
    instruction = task(instruction="Set ITEM-7 and ACC-001.")
    report = check_env(
        files={"silo.environment.json": manifest, "tasks/TASK-001.json": instruction}
    )
    message = only(report, "task_unknown_id", "warning").message
    assert "names ITEM-7, ACC-001, which the initial world does not contain" in message
    assert report.ok
    clean = check_env(files={"tasks/TASK-001.json": task(instruction="Set item A to 5.")})
    assert "task_unknown_id" not in clean.codes()


def test_task_unknown_id_infers_id_shapes_from_the_data(check_env: Check) -> None:
    shaped = {
        'return {"items": {"A": {"value": 1}, "B": {"value": 2}}}': (
            'return {"items": {"A": {"value": 1}, "B": {"value": 2}}, '
            '"orders": {"ORD-001": {}}, "log": [{"id": "EV-12"}], "now": "2026-03-16"}'
        )
    }
    instruction = "Ship ORD-001 and ORD-009, log EV-3; ITEM-7 and 2026-04-01 are no record ids."
    report = check_env(env_py=shaped, files={"tasks/TASK-001.json": task(instruction=instruction)})
    message = only(report, "task_unknown_id", "warning").message
    assert "names ORD-009, EV-3, which the initial world does not contain" in message


def test_task_unknown_id_is_silent_without_id_shapes(check_env: Check) -> None:
    report = check_env(files={"tasks/TASK-001.json": task(instruction="Set ITEM-7 and ACC-001.")})
    assert "task_unknown_id" not in report.codes()


def test_manifest_id_patterns_must_be_regular_expressions(check_env: Check) -> None:
    report = check_env(files={"silo.environment.json": json.dumps({"idPatterns": ["ITEM-("]})})
    assert "is not a regular expression" in only(report, "manifest_invalid").message
