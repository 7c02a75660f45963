"""Files of an environment being edited: where they are, reading them, writing them back whole.

:class:`Edit` collects the writes and removals of one authoring step so that a step that ends badly can put
every file back exactly as it was (or remove the files it created).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from silo.artifacts.atomic import write_text_atomic
from silo.errors import AuthoringError
from silo.json_types import JSON
from silo.jsonio import pretty

__all__ = ["Edit", "FILE_ID", "check_file_id", "load_json", "relative"]

# Ids become file names (tasks/<id>.json, data/<name>.json): keep them plain.
FILE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def check_file_id(key: str, value: str) -> str:
    """``value`` when it can name a file in the environment, else a one-line refusal."""
    if not FILE_ID.match(value):
        raise AuthoringError(
            "authoring_invalid",
            f'{key}="{value}" cannot name a file; use letters, digits, ".", "_" and "-", '
            "starting with a letter or digit",
        )
    return value


def relative(root: Path, path: Path) -> str:
    """``environments/<env>/<path inside it>``, the way every message names a file."""
    return f"environments/{root.name}/{path.relative_to(root).as_posix()}"


def load_json(root: Path, path: Path) -> JSON:
    """The JSON value of ``path``; a file that does not parse is a refusal naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AuthoringError(
            "file_invalid_json",
            f"{relative(root, path)} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); fix the file first",
        ) from None


@dataclass
class Edit:
    """The files one authoring step wrote, with what each held before (``None``: it was new)."""

    root: Path
    before: dict[Path, str | None] = field(default_factory=dict)

    def write(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` atomically, remembering the old content the first time."""
        if path not in self.before:
            self.before[path] = path.read_text(encoding="utf-8") if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)

    def write_json(self, path: Path, value: JSON) -> None:
        """Write ``value`` as the project's pretty JSON (two-space indent, trailing newline)."""
        self.write(path, pretty(value))

    def remove(self, path: Path) -> None:
        """Delete ``path``, remembering its content so that :meth:`undo` writes it back."""
        if path not in self.before:
            self.before[path] = path.read_text(encoding="utf-8")
        path.unlink()

    def undo(self) -> None:
        """Put every written or removed file back as it was; remove the ones this step created."""
        for path, text in self.before.items():
            if text is None:
                path.unlink(missing_ok=True)
            else:
                write_text_atomic(path, text)

    def written(self) -> list[str]:
        """The files written, as ``environments/<env>/...`` paths."""
        return [relative(self.root, path) for path in self.before]
