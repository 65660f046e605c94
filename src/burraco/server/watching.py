"""Spectators: each watch socket's own bounded outbox and the task that writes it.

The room never waits on a spectator. What a spectator is to hear is serialised once for
all of them and dropped in each one's :class:`Outbox`; a task of the spectator's own
writes it to the socket. A spectator slower than the table loses the states it had no
time to read (only the newest matters), never the players' time.

>>> box = Outbox(size=3)
>>> box.put('{"type": "event"}')
>>> box.put('{"type": "state", "version": 1}', state=True)
>>> box.put('{"type": "state", "version": 2}', state=True)
>>> box.pending()
['{"type": "event"}', '{"type": "state", "version": 2}']
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from burraco.server.door.inputs import clean_name
from burraco.server.messages import text_of
from burraco.server.process.background import cancel

__all__ = ["Frame", "Outbox", "Pacer", "SendText", "Watcher", "spectator_name"]

#: Writes one text frame to a socket.
SendText = Callable[[str], Awaitable[None]]
#: Closes a socket with a close code and a reason.
CloseSocket = Callable[[int, str], Awaitable[None]]

#: Each watcher's own number (its chat rate is counted by it).
_IDS = itertools.count(1)


class Outbox:
    """What one spectator has yet to hear, at most ``size`` messages: a new state replaces
    any state not yet written, and past ``size`` the oldest messages go."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self.dropped = 0
        self._items: deque[tuple[bool, str]] = deque()
        self._ready = asyncio.Event()

    def put(self, text: str, *, state: bool = False) -> None:
        if state and any(is_state for is_state, _ in self._items):
            kept = [item for item in self._items if not item[0]]
            self.dropped += len(self._items) - len(kept)
            self._items = deque(kept)
        self._items.append((state, text))
        while len(self._items) > self.size:
            self._items.popleft()
            self.dropped += 1
        self._ready.set()

    async def wait(self) -> None:
        """Wait until there is something to write."""
        while not self._items:
            self._ready.clear()
            await self._ready.wait()

    def pop(self) -> str:
        """The oldest message queued (there must be one)."""
        return self._items.popleft()[1]

    async def get(self) -> str:
        await self.wait()
        return self.pop()

    def pending(self) -> list[str]:
        return [text for _, text in self._items]


class Pacer:
    """Spectators' writes take turns: at most ``burst`` in one turn of the event loop.

    Between two turns the loop reads the sockets, so a player's action waits for a few
    spectators' writes at most, never for the whole crowd's; the crowd hears the same,
    a moment later."""

    def __init__(self, burst: int = 16) -> None:
        self.burst = burst
        self._used = 0
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._resetting = False

    async def turn(self) -> None:
        """Wait for a place in this turn of the loop, or the next with one free."""
        if self._used < self.burst and not self._waiting:
            self._used += 1
            self._reset_soon()
            return
        place = asyncio.get_running_loop().create_future()
        self._waiting.append(place)
        self._reset_soon()
        await place

    def _reset_soon(self) -> None:
        if not self._resetting:
            self._resetting = True
            asyncio.get_running_loop().call_soon(self._reset)

    def _reset(self) -> None:
        self._resetting = False
        self._used = 0
        while self._waiting and self._used < self.burst:
            place = self._waiting.popleft()
            if not place.done():  # not a writer cancelled meanwhile
                place.set_result(None)
                self._used += 1
        if self._used:
            self._reset_soon()


@dataclass(frozen=True, slots=True)
class Frame:
    """The public state of a table at one version, as every spectator hears it."""

    version: int
    state: dict[str, Any]


@dataclass(eq=False)
class Watcher:
    """One spectator's socket: its name in the watchers' chat, its outbox and its writer."""

    name: str
    send_text: SendText
    close: CloseSocket | None = None
    outbox: Outbox = field(default_factory=Outbox)
    number: int = field(default_factory=lambda: next(_IDS))
    task: asyncio.Task[None] | None = None
    pacer: Pacer | None = None
    #: The version a sync last brought this spectator to (-1: none yet): the events up
    #: to it are not sent to this socket again (issue 32).
    synced: int = -1

    @property
    def key(self) -> str:
        """What the chat rate of this spectator is counted by."""
        return f"watcher-{self.number}"

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._write())

    def say(self, message: dict[str, Any]) -> None:
        """Queue one message for this spectator alone (an answer, an error)."""
        self.outbox.put(text_of(message), state=message.get("type") == "state")

    async def stop(self) -> None:
        await cancel(self.task)

    async def _write(self) -> None:
        while True:
            await self.outbox.wait()
            if self.pacer is not None:
                await self.pacer.turn()
            # Taken only now: a state that came while this waited its turn replaced the
            # older one.
            text = self.outbox.pop()
            try:
                await self.send_text(text)
            except Exception:
                return  # the socket is gone: its reader ends the watch


def spectator_name(raw: str) -> str:
    """The name a spectator chats under (cleaned as a player's name); "" for none, which
    each page says in its own words ("Spectator")."""
    try:
        return clean_name(raw, what="a spectator's name")
    except ValueError:
        return ""
