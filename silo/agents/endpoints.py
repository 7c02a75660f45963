"""Model endpoints shared by every rollout in a process: one session, one backoff, one limit.

Contract: :func:`shared_endpoint` returns the one :class:`Endpoint` of a (kind, URL, key,
connection limit) tuple; ``build`` gives its request headers once. An endpoint lives on the
model loop (:mod:`silo.agents.model_loop`): its aiohttp session (made on first use there, closed
at process exit) keeps kept-alive connections to the endpoint, at most ``max_connections`` open
(None: no limit beyond the rollouts in flight), goes through the environment's proxy
(:func:`environment_proxy`, looked up once per endpoint) and verifies TLS. :meth:`Endpoint.post` sends a body the caller serialised and
returns the raw answer of a 2xx status; it raises :class:`StatusError` for any other status
(with the server's own message) and :class:`TimedOut`, :class:`ConnectFailed` (the endpoint or
its proxy cannot be reached: refused, DNS, TLS) or :class:`ReadFailed` (no whole answer, or one
over :data:`MAX_ANSWER_BYTES`) when there is none. No code of Silo's parses HTTP: aiohttp does.

Every request goes through :meth:`Endpoint.slot`, which admits it when

* no cool-down is in force: a rate limit (HTTP 429) or a server error seen by *any* rollout
  makes every rollout of the process wait out the same backoff, instead of each hammering the
  endpoint on its own schedule; and
* fewer than ``limit`` requests are in flight: the limit halves on each rate limit and grows by
  one on each success, up to ``max_connections`` (additive increase, multiplicative decrease,
  as adaptive-concurrency clients do).

Waiting respects the rollout's deadline and cancel signal: :meth:`Endpoint.slot` raises
:class:`RunLimitError` when the run ends while it waits. :meth:`Endpoint.fragment` keeps the
pieces of request bodies every rollout repeats (a tool's serialised spec), made once per endpoint.

:func:`opened_endpoints` lists what the process's endpoints were built from (their key, URL and
headers) and :func:`adopt_endpoints` builds the same ones in another process, so a process that
Silo starts for a sweep (``workers=P``) needs no model SDK to know an endpoint's URL and
headers. The headers carry the API key: the list is for a pipe to a child process, which
inherits the key in its environment anyway, and is never written anywhere.
"""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Hashable, Mapping
from contextlib import asynccontextmanager, suppress
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import aiohttp
import orjson

from silo.agents.contract import CancelSignal, RunLimitError
from silo.agents.model_loop import at_exit
from silo.errors import SiloException

__all__ = [
    "MAX_ANSWER_BYTES",
    "ConnectFailed",
    "Endpoint",
    "NoAnswer",
    "Opened",
    "ReadFailed",
    "StatusError",
    "TimedOut",
    "adopt_endpoints",
    "environment_proxy",
    "opened_endpoints",
    "shared_endpoint",
    "status_detail",
]

MAX_ANSWER_BYTES = 64 * 1024 * 1024
"""The largest answer read: far beyond any completion; more is not a model endpoint talking."""
# How often a waiting request looks at its run's signal: short enough that a cancelled run
# stops waiting at once, long enough to cost nothing.
_POLL_S = 0.05
# Fragments kept per endpoint before the store starts afresh: far more than the tools of any
# environment, so only specs made anew for every rollout (never reused) ever fill it.
_MAX_FRAGMENTS = 4096
# The adaptive limit's ceiling when the connections are not limited.
_UNLIMITED = 1 << 20


class NoAnswer(SiloException):
    """A request that got no HTTP answer; the message says why in one line."""


class ConnectFailed(NoAnswer):
    """The endpoint (or its proxy) could not be reached: refused, DNS, TLS."""


class TimedOut(NoAnswer):
    """No whole answer within the request's timeout."""


class ReadFailed(NoAnswer):
    """The connection broke, or the answer was too large."""


class StatusError(SiloException):
    """The endpoint answered with an HTTP error status; ``detail`` is its message."""

    def __init__(self, status: int, detail: str, headers: Mapping[str, str]) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = headers


def status_detail(status: int, body: bytes) -> str:
    """``Error code: <status>``, then `` - <message>`` when the body is an API error with one."""
    text = f"Error code: {status}"
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return text
    error = data.get("error", data) if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"{text} - {message}" if isinstance(message, str) and message else text


