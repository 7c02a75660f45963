"""A template's instance id (TASK-010#17) works where a task id does: sessions and Gymnasium."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium

import silo
import silo.gym  # noqa: F401  (registers silo/Silo-v0)

REPO = Path(__file__).resolve().parents[2]


def _win(instruction: str) -> tuple[str, dict[str, object]]:
    """The close_opportunity_won call TASK-010's instruction asks for."""
    words = instruction.split()
    actor = next(w.strip("().,") for w in words if w.startswith("USR-"))
    opp = next(w.strip("().,") for w in words if w.startswith("(OPP-"))
    signed = next(w for w in words if w.startswith("$")).strip("$,").replace(",", "")
    return "close_opportunity_won", {
        "actorId": actor,
        "opportunityId": opp,
        "finalAmount": float(signed),
    }


def test_a_session_rolls_out_an_instance_and_records_its_parameters(tmp_path: Path) -> None:
    task = silo.load_environment("crm", REPO).task("TASK-010#17")
    with silo.open_session("crm", "TASK-010#17", project_dir=REPO, runs_dir=tmp_path) as session:
        assert session.task.instruction == task.instruction
        session.call_tool(*_win(task.instruction))
        result = session.finish("done")
    run = json.loads((Path(result.run_dir or "") / "run.json").read_text())
    assert run["taskId"] == "TASK-010#17" and run["task"]["params"] == dict(task.params)


def test_gymnasium_resets_to_an_instance_named_in_the_options(tmp_path: Path) -> None:
    env = gymnasium.make("silo/Silo-v0", env="crm", project_dir=str(REPO), runs_dir=str(tmp_path))
    observation, info = env.reset(seed=0, options={"task": "TASK-010#3"})
    assert info == {"task_id": "TASK-010#3"}
    instruction = json.loads(observation)["instruction"]
    assert instruction == silo.load_environment("crm", REPO).task("TASK-010#3").instruction
    env.close()
