"""The registry of the project-tracking verifiers (fifteen tasks and three templates).

Contract: :data:`VERIFIERS` pairs each task (``TASK-NNN``) with verifier ``VER-NNN`` and a name
saying what it proves. The grading logic lives in :mod:`work_verifiers` (tasks that change the
world), :mod:`report_verifiers` (tasks that answer a question) and :mod:`variant_verifiers`
(the templates' instances).
"""

from __future__ import annotations

from silo import Verifier, define_verifier

from . import report_verifiers as reports
from . import variant_verifiers as variants
from . import work_verifiers as work

_GRADERS = [
    ("Tax rules engine signed off as done", work.signed_off),
    ("Payment retry scheduler landed after its dependencies", work.landed_with_dependencies),
    ("Departed member's unfinished work rehomed", work.rehomed_work),
    ("Usage metering assigned to the tightest-fitting Platform member", work.owner_found),
    ("Blocker named in a comment on the duplicate email bug", work.blocker_noted),
    ("Unassigned Atlas backlog moved into the next sprint", work.sprint_filled),
    ("Atlas sprint turned over", work.sprint_turned_over),
    ("Ledger migration finished and closed", work.project_closed),
    ("Blocked items reported", reports.blocked_reported),
    ("Strongest completed sprint reported", reports.strongest_sprint),
    ("Hours on the billing platform reported", reports.project_time),
    ("Overdue points held by active members reported", reports.overdue_held),
    ("Over-capacity member reported", reports.over_committed),
    ("Backlog size reported", reports.backlog_size),
    ("Sprint closed with work left reported", reports.closed_with_work_left),
    ("Hours logged on a work item (template)", variants.time_logged),
    ("Due date set on a work item (template)", variants.due_date_set),
    ("Comment left on a work item (template)", variants.comment_left),
]

VERIFIERS: list[Verifier] = [
    define_verifier(f"VER-{n:03d}", name, grade)
    for n, (name, grade) in enumerate(_GRADERS, start=1)
]

__all__ = ["VERIFIERS"]
