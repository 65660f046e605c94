"""A socket relayed to its table's owner: a player's (or a spectator's) socket that
reached this process while another process owns its table.

What the player sends goes on ``burraco:in:{table}``, which the owner follows; what the
owner says to that socket comes back on ``burraco:out:{this node}:{connection}``, is
queued here by the cluster's listener (:attr:`Relays.outboxes`) and written to the socket
as the text it came in. One task per owner watches it, every :data:`WATCH_EVERY` seconds,
for all the sockets relayed to it; when it is dead, its tables are handed to the takeover
(``on_dead``) and those sockets closed with :data:`RESTART`, :data:`RESTART_AFTER` seconds
on and spread over :data:`RESTART_SPREAD` seconds, so that the dead process's own pages
reconnect first and these follow as a stream, to a living process. Built on ``nodes``;
the owner's side is ``relayed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from burraco.server.cluster.nodes import Nodes, PerNode
from burraco.server.cluster.wire import CLOSING, IN, OUT, RESTART

__all__ = ["RESTART_AFTER", "RESTART_SPREAD", "WATCH_EVERY", "Relays"]

log = logging.getLogger("burraco.cluster")

#: How often the owner of relayed sockets is looked at (one look for all its sockets).
WATCH_EVERY = 0.25
#: The sockets relayed to a dead owner are closed this long after it is known dead, over
#: this many seconds, not at once: the dead process's own sockets reconnect first (their
#: pages' pause, 0.5-1 s), then these as a stream, not a storm on top of that one
#: (bench/cluster.py: both at once held the tables in play for seconds).
RESTART_AFTER, RESTART_SPREAD = 1.5, 2.0


class Relays:
    """The sockets this process relays to the owners of their tables."""

    def __init__(self, nodes: Nodes, on_dead: Callable[[str], None]) -> None:
        self.nodes = nodes
        self.redis = nodes.redis
        #: Told of an owner found dead (the takeover adopts its tables).
        self.on_dead = on_dead
        #: Per socket this process relays, what its table's owner says to it.
        #: (as the owner wrote it: JSON text, passed on as it came).
        self.outboxes: dict[str, asyncio.Queue[str]] = {}
        #: Per other node this process relays sockets to, how each relay is ended (with
        #: a close code), and the one task that watches that node for all of them.
        self._ends: dict[str, set[Callable[[int], None]]] = {}
        self.watching = PerNode()

    async def relay(
        self,
        table: str,
        owner: str,
        token: str,
        send: Callable[[dict[str, Any]], Awaitable[None]],
        receive: Callable[[], Awaitable[str]],
        user_id: int | None = None,
        *,
        watch: str | None = None,
        send_text: Callable[[str], Awaitable[None]] | None = None,
    ) -> int:
        """Carry one player's socket (or, with ``watch``, the name of a spectator, one
        spectator's socket) to the table's owner and back, until either side ends
        it. The close code for the player's socket: :data:`RESTART` when the owner died
        (the page reconnects), the owner's own code (4403 for a bad token, a replaced
        socket), or 1000 when the player left. With ``send_text`` (the socket's), what
        the owner says goes on as the text it came in, not read and written again."""
        connection = secrets.token_hex(8)
        outbox: asyncio.Queue[str] = asyncio.Queue()
        self.outboxes[connection] = outbox
        ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def end(code: int) -> None:
            if not ended.done():
                ended.set_result(code)

        async def pump() -> None:
            while True:
                said = await outbox.get()
                if said.startswith(CLOSING):  # the owner closes this socket
                    end(int(json.loads(said).get("code", 1000)))
                    return
                if send_text is not None:
                    await send_text(said)
                else:
                    await send(json.loads(said))

        async def forward() -> None:
            while True:
                raw = await receive()
                note = {"conn": connection, "kind": "message", "raw": raw}
                await self.redis.publish(inbox, json.dumps(note))

        inbox = IN + table
        out = f"{OUT}{self.nodes.node}:{connection}"
        hello = {
            "conn": connection,
            "kind": "connect",
            "token": token,
            "user": user_id,
            "watch": watch,
            "out": out,
        }
        tasks: list[asyncio.Task[None]] = []
        # The owner is watched for all the sockets relayed to it at once (RESTART if it dies).
        self._ends.setdefault(owner, set()).add(end)
        self.watching.start(owner, lambda: self._watch(owner))
        try:
            await self.redis.publish(inbox, json.dumps(hello))
            tasks = [asyncio.create_task(job()) for job in (pump, forward)]
            for task in tasks:
                # A task that stops (the player left, or a failure) ends the relay too.
                task.add_done_callback(lambda _: end(1000))
                task.add_done_callback(_read_failure)
            return await ended
        finally:
            ends = self._ends.get(owner)
            if ends is not None:
                ends.discard(end)
            for task in tasks:
                task.cancel()
            if tasks:
                # Not awaited one by one: a read of the player's socket may not end on
                # cancellation until the socket closes, which the caller does next.
                await asyncio.wait(tasks, timeout=0.5)
            bye = {"conn": connection, "kind": "disconnect"}
            with contextlib.suppress(Exception):
                await self.redis.publish(inbox, json.dumps(bye))
            self.outboxes.pop(connection, None)

    async def _watch(self, owner: str) -> None:
        """Look at ``owner`` every :data:`WATCH_EVERY` seconds while sockets are relayed to
        it; when it is dead, adopt its tables and close those sockets with
        :data:`RESTART`, :data:`RESTART_AFTER` seconds on and spread over
        :data:`RESTART_SPREAD` seconds (a process's pages reconnecting at one moment,
        each a state, a sync and a seat coming online, held the tables in play here as
        long as they took)."""
        while self._ends.get(owner):
            with contextlib.suppress(Exception):
                if not await self.nodes.is_alive(owner):
                    break
            await asyncio.sleep(WATCH_EVERY)
        else:
            return
        self.on_dead(owner)
        ends = list(self._ends.pop(owner, ()))
        random.shuffle(ends)
        loop = asyncio.get_running_loop()
        for n, end in enumerate(ends):
            loop.call_later(RESTART_AFTER + RESTART_SPREAD * n / len(ends), end, RESTART)


def _read_failure(task: asyncio.Task[None]) -> None:
    """A side of a relay that failed (the player's socket closed under a send) ended the
    relay as a leaving does: its error is read here, at debug level, not left for the
    event loop to log as "Task exception was never retrieved"."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.debug("a relay's side ended: %r", error)
