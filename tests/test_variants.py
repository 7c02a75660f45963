"""Task templates: parsing, placeholders, instance ids and the fixed order of instances."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo.errors import TaskError
from silo.variants import (
    candidates_generator,
    instance_count,
    instantiate,
    load_templates,
    parse_template,
    random_instance,
    split_instance_id,
)

RAW: dict[str, Any] = {
    "id": "TASK-050",
    "title": "Bump {counter}",
    "instruction": "Bump counter {counter} by {by}.",
    "verifierId": "VER-001",
    "entities": {"id": "{counter}", "by": "{by}", "note": "by {by}"},
    "template": {"parameters": ["counter", "by"], "values": [{"counter": "C-1", "by": 2}]},
}


def test_an_instance_fills_every_placeholder_and_keeps_whole_values_typed() -> None:
    task = instantiate(parse_template(RAW, "t.json"), 0, {}, {})
    assert task.id == "TASK-050#0" and task.instruction == "Bump counter C-1 by 2."
    assert task.title == "Bump C-1"
    assert task.entities == {"id": "C-1", "by": 2, "note": "by 2"}
    assert task.params == {"counter": "C-1", "by": 2} and task.variant == 0
    assert task.to_json()["template"] == "TASK-050" and "template" not in task.extra


def test_an_instance_beyond_an_explicit_list_names_the_range() -> None:
    with pytest.raises(TaskError, match=r"lists 1 instances \(#0 to #0\)"):
        instantiate(parse_template(RAW, "t.json"), 1, {}, {})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"instruction": "Bump {other}."}, 'placeholder "{other}" is not among parameters'),
        ({"template": {"parameters": ["counter", "by"]}}, 'exactly one of "generator"'),
        ({"template": {"parameters": [], "generator": "g"}}, "non-empty list of names"),
        (
            {"template": {"parameters": ["counter", "by"], "values": [{"by": 1}]}},
            'lacks parameter "counter"',
        ),
        ({"template": {"parameters": ["by"], "generator": "g", "size": 3}}, 'unknown key "size"'),
    ],
)
def test_a_bad_template_is_one_line_naming_the_problem(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(TaskError, match=message):
        parse_template({**RAW, **change}, "t.json")


def test_instance_ids_split_and_a_bad_number_is_refused() -> None:
    assert split_instance_id("TASK-010#17") == ("TASK-010", 17)
    assert split_instance_id("TASK-010") == ("TASK-010", None)
    with pytest.raises(TaskError, match="TASK-010#17"):
        split_instance_id("TASK-010#x")


def _candidates(world: Any) -> list[dict[str, Any]]:
    return [{"counter": c, "by": n} for c in world["counters"] for n in range(1, 6)]


def test_a_candidates_generator_visits_each_candidate_once_in_a_fixed_order() -> None:
    world = {"counters": ["C-1", "C-2", "C-3"]}
    generate = candidates_generator(_candidates)
    first = [json.dumps(generate(world, n), sort_keys=True) for n in range(15)]
    assert len(set(first)) == 15
    # the order the candidates are listed in does not change which instance is which
    backwards = candidates_generator(lambda w: list(reversed(_candidates(w))))
    assert [json.dumps(backwards(world, n), sort_keys=True) for n in range(15)] == first
    assert generate(world, 15) == generate(world, 0)
    generated = {**RAW, "template": {"parameters": ["counter", "by"], "generator": "g"}}
    template = parse_template(generated, "t.json")
    assert instance_count(template, world, {"g": generate}) == 15


def test_random_instances_depend_on_the_seed_alone() -> None:
    assert random_instance("TASK-010", 3, 140) == random_instance("TASK-010", 3, 140)
    assert len({random_instance("TASK-010", s, 140) for s in range(20)}) > 1
    assert all(0 <= random_instance("TASK-010", s, 140) < 140 for s in range(50))


def test_a_template_id_taken_by_a_task_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(RAW))
    with pytest.raises(TaskError, match="declared twice"):
        load_templates(
            tmp_path, "toy", {"TASK-050": instantiate(parse_template(RAW, "x"), 0, {}, {})}
        )
    assert list(load_templates(tmp_path, "toy", {})) == ["TASK-050"]
