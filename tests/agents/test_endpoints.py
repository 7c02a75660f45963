"""silo.agents.endpoints: endpoints handed to another process are built there without the SDK."""

from __future__ import annotations

from collections.abc import Mapping

from silo.agents.endpoints import adopt_endpoints, opened_endpoints, shared_endpoint


def _never() -> tuple[str, Mapping[str, str]]:
    raise AssertionError("the endpoint was built again (its SDK would be imported)")


def test_an_adopted_endpoint_is_found_without_building_it() -> None:
    base = "http://127.0.0.1:9/adopted/v1"
    key = ("openai", base, "not-needed", None)
    headers = {"Authorization": "Bearer not-needed", "User-Agent": "sdk/1.0"}
    adopt_endpoints([(key, f"{base}/chat/completions", headers)])
    endpoint = shared_endpoint("openai", base, "not-needed", None, _never)
    assert endpoint.url == f"{base}/chat/completions"
    assert endpoint.headers == headers
    assert (key, f"{base}/chat/completions", headers) in opened_endpoints()


def test_an_endpoint_built_here_is_listed_to_hand_over() -> None:
    base = "http://127.0.0.1:9/built/v1"
    built = shared_endpoint(
        "anthropic", base, "k", 8, lambda: (f"{base}/v1/messages", {"x-api-key": "k"})
    )
    listed = {key: (url, headers) for key, url, headers in opened_endpoints()}
    assert listed[("anthropic", base, "k", 8)] == (f"{base}/v1/messages", {"x-api-key": "k"})
    adopt_endpoints([(("anthropic", base, "k", 8), "http://elsewhere/v1/messages", {})])
    assert shared_endpoint("anthropic", base, "k", 8, _never) is built  # built here: kept
