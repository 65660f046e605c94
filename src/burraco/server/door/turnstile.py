"""The room's door: HTTP requests and spectators come in a few at a time, so that a crowd
at the door never stands between the players and their moves.

A player's move travels on the seat's socket, and its answer waits only for what the
event loop has ready to run before it. A flood of requests (a script making tables from
a hundred addresses, hundreds of spectators' sockets opening at once) would put all of
them in the loop's way at once: 160 requests of 2 ms each are 320 ms before the move.
The turnstile lets ``inside`` of them work at a time; the others wait at the door, where
they cost nothing, in the order they came, and past ``queue`` waiting the newest is told
"busy" (503) at once. A spectator's socket holds its place only until its first message
(the table's state) is sent; a seat's socket never waits here.

>>> door = Turnstile(lambda scope, receive, send: None, inside=2, queue=10)
>>> door.inside, door.waiting
(2, 0)
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from burraco.server.door.capacity import BUSY

__all__ = ["Turnstile"]


class Turnstile:
    """An ASGI layer that lets at most ``inside`` HTTP requests and spectators' openings
    into the room at once, and ``queue`` more wait their turn."""

    def __init__(self, app: ASGIApp, inside: int = 6, queue: int = 1000) -> None:
        self.app = app
        self.inside = inside
        self.queue = queue
        self._free = inside
        self._line: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._line)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing on an awaitable: a seat's socket keeps no frame of this
        # layer for its whole life (what the collector walks, per socket).
        if scope["type"] == "http":
            return self._request(scope, receive, send)
        if scope["type"] == "websocket" and _watching(scope):
            return self._spectator(scope, receive, send)
        return self.app(scope, receive, send)  # a seat's socket, the lifespan

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not await self._enter():
            body = json.dumps({"detail": BUSY, "code": "busy"}).encode()
            headers = [(b"content-type", b"application/json"), (b"retry-after", b"5")]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._leave()

    async def _spectator(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not await self._enter():
            await send({"type": "websocket.close", "code": 1013, "reason": "busy"})
            return
        inside = True

        async def first_message_lets_the_next_in(message: Message) -> None:
            nonlocal inside
            await send(message)
            if inside and message["type"] in ("websocket.send", "websocket.close"):
                inside = False
                self._leave()

        try:
            await self.app(scope, receive, first_message_lets_the_next_in)
        finally:
            if inside:
                self._leave()

    async def _enter(self) -> bool:
        """Wait for a place inside; False at once when the line is full."""
        if self._free > 0 and not self._line:
            self._free -= 1
            return True
        if len(self._line) >= self.queue:
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._line.append(turn)
        try:
            await turn  # the place is handed over by _leave
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._leave()  # handed a place just as it gave up: pass it on
            else:
                self._line.remove(turn)
            raise
        return True

    def _leave(self) -> None:
        """Give the place to the first in line still waiting, or free it."""
        while self._line:
            turn = self._line.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1


def _watching(scope: Scope) -> bool:
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
    return bool(query.get("watch", [""])[0] == "1")  # as the socket's endpoint reads it
