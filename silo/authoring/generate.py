"""Scaffolding a tool or a verifier: write its code, register it, prove the environment loads.

A tool becomes ``tools/<name>.py`` (a ``define_tool`` whose body refuses until it is written) and
one item of the tools list; a verifier becomes a check function placed above the verifiers list
(returning one failing required check until it is written) and one ``define_verifier`` item of
that list. Either step then loads the environment afresh; if it does not load, or the new tool or
verifier is not among its exports, every file is put back and the step is refused.
"""

from __future__ import annotations

import json
import keyword
import re
from pathlib import Path
from typing import Any

from silo.authoring.files import Edit, relative
from silo.authoring.guard import load_afresh
from silo.authoring.pysource import append_to_list, ensure_imports, insert_before_list, list_names
from silo.authoring.tasks import update_task
from silo.errors import AuthoringError, SiloError
from silo.json_types import JSON
from silo.loading.environment import Environment, read_manifest

__all__ = ["TOOL_LISTS", "VERIFIER_LISTS", "add_tool", "add_verifier"]

TOOL_LISTS = ("ALL_TOOLS", "TOOLS")
VERIFIER_LISTS = ("VERIFIERS", "verifiers")
_PY_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")

_TOOL_FILE = '''"""The ``{name}`` tool (scaffolded by ``silo-env tool add``; describe what it offers)."""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.schema import obj


def _{name}(state: Any, args: dict[str, Any]) -> dict[str, Any]:
    raise ToolError("not_implemented", "{name} is not written yet")


{name}: Tool = define_tool(
    "{name}",
    {description},
    obj({{}}),  # add properties with silo.toolkit's builders: obj({{"id": text("...")}}, ["id"])
    _{name},{read_only}
)
'''

_CHECK_FUNCTION = '''def {function}(final: Any, initial: Any, context: VerifierContext) -> list[Check]:
    """{description}"""
    return [
        check(
            "TODO: what a correct run leaves in the world",
            False,
            "{verifier_id} is not written yet; compare final with initial here",
        )
    ]
'''


def _entrypoint(root: Path) -> Path:
    return (root / read_manifest(root).entrypoint).resolve()


def _prove(edit: Edit, root: Path, holds: Any, what: str) -> Environment:
    """Load the edited environment; undo ``edit`` unless it loads and ``holds(env)``."""
    try:
        env = load_afresh(root)
        if not holds(env):
            raise AuthoringError("registration_failed", f"the environment does not export {what}")
    except SiloError as exc:
        edit.undo()
        load_afresh(root)
        raise AuthoringError(
            "registration_failed",
            f"adding {what} broke environment {root.name!r} ({exc.message}); nothing was changed",
        ) from None
    return env


def _tool_names(env: Environment) -> list[str]:
    return [tool.name for tool in env.bind_tools(env.create_state())]


def add_tool(
    root: Path, name: str, *, read_only: bool = False, description: str = ""
) -> dict[str, JSON]:
    """Write ``tools/<name>.py`` and add it to the tools list; returns the files written."""
    if not _PY_NAME.match(name) or keyword.iskeyword(name):
        raise AuthoringError(
            "authoring_invalid",
            f'name="{name}" is not a tool name; use lower-case letters, digits and "_" '
            "(a Python name such as close_account)",
        )
    if name in _tool_names(load_afresh(root)):
        raise AuthoringError(
            "tool_exists", f'environment "{root.name}" already has a tool "{name}"'
        )
    module = root / "tools" / f"{name}.py"
    if module.exists():
        raise AuthoringError(
            "tool_exists", f"{relative(root, module)} already exists; pick another name"
        )
    package_init = root / "tools" / "__init__.py"
    registry = package_init if package_init.is_file() else _entrypoint(root)
    depth = len(registry.parent.relative_to(root).parts)
    prefix = "." if registry == package_init else "." * (depth + 1) + "tools."
    where = relative(root, registry)
    text = registry.read_text(encoding="utf-8")
    text = ensure_imports(text, f"{prefix}{name}", [name], where)
    text = append_to_list(text, TOOL_LISTS, name, where)
    edit = Edit(root)
    summary = description or f"TODO: say what {name} does and when an agent should call it."
    flag = "\n    read_only=True," if read_only else ""
    edit.write(module, _TOOL_FILE.format(name=name, read_only=flag, description=repr(summary)))
    edit.write(registry, text)
    _prove(edit, root, lambda env: name in _tool_names(env), f'the tool "{name}"')
    return {"action": "added", "tool": name, "readOnly": read_only, "files": edit.written()}


def add_verifier(
    root: Path, verifier_id: str, *, task_id: str | None = None, name: str = ""
) -> dict[str, JSON]:
    """Add a check function and a ``define_verifier`` item; with ``task_id``, link that task."""
    before = load_afresh(root)
    if verifier_id in before.verifiers:
        raise AuthoringError(
            "verifier_exists", f'environment "{root.name}" already has a verifier "{verifier_id}"'
        )
    if task_id is not None:
        before.task(task_id)  # one line listing the known tasks when it does not exist
    function = "_grade_" + re.sub(r"\W+", "_", verifier_id.lower()).strip("_")
    registry = root / "verifiers.py"
    registry = registry if registry.is_file() else _entrypoint(root)
    where = relative(root, registry)
    text = registry.read_text(encoding="utf-8")
    if any(function in item for item in list_names(text, VERIFIER_LISTS, where)):
        raise AuthoringError("verifier_exists", f"{where} already registers {function}")
    label = name or (f"Grades {task_id}" if task_id else f"Grades the tasks naming {verifier_id}")
    block = _CHECK_FUNCTION.format(
        function=function,
        verifier_id=verifier_id,
        description=f"{label}. TODO: inspect final against initial and return checks.",
    )
    text = ensure_imports(text, "typing", ["Any"], where)
    text = ensure_imports(text, "silo", ["Check", "VerifierContext", "check"], where)
    text = ensure_imports(text, "silo", ["define_verifier"], where)
    text = insert_before_list(text, VERIFIER_LISTS, block, where)
    item = f"define_verifier({json.dumps(verifier_id)}, {json.dumps(label)}, {function})"
    text = append_to_list(text, VERIFIER_LISTS, item, where)
    edit = Edit(root)
    edit.write(registry, text)
    _prove(edit, root, lambda env: verifier_id in env.verifiers, f'the verifier "{verifier_id}"')
    files = edit.written()
    if task_id is not None:
        files += update_task(root, task_id, {"verifierId": verifier_id})["files"]
    return {"action": "added", "verifier": verifier_id, "task": task_id, "files": files}
