"""Run artifacts: run ids, run folders and the JSON documents of a rollout.

Contract: :func:`allocate_run_dir` creates ``<runs_dir>/run_<UTC yyyymmddHHMMSS>_<suffix>`` with
an exclusive ``mkdir``, so concurrent processes never share or overwrite a folder; nothing is
remembered between calls. :func:`build_result` gives ``result.json`` (fixed key order; no
timestamps, no run ids) as a :class:`~silo.artifacts.documents.ResultDocument`; the other
documents' types are in :mod:`silo.artifacts.documents`. ``state-diff.json`` comes from the
world (see ``silo.world.pool``).
"""

from __future__ import annotations

import errno
import os
import random
import secrets
import time
from pathlib import Path
from typing import Any, cast

from silo.artifacts.documents import SCHEMA_VERSION, CheckDocument, ResultDocument
from silo.errors import ArtifactError
from silo.verifiers import Score

__all__ = [
    "RESULT_KEYS",
    "SCHEMA_VERSION",
    "allocate_run_dir",
    "build_result",
    "new_run_id",
    "unwritable",
]

RESULT_KEYS = (
    "passed",
    "reward",
    "requiredPassed",
    "requiredTotal",
    "failedRequired",
    "checksPassed",
    "checksFailed",
    "toolCalls",
    "toolErrors",
    "terminationReason",
    "agentOutput",
    "error",
    "checks",
)
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_SPACE = 36**6


# The run-id suffixes' generator, seeded by the OS and again in every forked child (so two
# processes never draw the same sequence). Not the OS's RNG per draw: that is a system call
# per rollout, which under hundreds of rollouts in flight hands the GIL over; uniqueness
# comes from the exclusive mkdir anyway, the suffix only makes a retry rare.
_SUFFIXES = random.Random(secrets.randbits(64))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _SUFFIXES.seed(secrets.randbits(64)))


def _suffix() -> str:
    """Six characters drawn uniformly from ``_ALPHABET``."""
    value = _SUFFIXES.randrange(_SPACE)
    chars = []
    for _ in range(6):
        value, digit = divmod(value, 36)
        chars.append(_ALPHABET[digit])
    return "".join(chars)


def new_run_id(prefix: str = "run") -> str:
    """``<prefix>_<UTC yyyymmddHHMMSS>_<6 base-36 chars>``: sortable by time, unique in practice."""
    return f"{prefix}_{time.strftime('%Y%m%d%H%M%S', time.gmtime())}_{_suffix()}"


def allocate_run_dir(runs_dir: Path, prefix: str = "run") -> tuple[str, Path]:
    """A new, empty run folder; never one that already exists.

    The folder is made with one exclusive ``mkdir``; only when ``runs_dir`` itself is missing
    are its parents made, so a sweep pays for ``mkdir -p`` once, with nothing remembered.
    """
    base = os.fspath(runs_dir)
    while True:
        run_id = new_run_id(prefix)
        try:
            os.mkdir(os.path.join(base, run_id))
        except FileExistsError:
            continue
        except FileNotFoundError:  # no runs folder yet (or removed since): make it, then retry
            try:
                runs_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise unwritable(runs_dir, exc) from None
            continue
        except OSError as exc:  # read-only, a file where the folder should be, a full disk
            raise unwritable(runs_dir, exc) from None
        return run_id, runs_dir / run_id


def unwritable(
    path: Path, exc: OSError, what: str = "the runs folder", hint: str = "or set runs_dir=<folder>"
) -> ArtifactError:
    """The one-line ``artifacts_unwritable`` error for ``path`` that could not be written."""
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        why = "is a file, not a folder (or lies under one); move it away"
    elif isinstance(exc, IsADirectoryError):
        why = "is a folder where a file should be; remove it"
    elif isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
        why = "is read-only; make it writable"
    elif exc.errno == errno.ENOSPC:
        why = "is on a full disk; free some space"
    else:
        why = f"cannot be written ({exc.strerror or exc})"
    return ArtifactError("artifacts_unwritable", f"{what} {path} {why}, {hint}")


def build_result(
    score: Score | None,
    *,
    tool_calls: int,
    tool_errors: int,
    termination_reason: str,
    agent_output: Any,
    error: str | None,
) -> ResultDocument:
    """``result.json`` in its documented key order (``score`` None: the verifier failed)."""
    return {
        "passed": score.passed if score else False,
        "reward": score.reward if score else 0.0,
        "requiredPassed": score.required_passed if score else 0,
        "requiredTotal": score.required_total if score else 0,
        "failedRequired": list(score.failed_required) if score else [],
        "checksPassed": score.checks_passed if score else 0,
        "checksFailed": score.checks_failed if score else 0,
        "toolCalls": tool_calls,
        "toolErrors": tool_errors,
        "terminationReason": termination_reason,
        "agentOutput": agent_output,
        "error": error,
        "checks": [cast(CheckDocument, c.to_json()) for c in score.checks] if score else [],
    }
