"""CRM tasks end to end through the rollout engine: solver, no-op and deliberately wrong agents,
plus the verifiers graded directly on hand-made worlds."""

from __future__ import annotations

import copy
import json
import sys
from types import MappingProxyType
from typing import Any

import pytest

import silo
from silo.verifiers import VerifierContext, score
from tests.environments.task_runs import run as run_in


def run(task: str, agent: Any) -> silo.RolloutResult:
    return run_in("crm", task, agent)


def _call(inp: Any, name: str, args: dict[str, Any]) -> Any:
    result = inp.call_tool(name, args)
    assert not result["isError"], result["output"]
    return result["output"]


def test_task_002_exact_diff_and_three_calls() -> None:
    result = run("TASK-002", "solver")
    assert result.result["toolCalls"] == 3
    assert result.state_diff == {
        "scalars": [],
        "collections": {
            "opportunities": {"added": [], "removed": [], "changed": ["OPP-005", "OPP-006"]},
            "auditLog": {"added": ["AUD-0001", "AUD-0002"], "removed": [], "changed": []},
            "sequences": {"added": [], "removed": [], "changed": ["AUD"]},
        },
    }


def test_task_004_answer_text() -> None:
    result = run("TASK-004", "solver")
    assert result.result["agentOutput"] == "The weighted value of open pipeline is $507500"


def test_task_005_and_006_answers() -> None:
    assert run("TASK-005", "solver").result["agentOutput"] == (
        "Tomas Bergstrom owns the most stalled deals: 2."
    )
    assert run("TASK-006", "solver").result["agentOutput"] == (
        "Daniel Reyes is furthest behind at 36% of quota."
    )


def test_task_001_creates_new_records() -> None:
    diff = run("TASK-001", "solver").state_diff["collections"]
    assert diff["accounts"]["added"] == ["ACC-012"]
    assert diff["contacts"]["added"] == ["CON-015"]
    assert diff["opportunities"]["added"] == ["OPP-017"]
    assert diff["leads"]["changed"] == ["LEAD-004"]
    assert diff["auditLog"]["added"] == ["AUD-0001"]


# --- wrong agents fail the matching task ----------------------------------------------------------


def moves_only_one_deal(inp: Any) -> dict[str, str]:
    listing = _call(inp, "list_opportunities", {"ownerId": "USR-004", "status": "open"})
    first = listing["results"][0]["id"]
    _call(
        inp,
        "reassign_opportunity",
        {"actorId": "USR-001", "opportunityId": first, "newOwnerId": "USR-003"},
    )
    return {"output": f"Moved {first}."}


def _move_his_open_deals(inp: Any, to: str) -> None:
    for opp in _call(inp, "list_opportunities", {"ownerId": "USR-004", "status": "open"})[
        "results"
    ]:
        _call(
            inp,
            "reassign_opportunity",
            {"actorId": "USR-001", "opportunityId": opp["id"], "newOwnerId": to},
        )


def moves_to_the_wrong_rep(inp: Any) -> dict[str, str]:
    _move_his_open_deals(inp, "USR-005")
    return {"output": "done"}


def names_the_departed_rep(inp: Any) -> dict[str, str]:
    reps = _call(inp, "rep_performance", {})["reps"]
    weakest = min(reps, key=lambda rep: rep["attainmentPct"])
    return {"output": f"{weakest['name']} is furthest behind at {weakest['attainmentPct']}%."}


def mentions_departed_in_passing(inp: Any) -> dict[str, str]:
    return {"output": "Daniel Reyes at 36%; Tomas Bergstrom is lower but has left."}


def closes_at_last_quote(inp: Any) -> dict[str, str]:
    _call(inp, "close_opportunity_won", {"actorId": "USR-005", "opportunityId": "OPP-007"})
    _call(
        inp,
        "log_activity",
        {
            "actorId": "USR-005",
            "type": "note",
            "subject": "Signed",
            "relatedType": "opportunity",
            "relatedId": "OPP-007",
        },
    )
    return {"output": "done"}


def reports_unweighted_total(inp: Any) -> dict[str, str]:
    total = _call(inp, "pipeline_summary", {})["totals"]["amount"]
    return {"output": f"${total:,.0f}"}


def names_runner_up(inp: Any) -> dict[str, str]:
    return {"output": "Kofi Mensah has 1 stalled deal."}


@pytest.mark.parametrize(
    "task,agent,failed",
    [
        (
            "TASK-002",
            moves_only_one_deal,
            {
                "Every open deal of the departed rep now belongs to the new owner",
                "The departed rep owns no open deal",
            },
        ),
        (
            "TASK-002",
            moves_to_the_wrong_rep,
            {"Every open deal of the departed rep now belongs to the new owner"},
        ),
        (
            "TASK-006",
            names_the_departed_rep,
            {
                "The answer names the weakest active rep",
                "The answer states that rep's attainment",
                "The answer does not name a deactivated rep",
            },
        ),
        ("TASK-006", mentions_departed_in_passing, {"The answer does not name a deactivated rep"}),
        ("TASK-003", closes_at_last_quote, {"The deal is booked at the signed amount"}),
        ("TASK-004", reports_unweighted_total, {"The answer states the weighted open pipeline"}),
        (
            "TASK-005",
            names_runner_up,
            {
                "The answer names the rep with the most stalled deals",
                "The answer states how many stalled deals that rep has",
            },
        ),
    ],
)
def test_wrong_agent_fails(task: str, agent: Any, failed: set[str]) -> None:
    result = run(task, agent)
    assert not result.passed
    assert set(result.result["failedRequired"]) == failed


