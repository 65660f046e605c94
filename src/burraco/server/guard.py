"""An ASGI layer around the room: a cap on request bodies, and the security headers of
every HTTP answer.

The cap is enforced while the body arrives: a request that announces more than the cap
is answered 413 before its body is read, and one that sends more than it announced (or
announces nothing) is cut off at the cap, so no request can make the room hold more.

The headers: a Content-Security-Policy that lets the pages load only their own scripts
and styles and connect only back to the room, and that no other site may frame them;
``Referrer-Policy: no-referrer``, because seat tokens travel in page addresses;
``X-Content-Type-Options: nosniff``.
"""

from __future__ import annotations

import base64
import hashlib
import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from burraco.tournament.printing import PAGE_STYLE

__all__ = ["Guard", "content_security_policy"]


def content_security_policy(host: str) -> str:
    """The pages' policy; ``host`` is the room's own address (for its WebSockets)."""
    # The printable pages (table cards, standings) carry one fixed <style>: its hash.
    style = base64.b64encode(hashlib.sha256(PAGE_STYLE.encode()).digest()).decode()
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; "
        f"style-src 'self' 'sha256-{style}'; img-src 'self' data:; font-src 'self'; "
        f"connect-src 'self'{sockets}; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'self'; object-src 'none'"
    )


class Guard:
    """Wrap an ASGI app with the body cap (``body_bytes``) and the security headers.
    Paths under ``open_paths`` (the API's own documentation, when served) keep their
    own policy."""

    def __init__(self, app: ASGIApp, body_bytes: int, open_paths: tuple[str, ...] = ()) -> None:
        self.app = app
        self.body_bytes = body_bytes
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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
        host = headers.get(b"host", b"").decode("latin-1")
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
                message["headers"] = [*message.get("headers", []), *_headers(host, policy)]
            await send(message)

        await self.app(scope, counted, secured)

    @property
    def _too_large(self) -> str:
        return f"a request's body has at most {self.body_bytes} bytes"

    async def _refuse(self, scope: Scope, send: Send) -> None:
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        body = json.dumps({"code": "too_large", "detail": self._too_large}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    *_headers(host, True),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _headers(host: str, policy: bool) -> list[tuple[bytes, bytes]]:
    found: list[tuple[bytes, bytes]] = [
        (b"referrer-policy", b"no-referrer"),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
    ]
    if policy:
        found.append((b"content-security-policy", content_security_policy(host).encode()))
    return found
