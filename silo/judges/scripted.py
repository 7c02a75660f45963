"""The scripted judge: deterministic rules, so judgements are byte-identical and pinnable.

Contract: :class:`ScriptedJudge` grades an item by its ``scripted`` rules, all of which must
hold for ``pass``: ``agentSaid`` (phrases, each found case-insensitively in some message the
agent sent the user, or in its answer) and ``askedBefore`` (``{"phrase", "tool"}``: an agent
message containing the phrase and a question mark came before the first call of that tool,
and the tool was called). An item without rules gets ``abstain``. It calls no model: ``model``
is ``None`` and ``usage`` empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo.judges.rubric import Material, RubricItem, Verdict

__all__ = ["ScriptedJudge"]


def _agent_text(material: Material) -> list[tuple[int, str]]:
    said = [(int(m["seq"]), str(m["text"])) for m in material.conversation if m["role"] == "agent"]
    return [*said, (1 << 62, material.answer)]


def _said(material: Material, phrases: Any) -> tuple[bool, str]:
    texts = [text.casefold() for _, text in _agent_text(material)]
    missing = [p for p in phrases if not any(str(p).casefold() in t for t in texts)]
    return not missing, f"never said {missing}" if missing else f"said {list(phrases)}"


def _asked_before(material: Material, rule: Mapping[str, Any]) -> tuple[bool, str]:
    phrase, tool = str(rule.get("phrase", "")).casefold(), rule.get("tool")
    first = min((int(c["seq"]) for c in material.tool_calls if c["tool"] == tool), default=None)
    if first is None:
        return False, f"{tool} was never called"
    asked = any(
        seq < first and phrase in text.casefold() and "?" in text
        for seq, text in _agent_text(material)
    )
    return asked, f"{'asked' if asked else 'did not ask'} {phrase!r} before calling {tool}"


class ScriptedJudge:
    """Grades rubric items by their ``scripted`` rules (see the module docstring)."""

    name: str = "scripted"
    model: str | None = None
    deterministic: bool = True

    def __call__(self, item: RubricItem, material: Material) -> Verdict:
        """The verdict on ``item`` from ``material``."""
        rules = item.scripted
        if not rules:
            return Verdict("abstain", "the item has no scripted rule")
        results = []
        if "agentSaid" in rules:
            results.append(_said(material, rules["agentSaid"]))
        if "askedBefore" in rules:
            results.append(_asked_before(material, rules["askedBefore"]))
        if not results:
            return Verdict("abstain", f"unknown scripted rules {sorted(rules)}")
        passed = all(ok for ok, _ in results)
        return Verdict("pass" if passed else "fail", "; ".join(reason for _, reason in results))
