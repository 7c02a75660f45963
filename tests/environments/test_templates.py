"""Every templated task of every shipped world: at least 100 distinct instances, the reference
solver passes each of the first 100 through the tools alone and the no-op agent fails each."""

from __future__ import annotations

import pytest

from silo.jsonio import canonical
from silo.loading.environment import load_environment
from tests.environments.task_runs import PROJECT, run

TEMPLATES = {
    "crm": ["TASK-010", "TASK-011", "TASK-012"],
    "project": ["TASK-016", "TASK-017", "TASK-018"],
    "erp": ["TASK-019", "TASK-020", "TASK-021"],
}
CASES = [(env, template) for env, ids in TEMPLATES.items() for template in ids]
SAMPLE = range(100)


@pytest.mark.parametrize(("env", "template"), CASES)
def test_a_template_makes_at_least_100_distinct_instances(env: str, template: str) -> None:
    environment = load_environment(env, PROJECT)
    count = environment.instance_count(template)
    assert count is not None and count >= 100
    params = {canonical(dict(environment.task(f"{template}#{n}").params)) for n in SAMPLE}
    texts = {environment.task(f"{template}#{n}").to_json()["instruction"] for n in SAMPLE}
    assert len(params) == len(SAMPLE)
    assert texts  # conversational templates keep one instruction; the user block varies


def test_every_shipped_environment_has_three_templates() -> None:
    for env, ids in TEMPLATES.items():
        assert sorted(load_environment(env, PROJECT).templates) == ids


@pytest.mark.slow
@pytest.mark.parametrize(("env", "template"), CASES)
def test_the_solver_passes_and_the_noop_agent_fails_every_instance(env: str, template: str) -> None:
    for n in SAMPLE:
        task = f"{template}#{n}"
        solved = run(env, task, "solver")
        assert solved.passed and solved.reward == 1.0, (task, solved.result["failedRequired"])
        assert solved.result["toolErrors"] == 0 and solved.result["error"] is None
        idle = run(env, task, "noop")
        assert not idle.passed and idle.result["toolCalls"] == 0, task
