"""Reading an environment's files without blocking, following a link out, or a traceback.

Contract: :func:`read_text_file` returns the UTF-8 text of a regular file, or raises
:class:`UnreadableFile` whose ``why`` says in a few words what the path is instead (a folder, a
broken symbolic link, a FIFO, a device, not UTF-8, unreadable). It opens with ``O_NONBLOCK``
and checks the opened file is regular before reading, so a FIFO or ``/dev/zero`` is refused,
never read. :func:`read_json_file` also parses: invalid JSON raises ``json.JSONDecodeError`` as
``json.loads`` does, and JSON nested deeper than :data:`silo.jsondepth.MAX_DEPTH` raises
:class:`UnreadableFile`. :func:`refuse_special` raises for the first entry of a folder that is
not a regular file or folder, for code (an environment's own) that would read it blindly.
:func:`malformed_file` is the ``details`` of a :class:`~silo.errors.SiloError` about such a file
(one that cannot be read as the JSON object it must hold), which ``silo-validate`` exits 2 on.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from silo.errors import SiloException
from silo.jsondepth import MAX_DEPTH, loads_deep

__all__ = [
    "UnreadableFile",
    "malformed_file",
    "read_bytes_file",
    "read_json_file",
    "read_text_file",
    "refuse_special",
]


class UnreadableFile(SiloException, ValueError):
    """A path that is not a readable regular file of UTF-8 text (``why`` says what it is)."""

    def __init__(self, path: Path, why: str) -> None:
        """``path`` could not be read because of ``why`` (a few words, no path)."""
        super().__init__(f"{path}: {why}")
        self.path, self.why = path, why


def malformed_file() -> dict[str, Any]:
    """``SiloError`` details saying the error is a file that cannot be read as it must be."""
    return {"malformed": True}


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe), not a file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a file"
    return "is not a regular file"


def _why_not(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        return f"is a broken symbolic link (to {os.readlink(path)})"
    if isinstance(exc, FileNotFoundError):
        return "does not exist"
    if isinstance(exc, IsADirectoryError):
        return "is a folder, not a file"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link, which is not followed"
    if isinstance(exc, PermissionError):
        return "cannot be read (permission denied)"
    return f"cannot be read ({exc.strerror or exc})"


def read_bytes_file(path: Path, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`read_text_file`)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise UnreadableFile(path, _why_not(path, exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnreadableFile(path, _kind(mode))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as exc:
        raise UnreadableFile(path, _why_not(path, exc)) from None
    finally:
        os.close(fd)


def read_text_file(path: Path, follow: bool = True) -> str:
    """The UTF-8 text of the regular file ``path``; :class:`UnreadableFile` otherwise.

    ``follow`` False refuses a symbolic link (``O_NOFOLLOW``): for files of a folder received
    from someone else, whose links could point anywhere (``trace.jsonl`` → ``/etc/shadow``).
    """
    data = read_bytes_file(path, follow)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"is not UTF-8 text (byte {exc.start + 1})") from None


def read_json_file(path: Path, follow: bool = True) -> Any:
    """The JSON value in ``path`` (``json.JSONDecodeError`` when it is not JSON)."""
    text = read_text_file(path, follow)
    try:
        return json.loads(text)
    except RecursionError:
        pass
    try:  # deeper than the standard library reads without raising the recursion limit
        return loads_deep(text)
    except RecursionError:
        raise UnreadableFile(path, f"nests deeper than {MAX_DEPTH:,} levels") from None


def refuse_special(folder: Path, pattern: str = "*") -> None:
    """Raise :class:`UnreadableFile` for an entry of ``folder`` that could block or mislead.

    The first entry matching ``pattern`` that is not a regular file or a folder (a FIFO, a
    device, a socket, a broken link) is refused.
    """
    try:
        entries = sorted(folder.glob(pattern))
    except OSError:
        return
    for entry in entries:
        try:
            mode = entry.stat().st_mode
        except FileNotFoundError:
            raise UnreadableFile(entry, _why_not(entry, FileNotFoundError())) from None
        except OSError:
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise UnreadableFile(entry, _kind(mode))
