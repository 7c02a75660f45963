"""The toolkit: the generic plumbing of an environment, so a new world does not copy it.

Contract: public, documented helpers an environment's ``state.py``, ``tools/`` and ``solver.py``
build on; each module has one job:

* :mod:`silo.toolkit.schema`: JSON Schema builders for tool inputs (objects, strings, patterns,
  dates, emails, numbers, enums, flags, nullable values, search queries);
* :mod:`silo.toolkit.guards`: argument readers that refuse bad input with one clear
  :class:`silo.ToolError` (unknown ids, deactivated actors, impossible dates, blank text, empty
  or no-op updates);
* :mod:`silo.toolkit.results`: detached copies, stable order, filters and pages of listings;
* :mod:`silo.toolkit.paging`: one page size for a listing's schema and its window;
* :mod:`silo.toolkit.facts`: loading ``data/*.json`` into a fresh world;
* :mod:`silo.toolkit.records`: ids minted from a sequences table, the append-only audit log;
* :mod:`silo.toolkit.writes`: write tools, the acting-user check and the audit row in one place;
* :mod:`silo.toolkit.registry`: the check that a tool list names each tool once;
* :mod:`silo.toolkit.solving`: a scripted solver's strict tool caller and instruction reading.

What a world means stays in the world: its id shapes, vocabularies, messages that name its tools
and its derived figures are the environment's, passed in as arguments. Layer: beside the
contracts; it imports the contracts (:mod:`silo.errors`, :mod:`silo.tools`, :mod:`silo.jsonio`,
:mod:`silo.json_types`) and the standard library only, never a layer below.
"""

from __future__ import annotations

from silo.toolkit.facts import Derive, FactFiles, SeedWorld, State
from silo.toolkit.guards import (
    Args,
    Record,
    acting_record,
    apply_changes,
    changes,
    find_record,
    non_blank,
    parse_day,
    require_active,
    search_term,
)
from silo.toolkit.paging import OFFSET_DESCRIPTION, Paging
from silo.toolkit.records import AuditTrail, Sequences
from silo.toolkit.registry import unique_tools
from silo.toolkit.results import View, contains, filtered, page, snapshot, sorted_by_id
from silo.toolkit.schema import (
    DATE_PATTERN,
    EMAIL_PATTERN,
    QUERY_DESCRIPTION,
    Schema,
    actor_id,
    choice,
    day,
    email,
    flag,
    integer,
    matching,
    no_input,
    nullable,
    number,
    obj,
    query,
    text,
)
from silo.toolkit.solving import Call, SolverError, ToolCaller, first_match, strict_caller
from silo.toolkit.writes import Writes

__all__ = [
    "DATE_PATTERN",
    "EMAIL_PATTERN",
    "OFFSET_DESCRIPTION",
    "QUERY_DESCRIPTION",
    "Args",
    "AuditTrail",
    "Call",
    "Derive",
    "FactFiles",
    "Paging",
    "Record",
    "Schema",
    "SeedWorld",
    "Sequences",
    "SolverError",
    "State",
    "ToolCaller",
    "View",
    "Writes",
    "acting_record",
    "actor_id",
    "apply_changes",
    "changes",
    "choice",
    "contains",
    "day",
    "email",
    "filtered",
    "find_record",
    "first_match",
    "flag",
    "integer",
    "matching",
    "no_input",
    "non_blank",
    "nullable",
    "number",
    "obj",
    "page",
    "parse_day",
    "query",
    "require_active",
    "search_term",
    "snapshot",
    "sorted_by_id",
    "strict_caller",
    "text",
    "unique_tools",
]
