"""silo-run without env=: the project's one environment, or one line listing the choices."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import one_line_error, run
from tests.cli._helpdesk import helpdesk_project


def test_a_project_with_one_environment_runs_its_task_and_says_so(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-run", project, "task=TASK-001")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "silo-run: env=helpdesk (the project's one environment)\n"
    run_json = next((project / ".silo" / "runs").glob("run_*/run.json"))
    assert json.loads(run_json.read_text())["environment"] == "helpdesk"  # not the bundled CRM


def test_a_project_with_several_environments_lists_them(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    assert run("silo-init", project, "billing", "template=minimal").returncode == 0
    proc = run("silo-run", project, "task=TASK-001")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-run")
    assert line.startswith("2 environments in ") and line.endswith(
        "; choose one: env=billing, env=helpdesk"
    )
    assert not (project / ".silo" / "runs").exists()


def test_a_project_with_none_lists_the_installed_ones(tmp_path: Path) -> None:
    (tmp_path / ".silo").mkdir()
    proc = run("silo-run", tmp_path, "task=TASK-001")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-run")
    assert line.startswith(f"no environment in {tmp_path / 'environments'}; choose one: ")
    assert "env=crm" in line and line.endswith("(installed), or create one with: silo-init <name>")


def test_env_crm_still_runs_the_bundled_crm_from_any_project(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-run", project, "env=crm", "task=TASK-002")  # the README's command
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and "TASK-002  Rehome a departed rep's open deals" in proc.stdout


def test_a_hydra_list_of_tasks_is_one_group(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-run", project, "task=[TASK-001,TASK-002]")
    assert proc.returncode == 0, proc.stderr
    summary = next((project / ".silo" / "runs").glob("group_*/summary.json"))
    rows = json.loads(summary.read_text())["rows"]
    assert [row["task"] for row in rows] == ["TASK-001", "TASK-002"]


def test_a_hydra_list_under_multirun_is_one_job_of_both_tasks(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-run", project, "-m", "task=[TASK-001,TASK-002]", "agent=solver,noop")
    assert proc.returncode == 1, proc.stderr  # noop fails
    summary = next((project / ".silo" / "runs").glob("sweep_*/summary.json"))
    rows = json.loads(summary.read_text())["rows"]
    assert sorted((row["task"], row["agent"]) for row in rows) == [
        ("TASK-001", "noop"), ("TASK-001", "solver"), ("TASK-002", "noop"), ("TASK-002", "solver"),
    ]  # fmt: skip


def test_a_fixed_sweep_folder_is_not_merged_into_without_resume(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    args = ("-m", "task=TASK-001", f"hydra.sweep.dir={project / 'fixed'}")
    assert run("silo-run", project, *args).returncode == 0
    again = run("silo-run", project, *args)
    assert again.returncode == 2
    assert f"silo-run: {project / 'fixed'} already holds an earlier batch; " in again.stderr
    assert len(list((project / "fixed").glob("run_*"))) == 1
    resumed = run("silo-run", project, *args, "resume=true")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((project / "fixed" / "summary.json").read_text())["rollouts"] == 1


def test_silo_env_without_env_edits_the_project_s_one_environment(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-env", project, "task", "list")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "silo-env: env=helpdesk (the project's one environment)\n"
    assert proc.stdout.startswith("TASK-001 ")
