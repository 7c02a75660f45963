"""silo-view end to end: the installed console script in a subprocess, as a user runs it."""

from __future__ import annotations

import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest

from silo.cli.view import main
from silo.rollout.run import run_task
from tests.batch.test_compare import make_group, point
from tests.cli._console import one_line_error, run
from tests.conftest import script
from tests.view.test_view import Page, verdict
from tests.waiting import SAFETY_S, finish


def _run_folder(project: Path, agent: str = "solver") -> Path:
    result = run_task("toy", "TASK-001", agent, project_dir=project)
    assert result.run_dir is not None
    return result.run_dir


def test_run_report_by_name_written_next_to_the_run(toy_project: Path) -> None:
    folder = _run_folder(toy_project, "noop")
    proc = run("silo-view", toy_project / "environments", folder.name)  # from a subfolder
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    report = folder / "report.html"
    assert proc.stdout == f"{report.resolve()}\n"
    html = report.read_text(encoding="utf-8")
    assert verdict(Page(html)) == "FAIL"
    again = run("silo-view", toy_project, str(folder), "open=false")
    assert again.returncode == 0 and again.stdout == proc.stdout  # its own report is replaced
    assert report.read_text(encoding="utf-8") == html  # the same bytes for the same folder


def test_group_report_to_a_chosen_file(toy_project: Path, tmp_path: Path) -> None:
    group = make_group(toy_project, "g", [point("TASK-001", "solver", "solver")], runs=2)
    proc = run("silo-view", tmp_path, str(group), "out=g.html")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{(tmp_path / 'g.html').resolve()}\n"
    page = Page((tmp_path / "g.html").read_text(encoding="utf-8"))
    assert [s.children[0].text.split()[0] for s in page.find("details", "run")] == ["PASS"] * 2
    assert not (group / "report.html").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["serve", "port=http"], 'port= must be a number from 0 to 65535, not "http"'),
        (["RUN", "port=8000"], "port= is for serve"),
        (["out=RUN/result.json"], "is a file; give out=<folder> for the site"),
        (["RUN", "RUN"], "give one folder (got 2)"),
        (["nope"], 'no folder "nope"'),
        (["environments"], "is not a run, group or sweep folder"),
        (["RUN", "out=RUN/result.json"], "result.json exists and is not a silo-view report"),
        (["RUN", "out=RUN"], "exists and is not a silo-view report"),
        (["RUN", "out=nowhere/r.html"], "folder nowhere does not exist"),
        (["RUN", "out="], "out= needs a file name"),
        (["RUN", "open=maybe"], 'open= must be true or false, not "maybe"'),
        (["RUN", "format=json"], 'unknown argument "format=json"'),
        (["RUN", "--json"], 'unknown option "--json"'),
    ],
)
def test_user_mistakes_get_one_line(toy_project: Path, args: list[str], expected: str) -> None:
    folder = _run_folder(toy_project)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    words = [a.replace("RUN", str(folder)) for a in args]
    proc = run("silo-view", toy_project, *words)
    assert proc.returncode == 2 and proc.stdout == ""
    assert expected in one_line_error(proc, "silo-view")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nothing written


def test_help() -> None:
    proc = run("silo-view", Path.cwd(), "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: silo-view <run-or-group>")


def test_open_true_opens_the_report(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process, with the browser replaced: ``open=true`` hands it the report's file URI."""
    folder = _run_folder(toy_project)
    opened: list[str] = []
    monkeypatch.chdir(toy_project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)

    def browser(uri: str) -> bool:
        opened.append(uri)
        return True

    monkeypatch.setattr("webbrowser.open", browser)
    assert main([folder.name, "open=true"]) == 0
    report = (folder / "report.html").resolve()
    assert opened == [report.as_uri()] and capsys.readouterr().out == f"{report}\n"
    monkeypatch.setattr("webbrowser.open", lambda uri: False)
    assert main([folder.name, "open=yes"]) == 0
    assert capsys.readouterr().err == (
        f"silo-view: no browser could be started; open {report} yourself\n"
    )


def test_no_folder_builds_the_site_of_every_run(toy_project: Path) -> None:
    noop = _run_folder(toy_project, "noop")
    make_group(toy_project, "sweep_s", [point("TASK-001", "solver", "solver")], runs=2)
    proc = run("silo-view", toy_project / "environments")  # from a subfolder of the project
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    index = toy_project / ".silo" / "site" / "index.html"
    assert proc.stdout == f"{index.resolve()}\n"
    html = index.read_text(encoding="utf-8")
    assert noop.name in html and "sweep_s" in html
    assert verdict(Page((index.parent / "runs" / f"{noop.name}.html").read_text("utf-8"))) == "FAIL"
    assert (index.parent / "groups" / "sweep_s" / "index.html").is_file()
    assert run("silo-view", toy_project, f"out={toy_project / 'elsewhere'}").returncode == 0
    assert (toy_project / "elsewhere" / "index.html").is_file()


def test_no_runs_yet_is_one_line(tmp_path: Path) -> None:
    (tmp_path / ".silo").mkdir()  # the project is here, not in a folder above tmp_path
    proc = run("silo-view", tmp_path)
    assert proc.returncode == 2
    assert "no runs yet" in one_line_error(proc, "silo-view")


def test_serve_answers_on_loopback_until_interrupted(toy_project: Path) -> None:
    folder = _run_folder(toy_project)
    proc = subprocess.Popen(
        [script("silo-view"), "serve", "port=0"],
        cwd=toy_project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:") and "(Ctrl-C stops)" in line, line
        url = line.split()[1]
        with urllib.request.urlopen(url, timeout=SAFETY_S) as answer:  # noqa: S310 (local server)
            assert folder.name in answer.read().decode("utf-8")
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = finish(proc, "silo-view serve after Ctrl-C")
    assert proc.returncode == 130 and err == "silo-view: interrupted\n"
