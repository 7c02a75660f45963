"""Model endpoints shared by every rollout in a process: one client, one backoff, one limit.

Contract: :func:`shared_endpoint` returns the one :class:`Endpoint` of a (kind, base URL, key)
triple, building its SDK client once with a connection pool of ``max_connections``. Every
request to the endpoint goes through :meth:`Endpoint.slot`, which admits it when

* no cool-down is in force: a rate limit (HTTP 429) or a server error seen by *any* rollout
  makes every rollout of the process wait out the same backoff, instead of 256 rollouts each
  hammering the endpoint on their own schedule; and
* fewer than ``limit`` requests are in flight: the limit halves on each rate limit and grows by
  one on each success, up to ``max_connections`` (additive increase, multiplicative decrease,
  as adaptive-concurrency clients do).

Waiting respects the rollout's deadline and cancel signal: :meth:`Endpoint.slot` raises
:class:`RunLimitError` when the run ends while it waits. :meth:`Endpoint.fragment` keeps the
pieces of request bodies every rollout repeats (a tool's serialised spec), made once per endpoint.

The registry is the one process-wide object of the agents layer: it holds connection pools, which
are resources to reuse, never results.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from silo.agents.contract import CancelSignal, RunLimitError

__all__ = ["Endpoint", "shared_endpoint"]

# How often a waiting request looks at its run's signal: short enough that a cancelled run
# stops waiting at once, long enough to cost nothing.
_POLL_S = 0.05
# Fragments kept per endpoint before the store starts afresh: far more than the tools of any
# environment, so only specs made anew for every rollout (never reused) ever fill it.
_MAX_FRAGMENTS = 4096


class Endpoint:
    """One model endpoint: its client, its in-flight limit and its shared cool-down."""

    def __init__(self, client: Any, max_connections: int) -> None:
        self.client = client
        self.max_connections = max_connections
        self._limit = float(max_connections)
        self._in_flight = 0
        self._cool_until = 0.0
        self._changed = threading.Condition()
        self._fragments: dict[Hashable, tuple[Any, bytes]] = {}

    @property
    def limit(self) -> int:
        """How many requests may be in flight now (between 1 and ``max_connections``)."""
        return max(1, int(self._limit))

    @property
    def cooling_for(self) -> float:
        """Seconds until the shared cool-down ends (0 when none is in force)."""
        return max(0.0, self._cool_until - time.monotonic())

    @contextmanager
    def slot(self, deadline: float, signal: CancelSignal) -> Iterator[None]:
        """Wait for room (no cool-down, under the limit), hold it for one request."""
        with self._changed:
            while True:
                _stop_if_ended(deadline, signal)
                now = time.monotonic()
                wait = self._cool_until - now
                if wait <= 0 and self._in_flight < self.limit:
                    break
                self._changed.wait(max(0.0, min(_POLL_S, deadline - now)))
            self._in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                self._changed.notify_all()

    def succeeded(self) -> None:
        """A request was answered: let one more request in flight (up to the pool size)."""
        with self._changed:
            self._limit = min(float(self.max_connections), self._limit + 1.0)
            self._changed.notify_all()

    def overloaded(self, delay_s: float, rate_limited: bool) -> None:
        """The endpoint pushed back: every rollout waits ``delay_s``; a rate limit halves the limit."""
        with self._changed:
            self._cool_until = max(self._cool_until, time.monotonic() + delay_s)
            if rate_limited:
                self._limit = max(1.0, self._limit / 2)

    def fragment(self, key: Hashable, keep: Any, render: Callable[[], bytes]) -> bytes:
        """``render()`` made once per endpoint for ``key`` and reused by every later request.

        ``keep`` is held as long as the fragment: a key made of ``id()`` values stays valid
        because the objects it names cannot be freed and their ids reused. Two threads that
        miss at once both render; the results are equal.
        """
        found = self._fragments.get(key)
        if found is not None:
            return found[1]
        text = render()
        if len(self._fragments) >= _MAX_FRAGMENTS:
            self._fragments = {}
        self._fragments[key] = (keep, text)
        return text


class _Registry:
    """Endpoints by key, built once under a lock."""

    def __init__(self) -> None:
        self._endpoints: dict[tuple[str, str, str, int], Endpoint] = {}
        self._lock = threading.Lock()

    def get(
        self, key: tuple[str, str, str, int], build: Callable[[int], Any], max_connections: int
    ) -> Endpoint:
        with self._lock:
            found = self._endpoints.get(key)
            if found is None:
                found = self._endpoints[key] = Endpoint(build(max_connections), max_connections)
            return found


_REGISTRY = _Registry()


def shared_endpoint(
    kind: str, base_url: str, api_key: str, max_connections: int, build: Callable[[int], Any]
) -> Endpoint:
    """The process's endpoint for ``kind`` at ``base_url`` with ``api_key``.

    Args:
        kind: the API family (``openai``, ``anthropic``); endpoints of different kinds never mix.
        base_url: where requests go; one endpoint per URL.
        api_key: the credential; two keys are two clients (and two rate limits).
        max_connections: the connection pool size and the ceiling of the adaptive limit.
        build: makes the SDK client for a pool of the given size; called once per endpoint.
    """
    return _REGISTRY.get((kind, base_url, api_key, max_connections), build, max_connections)


def _stop_if_ended(deadline: float, signal: CancelSignal) -> None:
    if signal.aborted:
        reason = signal.reason or "cancelled"
        raise RunLimitError(reason, f"the run was stopped ({reason})")
    if time.monotonic() >= deadline:
        raise RunLimitError("timeout", "the run's time budget ran out")
