"""How each task is graded: inspect the final world against the initial one, never the transcript.

A task links to its verifier by the ``verifierId`` in its file. Required ``check`` records decide
pass/fail; ``optional`` ones add evidence (nothing else was touched) to the reward.
"""

from __future__ import annotations

from typing import Any

from silo import Check, VerifierContext, check, define_verifier, optional
from silo.grading import last_number_is, task_entities, touched_rows, world_unchanged


def _book_lent(final: Any, initial: Any, context: VerifierContext) -> list[Check]:
    facts = task_entities(context)  # the task file's "entities": facts its instruction states
    book = final["books"].get(facts.get("bookId", "")) or {}
    touched = touched_rows(context, "books")
    return [
        check(
            "The book is lent to the member",
            book.get("borrower") == facts.get("member"),
            f"borrower is {book.get('borrower')!r}",
        ),
        optional(
            "No other book changed",
            touched is not None and touched <= {facts.get("bookId")},
            f"changed: {sorted(touched or ())}",
        ),
    ]


def _available_count(final: Any, initial: Any, context: VerifierContext) -> list[Check]:
    expected = sum(1 for book in initial["books"].values() if book["borrower"] is None)
    return [
        check(
            "The answer ends with the number of available books",
            last_number_is(context.agent_output, expected),
            f"expected {expected}",
        ),
        world_unchanged(final, initial, "The library was left as it was"),
    ]


VERIFIERS = [
    define_verifier("VER-001", "Book lent to the member", _book_lent),
    define_verifier("VER-002", "Available books counted", _available_count),
]
