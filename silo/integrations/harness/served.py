"""What one of a process's harness servers serves: an entry per rollout, by its token.

Contract: :class:`Served` keeps entries (a rollout's seat at the MCP door, its route through the
model proxy) under unguessable tokens, behind one lock, since rollouts open and close them from
their own threads while the server's handlers look them up. The server itself starts on the
first :meth:`Served.add`, through the ``start`` callable given, which returns its base URL.
:meth:`Served.forget` starts afresh: in a forked child the parent's server does not run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Served"]

T = TypeVar("T")


class Served(Generic[T]):
    """Entries by token on a server started on first use (see the module docstring)."""

    def __init__(self, start: Callable[[], str]) -> None:
        self._start = start
        self.forget()

    def forget(self) -> None:
        """No entries and no server: the next :meth:`add` starts one."""
        self._lock = threading.Lock()
        self._entries: dict[str, T] = {}
        self.base_url = ""

    def add(self, token: str, entry: T) -> str:
        """Serve ``entry`` under ``token``; the server's base URL (started if it was not)."""
        with self._lock:
            if not self.base_url:
                self.base_url = self._start()
            self._entries[token] = entry
            return self.base_url

    def remove(self, token: str) -> None:
        """Stop serving ``token``'s entry: its harness has ended."""
        with self._lock:
            self._entries.pop(token, None)

    def get(self, token: str) -> T | None:
        """The entry served under ``token``, if any."""
        with self._lock:
            return self._entries.get(token)
