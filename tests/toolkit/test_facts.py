"""silo.toolkit.facts: data files read once, every world a fresh, independent parse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from silo.toolkit import FactFiles, SeedWorld


def data(tmp_path: Path) -> Path:
    (tmp_path / "users.json").write_text(json.dumps([{"id": "U-2", "n": 2}, {"id": "U-1", "n": 1}]))
    (tmp_path / "company.json").write_text(json.dumps({"name": "Acme"}))
    (tmp_path / "sequences.json").write_text(json.dumps({"U": 2}))
    return tmp_path


def test_world_keys_collections_by_id_in_a_fixed_order(tmp_path: Path) -> None:
    facts = FactFiles(data(tmp_path))
    state = facts.world(
        ("users",), head={"now": "2026-03-16"}, before=("company",), after=("sequences",)
    )
    assert list(state) == ["now", "company", "users", "sequences"]
    assert list(state["users"]) == ["U-2", "U-1"] and state["users"]["U-1"] == {"id": "U-1", "n": 1}


def test_files_are_read_once_and_parsed_per_world(tmp_path: Path) -> None:
    facts = FactFiles(data(tmp_path))
    first = facts.world(("users",), head={})
    (tmp_path / "users.json").write_text("[]")  # a later edit is not seen: the text was cached
    second = facts.world(("users",), head={})
    assert first == second and first["users"] is not second["users"]


def test_derive_completes_each_record(tmp_path: Path) -> None:
    def derive(name: str, record: dict[str, Any]) -> None:
        record["double"] = record["n"] * 2

    state = FactFiles(data(tmp_path)).world(("users",), head={}, derive=derive)
    assert state["users"]["U-2"]["double"] == 4


def test_seed_world_builds_once_and_hands_out_independent_copies() -> None:
    builds: list[int] = []

    def build() -> dict[str, Any]:
        builds.append(1)
        return {"rows": {"A": {"tags": ["x"]}}}

    seed = SeedWorld(build)
    one, two = seed.create(), seed.create()
    one["rows"]["A"]["tags"].append("y")
    assert two == {"rows": {"A": {"tags": ["x"]}}} and len(builds) == 1
