"""An ASGI layer around the room: a cap on request bodies, and the security headers of
every HTTP answer.

The cap is enforced while the body arrives: a request that announces more than the cap
is answered 413 before its body is read, and one that sends more than it announced (or
announces nothing) is cut off at the cap, so no request can make the room hold more.

The headers: a Content-Security-Policy that lets the pages load only their own scripts
and styles and connect only back to the room, and that no other site may frame them (built
once from configuration, never from a request's ``Host``, which anyone can set);
``Referrer-Policy: no-referrer``, because seat tokens travel in page addresses;
``X-Content-Type-Options: nosniff``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Awaitable, Sequence
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from burraco.tournament.printing import PAGE_STYLE

__all__ = ["Guard", "content_security_policy", "socket_origin"]

#: A host as a public address names it: a DNS name, IPv4, or IPv6 in brackets.
_HOST = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")


def socket_origin(public_url: str) -> str:
    """The WebSocket origin of the room's public address (``https://example.org`` ->
    ``wss://example.org``); ValueError naming the rule for anything but an origin.

    >>> socket_origin("https://burraco.example:8443/")
    'wss://burraco.example:8443'
    >>> socket_origin("http://evil; script-src *")
    Traceback (most recent call last):
    ...
    ValueError: the public URL is an origin, http(s)://host[:port], not 'http://evil; script-src *'
    """
    bad = ValueError(f"the public URL is an origin, http(s)://host[:port], not {public_url!r}")
    try:
        parts = urlsplit(public_url)
        port = parts.port
    except ValueError:
        raise bad from None
    host = parts.netloc.rsplit(":", 1)[0] if port is not None else parts.netloc
    if (
        parts.scheme not in ("http", "https")
        or not _HOST.fullmatch(host)
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise bad
    return f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}"


def content_security_policy(public_url: str | None = None) -> str:
    """The pages' policy. The pages open their sockets to their own origin, which
    ``'self'`` covers for ws: and wss: too (CSP 3, every current browser);
    ``public_url``, the room's address as configured, names that origin for older ones."""
    # The printable pages (table cards, standings) carry one fixed <style>: its hash.
    style = base64.b64encode(hashlib.sha256(PAGE_STYLE.encode()).digest()).decode()
    sockets = f" {socket_origin(public_url)}" if public_url else ""
    return (
        "default-src 'self'; script-src 'self'; "
        f"style-src 'self' 'sha256-{style}'; img-src 'self' data:; font-src 'self'; "
        f"connect-src 'self'{sockets}; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'self'; object-src 'none'"
    )


class Guard:
    """Wrap an ASGI app with the body cap (``body_bytes``) and the security headers.
    Paths under ``open_paths`` (the API's own documentation, when served) keep their
    own policy. ``public_url``: the room's public address (:func:`content_security_policy`)."""

    def __init__(
        self,
        app: ASGIApp,
        body_bytes: int,
        open_paths: tuple[str, ...] = (),
        public_url: str | None = None,
    ) -> None:
        self.app = app
        self.body_bytes = body_bytes
        self.open_paths = open_paths
        self.policy = content_security_policy(public_url).encode()

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A WebSocket goes straight on: no frame of this layer for the socket's whole life.
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        return self._http(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.body_bytes
            except ValueError:
                too_big = True
            if too_big:
                await self._refuse(scope, send)
                return
        path: str = scope.get("path", "")
        policy = not path.startswith(self.open_paths) if self.open_paths else True
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.body_bytes:
                    # Raised inside the route's reading of the body: the app answers 413.
                    raise HTTPException(413, self._too_large)
            return message

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self._headers(policy)]
            await send(message)

        await self.app(scope, counted, secured)

    @property
    def _too_large(self) -> str:
        return f"a request's body has at most {self.body_bytes} bytes"

    async def _refuse(self, scope: Scope, send: Send) -> None:
        close = [(b"connection", b"close"), *self._headers(True)]
        await refuse(send, 413, "too_large", self._too_large, close)

    def _headers(self, policy: bool) -> list[tuple[bytes, bytes]]:
        found: list[tuple[bytes, bytes]] = [
            (b"referrer-policy", b"no-referrer"),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
        ]
        if policy:
            found.append((b"content-security-policy", self.policy))
        return found


async def refuse(
    send: Send,
    status: int,
    code: str,
    detail: str,
    headers: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    """Answer an HTTP request from an ASGI layer, before any route, with the room's JSON
    error (``{"detail": ..., "code": ...}``, as the routes' refusals)."""
    body = json.dumps({"detail": detail, "code": code}).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*start, *headers]})
    await send({"type": "http.response.body", "body": body})
