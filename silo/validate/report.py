"""Validation: everything wrong with an environment, before anyone evaluates on it.

Contract: :func:`validate_environment` returns a :class:`Report` —
``{environment, ok, findings: [{level, code, message}], counts: {data, tasks, tools,
verifiers[, templates]}[, instances: {template: distinct instances}]}`` — where ``ok`` means no error-level finding. Unlike the loader, which stops at
the first problem, the validator reads the manifest, every data file, every task file and the
raw exports itself and reports every problem it finds. Only a missing environment raises
(:class:`SiloError` ``environment_not_found``). Finding codes, in the order they are emitted:

==========================  =======  ================================================
code                        level    trigger
==========================  =======  ================================================
data_dir_missing            warning  no ``data/`` folder
data_invalid_json           error    a ``data/*.json`` does not parse
manifest_missing            warning  no ``silo.environment.json`` (defaults apply)
manifest_invalid            error    the manifest is not valid JSON or has wrong types
manifest_name_mismatch      warning  the manifest's ``name`` differs from its folder's
task_invalid                error    a task file does not parse, lacks a field, repeats an id, or has
                                     a rubric or combinedReward a judge would refuse
runtime_load_failed         error    the entrypoint is missing, fails to import, lacks an export
verifier_invalid            error    an item of ``verifiers`` is not a ``define_verifier`` result
create_state_failed         error    ``create_state()`` raised
bind_tools_failed           error    ``bind_tools(state)`` raised or returned no list
tool_invalid                error    ``bind_tools`` returned something that is not a Tool
tool_unnamed                error    a tool has no name
tool_duplicate_name         error    two tools share a name
tool_no_description         warning  a tool has no description
tool_schema_invalid         error    an input schema is not Draft 2020-12 or not an object schema
verifier_duplicate_id       error    two verifiers share an id
verifier_orphan             warning  a verifier grades a task that does not exist
verifier_unused             warning  no task names the verifier, or its restated task names another
template_invalid            error    (deep) a template's instance cannot be made
template_instances_repeat   error    (deep) two sampled instances of a template are the same
task_verifier_unresolved    error    a task names a verifier that is not exported
verifier_task_mismatch      error    a task names a verifier that grades another task
task_unknown_id             warning  an instruction names a record id the initial world lacks
                                     (id shapes from the data or the manifest's ``idPatterns``)
no_tasks / no_tools         warning  nothing to evaluate / nothing to act with
no_solver                   warning  ``deep=True`` but there is no ``solver.py`` to prove the tasks
deep_skipped                warning  deep checks asked for, but the static checks found errors
==========================  =======  ================================================

Deep checks (``deep=True``; by default when ``solver.py`` exists) run rollouts in memory and add
``solver_failed``, ``verifier_crashed`` (the verifier raised: the environment's bug, not the
solver's), ``noop_passes``, ``noop_rewarded`` (a warning: the no-op agent earns a reward above
0, with the checks that give it), ``nondeterministic``, ``create_state_shared``, ``tool_leaks_state``,
``world_not_reset`` and ``validation_timeout`` (see :mod:`silo.validate.deep`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from silo.errors import EnvironmentLoadError
from silo.json_types import JSON
from silo.loading.definition import solver_file
from silo.loading.environment import find_project_dir, resolve_environment_dir
from silo.validate.rubrics import check_rubrics
from silo.validate.static import check_data, check_loading, check_runtime, check_wiring
from silo.validate.task_ids import check_task_ids

if TYPE_CHECKING:
    from silo.validate.deep import DeepOptions

__all__ = ["Finding", "Report", "validate_environment"]

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Finding:
    """One problem found: ``level`` is ``error`` (fails validation) or ``warning``.

    ``malformed``: the problem is a file that cannot be read as what it must hold (not a
    regular file, not UTF-8, not JSON, too deep, not an object), not what a readable file says.
    """

    level: str  # "error" | "warning"
    code: str
    message: str
    malformed: bool = False

    def to_json(self) -> dict[str, JSON]:
        """The finding as ``silo-validate --json`` prints it (``malformed`` only when true)."""
        shown: dict[str, JSON] = {"level": self.level, "code": self.code, "message": self.message}
        return shown | ({"malformed": True} if self.malformed else {})


@dataclass
class Report:
    """Everything validation found in one environment, and what it counted."""

    environment: str
    findings: list[Finding] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: {"data": 0, "tasks": 0, "tools": 0, "verifiers": 0}
    )
    # Distinct instances each task template can make (deep checks; see silo.validate.templates).
    instances: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no finding is an error (warnings do not fail validation)."""
        return not any(f.level == ERROR for f in self.findings)

    @property
    def exit_status(self) -> int:
        """``silo-validate``'s status for this report: 2 a malformed file, 1 an error, else 0."""
        if any(f.malformed for f in self.findings):
            return 2
        return 0 if self.ok else 1

    def malformed(self) -> list[Finding]:
        """The findings that are files which cannot be read as they must be."""
        return [f for f in self.findings if f.malformed]

    def error(self, code: str, message: str, malformed: bool = False) -> None:
        """Record an error-level finding: the environment is not ready to evaluate on."""
        self.findings.append(Finding(ERROR, code, message, malformed))

    def warn(self, code: str, message: str) -> None:
        """Record a warning: worth fixing, but the environment can run."""
        self.findings.append(Finding(WARNING, code, message))

    def codes(self) -> list[str]:
        """The finding codes in the order they were found."""
        return [f.code for f in self.findings]

    def to_json(self) -> dict[str, JSON]:
        """The report as ``silo-validate --json`` prints it (see the module docstring)."""
        return {
            "environment": self.environment,
            "ok": self.ok,
            "findings": [f.to_json() for f in self.findings],
            "counts": dict(self.counts),
            **({"instances": dict(self.instances)} if self.instances else {}),
        }

    def to_text(self) -> str:
        """One line per finding, ``OK``/``FAILED`` with the counts, then each template's size."""
        lines = [f"{f.level.upper()}  {f.code}  {f.message}" for f in self.findings]
        counts = " ".join(f"{k}={v}" for k, v in self.counts.items())
        lines.append(f"{'OK' if self.ok else 'FAILED'}  {self.environment}  {counts}")
        lines += [f"TEMPLATE  {t}  {n} distinct instances" for t, n in self.instances.items()]
        return "\n".join(lines)


