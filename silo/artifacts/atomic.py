"""Atomic writes of artifact files, and the removal of temporaries a killed writer left.

Contract: :func:`write_text_atomic`, :func:`write_json_atomic` and :func:`write_json_new` never
leave a half-written file: the text goes to ``.<name>.<pid>.tmp`` beside the target, which then
replaces it in one ``os.replace``; a failed write removes its temporary. Every text is
:func:`silo.redact.redact`-ed first (no secret reaches an artifact), and JSON is
:func:`silo.jsonio.pretty`'s text. :func:`remove_stale_temporaries`, :func:`remove_if_stale` and
:func:`remove_stale_in` remove temporaries whose process is gone. Depends on the contracts
(``silo.jsonio``, ``silo.redact``) only.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from silo.json_types import JSON
from silo.jsonio import pretty
from silo.redact import redact

__all__ = [
    "create_file",
    "remove_if_stale",
    "remove_stale_in",
    "remove_stale_temporaries",
    "write_all",
    "write_bytes_new",
    "write_json_atomic",
    "write_json_new",
    "write_text_atomic",
]


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` so that a reader sees the old file or the new one.

    The text goes to a temporary file beside ``path`` (named with the process id, so two
    processes never share one), which then replaces ``path`` in one ``os.replace``. A write
    that fails (a full disk, Ctrl-C) removes its temporary file; one a killed process left
    beside a file being replaced is removed by the next write of that file.
    """
    target = os.fspath(path)
    folder, name = os.path.split(target)
    if os.path.lexists(target):  # a killed writer may have left a temporary
        remove_stale_temporaries(folder, name)
    data = redact(text).encode("utf-8")
    _write_replacing(target, os.path.join(folder, _temporary(name)), data)


def write_json_new(folder: str, name: str, value: JSON) -> None:
    """Write ``value`` as the JSON artifact ``name`` (:func:`pretty`) into a new ``folder``.

    The same atomic write as :func:`write_json_atomic`, for a folder this writer made (a new
    run folder, given without a trailing separator, as ``os.fspath`` gives it): no earlier
    file and no killed writer's temporary can be there, so none is looked for, and the paths
    are joined as text (a rollout writes four files: each look is a system call that, under
    hundreds of rollouts in flight, hands the GIL over).
    """
    write_bytes_new(folder, name, redact(pretty(value)).encode("utf-8"))


def write_bytes_new(folder: str, name: str, data: bytes) -> None:
    """Write ``data`` as it is (no redaction) to ``name`` in ``folder``, atomically.

    :func:`write_json_new`'s write for bytes whose content is their identity (the tool store's
    files are named by their hash), so nothing may rewrite them.
    """
    target, tmp = f"{folder}{os.sep}{name}", f"{folder}{os.sep}{_temporary(name)}"
    _write_replacing(target, tmp, data)


_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def create_file(path: str) -> int:
    """A new (or truncated) file open for writing: a raw descriptor, not inherited."""
    return os.open(path, _CREATE_FLAGS, 0o666)


def write_all(fd: int, data: bytes) -> None:
    """Write the whole of ``data`` to ``fd`` (``os.write`` may write part of it)."""
    written = os.write(fd, data)
    if written < len(data):  # a short write (rare on regular files): finish it
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(fd, view) :]


def _temporary(name: str) -> str:
    """The temporary file's name for ``name``: ``.<name>.<pid>.tmp`` (see remove_if_stale)."""
    return f".{name}.{os.getpid()}.tmp"


def _write_replacing(target: str, tmp: str, data: bytes) -> None:
    """Write ``data`` to ``tmp``, then put it in ``target``'s place (``tmp`` gone on failure)."""
    fd = create_file(tmp)
    try:
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_stale_temporaries(folder: str, name: str) -> None:
    """Remove ``.<name>.<pid>.tmp`` files in ``folder`` whose process is gone."""
    prefix = f".{name}."
    try:
        entries = [e for e in os.listdir(folder or ".") if e.startswith(prefix)]
    except OSError:
        return
    for entry in entries:
        remove_if_stale(folder, entry)


def remove_if_stale(folder: str, entry: str) -> bool:
    """Remove ``entry`` from ``folder`` when it is a ``.<name>.<pid>.tmp`` of a process that is gone.

    For scans of folders that nothing writes again (a killed rollout's run folder): the write
    that would have replaced the file is never made, so its temporary is removed here. True
    when the file was removed.
    """
    parts = entry.rsplit(".", 2)
    if len(parts) != 3 or not parts[0].startswith(".") or parts[2] != "tmp":
        return False
    if not parts[1].isdigit() or _alive(int(parts[1])):
        return False
    try:
        os.unlink(os.path.join(folder, entry))
    except OSError:
        return False
    return True


def remove_stale_in(folder: str) -> None:
    """Remove every ``.<name>.<pid>.tmp`` in ``folder`` whose process is gone (see above)."""
    try:
        entries = [e for e in os.listdir(folder) if e.endswith(".tmp") and e.startswith(".")]
    except OSError:
        return
    for entry in entries:
        remove_if_stale(folder, entry)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def write_json_atomic(path: str | Path, value: JSON) -> None:
    """Write ``value`` to ``path`` as a JSON artifact (:func:`pretty`), atomically."""
    write_text_atomic(path, pretty(value))
