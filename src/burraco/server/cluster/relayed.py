"""The owner's side of a relayed socket: a socket that reached another process, served
here as one of this process's own.

The cluster's listener hands each note on ``burraco:in:{table}``, for a table owned here,
to :meth:`Relayed.deliver`; each relayed connection's notes are handled in order by a task
of its own, so that the listener never waits on a table (a hint, an expert's search, a
lock) and one slow request holds up no other. The connection's hello opens a seat (its
token checked as a socket's here: 4403 for one that holds no seat) or a spectator's watch;
each message then goes to the room as this process's own sockets' do, and what the room
says to that socket is published on the relaying process's channel for it
(``burraco:out:{node}:{connection}``), a close as the owner's closing word. Needs a room
and Redis; the relaying side is ``relays``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from burraco.server.cluster.wire import CLOSING, FORBIDDEN, RESTART
from burraco.server.messages import text_of
from burraco.server.room import Room, RoomError, error_message
from burraco.server.watching import Watcher, spectator_name

__all__ = ["Relayed"]

log = logging.getLogger("burraco.cluster")


class Relayed:
    """The sockets other processes relay to the tables this process owns."""

    def __init__(self, room: Room, redis: Any) -> None:
        self.room = room
        self.redis = redis
        #: Per relayed connection, its messages in order, handled by a task of its own.
        self._inboxes: dict[str, asyncio.Queue[dict[str, Any] | None]] = {}
        self._serving: set[asyncio.Task[None]] = set()

    def deliver(self, table_id: str, data: dict[str, Any]) -> None:
        """Queue a relayed connection's note for its own task: the listener never waits
        on a table (a hint, a search, a lock), so one slow request holds up no other."""
        connection = str(data.get("conn", ""))
        inbox = self._inboxes.get(connection)
        if inbox is None:
            if data.get("kind") != "connect":
                return
            inbox = self._inboxes[connection] = asyncio.Queue()
            task = asyncio.create_task(self._serve(table_id, connection, inbox))
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)
        inbox.put_nowait(data)

    async def _serve(
        self, table_id: str, connection: str, inbox: asyncio.Queue[dict[str, Any] | None]
    ) -> None:
        first = await inbox.get()
        if first is None or first.get("kind") != "connect":
            return
        out = str(first["out"])

        async def send(message: dict[str, Any]) -> None:
            await self.redis.publish(out, text_of(message))

        async def close(code: int, reason: str) -> None:
            await self.redis.publish(out, CLOSING + json.dumps(code) + "}")

        async def send_text(text: str) -> None:
            await self.redis.publish(out, text)

        room = self.room
        seat: int | None = None
        watcher: Watcher | None = None
        table = None
        data: dict[str, Any] | None = first
        try:
            while True:
                if data is None or data["kind"] == "disconnect":
                    return
                try:
                    if data["kind"] == "connect" and isinstance(data.get("watch"), str):
                        table = room.table(table_id)
                        try:
                            name = spectator_name(data["watch"])
                            watcher = await room.watch(table, name, send_text, close)
                        except RoomError as error:
                            await send(error_message(error.code, error.message, error.params))
                            await close(RESTART if error.status == 503 else FORBIDDEN, "")
                            return
                    elif data["kind"] == "message" and table is not None and watcher is not None:
                        await room.watch_message(table, watcher, data["raw"])
                    elif data["kind"] == "connect":
                        table = room.table(table_id)
                        try:
                            user = data.get("user")
                            seat = room.seat_of(
                                table, data["token"], user if isinstance(user, int) else None
                            )
                        except RoomError as error:
                            await send(
                                {
                                    "type": "error",
                                    "code": "forbidden",
                                    "message": error.message,
                                    "params": {},
                                }
                            )
                            await close(FORBIDDEN, error.message)
                            return
                        await room.connect(table, seat, send, close)
                    elif data["kind"] == "message" and table is not None and seat is not None:
                        await room.message(table, seat, send, data["raw"])
                except Exception:
                    log.exception("relayed connection %s at %s", connection, table_id)
                data = await inbox.get()
        finally:
            self._inboxes.pop(connection, None)
            if table is not None and seat is not None:
                with contextlib.suppress(Exception):
                    await room.disconnect(table, seat, send)
            if table is not None and watcher is not None:
                with contextlib.suppress(Exception):
                    await room.unwatch(table, watcher)
