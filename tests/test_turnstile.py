"""The room's door (burraco.server.door.turnstile): a flood of requests or spectators waits
outside, a few at a time inside, so the players' moves never queue behind it (issue 19:
160 addresses making tables took a player's p99 to 363 ms, 900 spectators to 432 ms)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from burraco.server.door.turnstile import Turnstile


class Held:
    """An ASGI app whose every call stays inside until the test lets it go."""

    def __init__(self) -> None:
        self.inside = 0
        self.most_inside = 0
        self.order: list[str] = []
        self.release: dict[str, asyncio.Event] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = scope["path"]
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        self.order.append(name)
        try:
            if scope["type"] == "websocket":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.send", "text": "state"})
            await self.release.setdefault(name, asyncio.Event()).wait()
            if scope["type"] == "http":
                await send({"type": "http.response.start", "status": 200, "headers": []})
                await send({"type": "http.response.body", "body": b"ok"})
        finally:
            self.inside -= 1

    def let_go(self, name: str) -> None:
        self.release.setdefault(name, asyncio.Event()).set()


def scope(kind: str, path: str, query: bytes = b"") -> Scope:
    return {"type": kind, "path": path, "query_string": query, "headers": []}


async def nothing() -> Message:
    await asyncio.Event().wait()
    return {}


def collector(into: list[Message]) -> Any:
    async def send(message: Message) -> None:
        into.append(message)

    return send


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_requests_come_in_a_few_at_a_time_in_the_order_they_came() -> None:
    async def scenario() -> None:
        app = Held()
        door = Turnstile(app, inside=2, queue=10)
        answers: dict[str, list[Message]] = {f"/r{i}": [] for i in range(5)}
        calls = [
            asyncio.create_task(door(scope("http", path), nothing, collector(answers[path])))
            for path in answers
        ]
        await settle()
        assert app.order == ["/r0", "/r1"] and door.waiting == 3
        app.let_go("/r1")
        await settle()
        assert app.order == ["/r0", "/r1", "/r2"]  # the first in line, not any
        for path in answers:
            app.let_go(path)
        await asyncio.gather(*calls)
        assert app.most_inside == 2
        assert app.order == list(answers)
        assert all(a[0]["status"] == 200 for a in answers.values())
        assert door.waiting == 0

    asyncio.run(scenario())


def test_past_the_line_the_newest_is_told_busy_at_once() -> None:
    async def scenario() -> None:
        app = Held()
        door = Turnstile(app, inside=1, queue=2)
        sent: list[list[Message]] = [[] for _ in range(4)]
        calls = [
            asyncio.create_task(door(scope("http", f"/r{i}"), nothing, collector(sent[i])))
            for i in range(4)
        ]
        await settle()
        # One inside, two in line, and the fourth refused without waiting.
        assert calls[3].done()
        assert sent[3][0]["status"] == 503
        assert (b"retry-after", b"5") in sent[3][0]["headers"]
        assert b'"code": "busy"' in sent[3][1]["body"]
        for i in range(3):
            app.let_go(f"/r{i}")
        await asyncio.gather(*calls)
        assert [s[0]["status"] for s in sent[:3]] == [200, 200, 200]

    asyncio.run(scenario())


def test_a_spectator_holds_a_place_only_until_its_first_message() -> None:
    async def scenario() -> None:
        app = Held()
        door = Turnstile(app, inside=1, queue=10)
        zoe = asyncio.create_task(
            door(scope("websocket", "/ws/t", b"watch=1"), nothing, collector([]))
        )
        await settle()
        # Zoe watches on, her socket open, yet a request comes in behind her.
        request: list[Message] = []
        after = asyncio.create_task(door(scope("http", "/api"), nothing, collector(request)))
        await settle()
        assert app.order == ["/ws/t", "/api"]
        app.let_go("/api")
        await after
        assert request[0]["status"] == 200
        app.let_go("/ws/t")
        await zoe

    asyncio.run(scenario())


def test_a_seat_socket_never_waits_at_the_door() -> None:
    async def scenario() -> None:
        app = Held()
        door = Turnstile(app, inside=1, queue=10)
        first = asyncio.create_task(door(scope("http", "/slow"), nothing, collector([])))
        await settle()
        # The only place is taken, and a seat's socket (no ?watch=1) goes straight in.
        seat = asyncio.create_task(
            door(scope("websocket", "/ws/t", b"token=abc"), nothing, collector([]))
        )
        await settle()
        assert app.order == ["/slow", "/ws/t"]
        app.let_go("/slow")
        app.let_go("/ws/t")
        await asyncio.gather(first, seat)

    asyncio.run(scenario())


def test_a_request_that_gives_up_in_line_leaves_no_hole() -> None:
    async def scenario() -> None:
        app = Held()
        door = Turnstile(app, inside=1, queue=10)
        first = asyncio.create_task(door(scope("http", "/a"), nothing, collector([])))
        await settle()
        gone = asyncio.create_task(door(scope("http", "/b"), nothing, collector([])))
        last = asyncio.create_task(door(scope("http", "/c"), nothing, collector([])))
        await settle()
        gone.cancel()  # a client that hung up while waiting
        await settle()
        assert door.waiting == 1
        app.let_go("/a")
        app.let_go("/c")
        await asyncio.gather(first, last)
        assert app.order == ["/a", "/c"]
        assert door.waiting == 0 and door._free == 1

    asyncio.run(scenario())
