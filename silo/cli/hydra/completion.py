"""Tab completion of ``silo-run`` on top of Hydra's: task ids, and no ``sweep=`` that fails.

Contract: :func:`completion_query` recognises Hydra's completion query (``-sc query=bash`` or
``query=fish``, the line being completed in ``COMP_LINE``). For a word starting with ``task=``
it answers the task ids of the line's ``env=`` (the project's one environment without one), plus
``all``, after any ids already listed with commas; Hydra knows ``task`` only as a string key.
Every other word is Hydra's answer, with ``sweep=`` offered as ``+sweep=``: ``sweep`` is a
group without a default, so ``sweep=crm_all`` would fail to compose.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout, suppress
from pathlib import Path

__all__ = ["answer", "completion_query", "rewrite_hydra_answer", "task_completions"]


def completion_query(args: Sequence[str]) -> str | None:
    """The shell (``bash``/``fish``) whose completion query ``args`` is; None otherwise."""
    for flag, value in zip(args, args[1:], strict=False):
        if flag in ("-sc", "--shell-completion") and value in ("query=bash", "query=fish"):
            return value.partition("=")[2]
    return None


def task_completions(line: str, project: Path) -> list[str] | None:
    """``task=<id>`` completions for the last word of ``line``; None when it is no ``task=``."""
    words = line.split()
    current = "" if not words or line.endswith(" ") else words[-1]
    if not current.startswith("task="):
        return None
    from silo.errors import SiloError
    from silo.loading.environment import load_environment
    from silo.loading.project import default_environment

    try:
        env = next((w.partition("=")[2] for w in words if w.startswith("env=")), None)
        env = env or default_environment(project)
        ids = [*load_environment(env, project).tasks, "all"]
    except SiloError:
        return []  # no such environment, or none chosen: nothing to offer (running it says why)
    head, _, typed = current.rpartition(",")
    prefix = f"{head}," if head else "task="
    typed = typed.removeprefix("task=")
    return [f"{prefix}{i}" for i in ids if i.startswith(typed)]


def rewrite_hydra_answer(answer: str, shell: str) -> str:
    """Hydra's completion answer with ``sweep=`` words offered as ``+sweep=``."""
    separator = "\n" if shell == "fish" else " "
    words = answer.strip("\n").split(separator)
    return separator.join(f"+{w}" if w.startswith("sweep=") else w for w in words)


def answer(shell: str, project: Path, hydra_query: Callable[[], object]) -> None:
    """Print the completions of ``COMP_LINE``: Silo's for ``task=``, else Hydra's, rewritten."""
    line = os.environ.get("COMP_LINE", "")
    tasks = task_completions(line, project)
    if tasks is not None:
        print(("\n" if shell == "fish" else " ").join(tasks))
        return
    captured = io.StringIO()
    with redirect_stdout(captured), suppress(SystemExit):  # Hydra may exit after answering
        hydra_query()
    print(rewrite_hydra_answer(captured.getvalue(), shell))
