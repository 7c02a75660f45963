"""A run's full page: the run report plus field-level changes, model steps and conversation.

Contract: :func:`run_detail` renders a run folder as :func:`silo.view.run_page.run_section`
does, then the run's judged items when it was judged (:func:`silo.view.judged.judgement_section`,
apart from the checks), and appends three sections: **Field-level changes** (from ``state-changes.json`` with
:mod:`silo.view.changes`, or a note that the run has only the row-level diff above), **Model
steps** and **Conversation** (:mod:`silo.view.dialogue`). It never raises for a damaged run and
reads no clock: the same folder gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from silo.view.changes import changes_table, read_changes
from silo.view.dialogue import conversation, has_conversation, model_steps
from silo.view.html import anchor, esc
from silo.view.judged import judgement_section
from silo.view.run_page import load_run, run_section, verdict

__all__ = ["run_detail"]

_ROW_LEVEL_ONLY = (
    '<p class="muted">This run has no state-changes.json: only the row-level diff above.</p>'
)


def run_detail(folder: Path, prefix: str = "run") -> tuple[str, str]:
    """The page title and body of the run in ``folder``; its ids start with ``prefix``."""
    run = load_run(folder)
    problems: list[str] = []
    changes = read_changes(folder, problems)
    field_html = _ROW_LEVEL_ONLY if changes is None else changes_table(changes)
    field_html += "".join(f'<p class="err">{esc(p)}</p>' for p in problems)
    extra = [
        ("changes", "Field-level changes", field_html),
        ("steps", "Model steps", model_steps(run.trace)),
    ]
    if not has_conversation(run.trace):  # a conversation is shown in the run section above
        extra.append(("conversation", "Conversation", conversation(run.trace)))
    body = (
        run_section(run, prefix)
        + judgement_section(folder)
        + "".join(
            f'<h2 id="{anchor(prefix, key)}">{esc(title)}</h2>{html}' for key, title, html in extra
        )
    )
    return f"{folder.name} {verdict(run)} — silo-view", body
