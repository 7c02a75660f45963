"""Task files: list, show, add, update and remove ``tasks/<id>.json``.

An update changes only the keys it is given and keeps every other key of the file (``entities``
and any key of the author's own) in its place; the result must still parse as a task
(:func:`silo.tasks.parse_task`) before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from silo.authoring.files import Edit, check_file_id, load_json, relative
from silo.errors import AuthoringError, TaskError
from silo.json_types import JSON
from silo.tasks import load_tasks, parse_task

__all__ = ["TASK_KEYS", "add_task", "list_tasks", "remove_task", "show_task", "update_task"]

# The keys a command may set, in the order a new task file lists them.
TASK_KEYS = ("id", "title", "instruction", "verifierId", "difficulty", "entities")


def list_tasks(root: Path) -> list[dict[str, JSON]]:
    """Every task of the environment, sorted by id: id, title, difficulty, verifierId, file."""
    tasks = load_tasks(root / "tasks", root.name)
    return [
        {
            "id": task.id,
            "title": task.title,
            "difficulty": task.difficulty,
            "verifierId": task.verifier_id,
            "file": task.source,
        }
        for task in tasks.values()
    ]


def find_task_file(root: Path, task_id: str) -> Path:
    """The file declaring ``task_id`` (``tasks/<id>.json`` first, else whichever declares it)."""
    folder = root / "tasks"
    named = folder / f"{task_id}.json"
    candidates = [named] if named.is_file() else []
    candidates += [p for p in sorted(folder.glob("*.json")) if p != named]
    for path in candidates:
        raw = load_json(root, path)
        if isinstance(raw, dict) and raw.get("id") == task_id:
            return path
    known = ", ".join(t["id"] for t in list_tasks(root)) or "none"
    raise TaskError(
        "task_not_found",
        f'environment "{root.name}" has no task "{task_id}" (known: {known}); '
        "list them with: silo-env task list env=" + root.name,
    )


def show_task(root: Path, task_id: str) -> dict[str, JSON]:
    """The task's file exactly as it is (every key, in the file's order)."""
    path = find_task_file(root, task_id)
    raw: dict[str, JSON] = load_json(root, path)
    return raw


def _checked(root: Path, path: Path, raw: dict[str, JSON]) -> dict[str, JSON]:
    """``raw`` when it parses as a task; the refusal names the file it would have become."""
    parse_task(raw, relative(root, path))
    return raw


def add_task(root: Path, fields: Mapping[str, JSON]) -> dict[str, JSON]:
    """Write a new ``tasks/<id>.json`` from ``fields``; refuses an id that is already taken."""
    task_id = check_file_id("id", str(fields.get("id") or ""))
    path = root / "tasks" / f"{task_id}.json"
    taken = {t["id"] for t in list_tasks(root)}
    if task_id in taken or path.exists():
        raise AuthoringError(
            "task_exists",
            f'task "{task_id}" already exists in environment "{root.name}"; change it with: '
            f"silo-env task update env={root.name} id={task_id} ...",
        )
    raw = {key: fields[key] for key in TASK_KEYS if key in fields}
    raw.update({key: value for key, value in fields.items() if key not in raw})
    edit = Edit(root)
    edit.write_json(path, _checked(root, path, raw))
    return {"action": "added", "task": raw, "files": edit.written()}


def update_task(root: Path, task_id: str, fields: Mapping[str, JSON]) -> dict[str, JSON]:
    """Set the given keys of ``task_id``'s file, keeping every other key where it was."""
    if "id" in fields and fields["id"] != task_id:
        raise AuthoringError(
            "authoring_invalid",
            "a task's id names its file and its runs; add a new task and remove this one instead",
        )
    path = find_task_file(root, task_id)
    raw: dict[str, JSON] = load_json(root, path)
    before = dict(raw)
    raw.update(fields)
    edit = Edit(root)
    edit.write_json(path, _checked(root, path, raw))
    changed = sorted(key for key in raw if before.get(key) != raw[key])
    return {"action": "updated", "task": raw, "changed": changed, "files": edit.written()}


def remove_task(root: Path, task_id: str) -> dict[str, JSON]:
    """Delete the file declaring ``task_id``; its verifier stays (other tasks may use it)."""
    path = find_task_file(root, task_id)
    path.unlink()
    return {"action": "removed", "task": {"id": task_id}, "files": [relative(root, path)]}
