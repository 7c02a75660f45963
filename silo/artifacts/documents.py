"""The typed documents a rollout leaves on disk, and reading them back.

Contract: each artifact has one type here, used by the writer and by every reader (batch
summaries, comparison, baselines, the viewer): :class:`ResultDocument` (``result.json``),
:class:`StateDiffDocument` (``state-diff.json``), :class:`RunDocument` (``run.json``), the trace
events (:data:`TraceEvent`, one ``trace.jsonl`` line each) and :class:`SummaryDocument`
(``summary.json`` of a group or sweep). ``run.json`` and the trace's ``run_start`` carry
``schemaVersion`` (:data:`SCHEMA_VERSION`), raised when a key changes meaning or goes;
``result.json`` and ``state-diff.json`` keep exactly their documented keys (they are byte-exact
regression oracles) and so carry none. The keys are camelCase, as written; docs/artifacts.md is
the prose version of this module. :func:`read_document` reads one file back as its type,
without checking it: a reader that needs a key checks it itself.
"""

# No ``from __future__ import annotations`` here: TypedDict must evaluate NotRequired[...] to
# know which keys are optional.
import errno
from pathlib import Path
from typing import Literal, NotRequired, TypedDict, TypeVar, cast

from silo.json_types import JSON
from silo.safe_files import UnreadableFile, read_json_file

__all__ = [
    "SCHEMA_VERSION",
    "AgentOutputEvent",
    "AgentSummaryRow",
    "CheckDocument",
    "CollectionChanges",
    "InfraErrorRecord",
    "JudgedSummary",
    "NotGradedRecord",
    "ModelStepEvent",
    "ResultDocument",
    "RunConfig",
    "RunDocument",
    "RunEndEvent",
    "RunStartEvent",
    "ScalarChange",
    "StateDiffDocument",
    "SummaryDocument",
    "SummaryRow",
    "TemplateSummaryRow",
    "ToolCallEvent",
    "ToolResultEvent",
    "TraceEvent",
    "VerifierResultEvent",
    "read_document",
]

SCHEMA_VERSION = 2  # 2: run_start names its stored tool specs (toolsSha256), no copy
"""The version of ``run.json`` and of the trace's events (``schemaVersion`` in both)."""


class CheckDocument(TypedDict):
    """One check of ``result.json``'s ``checks``, in verifier order."""

    label: str
    passed: bool
    detail: str
    required: bool


class ResultDocument(TypedDict):
    """``result.json``: the grade. No timestamps, no run ids; keys in this order."""

    passed: bool
    reward: float
    requiredPassed: int
    requiredTotal: int
    failedRequired: list[str]
    checksPassed: int
    checksFailed: int
    toolCalls: int
    toolErrors: int
    terminationReason: str
    agentOutput: JSON
    error: str | None
    checks: list[CheckDocument]


ScalarChange = TypedDict(
    "ScalarChange", {"field": str, "from": JSON, "to": JSON, "change": str}
)  # functional form: "from" is a Python keyword
"""A top-level value of the state that changed, appeared (``added``) or went (``removed``)."""


class CollectionChanges(TypedDict):
    """The rows of one collection that were added, removed or changed (row ids)."""

    added: list[str]
    removed: list[str]
    changed: list[str]


class StateDiffDocument(TypedDict):
    """``state-diff.json``: what changed in the world; collections with no change left out."""

    scalars: list[ScalarChange]
    collections: dict[str, CollectionChanges]


class RunConfig(TypedDict):
    """The budget and agent a rollout ran with (``config`` of ``run.json`` and ``run_start``)."""

    maxToolCalls: int
    timeoutMs: int
    agentPath: str | None
    seed: int


class RunDocument(TypedDict):
    """``run.json``: the run's metadata, written last, so its presence marks a finished run."""

    schemaVersion: int
    runId: str | None
    groupId: str | None
    environment: str
    taskId: str
    task: dict[str, JSON]
    verifierId: str
    verifierName: str
    agent: str
    config: RunConfig
    startedAt: str
    finishedAt: str
    durationMs: float
    terminationReason: str
    toolCallCount: int
    usage: NotRequired[dict[str, JSON]]
    estimatedCost: NotRequired[float]  # usage at the pricing= table's prices, in dollars
    pointId: NotRequired[str]
    repeat: NotRequired[int]
    environmentError: NotRequired[str]  # a verifier raised: the environment's fault
    modelUnreachable: NotRequired[bool]  # model_error: the endpoint refused the connection
    agentOutputTruncated: NotRequired[dict[str, int]]  # {chars, keptChars}
    agentIsolation: NotRequired[str]  # "process": the agent ran in a child process
    # a task's opt-in combinedReward, added by its judging: {formula, checks, judged, reward}
    combinedReward: NotRequired[dict[str, JSON]]


class _Event(TypedDict):
    seq: int
    at: str


class RunStartEvent(_Event):
    """The first event: what is about to run, with every tool offered."""

    type: Literal["run_start"]
    schemaVersion: int
    runId: str | None
    groupId: str | None
    environment: str
    task: dict[str, JSON]
    agent: str
    config: RunConfig
    # On disk: the name of the stored specs (silo.artifacts.tool_store). In memory, and in
    # schema version 1: the specs themselves.
    toolsSha256: NotRequired[str]
    tools: NotRequired[list[dict[str, JSON]]]


class ToolCallEvent(_Event):
    """A call the agent made (``callId`` is 1-based and pairs it with its result)."""

    type: Literal["tool_call"]
    callId: int
    tool: str
    input: JSON


