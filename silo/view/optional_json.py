"""Reading one optional JSON artifact for the viewer: a damaged file is a sentence, not a crash.

Contract: :func:`optional_json` returns the parsed value of a file, or ``None`` when the file does
not exist (an unfinished run has no ``result.json``) or cannot be read or parsed — then, if a
``problems`` list is given, one sentence naming the file and the error is added to it, for the
page to show. It never raises for a missing, unreadable or invalid file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["optional_json"]


def optional_json(path: Path, problems: list[str] | None = None) -> Any:
    """The JSON value in ``path``; ``None`` when it is absent or damaged (damage noted)."""
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        if problems is not None:
            problems.append(f"{path.name} could not be read ({type(exc).__name__}: {exc})")
        return None
