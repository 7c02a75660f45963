"""Project-tracking tools as a set: inventory, schemas, and the conventions every tool keeps
(an actor on every change, one audit row per change, refusals that leave the world alone)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from project_helpers import ACTOR, DEPARTED, MUTATIONS, READS, collection_of

import silo

PROJECT_DIR = Path(__file__).resolve().parents[2] / "environments" / "project"
DECORATED = {
    "get_current_date",
    "list_workflow_states",
    "get_project_lead",
    "work_item_time_summary",
    "member_capacity_check",
}


def _call_args(name: str) -> dict[str, Any]:
    args, _ = MUTATIONS[name]
    return {"actorId": ACTOR, **args}


def test_inventory(project_env: Any, project_tools: Any) -> None:
    assert len(project_tools) == 54
    assert set(project_tools) == set(MUTATIONS) | set(READS)
    assert {n for n, t in project_tools.items() if t.read_only} == set(READS)
    assert len(project_env.tasks) == 15 and len(project_env.verifiers) == 15
    assert len(list((PROJECT_DIR / "data").glob("*.json"))) == 9


def test_manifest() -> None:
    manifest = json.loads((PROJECT_DIR / "silo.environment.json").read_text())
    assert manifest["name"] == "project" and manifest["entrypoint"] == "./env.py"


def _object_schemas(schema: Any, path: str = "$") -> Any:
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield path, schema
        for key, value in schema.items():
            yield from _object_schemas(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _object_schemas(value, f"{path}[{index}]")


@pytest.mark.parametrize("name", sorted(set(MUTATIONS) | set(READS)))
def test_schema_is_valid_and_strict(project_tools: Any, name: str) -> None:
    tool = project_tools[name]
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    assert tool.description.strip()
    objects = list(_object_schemas(tool.input_schema))
    assert objects and objects[0][0] == "$"
    for path, schema in objects:
        assert schema["additionalProperties"] is False, path
        assert set(schema["required"]) <= set(schema["properties"]), path
        for prop, sub in schema["properties"].items():
            assert str(sub.get("description", "")).strip(), f"{name}.{prop} has no description"


def test_both_tool_styles_are_used(project_tools: Any) -> None:
    source = "\n".join(p.read_text() for p in (PROJECT_DIR / "tools").glob("*.py"))
    for name in DECORATED:
        assert f"@tool(read_only=True)\ndef {name}(" in source, name
        assert project_tools[name].read_only
    assert source.count("define_tool(") == 54 - len(DECORATED)
    schema = project_tools["member_capacity_check"].input_schema
    assert schema["required"] == ["memberId"]
    assert schema["properties"]["memberId"]["pattern"] == r"^MEM-\d{2,6}$"


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_every_mutating_tool_requires_an_actor(project_tools: Any, name: str) -> None:
    assert "actorId" in project_tools[name].input_schema["required"]


@pytest.mark.parametrize("name", sorted(n for n, (_, touched) in MUTATIONS.items() if touched))
def test_mutation_happy_path_leaves_one_audit_row(tracker: Any, name: str) -> None:
    args = _call_args(name)
    touched = MUTATIONS[name][1]
    assert touched is not None
    before = copy.deepcopy(tracker.state)
    output = tracker(name, **args)
    assert isinstance(output, dict)
    audit = tracker.state["auditLog"]
    assert len(audit) == len(before["auditLog"]) + 1
    row = audit[-1]
    assert row["actorId"] == args["actorId"] and row["at"] == "2026-03-16"
    assert row["id"] == f"AUD-{len(audit):04d}"
    collection = collection_of(touched)
    assert tracker.state[collection][touched] != before[collection].get(touched)
    assert row["entityId"] in (touched, output.get("workItemId"))


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_deactivated_actor_is_refused(tracker: Any, name: str) -> None:
    args = {**_call_args(name), "actorId": DEPARTED}
    error = tracker.refused(name, "not_allowed", **args)
    assert "Devon Ito" in error.message and "deactivated" in error.message


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_unknown_actor_is_refused(tracker: Any, name: str) -> None:
    tracker.refused(name, "not_found", **{**_call_args(name), "actorId": "MEM-099"})


@pytest.mark.parametrize("name", sorted(READS))
def test_read_tools_answer_and_change_nothing(tracker: Any, name: str) -> None:
    before = copy.deepcopy(tracker.state)
    output = tracker(name, **READS[name])
    assert output
    assert tracker.state == before


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("get_member", {"memberId": "MEM-099"}),
        ("get_team", {"teamId": "TEAM-009"}),
        ("get_project", {"projectId": "PROJ-009"}),
        ("get_project_lead", {"projectId": "PROJ-009"}),
        ("get_sprint", {"sprintId": "SPR-099"}),
        ("get_work_item", {"workItemId": "WI-099"}),
        ("list_comments", {"workItemId": "WI-099"}),
        ("work_item_time_summary", {"workItemId": "WI-099"}),
        ("member_time_summary", {"memberId": "MEM-099"}),
        ("sprint_burndown", {"sprintId": "SPR-099"}),
        ("project_time_report", {"projectId": "PROJ-099"}),
        ("member_capacity_check", {"memberId": "MEM-099", "points": 1}),
        ("blocked_items", {"projectId": "PROJ-099"}),
    ],
)
def test_unknown_ids_are_not_found(tracker: Any, name: str, args: dict[str, Any]) -> None:
    error = tracker.refused(name, "not_found", **args)
    assert "list_" in error.message or "search_" in error.message


@pytest.mark.parametrize("name", ["search_members", "search_projects", "search_work_items"])
def test_blank_search_is_refused(tracker: Any, name: str) -> None:
    tracker.refused(name, "invalid_input", query="   ")


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("get_work_item", {"workItemId": "WI-004", "extra": 1}),
        ("get_work_item", {"workItemId": "task four"}),
        ("log_time", {"actorId": ACTOR, "workItemId": "WI-007", "hours": 0.05}),
        ("log_time", {"actorId": ACTOR, "workItemId": "WI-007", "hours": 25}),
        ("list_work_items", {"limit": 0}),
        ("create_work_item", {"actorId": ACTOR, "projectId": "PROJ-001", "title": "x"}),
        ("assign_work_item", {"actorId": ACTOR, "workItemId": "WI-009"}),
        ("update_member", {"actorId": ACTOR, "memberId": "MEM-002", "role": "boss"}),
        ("member_capacity_check", {"memberId": "MEM-002", "points": -1}),
    ],
)
def test_schema_rejects_malformed_input(tracker: Any, name: str, args: dict[str, Any]) -> None:
    assert not tracker.schema_accepts(name, args)


def test_paging(tracker: Any) -> None:
    page = tracker("list_work_items", limit=5, offset=20)
    assert (page["total"], page["count"], page["offset"]) == (24, 4, 20)
    assert [i["id"] for i in page["results"]] == ["WI-021", "WI-022", "WI-023", "WI-024"]
    assert tracker("list_members", limit=2)["count"] == 2


def test_outputs_are_detached_from_the_world(tracker: Any) -> None:
    item = tracker.tools["get_work_item"].run(tracker.state, {"workItemId": "WI-004"})
    item["dependsOn"].append("WI-001")
    item["comments"][0]["body"] = "changed"
    stored = tracker.state["workItems"]["WI-004"]
    assert stored["dependsOn"] == ["WI-002", "WI-005"]
    assert stored["comments"][0]["body"].startswith("Retries")


def test_silo_validate_is_clean_with_deep_checks() -> None:
    # Deep checks: the solver passes every task twice identically, noop fails every task, no
    # tool leaks live state, create_state never shares objects, the pooled world resets.
    report = silo.validate_environment("project", project_dir=PROJECT_DIR.parents[1], deep=True)
    # Weighted rewards (the goldens'): the no-op agent's floor is reported as a warning only.
    assert {(f.level, f.code) for f in report.findings} <= {("warning", "noop_rewarded")}
    assert report.counts == {"data": 9, "tasks": 15, "tools": 54, "verifiers": 15}