class ToolResultEvent(_Event):
    """The result of the call with the same ``callId``."""

    type: Literal["tool_result"]
    callId: int
    tool: str
    output: JSON
    isError: bool
    durationMs: float


class ModelStepEvent(_Event):
    """One model turn, added by model agents."""

    type: Literal["model_step"]
    turn: int
    request: JSON
    response: JSON
    usage: dict[str, JSON] | None
    latencyMs: float


class AgentOutputEvent(_Event):
    """The raw value the agent returned (``None`` if it raised or was abandoned)."""

    type: Literal["agent_output"]
    output: JSON


class RunEndEvent(_Event):
    """Why and when the agent's part ended."""

    type: Literal["run_end"]
    terminationReason: str
    error: str | None
    toolCalls: int
    toolErrors: int
    durationMs: float


class VerifierResultEvent(_Event):
    """The grade, as ``result.json`` has it, and the verifier's own failure if any."""

    type: Literal["verifier_result"]
    verifierId: str
    passed: bool
    reward: float
    checks: list[CheckDocument]
    error: str | None


TraceEvent = (
    RunStartEvent
    | ToolCallEvent
    | ToolResultEvent
    | ModelStepEvent
    | AgentOutputEvent
    | RunEndEvent
    | VerifierResultEvent
)
"""One line of ``trace.jsonl``; ``type`` tells which."""


class JudgedSummary(TypedDict):
    """A row's judged items (its runs' ``judgement.json``), counted apart from the checks."""

    runs: int
    passed: int
    failed: int
    abstained: int
    judgeErrors: int  # runs a judge failed on (its endpoint), not the agent's failure
    passRate: float | None  # passed / (passed + failed); None when no item was graded
    meanCombinedReward: NotRequired[float]  # tasks that declare a combinedReward only


class SummaryRow(TypedDict):
    """One task x agent of a group: its rollouts by outcome; rates and pass^k over the graded.

    ``runs`` counts the graded rollouts (passed or failed); ``rollouts`` every one, the
    not-graded counted apart. The rates are ``None`` when no rollout was graded.
    """

    environment: str
    task: str
    agent: str
    rollouts: int
    runs: int
    passes: int
    passRate: float | None
    meanReward: float | None
    meanToolCalls: float | None
    environmentErrors: int
    modelErrors: int
    couldNotStart: int
    terminationReasons: dict[str, int]
    resumed: int
    passHatK: dict[str, float]
    agentIdentity: NotRequired[dict[str, JSON]]
    userIdentity: NotRequired[dict[str, JSON]]
    usage: NotRequired[dict[str, int | float]]
    estimatedCost: NotRequired[float]  # the runs' estimatedCost summed (priced runs only)
    judged: NotRequired[JudgedSummary]  # runs judged with judge=: their rubric items, apart


class AgentSummaryRow(TypedDict):
    """One agent over its tasks: pass^k averaged over them (k up to its fewest runs)."""

    agent: str
    tasks: int
    runs: int
    passes: int
    notGraded: int
    passHatK: dict[str, float]


class TemplateSummaryRow(TypedDict):
    """One task template x agent: its instances pooled, pass^k averaged over the instances."""

    environment: str
    template: str
    agent: str
    instances: int
    runs: int
    passes: int
    passRate: float
    meanReward: float
    passHatK: dict[str, float]
    judged: NotRequired[JudgedSummary]  # the instances' judged items, pooled


class InfraErrorRecord(TypedDict):
    """A line of ``infra-errors.jsonl``: a rollout that never began, and why.

    ``outcome`` is ``couldNotStart``, ``environmentError`` or ``modelError`` (a sweep that
    stopped early); a record without one could not start.
    """

    pointId: str
    environment: str
    taskId: str
    agent: str
    repeat: int
    error: str
    outcome: NotRequired[str]


class NotGradedRecord(TypedDict):
    """A rollout of a group that was not graded: its outcome, where it was, and why."""

    outcome: str
    environment: str
    taskId: str
    agent: str
    repeat: int | None
    error: str
    runDir: str | None


class SummaryDocument(TypedDict):
    """``summary.json`` of a group or sweep folder."""

    group: str
    rollouts: int
    graded: int
    passed: int
    failed: int
    environmentErrors: int
    modelErrors: int
    couldNotStart: int
    notGraded: list[NotGradedRecord]
    rows: list[SummaryRow]
    agents: list[AgentSummaryRow]
    # Only when the group ran instances of task templates (TASK-010#17): one row per template.
    templates: NotRequired[list[TemplateSummaryRow]]


_Document = TypeVar("_Document")


def read_document(path: Path, kind: type[_Document]) -> _Document:
    """``path`` parsed as JSON and typed as ``kind`` (not checked: readers check what they use).

    A symbolic link is never followed: a run folder received from elsewhere could link its
    files anywhere (``trace.jsonl`` → ``/etc/shadow``).

    Raises:
        OSError: the file cannot be read: missing, a link, not a regular file, not UTF-8,
            nested deeper than :data:`silo.jsondepth.MAX_DEPTH` (the message says which).
        json.JSONDecodeError: it is not JSON.
    """
    try:
        return cast(_Document, read_json_file(path, follow=False))
    except UnreadableFile as exc:
        missing = exc.why == "does not exist"
        raise (FileNotFoundError if missing else OSError)(
            errno.ENOENT if missing else errno.EINVAL, f"{path.name} unreadable: {exc.why}"
        ) from None
