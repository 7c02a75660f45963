"""Short file writes that keep the GIL while many threads want it.

Contract: :func:`create`, :func:`write_all`, :func:`close`, :func:`replace` and :func:`mkdir`
do what ``os.open`` (a new or truncated file, write only, not inherited), ``os.write`` (to the
end), ``os.close``, ``os.replace`` and ``os.mkdir`` do, with the same results and the same
:class:`OSError` subclasses (``filename`` set as ``os`` sets it). While
more than :data:`CROWD` threads are alive they call the C library directly through
:class:`ctypes.PyDLL`, which does not release the GIL; otherwise, and wherever that library
cannot be loaded (not POSIX), they are the ``os`` functions themselves.

Why: ``os.write`` and its kin hand the GIL over for every call. With hundreds of rollouts in
flight some thread is always waiting for it, so each such call of a rollout's record (a trace
line, an artifact's write, close and rename) costs two thread switches, often across CPUs,
where the call itself takes microseconds on a local disk: holding the GIL through it is
cheaper. The price is that a write that blocks (a stalled network file system) holds up
every thread of the process for as long; the record's files are small and local by default,
and with few threads alive nothing is held. A file is created with ``creat`` (``open`` is a
variadic C function, which ctypes cannot call portably) and then marked not inheritable, as
``os.open`` marks it: ``os.set_inheritable`` keeps the GIL. Under 256 rollouts in flight the
five ``os.open`` calls of a rollout's record were ~11 of its ~48 thread switches (a thread that
let the GIL go for a microseconds-long call then waited for it in 5 ms slices).
"""

from __future__ import annotations

import errno
import functools
import os
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["CROWD", "close", "create", "mkdir", "replace", "write_all", "writer"]

CROWD = 8
"""Threads alive beyond which the calls keep the GIL (a lone rollout has three)."""

_active_count = threading.active_count


@functools.cache
def _libc() -> Any:
    """The C library's ``creat``, ``write``, ``close``, ``rename`` and ``mkdir``, GIL held; or None."""
    if os.name != "posix":
        return None
    try:
        import ctypes

        libc = ctypes.PyDLL(None, use_errno=True)
        libc.creat.argtypes = [ctypes.c_char_p, ctypes.c_uint]
        libc.creat.restype = ctypes.c_int
        libc.write.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
        libc.write.restype = ctypes.c_ssize_t
        libc.close.argtypes = [ctypes.c_int]
        libc.close.restype = ctypes.c_int
        libc.rename.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        libc.rename.restype = ctypes.c_int
        libc.mkdir.argtypes = [ctypes.c_char_p, ctypes.c_uint]
        libc.mkdir.restype = ctypes.c_int
    except (ImportError, OSError, AttributeError):  # no ctypes, or no such C library
        return None
    return libc


def _held() -> Any:
    """The GIL-holding library while the process is crowded, else None (use ``os``)."""
    return _libc() if _active_count() > CROWD else None


def _error(filename: str | None = None, filename2: str | None = None) -> OSError:
    """The OSError ``os`` raises for the C library's last error (its subclass, its names)."""
    import ctypes

    code = ctypes.get_errno()
    if filename2 is not None:  # OSError's fourth argument is Windows' error code
        return OSError(code, os.strerror(code), filename, None, filename2)
    if filename is not None:
        return OSError(code, os.strerror(code), filename)
    return OSError(code, os.strerror(code))


_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def create(path: str, mode: int = 0o666) -> int:
    """``os.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)``: a descriptor not inherited."""
    libc = _held()
    if libc is None:
        return os.open(path, _CREATE_FLAGS, mode)
    encoded = os.fsencode(path)
    while (fd := int(libc.creat(encoded, mode))) < 0:
        error = _error(path)
        if error.errno != errno.EINTR:
            raise error
    try:
        os.set_inheritable(fd, False)  # what O_CLOEXEC gives os.open; no GIL hand-off
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` until done)."""
    writer()(fd, data)


def writer() -> Callable[[int, bytes], None]:
    """The :func:`write_all` to use from now on: for a writer of many lines (the trace).

    Chosen by how crowded the process is now, so that each line pays no check.
    """
    return _os_write_all if _held() is None else _held_write_all


def _os_write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    if written < len(data):  # a short write (rare on regular files): finish it
        _finish(fd, data, written)


def _held_write_all(fd: int, data: bytes) -> None:
    libc = _libc()
    while (written := libc.write(fd, data, len(data))) < 0:
        error = _error()
        if error.errno != errno.EINTR:  # a signal: Python runs its handler, then we retry
            raise error
    if written < len(data):
        _finish(fd, data, written)


def _finish(fd: int, data: bytes, written: int) -> None:
    view = memoryview(data)[written:]
    while view:
        view = view[os.write(fd, view) :]


def close(fd: int) -> None:
    """``os.close(fd)``."""
    libc = _held()
    if libc is None:
        os.close(fd)
    elif libc.close(fd) < 0:
        error = _error()
        if error.errno != errno.EINTR:  # Linux closes the descriptor even then: never retried
            raise error


def replace(source: str, target: str) -> None:
    """``os.replace(source, target)`` (``rename(2)``: atomic on one file system)."""
    libc = _held()
    if libc is None:
        os.replace(source, target)
    elif libc.rename(os.fsencode(source), os.fsencode(target)) < 0:
        raise _error(source, target)


def mkdir(path: str, mode: int = 0o777) -> None:
    """``os.mkdir(path, mode)``."""
    libc = _held()
    if libc is None:
        os.mkdir(path, mode)
    elif libc.mkdir(os.fsencode(path), mode) < 0:
        raise _error(path)
