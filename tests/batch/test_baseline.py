"""The baseline engine (silo.batch.baseline) on the toy environment: every outcome, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import silo.batch.baseline as baseline
from silo import run_task
from silo.batch.baseline import (
    Entry,
    GoldenOutcome,
    Target,
    check_goldens,
    explain,
    load_entries,
    record_goldens,
    require_deterministic,
    runnable_tasks,
    select_entries,
    tool_events,
)
from silo.batch.sweep import Point
from silo.errors import SiloError
from silo.jsonio import pretty
from silo.loading.environment import load_environment
from silo.rollout.run import Budget

TASKS = ("TASK-001", "TASK-003")  # TASK-002's verifier raises: never a golden


def target(
    agent: object = "solver",
    tasks: tuple[str, ...] = TASKS,
    *,
    label: str = "solver",
    tool_events: bool = False,
    scope: tuple[str, ...] = ("all",),
) -> Target:
    points = [Point("toy", t, agent, label, Budget(), 0) for t in tasks]
    return Target("toy", label, points, tool_events, scope)


def statuses(outcomes: list[GoldenOutcome]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(o.status, o.task, o.files) for o in outcomes]


def stamp(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.fixture
def base(toy_project: Path) -> Path:
    return toy_project / "baselines"


def test_record_writes_the_exact_artifact_bytes(toy_project: Path, base: Path) -> None:
    out = list(record_goldens(target(), toy_project, base))
    assert statuses(out) == [("created", t, ()) for t in TASKS]
    folder = base / "toy" / "solver"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{t}.{k}.json" for t in TASKS for k in ("result", "state-diff")
    )
    real = run_task("toy", "TASK-001", "solver", project_dir=toy_project)  # with artifacts
    for kind in ("result", "state-diff"):
        written = (real.run_dir / f"{kind}.json").read_bytes()
        assert (folder / f"TASK-001.{kind}.json").read_bytes() == written


def test_second_record_leaves_every_file_untouched(toy_project: Path, base: Path) -> None:
    list(record_goldens(target(), toy_project, base))
    before = stamp(base / "toy" / "solver")
    out = list(record_goldens(target(), toy_project, base))
    assert statuses(out) == [("same", t, ()) for t in TASKS]
    assert stamp(base / "toy" / "solver") == before


def test_check_clean(toy_project: Path, base: Path) -> None:
    list(record_goldens(target(), toy_project, base))
    assert statuses(list(check_goldens(target(), toy_project, base))) == [
        ("ok", t, ()) for t in TASKS
    ]


def test_check_explains_a_drift_field_by_field(toy_project: Path, base: Path) -> None:
    list(record_goldens(target(), toy_project, base))
    golden = base / "toy" / "solver" / "TASK-001.result.json"
    old = json.loads(golden.read_text())
    old["reward"] = 0.8
    old["checks"][2]["passed"] = False
    old["failedRequired"] = ["C-1 went up by 2"]
    golden.write_text(pretty(old))
    out = list(check_goldens(target(), toy_project, base))
    assert statuses(out) == [
        ("DRIFT", "TASK-001", ("result.json",)),
        ("ok", "TASK-003", ()),
    ]
    assert out[0].lines == (
        "root['checks'][2]['passed']: False -> True",
        "root['failedRequired'][0]: removed 'C-1 went up by 2'",
        "root['reward']: 0.8 -> 1.0",
    )


def test_record_rewrites_a_changed_golden_and_says_why(toy_project: Path, base: Path) -> None:
    list(record_goldens(target(), toy_project, base))
    golden = base / "toy" / "solver" / "TASK-003.state-diff.json"
    real = golden.read_bytes()
    old = json.loads(real)
    old["collections"]["counters"]["changed"] = ["C-2"]
    del old["collections"]["log"]
    golden.write_text(pretty(old))
    out = list(record_goldens(target(), toy_project, base))
    assert statuses(out)[1] == ("changed", "TASK-003", ("state-diff.json",))
    assert out[1].lines == (
        "root['collections']['counters']['changed'][0]: 'C-2' -> 'C-1'",
        "root['collections']['log']: added {'added': ['LOG-001', 'LOG-002'], 'removed': [], "
        "'changed': []}",
    )
    assert golden.read_bytes() == real


def test_missing_goldens_skip_the_rollout(
    toy_project: Path, base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    list(record_goldens(target(), toy_project, base))
    folder = base / "toy" / "solver"
    (folder / "TASK-003.state-diff.json").unlink()
    every = ("TASK-001", "TASK-002", "TASK-003")  # TASK-002 has no golden at all
    ran: list[str] = []
    real = baseline.run_point
    monkeypatch.setattr(
        baseline, "run_point", lambda point, **k: ran.append(point.task) or real(point, **k)
    )
    out = list(check_goldens(target(tasks=every), toy_project, base))
    assert statuses(out) == [
        ("ok", "TASK-001", ()),
        ("MISSING", "TASK-002", ()),
        ("MISSING", "TASK-003", ("state-diff.json",)),
    ]
    assert ran == ["TASK-001", "TASK-003"]


def test_stale_goldens_of_deleted_tasks(toy_project: Path, base: Path) -> None:
    list(record_goldens(target(), toy_project, base))
    (toy_project / "environments" / "toy" / "tasks" / "TASK-003.json").unlink()
    load_environment("toy", toy_project, reload=True)  # forget the cached task list
    out = list(check_goldens(target(tasks=TASKS[:2]), toy_project, base))
    assert statuses(out)[-1] == ("STALE", "TASK-003", ())
    assert out[-1].note == "task no longer exists"
    narrow = list(
        check_goldens(target(tasks=("TASK-001",), scope=("TASK-001",)), toy_project, base)
    )
    assert statuses(narrow) == [("ok", "TASK-001", ())]
    globbed = list(check_goldens(target(tasks=(), scope=("TASK-00[3-9]",)), toy_project, base))
    assert statuses(globbed) == [("STALE", "TASK-003", ())]


def test_pinned_tool_events_without_their_timing(toy_project: Path, base: Path) -> None:
    out = list(record_goldens(target(tool_events=True), toy_project, base))
    assert statuses(out)[0] == ("created", "TASK-001", ())
    events = json.loads((base / "toy" / "solver" / "TASK-001.tool-events.json").read_text())
    assert [e["type"] for e in events] == ["tool_call", "tool_result"] * 2
    assert list(events[0]) == ["seq", "type", "callId", "tool", "input"]
    assert list(events[1]) == ["seq", "type", "callId", "tool", "output", "isError"]
    assert events[3]["output"]["value"] == 3
    assert statuses(list(check_goldens(target(tool_events=True), toy_project, base)))[0][0] == "ok"
    # an entry that no longer pins tool events leaves them STALE
    out = list(check_goldens(target(), toy_project, base))
    assert ("STALE", "TASK-001", ("tool-events.json",)) in statuses(out)
    assert out[-1].note == "tool_events is off"


def test_tool_events_filter_keeps_only_tool_events() -> None:
    lines = [
        '{"seq":1,"type":"run_start","at":"x"}',
        '{"seq":2,"type":"tool_call","at":"x","callId":1,"tool":"t","input":{}}',
        '{"seq":3,"type":"tool_result","at":"x","callId":1,"tool":"t","output":1,'
        '"isError":false,"durationMs":0.5}',
        '{"seq":4,"type":"model_step","at":"x","note":"\\"type\\":\\"tool_call\\""}',
    ]
    assert tool_events(lines) == [
        {"seq": 2, "type": "tool_call", "callId": 1, "tool": "t", "input": {}},
        {"seq": 3, "type": "tool_result", "callId": 1, "tool": "t", "output": 1, "isError": False},
    ]


def test_non_deterministic_agents_are_refused(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # built, then refused as not deterministic
    with pytest.raises(SiloError) as caught:
        model = {"_target_": "silo.agents.openai.OpenAIAgent", "model": "any-model"}
        require_deterministic(target(model, label="openai"), toy_project)
    assert caught.value.code == "agent_not_deterministic"
    assert "agent=replay agent.trace=" in caught.value.message
    replay = {"_target_": "silo.agents.replay.ReplayAgent", "trace": "run/trace.jsonl"}
    require_deterministic(target(replay, label="replay"), toy_project)
    require_deterministic(target("noop", label="noop"), toy_project)


def test_replaying_a_recorded_trace_reproduces_the_goldens(toy_project: Path, base: Path) -> None:
    run = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    replay = {
        "_target_": "silo.agents.replay.ReplayAgent",
        "trace": str(run.run_dir / "trace.jsonl"),
    }
    list(record_goldens(target(replay, ("TASK-001",), label="replay"), toy_project, base))
    for kind in ("result", "state-diff"):
        assert (base / "toy" / "replay" / f"TASK-001.{kind}.json").read_bytes() == (
            run.run_dir / f"{kind}.json"
        ).read_bytes()


def test_a_rollout_that_cannot_start_is_an_error(toy_project: Path, base: Path) -> None:
    (out,) = record_goldens(
        target("agents/none.py", ("TASK-001",), label="none"), toy_project, base
    )
    assert out.status == "ERROR" and "agents/none.py does not exist" in out.lines[0]
    assert not (base / "toy" / "none").exists()


def test_explain_edge_cases() -> None:
    assert explain("{not json", {}) == [
        "the golden is not valid JSON (line 1: Expecting property name enclosed in double "
        "quotes); record it again"
    ]
    assert explain('{"b": 1, "a": 2}', {"a": 2, "b": 1}) == [
        "same values, different text (key order or layout); record it again"
    ]
    assert explain('{"a": [1, 2]}', {"a": [1, 2, 3], "b": None}) == [
        "root['a'][2]: added 3",
        "root['b']: added None",
    ]
    many = explain(json.dumps(list(range(60))), [n * 2 + 1 for n in range(60)])
    assert len(many) == 41 and many[-1] == "... and 20 more differences"
    assert explain('{"t": "x"}', {"t": "y" * 500})[0].endswith("...")


def test_load_and_select_entries(tmp_path: Path) -> None:
    path = tmp_path / "silo-baselines.yaml"
    assert load_entries(path) is None
    path.write_text(
        "baselines:\n"
        "  - {env: crm, agent: solver, tool_events: true}\n"
        "  - {env: crm, agent: noop, tasks: [TASK-001, 'TASK-00*'], overrides: [budget=quick]}\n"
    )
    entries = load_entries(path)
    assert entries == [
        Entry("crm", "solver", (), True),
        Entry("crm", "noop", ("TASK-001", "TASK-00*"), False, ("budget=quick",)),
    ]
    assert select_entries(entries) == entries
    assert select_entries(entries, agents=["noop"]) == entries[1:]
    assert select_entries(entries, envs=["crm"]) == entries
    assert select_entries(entries, ["toy"], ["solver"]) == [Entry("toy", "solver")]
    assert select_entries(entries, agents=["solver", "random"]) == [
        entries[0],
        Entry(None, "random"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("baselines: [{env: crm, agent: solver, tool: 1}]", "unknown key 'tool'"),
        ("baselines: [{env: crm}]", "baselines[0]: agent must name one agent"),
        ("baselines: [{env: crm, agent: x, tool_events: yes please}]", "true or false"),
        ("baselines: [{env: crm, agent: x, tasks: [1]}]", "tasks must be a list of strings"),
        ("entries: []", "needs a 'baselines:' list"),
        ("baselines: [", "is not valid YAML (line"),
    ],
)
def test_config_mistakes_are_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "silo-baselines.yaml"
    path.write_text(text)
    with pytest.raises(SiloError) as caught:
        load_entries(path)
    assert message in caught.value.message and "\n" not in caught.value.message.strip()


def test_runnable_tasks_leave_out_deleted_tasks_with_goldens(tmp_path: Path) -> None:
    (tmp_path / "TASK-009.result.json").write_text("{}")
    scope = ("all", "TASK-00*", "TASK-001", "TASK-009", "TASK-404")
    assert runnable_tasks(scope, ["TASK-001"], tmp_path) == [
        "all",
        "TASK-00*",
        "TASK-001",
        "TASK-404",
    ]


def test_the_engine_does_not_import_deepdiff_or_hydra_until_needed(toy_project: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; import silo.batch.baseline as b\n"
        "from silo.rollout.run import Budget; from silo.batch.sweep import Point\n"
        f"p = Path({str(toy_project)!r}); base = p / 'baselines'\n"
        "t = b.Target('toy', 'solver', [Point('toy', 'TASK-001', 'solver', 'solver', Budget())])\n"
        "list(b.record_goldens(t, p, base)); out = list(b.check_goldens(t, p, base))\n"
        "assert [o.status for o in out] == ['ok'], out\n"
        "print(sorted(m for m in ('deepdiff', 'hydra') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
