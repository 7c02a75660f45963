"""A task links to its verifier by verifierId alone; nothing else has to agree with it."""

from __future__ import annotations

from collections.abc import Callable

from silo.validate.report import Report


def test_linked_by_verifier_id_alone_validates_clean(
    check_env: Callable[..., Report],
) -> None:
    report = check_env(deep=True)  # the base env.py's verifier names no task
    assert report.findings == [], report.to_text()


def test_a_verifier_no_task_names_is_unused(check_env: Callable[..., Report]) -> None:
    extra = 'verifiers = [define_verifier("VER-9", "spare", _a_is_five), '
    report = check_env(env_py={"verifiers = [": extra})
    found = [f for f in report.findings if f.code == "verifier_unused"]
    assert len(found) == 1 and '"VER-9" is named by no task' in found[0].message
    assert report.ok
