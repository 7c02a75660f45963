"""Drift explanations are bounded exactly: 120 characters per value, 40 lines per file."""

from __future__ import annotations

import json

from silo.batch.baseline import explain


def test_a_value_is_cut_to_exactly_120_characters_with_an_ellipsis() -> None:
    long, fits = "x" * 200, "y" * 118  # repr adds two quotes: 202 and 120 characters
    (line,) = explain(json.dumps({"a": "old"}), {"a": long})
    assert line == "root['a']: 'old' -> '" + "x" * 116 + "..."
    (line,) = explain(json.dumps({"a": "old"}), {"a": fits})
    assert line == f"root['a']: 'old' -> '{fits}'"


def test_at_most_40_lines_then_a_count_of_the_rest() -> None:
    old = {f"k{i:02d}": 0 for i in range(45)}
    lines = explain(json.dumps(old), {key: 1 for key in old})
    assert len(lines) == 41 and lines[39] == "root['k39']: 0 -> 1"
    assert lines[40] == "... and 5 more differences"
    assert len(explain(json.dumps(old), {k: (1 if k < "k40" else 0) for k in old})) == 40
