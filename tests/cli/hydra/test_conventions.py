"""Hydra's own conventions work with silo-run (issue 18): what Hydra composes, Silo accepts.

``--config-dir`` and ``hydra.searchpath`` add options the pre-check sees; runs are found at any
depth of a sweep folder (``hydra.sweep.subdir``), by the summary and by resume;
``hydra.run.dir`` places a single run; ``--hydra-help`` lists what completion offers.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import run

_TIGHT = "max_tool_calls: 1\ntimeout_ms: 5000\n"


def _sweep_dirs(project: Path) -> list[Path]:
    return sorted(p for p in (project / ".silo" / "runs").iterdir() if p.is_dir())


def test_runs_in_numbered_subdirs_are_summarized_and_resumed(toy_project: Path) -> None:
    grid = [
        "-m",
        "env=toy",
        "task=TASK-001",
        "seed=1,2",
        "agent=solver",
        "hydra.sweep.subdir=${hydra.job.num}",
    ]
    first = run("silo-run", toy_project, *grid)
    assert first.returncode == 0, first.stderr
    (sweep,) = _sweep_dirs(toy_project)
    assert sorted(p.name for p in sweep.iterdir() if p.is_dir()) == ["0", "1"]
    summary = json.loads((sweep / "summary.json").read_text())
    assert (summary["rollouts"], summary["passed"]) == (2, 2)  # was 0/0
    assert "2 rollouts: 2 passed, 0 failed" in first.stdout
    again = run("silo-run", toy_project, *grid, "resume=true")
    assert again.returncode == 0, again.stderr
    newest = next(p for p in _sweep_dirs(toy_project) if p != sweep)
    rows = json.loads((newest / "summary.json").read_text())["rows"]
    assert [(r["runs"], r["resumed"]) for r in rows] == [(2, 2)]  # found three levels deep
    assert not list(newest.rglob("run.json"))  # nothing ran again


def test_config_dir_options_pass_the_pre_check(toy_project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / "budget").mkdir(parents=True)
    (extra / "budget" / "tight.yaml").write_text(_TIGHT)
    (extra / "agent").mkdir()
    (extra / "agent" / "myagent.yaml").write_text("name: solver\n")
    proc = run(
        "silo-run", toy_project, "--config-dir", str(extra), "env=toy", "task=TASK-001",
        "budget=tight", "agent=myagent",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # the solver needs 2 calls: the budget applied
    assert "Tool call limit exceeded (1)" in proc.stdout


def test_hydra_searchpath_options_pass_the_pre_check(toy_project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / "budget").mkdir(parents=True)
    (extra / "budget" / "tight.yaml").write_text(_TIGHT)
    searchpath = f"hydra.searchpath=[file://{extra},pkg://silo.conf]"
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "budget=tight", searchpath)
    assert proc.returncode == 1 and "Tool call limit exceeded (1)" in proc.stdout, proc.stderr
    typo = run("silo-run", toy_project, "env=toy", "task=TASK-001", "budget=tigth", searchpath)
    assert typo.returncode == 2 and "did you mean tight?" in typo.stderr


def test_hydra_run_dir_is_where_a_single_run_folder_is_made(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "hydra.run.dir=out/single")
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (toy_project / "out" / "single").iterdir()  # was ignored: .silo/runs/<id>
    assert (run_dir / "result.json").is_file()
    assert f"run folder: out/single/{run_dir.name}" in proc.stdout
    assert not (toy_project / ".silo").exists()


def _complete(project: Path, line: str, shell: str = "bash") -> list[str]:
    env = {"COMP_LINE": line, "COMP_POINT": str(len(line))}
    proc = run("silo-run", project, "-sc", f"query={shell}", extra_env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_completion_offers_task_ids_and_no_sweep_that_fails(toy_project: Path) -> None:
    assert _complete(toy_project, "silo-run env=toy task=") == [
        "task=TASK-001", "task=TASK-002", "task=TASK-003", "task=all",
    ]  # fmt: skip
    assert _complete(toy_project, "silo-run env=toy task=TASK-001,TASK-00") == [
        "task=TASK-001,TASK-001", "task=TASK-001,TASK-002", "task=TASK-001,TASK-003",
    ]  # fmt: skip
    top = _complete(toy_project, "silo-run ")
    assert "+sweep=" in top and "sweep=" not in top and "task=" in top
    assert "task=all" in _complete(toy_project, "silo-run env=toy task=", shell="fish")


def test_hydra_help_lists_every_launcher_and_sweeper_completion_offers(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "--hydra-help")
    assert proc.returncode == 0, proc.stderr
    listed = {
        line.partition(": ")[0]: line.partition(": ")[2].split(", ")
        for line in proc.stdout.splitlines()
        if line.startswith("hydra/")
    }
    for group in ("hydra/launcher", "hydra/sweeper"):
        offered = [w.partition("=")[2] for w in _complete(toy_project, f"silo-run {group}=")]
        assert offered and listed[group] == offered, (group, listed.get(group), offered)
    assert {"basic", "joblib", "ray_local", "ray_cluster", "slurm", "slurm_local"} <= set(
        listed["hydra/launcher"]
    )
    assert "silo" in listed["hydra/sweeper"]