def validate_environment(
    env: str | Path,
    project_dir: Path | None = None,
    deep: bool | None = None,
    options: DeepOptions | None = None,
) -> Report:
    """Validate ``env`` (a name under ``environments/`` or a folder).

    ``deep=None`` runs the deep checks when the environment ships a ``solver.py``; ``options``
    are their budget, time limit and progress (see :class:`~silo.validate.deep.DeepOptions`).
    """
    project = Path(project_dir).resolve() if project_dir else find_project_dir()
    root = (env if isinstance(env, Path) else resolve_environment_dir(env, project)).resolve()
    if not root.is_dir():
        raise EnvironmentLoadError("environment_not_found", f"{root} is not an environment folder")
    report = Report(root.name)
    where = f"environments/{root.name}"
    check_data(root, where, report)
    loaded = check_loading(root, where, report)
    parts = loaded.parts
    report.environment = parts.name
    report.counts["tasks"] = len(parts.tasks)
    if parts.templates:
        report.counts["templates"] = len(parts.templates)
    check_runtime(loaded, report)
    check_wiring(loaded, report)
    check_task_ids(parts, report)
    check_rubrics(parts.tasks.values(), parts.manifest, root, report)
    if not parts.tasks and not any(f.code == "task_invalid" for f in report.findings):
        report.warn("no_tasks", f"{where} has no tasks; add tasks/<ID>.json files")
    if loaded.tools == []:
        report.warn("no_tools", f"{where}: bind_tools(state) returns no tools; agents cannot act")
    solver = solver_file(root)
    if deep is None:
        deep = solver.is_file()
    elif deep and parts.tasks and not solver.is_file():
        report.warn(
            "no_solver",
            f"{where} has no agents/solver.py (or solver.py), so nothing proves its tasks can be solved; write one "
            "exporting agent(inp)",
        )
    if deep and not report.ok:
        report.warn("deep_skipped", "deep checks skipped: fix the errors above first")
    elif deep:
        from silo.validate.deep import run_deep_checks  # imports the rollout engine: only now

        run_deep_checks(parts.environment(), project, report, options)
    return report
