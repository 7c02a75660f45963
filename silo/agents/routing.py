"""How a model agent reaches an endpoint's origin: directly, or through the environment's proxy.

Contract: :func:`route` gives the :class:`Route` of a URL's origin. As the SDKs (httpx) do, the
proxy is the one ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` name for the URL's scheme (lower
case wins; ``urllib.request.getproxies``), unless ``NO_PROXY`` exempts the host (``*``, the host
or a parent domain, optionally with a port, or an address range such as ``10.0.0.0/8``). Only
``http://`` proxies are supported (user and password in the proxy URL become
``Proxy-Authorization``); a plain-HTTP request goes to the proxy with an absolute target, an
HTTPS one through a ``CONNECT`` tunnel (:mod:`silo.agents.wire`). :meth:`Route.request_head`
serialises a request line and headers, refusing a header that would smuggle another.
"""

from __future__ import annotations

import base64
import functools
import ipaddress
import os
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

__all__ = ["Route", "check_route", "route"]


@dataclass(frozen=True)
class Route:
    """How one origin is reached: directly, or through an HTTP proxy (``via``)."""

    scheme: str
    host: str
    port: int
    via: tuple[str, int] | None = None
    proxy_authorization: str | None = None

    @property
    def authority(self) -> str:
        """The ``Host`` header: the host (bracketed when IPv6) and a non-default port."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    def request_head(self, method: str, path: str, headers: list[tuple[str, str]]) -> bytes:
        """The request line and headers (``Host`` first), without the blank line that ends them.

        ``path`` is the request target's path and query; through a plain-HTTP proxy the target is
        the absolute URL. A header name or value holding a line break is refused
        (:class:`ValueError`): it would smuggle a header.
        """
        target = path
        if self.via is not None and self.scheme == "http":
            target = f"http://{self.authority}{path}"
            if self.proxy_authorization:
                headers = [*headers, ("Proxy-Authorization", self.proxy_authorization)]
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.authority}"]
        for name, value in headers:
            if any(c in name or c in value for c in "\r\n\0"):
                raise ValueError(f"the HTTP header {name!r} holds a line break")
            lines.append(f"{name}: {value}")
        return "\r\n".join(lines).encode("latin-1") + b"\r\n"


_PROXY_VARIABLES = (
    *(f"{name}_proxy" for name in ("http", "https", "all", "no")),
    *(f"{name}_PROXY" for name in ("HTTP", "HTTPS", "ALL", "NO")),
    "REQUEST_METHOD",  # urllib ignores HTTP_PROXY under CGI
)


def check_route(url: str) -> None:
    """Raise what :func:`route` raises for ``url`` (a ``ValueError``), cheaply when repeated.

    A model agent checks its endpoint when it is built, once per rollout of a sweep; reading
    the proxy settings scans the whole environment, so the verdict is kept per URL and the
    proxy variables' values.
    """
    _checked_route(url, tuple(os.environ.get(name) for name in _PROXY_VARIABLES))


@functools.lru_cache(maxsize=64)
def _checked_route(url: str, proxy_variables: tuple[str | None, ...]) -> None:
    route(url)


def route(url: str) -> Route:
    """The :class:`Route` to ``url``'s origin, with the environment's proxy settings applied.

    Raises :class:`ValueError` (one line) for a URL that is not ``http``/``https`` or a proxy
    that is not an ``http://`` one.
    """
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in ("http", "https") or not host:
        raise ValueError(f"{url!r} is not an http:// or https:// URL")
    port = parts.port or (443 if scheme == "https" else 80)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy or _exempt(host, port, proxies.get("no", "")):
        return Route(scheme, host, port)
    proxy_parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if proxy_parts.scheme != "http" or not proxy_parts.hostname:
        raise ValueError(
            f"the proxy {proxy_parts.scheme}://... is not supported; use an http:// one"
        )
    authorization = None
    if proxy_parts.username is not None:
        user_pass = f"{unquote(proxy_parts.username)}:{unquote(proxy_parts.password or '')}"
        authorization = "Basic " + base64.b64encode(user_pass.encode()).decode()
    via = (proxy_parts.hostname, proxy_parts.port or 80)
    return Route(scheme, host, port, via, authorization)


def _exempt(host: str, port: int, no_proxy: str) -> bool:
    """Whether ``NO_PROXY`` names the host: ``*``, the host or a parent domain, an address range."""
    host = host.lower()
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if entry == "*":
            return True
        name, _, entry_port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if entry_port and entry_port != str(port):
            continue
        name = name.lstrip(".")
        if name and (host == name or host.endswith("." + name)):
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(name, strict=False):
                return True
        except ValueError:  # not an address or not a range
            continue
    return False
