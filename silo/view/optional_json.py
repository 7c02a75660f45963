"""Reading one optional JSON artifact for the viewer: a damaged file is a sentence, not a crash.

Contract: :func:`optional_json` returns the parsed value of a file, or ``None`` when the file does
not exist (an unfinished run has no ``result.json``) or cannot be read or parsed — then, if a
``problems`` list is given, ``<file> unreadable: <reason>`` is added to it, for the page to
show. It never raises for a missing, unreadable, too deep or invalid file, and never follows a
symbolic link (a received run folder's links could point anywhere).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from silo.safe_files import UnreadableFile, read_json_file

__all__ = ["optional_json"]


def optional_json(path: Path, problems: list[str] | None = None) -> Any:
    """The JSON value in ``path``; ``None`` when it is absent or damaged (damage noted)."""
    try:
        return read_json_file(path, follow=False)
    except UnreadableFile as exc:
        if exc.why == "does not exist":
            return None
        reason = exc.why
    except json.JSONDecodeError as exc:
        reason = f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    if problems is not None:
        problems.append(f"{path.name} unreadable: {reason}")
    return None
