"""Errors a user can act on: one base class, one subclass per boundary, one registry of codes.

Contract: every mistake in user input (a manifest, a task file, a config override, an agent
path, a run folder, the baselines config) raises a :class:`SiloError` subclass with a stable
``code`` and a one-line ``message`` that says what is wrong and how to fix it. Command-line
tools print the message alone, never a traceback, and exit with the class's ``exit_code``
(2: the command could not start, or the user made a mistake; 1 is kept for graded failures,
which are results, not errors).

Every exception Silo raises or hands to its users derives from one root,
:class:`SiloException`, as httpx's derive from ``HTTPError``: ``except SiloException`` catches
anything Silo meant to raise, and nothing else. Beside :class:`SiloError` (coded, exit status)
the root's branches are the run-time signals of their own layers: ``ToolError`` (a tool's
refusal, read by the agent), ``VerifierError``, ``StateMutationError`` and ``NotTrackable``
(the world), ``RunLimitError``, ``AgentError`` and ``ModelError`` (the agent contract),
``UserFailure`` (a simulated user), ``SolverError`` (a scripted solver), ``PatternError`` and
``Unsatisfiable`` (the random agent's sampler) and ``UsageError`` (a command line). Those that
were ``RuntimeError``/``TypeError``/``ValueError`` still are. The coded hierarchy, like httpx's
and click's, is::

    SiloError                  any user-facing error (exit 2)
    ├── ConfigError            a config key, override or budget is wrong
    ├── EnvironmentLoadError   an environment folder, manifest or entrypoint does not load
    ├── ScaffoldError          silo-init refused a name or template
    ├── AuthoringError         silo-env refused an edit of an environment's files
    ├── TaskError              a task file is wrong, or a task/verifier named is not there
    ├── AgentLoadError         an agent name, file or target cannot be built
    ├── ArtifactError          a run, group or sweep folder cannot be read or written
    ├── BaselineError          the baselines config is wrong, or an agent cannot be pinned
    └── SessionError           a session was used after it finished, or from another rollout

:data:`CODES` maps every code to its class and meaning; a subclass refuses a code registered
to another class, so a code always tells a caller which boundary failed. ``docs/cli.md``
("Errors and exit codes") lists the same table.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, NamedTuple

from silo.json_types import JSON

__all__ = [
    "CODES",
    "SiloException",
    "AgentLoadError",
    "ArtifactError",
    "AuthoringError",
    "BaselineError",
    "ConfigError",
    "EnvironmentLoadError",
    "ErrorCode",
    "ScaffoldError",
    "SessionError",
    "SiloError",
    "TaskError",
]


class SiloException(Exception):
    """The root of every exception Silo raises or hands to its users (see the module's contract)."""


class SiloError(SiloException):
    """A user-facing error: ``code`` is stable, ``message`` is one line with the fix.

    Raise a subclass; the base stays constructible with any registered code only while
    callers outside the error model's owners move to the subclasses.
    """

    exit_code: ClassVar[int] = 2
    """The status a command exits with when this error stops it."""

    def __init__(self, code: str, message: str, details: dict[str, JSON] | None = None) -> None:
        """Keep ``code``, ``message`` and optional machine-readable ``details``.

        Raises:
            ValueError: ``code`` is not registered in :data:`CODES`, or is registered to a
                class this one is not (a programming mistake, caught by the tests).
        """
        registered = CODES.get(code)
        if registered is None or not issubclass(registered.error, type(self)):
            owner = registered.error.__name__ if registered else "no class"
            raise ValueError(f"{type(self).__name__} cannot carry code {code!r} (it is {owner}'s)")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def __str__(self) -> str:
        """The message alone: what a command prints after its name."""
        return self.message


class ConfigError(SiloError):
    """A config key, command-line override or budget has a wrong value or names nothing."""


class EnvironmentLoadError(SiloError):
    """An environment folder, its manifest or its entrypoint cannot be found or loaded."""


class ScaffoldError(SiloError):
    """``silo-init`` refused to create an environment (name, collision or template)."""


class AuthoringError(SiloError):
    """``silo-env`` refused an edit: a value it cannot use, a clash, or a broken registration."""


class TaskError(SiloError):
    """A task file is malformed, or a task or verifier that was named does not exist."""


class AgentLoadError(SiloError):
    """An agent given by name, file or Python target cannot be found or built."""


class ArtifactError(SiloError):
    """A run, group or sweep folder cannot be found, read or written as asked."""


class BaselineError(SiloError):
    """The baselines config is missing or malformed, or an agent cannot be pinned."""


class SessionError(SiloError):
    """Outside code used a session wrongly: after ``finish``, or from another rollout's agent."""


class ErrorCode(NamedTuple):
    """What :data:`CODES` says about one code: the class that carries it and what it means."""

    error: type[SiloError]
    meaning: str


def _registry(*entries: tuple[str, type[SiloError], str]) -> Mapping[str, ErrorCode]:
    table: dict[str, ErrorCode] = {}
    for code, error, meaning in entries:
        if code in table:
            raise ValueError(f"error code {code!r} is registered twice")
        table[code] = ErrorCode(error, meaning)
    return MappingProxyType(table)


CODES: Mapping[str, ErrorCode] = _registry(
    ("config_invalid", ConfigError, "a config key has a wrong value or is missing"),
    ("override_invalid", ConfigError, "a command-line override names an unknown choice or key"),
    ("launcher_missing", ConfigError, "the chosen Hydra launcher plugin is not installed"),
    ("budget_invalid", ConfigError, "a budget value is not a positive whole number"),
    ("pricing_invalid", ConfigError, "a price table entry is not {input: X, output: Y} >= 0"),
    ("env_not_found", ConfigError, "env= names no environment folder or conf/env config"),
    ("env_not_chosen", ConfigError, "no env= and the project has several environments or none"),
    ("budget_not_found", ConfigError, "budget= names no conf/budget config"),
    ("environment_not_found", EnvironmentLoadError, "no environment by that name or folder"),
    ("environment_package_invalid", EnvironmentLoadError, "an installed environment is broken"),
    ("manifest_invalid", EnvironmentLoadError, "silo.environment.json is not valid JSON or types"),
    ("entrypoint_outside_environment", EnvironmentLoadError, "the entrypoint leaves the folder"),
    ("entrypoint_not_found", EnvironmentLoadError, "the entrypoint file does not exist"),
    ("module_load_failed", EnvironmentLoadError, "a user Python file raised while importing"),
    ("runtime_contract_invalid", EnvironmentLoadError, "the entrypoint lacks a required export"),
    ("verifier_invalid", EnvironmentLoadError, "an exported verifier is not define_verifier's"),
    ("runtime_load_failed", EnvironmentLoadError, "the environment's tools could not be built"),
    ("tool_schema_invalid", EnvironmentLoadError, "a tool's name or input schema is malformed"),
    ("verifier_crashed", EnvironmentLoadError, "a verifier raised while grading a rollout"),
    ("unsafe_name", ScaffoldError, "the environment name is not a safe folder name"),
    ("environment_already_exists", ScaffoldError, "an environment of that name exists"),
    ("template_not_found", ScaffoldError, "no template by that name, or it is incomplete"),
    ("authoring_invalid", AuthoringError, "a silo-env value cannot be used (id, name, JSON)"),
    ("file_invalid_json", AuthoringError, "a file silo-env must edit is not valid JSON"),
    ("task_exists", AuthoringError, "silo-env task add named a task that exists"),
    ("data_exists", AuthoringError, "silo-env data add named a data file that exists"),
    ("data_not_found", AuthoringError, "no data file by that name"),
    ("tool_exists", AuthoringError, "silo-env tool add named a tool that exists"),
    ("verifier_exists", AuthoringError, "silo-env verifier add named a verifier that exists"),
    ("registration_failed", AuthoringError, "new code could not be registered; nothing changed"),
    ("edit_breaks_environment", AuthoringError, "the edit would stop the environment starting"),
    ("task_invalid", TaskError, "a task file does not parse, lacks a field or repeats an id"),
    ("task_not_found", TaskError, "no task by that id or glob"),
    ("no_tasks", TaskError, "the environment has no tasks"),
    ("verifier_not_found", TaskError, "a task names a verifier the environment does not export"),
    ("agent_not_found", AgentLoadError, "no agent by that name, file or target"),
    ("agent_invalid", AgentLoadError, "the agent cannot be built or is not callable"),
    ("compare_folder_not_found", ArtifactError, "silo-compare was given a missing folder"),
    ("compare_bad_rollout", ArtifactError, "a folder holds files that are not a Silo rollout"),
    ("compare_no_rollouts", ArtifactError, "a folder holds no finished rollout"),
    ("regrade_no_runs", ArtifactError, "silo-regrade was given a folder with no finished run"),
    ("regrade_run_unreadable", ArtifactError, "a recorded run's run.json or result.json is bad"),
    ("view_not_a_run", ArtifactError, "silo-view was given a folder that is no run or group"),
    ("view_out_folder_missing", ArtifactError, "the report's folder does not exist"),
    ("view_would_overwrite", ArtifactError, "the report would replace a file it did not write"),
    ("artifacts_unwritable", ArtifactError, "a run folder or golden file cannot be written"),
    ("group_not_new", ArtifactError, "a new batch was given a group folder holding an earlier one"),
    ("worker_lost", ArtifactError, "a workers=P process died with rollouts in flight unrecorded"),
    ("export_no_runs", ArtifactError, "silo-export found no finished rollout matching the filters"),
    ("export_no_turns", ArtifactError, "an exported rollout's trace holds no exact model turns"),
    ("export_no_tokens", ArtifactError, "a rollout exported as rl has no token ids or logprobs"),
    ("export_bad_trace", ArtifactError, "a trace cannot be read or its model turns do not chain"),
    ("baselines_config_missing", BaselineError, "baselines/silo-baselines.yaml does not exist"),
    ("baselines_config_invalid", BaselineError, "the baselines config is malformed"),
    ("agent_not_deterministic", BaselineError, "the agent's results may vary, so cannot be pinned"),
    ("extra_missing", ConfigError, "the command needs an optional extra that is not installed"),
    (
        "tool_name_reserved",
        EnvironmentLoadError,
        "a tool's name starts with silo_ or silo., kept for silo-mcp",
    ),
    ("session_finished", SessionError, "the session already finished; open a new one"),
    ("task_fixed", SessionError, "silo-mcp was started with a task; start_task cannot change it"),
    ("task_not_chosen", SessionError, "no task was started yet; call silo_start_task first"),
    ("task_already_started", SessionError, "this connection already rolls out a task"),
    ("episode_unknown", SessionError, "an MCP request names no session or episode"),
    ("port_in_use", ConfigError, "silo-mcp's port is taken by another server"),
    (
        "invalid_input",
        SessionError,
        "a control tool (silo_start_task, silo_finish, silo_message_user) got bad input",
    ),
    ("session_wrong_rollout", SessionError, "a session's tools were called from another rollout"),
    ("user_not_found", ConfigError, "user= names no simulated user, or its target cannot import"),
    ("user_invalid", ConfigError, "the simulated user cannot be built (e.g. user.model unset)"),
    ("session_no_user", SessionError, "message_user on a session whose task has no user block"),
    ("user_not_deterministic", BaselineError, "the simulated user may vary, so cannot be pinned"),
    (
        "judge_not_deterministic",
        BaselineError,
        "a model judge's verdicts vary, so cannot be pinned",
    ),
)
"""Every error code: code → :class:`ErrorCode` (its class and meaning). Read-only."""
