"""Run pytest; when tests fail, run just those once more and say whether they passed then.

Usage: ``python .ci/pytest_twice.py [pytest arguments...]`` with the interpreter whose pytest to
use. The exit code is always the first run's: a test that passes on the second try is reported
as flaky in the log, never hidden behind a green retry. The failed tests are read from a JUnit
XML report (the suite runs with ``-p no:cacheprovider``, so ``--lf`` has nothing to read).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def node_id(classname: str, name: str) -> str:
    """The pytest node id of a JUnit ``testcase`` (``tests.a.test_b.TestC`` + ``test_d[x]``)."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a file; the rest: classes
        path = Path(*parts[:cut]).with_suffix(".py")
        if (REPO / path).is_file():
            return "::".join([path.as_posix(), *parts[cut:], name])
    return "::".join([classname, name])


def failed_tests(report: Path) -> list[str]:
    """Node ids of the tests that failed or errored in the JUnit XML ``report``."""
    if not report.is_file():
        return []
    found = []
    for case in ET.parse(report).getroot().iter("testcase"):  # noqa: S314 (our own report)
        if case.find("failure") is not None or case.find("error") is not None:
            found.append(node_id(case.get("classname", ""), case.get("name", "")))
    return list(dict.fromkeys(found))


def main(args: list[str]) -> int:
    """Run pytest with ``args``; re-run the failures once; return the first run's exit code."""
    pytest = [sys.executable, "-m", "pytest"]
    with tempfile.TemporaryDirectory() as tmp:
        report, second = Path(tmp) / "first.xml", Path(tmp) / "second.xml"
        first = subprocess.run([*pytest, *args, f"--junitxml={report}"], check=False, cwd=REPO)
        if first.returncode == 0:
            return 0
        failed = failed_tests(report)
        if not failed:
            return first.returncode  # nothing to retry: an internal or usage error, say
        print(f"\nci: {len(failed)} test(s) failed; running them once more, one at a time")
        # -m "" so that a slow test named here is not deselected by the default expression.
        again = [*pytest, "-p", "no:xdist", "-m", "", f"--junitxml={second}", *failed]
        subprocess.run(again, check=False, cwd=REPO)
        still = set(failed_tests(second)) if second.is_file() else set(failed)
    for test in failed:
        verdict = "FAILED AGAIN" if test in still else "passed on the second try: FLAKY"
        print(f"ci: {verdict}: {test}")
    return first.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
