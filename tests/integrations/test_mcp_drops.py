"""DropWatch: which dropped event streams end their session, on anyio with plain callables."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from silo.integrations.mcp_drops import DropWatch, Message, Receive

GRACE_S = 0.05


async def _disconnect() -> Message:
    return {"type": "http.disconnect"}


async def _served(receive: Receive) -> None:  # a stream that reads its client leaving
    await receive()


async def _held(opened: anyio.Event, close: anyio.Event) -> Callable[[Receive], Awaitable[None]]:
    async def serve(receive: Receive) -> None:
        opened.set()
        await close.wait()

    return serve


def _run(scenario: Callable[[DropWatch, list[str]], Awaitable[None]]) -> list[str]:
    ended: list[str] = []

    async def main() -> None:
        watch = DropWatch(GRACE_S)
        async with watch.running():
            await scenario(watch, ended)
            await anyio.sleep(GRACE_S * 6)  # every timer started has fired by now

    anyio.run(main)
    return ended


def _gone(ended: list[str], sid: str) -> Callable[[], Awaitable[None]]:
    async def gone() -> None:
        ended.append(sid)

    return gone


def test_a_dropped_stream_with_nothing_after_it_ends_its_session() -> None:
    async def scenario(watch: DropWatch, ended: list[str]) -> None:
        await watch.stream("s1", _served, _disconnect, lambda: False, _gone(ended, "s1"))

    assert _run(scenario) == ["s1"]


def test_a_request_within_the_grace_or_a_stream_open_again_keeps_it() -> None:
    async def scenario(watch: DropWatch, ended: list[str]) -> None:
        await watch.stream("back", _served, _disconnect, lambda: False, _gone(ended, "back"))
        watch.seen("back")  # its next request
        # A reconnection whose new stream opened before the old one's drop was read.
        opened, close = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            serve = await _held(opened, close)
            gone = _gone(ended, "again")
            group.start_soon(watch.stream, "again", serve, _disconnect, lambda: False, gone)
            await opened.wait()
            await watch.stream("again", _served, _disconnect, lambda: False, gone)
            await anyio.sleep(GRACE_S * 4)
            close.set()

    assert _run(scenario) == []


def test_a_session_with_a_call_in_flight_is_ended_only_once_it_is_answered() -> None:
    calls = {"in flight": True}

    async def scenario(watch: DropWatch, ended: list[str]) -> None:
        busy = lambda: calls["in flight"]  # noqa: E731
        await watch.stream("s", _served, _disconnect, busy, _gone(ended, "s"))
        await anyio.sleep(GRACE_S * 3)
        assert ended == []
        calls["in flight"] = False

    assert _run(scenario) == ["s"]


def test_an_error_ending_a_session_is_one_line_and_the_watch_goes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def scenario(watch: DropWatch, ended: list[str]) -> None:
        async def fails() -> Any:
            raise OSError("disk full")

        await watch.stream("bad", _served, _disconnect, lambda: False, fails)
        await anyio.sleep(GRACE_S * 3)
        await watch.stream("good", _served, _disconnect, lambda: False, _gone(ended, "good"))

    assert _run(scenario) == ["good"]
    err = capsys.readouterr().err
    assert err == "silo-mcp: ending a session whose client went away: disk full\n"


def test_outside_running_a_drop_is_not_acted_on() -> None:
    ended: list[str] = []

    async def main() -> None:
        watch = DropWatch(GRACE_S)
        await watch.stream("s", _served, _disconnect, lambda: False, _gone(ended, "s"))
        await anyio.sleep(GRACE_S * 3)

    anyio.run(main)
    assert ended == []
