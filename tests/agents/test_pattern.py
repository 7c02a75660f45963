"""Pattern drawing: every drawn string matches its pattern; what is unsupported says so."""

from __future__ import annotations

import re
from random import Random

import pytest

from silo.agents.pattern import PRINTABLE, PatternError, parse_pattern

MATCHED = [
    r"^USR-\d{2,6}$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
    r"^[A-Z]{3}-(x|yz)?[0-9]{2,4}$",
    r"^[^a-z]+$",
    r"^(?:ab|c)+\.d*?e{2,}$",
    r"^(?P<year>\d{4})/(?P<m>[01]\d)$",
    r"\Aacct_[a-z0-9]{4}\Z",
    r"^\w+\s\W\S$",
    r"^[]a-]x{,2}[\-.]$",
    r"^\x41\u00e9[\t ]?.$",
    r"^a{3}+b?+$",
    r"^x{a}$",  # "{" that is not a quantifier is a literal
    r"colour|color",
    r"\bword\b",
    "",
]


@pytest.mark.parametrize("pattern", MATCHED)
def test_drawn_strings_match_and_follow_the_seed(pattern: str) -> None:
    parsed = parse_pattern(pattern)
    rng = Random(3)
    drawn = [parsed.draw(rng) for _ in range(300)]
    for text in drawn:
        assert re.search(pattern, text), (pattern, text)
    again = Random(3)
    assert [parsed.draw(again) for _ in range(300)] == drawn


def test_unbounded_repeats_stay_short_and_negated_classes_use_the_printable_pool() -> None:
    rng = Random(0)
    lengths = {len(parse_pattern(r"^x+$").draw(rng)) for _ in range(200)}
    assert lengths == {1, 2, 3, 4}
    drawn = {parse_pattern("^[^a-z]$").draw(rng) for _ in range(500)}
    assert drawn <= set(PRINTABLE) and not drawn & set("abcxyz")


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        (r"^(?=a)a$", "unsupported group construct (?="),
        (r"^(?i)a$", "unsupported group construct (?i"),
        (r"^(?<m>a)$", "unsupported group construct (?<"),
        (r"^(a)\1$", r"unsupported escape \1"),
        (r"^[a-z", "ends too early"),
        (r"^(ab$", "missing )"),
        (r"^ab)$", "unbalanced parenthesis"),
        (r"^*a$", "nothing to repeat"),
        (r"^[z-a]$", "bad class range"),
        (r"^a{3,1}$", "bad repeat"),
        (r"^[^\w\W\s\S.:/@-]$", "matches nothing drawable"),
    ],
)
def test_unsupported_or_invalid_patterns_name_the_problem(pattern: str, says: str) -> None:
    with pytest.raises(PatternError, match=re.escape(says)):
        parse_pattern(pattern)