def _without_credentials(url: str, headers: dict[str, str]) -> str:
    """``url`` without a ``user:password@`` part, which becomes Basic auth unless a key is sent.

    aiohttp refuses a URL carrying credentials beside an ``Authorization`` header; the key,
    when there is one, is what the endpoint checks.
    """
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    if not any(name.lower() == "authorization" for name in headers):
        credentials = aiohttp.BasicAuth(
            unquote(parts.username or ""), unquote(parts.password or "")
        )
        headers["Authorization"] = credentials.encode()
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))


class Endpoint:
    """One model endpoint: its session, its in-flight limit and its shared cool-down."""

    def __init__(
        self, url: str, headers: Mapping[str, str], max_connections: int | None = None
    ) -> None:
        self.url = url
        self.headers = dict(headers)
        self._target = _without_credentials(url, self.headers)
        self.max_connections = max_connections
        self._ceiling = float(max_connections or _UNLIMITED)
        self._limit = self._ceiling
        self._in_flight = 0
        self._cool_until = 0.0
        self._room: asyncio.Event | None = None  # made on the loop that first waits
        self._session: aiohttp.ClientSession | None = None
        self._proxy: str | None = None
        self._fragments: dict[Hashable, tuple[Any, bytes]] = {}

    @property
    def limit(self) -> int:
        """How many requests may be in flight now (between 1 and ``max_connections``)."""
        return max(1, int(self._limit))

    @property
    def cooling_for(self) -> float:
        """Seconds until the shared cool-down ends (0 when none is in force)."""
        return max(0.0, self._cool_until - time.monotonic())

    @asynccontextmanager
    async def slot(self, deadline: float, signal: CancelSignal) -> AsyncIterator[None]:
        """Wait for room (no cool-down, under the limit), hold it for one request."""
        while True:
            _stop_if_ended(deadline, signal)
            now = time.monotonic()
            if self._cool_until <= now and self._in_flight < self.limit:
                break
            if self._room is None:
                self._room = asyncio.Event()
            self._room.clear()
            with suppress(TimeoutError):  # a cool-down ends, or the run's signal is looked at
                await asyncio.wait_for(self._room.wait(), max(0.0, min(_POLL_S, deadline - now)))
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            if self._room is not None:
                self._room.set()

    def succeeded(self) -> None:
        """A request was answered: let one more request in flight (up to the ceiling)."""
        self._limit = min(self._ceiling, self._limit + 1.0)

    def overloaded(self, delay_s: float, rate_limited: bool) -> None:
        """The endpoint pushed back: every rollout waits ``delay_s``; a rate limit halves the limit."""
        self._cool_until = max(self._cool_until, time.monotonic() + delay_s)
        if rate_limited:  # halve what was really in flight, not an unlimited ceiling
            self._limit = max(1.0, min(self._limit, float(self._in_flight)) / 2)

    async def post(self, body: bytes, timeout: float) -> bytes:
        """POST ``body`` (JSON) to the endpoint; the answer's body (see the module docstring)."""
        session = self._session or self._open()
        try:
            async with session.post(
                self._target,
                data=body,
                timeout=aiohttp.ClientTimeout(total=timeout),
                proxy=self._proxy,
            ) as response:
                size = response.content_length
                if size is not None and size > MAX_ANSWER_BYTES:
                    raise ReadFailed(f"the answer is {size} bytes, over {MAX_ANSWER_BYTES}")
                data = await (response.read() if size is not None else _capped(response))
                status, headers = response.status, response.headers
        except (TimeoutError, aiohttp.ServerTimeoutError):
            raise TimedOut(f"no answer within {timeout:.1f}s") from None
        except aiohttp.ClientConnectorError as exc:
            raise ConnectFailed(str(exc) or type(exc).__name__) from None
        except aiohttp.ClientError as exc:
            raise ReadFailed(str(exc) or type(exc).__name__) from None
        if not 200 <= status < 300:
            raise StatusError(status, status_detail(status, data), headers)
        return data

    def _open(self) -> aiohttp.ClientSession:
        # On the model loop, at the first request: a session belongs to the loop it was made on.
        # The environment's proxy is looked up here, once: aiohttp's trust_env looks it (and
        # ~/.netrc) up on a worker thread for every request, two thread hand-offs a request.
        self._proxy = environment_proxy(self.url)
        connector = aiohttp.TCPConnector(limit=self.max_connections or 0, limit_per_host=0)
        self._session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),  # a model API sets no cookies worth keeping
            # Answers uncompressed: a local or LAN endpoint gains nothing from gzip, and the
            # client would spend CPU inflating every completion.
            headers={
                **self.headers,
                "Content-Type": "application/json",
                "Accept-Encoding": "identity",
            },
            skip_auto_headers=("User-Agent",) if "User-Agent" in self.headers else (),
        )
        at_exit(self._session.close)
        return self._session

    def fragment(self, key: Hashable, keep: Any, render: Callable[[], bytes]) -> bytes:
        """``render()`` made once per endpoint for ``key`` and reused by every later request.

        ``keep`` is held as long as the fragment: a key made of ``id()`` values stays valid
        because the objects it names cannot be freed and their ids reused.
        """
        found = self._fragments.get(key)
        if found is not None:
            return found[1]
        text = render()
        if len(self._fragments) >= _MAX_FRAGMENTS:
            self._fragments = {}
        self._fragments[key] = (keep, text)
        return text

    def parsed(self, fragment: bytes) -> Any:
        """A fragment's JSON value, parsed once (callers must not change it)."""
        key = ("parsed", fragment)
        found = self._fragments.get(key)
        if found is None:
            found = self._fragments[key] = (orjson.loads(fragment), b"")
        return found[0]


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url``, or None (none, or ``NO_PROXY`` exempts it).

    ``HTTPS_PROXY``, ``HTTP_PROXY`` and ``ALL_PROXY`` as ``urllib`` reads them (lower case
    first), the same variables aiohttp's ``trust_env`` reads.
    """
    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme.lower()) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


async def _capped(response: aiohttp.ClientResponse) -> bytes:
    """An answer of unknown length (chunked, or to the end), refused past the cap."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise ReadFailed(f"the answer is over {MAX_ANSWER_BYTES} bytes")
        parts.append(chunk)
    return b"".join(parts)


