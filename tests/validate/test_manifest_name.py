"""manifest_name_mismatch: a copied environment whose manifest still names the original."""

from __future__ import annotations

import json
from collections.abc import Callable

from silo.validate.report import Report

Check = Callable[..., Report]


def test_a_manifest_naming_another_folder_warns(check_env: Check) -> None:
    manifest = {"name": "crm", "template": "blank", "entrypoint": "./env.py", "tools": []}
    report = check_env(files={"silo.environment.json": json.dumps(manifest)})
    found = [f for f in report.findings if f.code == "manifest_name_mismatch"]
    assert [f.level for f in found] == ["warning"], report.to_text()
    assert 'names the environment "crm" but its folder is "mini"' in found[0].message
    assert 'set "name" to "mini"' in found[0].message
    assert report.ok


def test_a_matching_name_or_no_name_is_quiet(check_env: Check) -> None:
    nameless = {"template": "blank", "entrypoint": "./env.py", "tools": []}
    for manifest in (None, json.dumps(nameless)):
        files = {} if manifest is None else {"silo.environment.json": manifest}
        report = check_env(files=files)
        assert "manifest_name_mismatch" not in report.codes(), report.to_text()
