"""JSON as deep as Silo states, written and read back without raising the recursion limit.

Importing Silo leaves the interpreter's recursion limit alone (it is the program's setting);
values and texts deeper than the standard library reaches at the default limit go to
:func:`silo.jsondepth.dumps_deep` and :func:`silo.jsondepth.loads_deep`, whose text is
``json.dumps``'s byte for byte. Silo's console scripts make the room themselves.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from silo.jsondepth import MAX_DEPTH, dumps_deep, loads_deep
from tests.waiting import SAFETY_S

# Run at the interpreter's default limit, in a process of its own: nothing of this test
# process (pytest, other tests) may have raised it.
_DEFAULT_LIMIT = """
import sys
from pathlib import Path

limit = sys.getrecursionlimit()
from silo import run_task
from silo.jsondepth import MAX_DEPTH, dumps_deep
from silo.jsonio import compact, exact_loads, json_copy, pretty
from silo.rollout.bridge import MAX_OUTPUT_DEPTH
from silo.safe_files import read_json_file

value = "bottom"
for _ in range(MAX_DEPTH):
    value = [value]
text = compact(value)
# == on such values would itself recurse: they are compared by their text.
assert dumps_deep(exact_loads(text)) == text
assert dumps_deep(json_copy(value)[1]) == text
page = Path(sys.argv[1]) / "deep.json"
page.write_text(pretty(value))
assert dumps_deep(read_json_file(page)) == text

answer = "bottom"
for _ in range(MAX_OUTPUT_DEPTH - 1):
    answer = [answer]
result = run_task("toy", "TASK-001", lambda inp: answer, project_dir=Path(sys.argv[2]))
run = read_json_file(result.run_dir / "run.json")
assert "agentOutputTruncated" not in run, run
assert dumps_deep(read_json_file(result.run_dir / "result.json")["agentOutput"]) == compact(answer)
assert sys.getrecursionlimit() == limit, sys.getrecursionlimit()
print("ok", limit)
"""


def test_silo_reaches_the_stated_depth_at_the_default_limit_and_leaves_it(
    toy_project: Path, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _DEFAULT_LIMIT, str(tmp_path), str(toy_project)],
        capture_output=True, text=True, timeout=SAFETY_S,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok 1000"


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 5 or roll < 0.35:
        scalars = ['é"\\\n\t', "", "\ud800", 0, -7, 10**30, 2.5, 1e-07, 1e300, True, False, None]
        return rng.choice(scalars)
    if roll < 0.65:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["b", "a", "é", f"k{i}"]): _value(rng, depth + 1) for i in range(3)}


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"indent": 2},
        {"separators": (",", ":")},
        {"separators": (",", ":"), "sort_keys": True},
        {"indent": 2, "ensure_ascii": True},
    ],
)
def test_dumps_deep_writes_what_json_dumps_writes(settings: dict[str, Any]) -> None:
    rng = random.Random(3)
    for _ in range(500):
        value = _value(rng)
        expected = json.dumps(value, **{"ensure_ascii": False, **settings})
        assert dumps_deep(value, **settings) == expected


def test_dumps_deep_refuses_what_json_cannot_hold_as_the_standard_library_does() -> None:
    loop: list[Any] = []
    loop.append(loop)
    for bad in (loop, {1: "a non-string key"}, [float("nan")], [{1, 2}]):
        with pytest.raises(RecursionError):
            dumps_deep([bad])
    too_deep: Any = []
    for _ in range(MAX_DEPTH):
        too_deep = [too_deep]
    with pytest.raises(RecursionError):
        dumps_deep(too_deep)  # MAX_DEPTH + 1 levels: no artifact may hold it


def test_loads_deep_reads_the_stated_depth_and_refuses_more() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert dumps_deep(loads_deep(text), separators=(",", ":")) == text
    with pytest.raises(RecursionError):
        loads_deep("[" + text + "]")