_Key = tuple[str, str, str, int | None]  # kind, base URL, API key, max_connections
Opened = tuple[_Key, str, dict[str, str]]
"""What an endpoint was built from: its registry key, request URL and headers."""


class _Registry:
    """Endpoints by key, built once under a lock (agents are built on any thread)."""

    def __init__(self) -> None:
        self._endpoints: dict[_Key, Endpoint] = {}
        self._built: dict[_Key, tuple[str, dict[str, str]]] = {}  # the URL and headers given
        self._lock = threading.Lock()

    def opened(self) -> list[Opened]:
        with self._lock:
            return [(key, url, dict(headers)) for key, (url, headers) in self._built.items()]

    def adopt(self, opened: list[Opened]) -> None:
        with self._lock:
            for key, url, headers in opened:
                if key not in self._endpoints:
                    self._built[key] = (url, dict(headers))
                    self._endpoints[key] = Endpoint(url, headers, key[3])

    def get(
        self,
        key: _Key,
        build: Callable[[], tuple[str, Mapping[str, str]]],
    ) -> Endpoint:
        found = self._endpoints.get(key)
        if found is not None:
            return found
        with self._lock:
            found = self._endpoints.get(key)
            if found is None:
                url, headers = build()
                self._built[key] = (url, dict(headers))
                found = self._endpoints[key] = Endpoint(url, headers, key[3])
            return found


_REGISTRY = _Registry()


def shared_endpoint(
    kind: str,
    base_url: str,
    api_key: str,
    max_connections: int | None,
    build: Callable[[], tuple[str, Mapping[str, str]]],
) -> Endpoint:
    """The process's endpoint for ``kind`` at ``base_url`` with ``api_key``.

    Args:
        kind: the API family (``openai``, ``anthropic``); endpoints of different kinds never mix.
        base_url: where requests go; one endpoint per URL.
        api_key: the credential; two keys are two sessions (and two rate limits).
        max_connections: the most connections open at once and the ceiling of the adaptive
            limit (None: no limit beyond the rollouts in flight).
        build: gives the request URL and headers; called once per endpoint.
    """
    return _REGISTRY.get((kind, base_url, api_key, max_connections), build)


def opened_endpoints() -> list[Opened]:
    """What each endpoint of this process was built from (for :func:`adopt_endpoints`)."""
    return _REGISTRY.opened()


def adopt_endpoints(opened: list[Opened]) -> None:
    """Build ``opened`` (from :func:`opened_endpoints` in another process) here, unless built.

    A model agent of this process then finds its endpoint without its SDK's help.
    """
    _REGISTRY.adopt(opened)


def _stop_if_ended(deadline: float, signal: CancelSignal) -> None:
    if signal.aborted:
        reason = signal.reason or "cancelled"
        raise RunLimitError(reason, f"the run was stopped ({reason})")
    if time.monotonic() >= deadline:
        raise RunLimitError("timeout", "the run's time budget ran out")
