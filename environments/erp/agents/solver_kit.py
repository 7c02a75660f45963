"""What every step of the ERP reference solver needs: a strict tool caller and instruction reading.

Contract: :func:`caller` wraps an agent input's ``call_tool`` into ``call(name, args)`` that
returns the tool output and raises :class:`SolverError` on any refusal (the reference solution
never needs a retry); it and :func:`first` are :mod:`silo.toolkit`'s ``strict_caller`` and
``first_match``. :func:`first`, :func:`user_after` and :func:`dollars` read ids, the user
named for a role and amounts out of an instruction, raising when the text lacks them.
"""

from __future__ import annotations

import re

from silo.toolkit.solving import Call, SolverError, first_match, strict_caller

__all__ = ["Call", "SolverError", "caller", "dollars", "first", "user_after"]

caller = strict_caller
first = first_match


def user_after(name: str, text: str) -> str:
    """The user id written right after a person's name: ``Sofia Duarte (user USR-007)``."""
    return first(re.escape(name) + r" \(user (USR-\d+)\)", text)


def dollars(text: str) -> float:
    """The first dollar amount in ``text`` (``$82.00`` -> 82.0)."""
    return float(first(r"\$([\d,]+(?:\.\d+)?)", text).replace(",", ""))