# --- verifiers on hand-made worlds ----------------------------------------------------------------


def frozen(value: Any) -> Any:
    """A read-only view of a world, like the snapshot the engine hands to verifiers."""
    if isinstance(value, dict):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


def grade(crm_env: Any, task_id: str, final: Any, initial: Any, answer: str) -> Any:
    task = crm_env.task(task_id)
    verifier = crm_env.verifier_for(task)
    return score(verifier.id, verifier.check(final, initial, VerifierContext(answer, task)))


def test_verifier_names(crm_env: Any) -> None:
    names = {t.id: crm_env.verifiers[t.verifier_id].name for t in crm_env.tasks.values()}
    assert names["TASK-002"] == "Departed rep's open deals moved to the new owner"
    assert {t.verifier_id for t in crm_env.tasks.values()} == set(crm_env.verifiers)


def test_answers_are_derived_from_the_initial_world(crm_env: Any) -> None:
    world = crm_env.create_state()
    world["opportunities"]["OPP-001"]["amount"] = 200000  # weighted +60000
    view = frozen(world)
    assert grade(crm_env, "TASK-004", view, view, "$567,500").passed
    assert not grade(crm_env, "TASK-004", view, view, "$507,500").passed
    world["users"]["USR-002"]["quota"] = 100000  # Daniel now at 90%: Lena is the weakest
    view = frozen(world)
    assert grade(crm_env, "TASK-006", view, view, "Lena Fischer, 52.8%").passed
    assert not grade(crm_env, "TASK-006", view, view, "Daniel Reyes, 36%").passed


def test_report_verifiers_flag_a_changed_world(crm_env: Any) -> None:
    initial = crm_env.create_state()
    final = copy.deepcopy(initial)
    final["opportunities"]["OPP-002"]["amount"] = 1
    outcome = grade(crm_env, "TASK-005", frozen(final), frozen(initial), "Tomas Bergstrom, 2 deals")
    assert outcome.passed and outcome.reward < 1.0
    unchanged = [c for c in outcome.checks if c.label == "The CRM was left exactly as it was"]
    assert unchanged and not unchanged[0].passed


def test_answer_numbers_tolerate_money_formatting(crm_env: Any) -> None:
    view = frozen(crm_env.create_state())
    for answer in ("$507,500", "507500.00 USD", "about $507,500.004 in total"):
        assert grade(crm_env, "TASK-004", view, view, answer).passed, answer
    assert not grade(crm_env, "TASK-004", view, view, "$507,600").passed


def test_tools_and_verifiers_share_the_weighted_helper(
    crm_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Changing the one definition of "weighted" moves the answer and the grading together."""
    state_module = sys.modules[f"{crm_env.package}.state"]
    monkeypatch.setattr(state_module, "weighted_amount", lambda world, opp: float(opp["amount"]))
    result = run("TASK-004", "solver")
    assert result.result["agentOutput"] == "The weighted value of open pipeline is $1061000"
    assert result.passed


def moves_his_deals_and_edits_another(inp: Any) -> dict[str, str]:
    _move_his_open_deals(inp, "USR-003")
    _call(
        inp, "update_opportunity", {"actorId": "USR-001", "opportunityId": "OPP-001", "amount": 1}
    )
    return {"output": "done"}


def test_rehoming_verifier_reads_collateral_damage_from_the_state_diff() -> None:
    result = run("TASK-002", moves_his_deals_and_edits_another)
    assert result.passed
    checks = {c["label"]: c for c in result.result["checks"]}
    other = checks["No other deal was changed"]
    assert not other["passed"] and other["detail"] == "changed: ['OPP-001']"
    assert checks["His closed deals kept their owner"]["passed"]


def test_rehoming_verifier_without_a_diff_compares_the_worlds(crm_env: Any) -> None:
    initial = crm_env.create_state()
    final = copy.deepcopy(initial)
    for opp_id in ("OPP-005", "OPP-006"):
        final["opportunities"][opp_id]["ownerId"] = "USR-003"
    final["opportunities"]["OPP-001"]["amount"] = 1
    outcome = grade(crm_env, "TASK-002", frozen(final), frozen(initial), "done")
    assert outcome.passed
    failed = {c.label for c in outcome.checks if not c.passed}
    assert failed == {"No other deal was changed", "Nothing outside the task's rows changed"}
    final["opportunities"]["OPP-006"]["ownerId"] = "USR-004"
    outcome = grade(crm_env, "TASK-002", frozen(final), frozen(initial), "done")
    assert not outcome.passed


def test_results_are_json(crm_env: Any) -> None:
    result = run("TASK-003", "solver")
    json.dumps(result.result)
    json.dumps(result.state_diff)
