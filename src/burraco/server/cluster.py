"""Several server processes behind one address, with Redis (docs/cluster.md).

Each table is owned by one process: the one that created it, or the first to
claim it when its owner is gone (``SET burraco:owner:{table} NODE NX EX 15``,
kept alive by a heartbeat). Only the owner holds the table's match; every
process shares the database. A process that receives a request for a table it
does not own asks the owner over Redis (a request on ``burraco:rpc:{node}``,
the answer on ``burraco:reply:{id}``); a WebSocket that reaches another process
is relayed: what the player sends goes to ``burraco:in:{table}``, what the
owner says goes to ``burraco:out:{connection}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from burraco.server.room import Room, RoomError

__all__ = ["Cluster"]

log = logging.getLogger("burraco.cluster")

OWNER_SECONDS = 15
HEARTBEAT_SECONDS = 5
RPC_SECONDS = 10


class Cluster:
    """This process's part in a cluster of rooms sharing one database and one Redis."""

    def __init__(self, room: Room, redis_url: str, node: str | None = None) -> None:
        import redis.asyncio as aioredis

        self.room = room
        self.node = node or "n-" + secrets.token_hex(4)
        self.redis = aioredis.from_url(redis_url, decode_responses=True)
        self.owned: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._relays: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {}
        self._remote: dict[str, tuple[str, int]] = {}
        self._answering: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(f"burraco:rpc:{self.node}")
        await pubsub.psubscribe("burraco:in:*")
        self._tasks.append(asyncio.create_task(self._listen(pubsub)))
        self._tasks.append(asyncio.create_task(self._heartbeat()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for table in list(self.owned):
            with contextlib.suppress(Exception):
                if await self.redis.get(self._key(table)) == self.node:
                    await self.redis.delete(self._key(table))
        await self.redis.aclose()

    # --- ownership ------------------------------------------------------------------------

    @staticmethod
    def _key(table: str) -> str:
        return f"burraco:owner:{table}"

    async def claim(self, table: str) -> bool:
        """Own the table if nobody does; True if this process owns it now."""
        if table in self.owned:
            return True
        taken = await self.redis.set(self._key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken or await self.redis.get(self._key(table)) == self.node:
            self.owned.add(table)
            self.room.tables.pop(table, None)  # a copy read before is stale: load afresh
            self.room.table(table)
            self.room.resume(table)
            return True
        return False

    async def owner(self, table: str) -> str:
        """The node that owns the table, claiming it here if nobody does."""
        if table in self.owned:
            return self.node
        current = await self.redis.get(self._key(table))
        if current is None and await self.claim(table):
            return self.node
        return str(current) if current else await self.owner(table)

    async def _heartbeat(self) -> None:
        while True:
            for table in list(self.owned):
                if await self.redis.get(self._key(table)) == self.node:
                    await self.redis.expire(self._key(table), OWNER_SECONDS)
                else:
                    self.owned.discard(table)
            # Tables in play that nobody holds (their process stopped) are taken over here.
            for row in self.room.store.tables(("playing",)):
                if row.id not in self.owned and await self.redis.get(self._key(row.id)) is None:
                    with contextlib.suppress(Exception):
                        await self.claim(row.id)
            await asyncio.sleep(HEARTBEAT_SECONDS)

    # --- requests to the owner ------------------------------------------------------------

    async def call(self, table: str, op: str, body: dict[str, Any]) -> Any:
        """Run a room operation on the table's owner, here or over Redis."""
        node = await self.owner(table)
        if node == self.node:
            return await self._run(op, table, body)
        request_id = secrets.token_hex(8)
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(f"burraco:reply:{request_id}")
        try:
            message = {"id": request_id, "op": op, "table": table, "body": body}
            await self.redis.publish(f"burraco:rpc:{node}", json.dumps(message))
            reply = await asyncio.wait_for(self._first(pubsub), RPC_SECONDS)
        except TimeoutError:
            # The owner is gone: its lease runs out, and the next request claims the table.
            raise RoomError(
                "unavailable", "the table's server does not answer; retry", 503
            ) from None
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]
        if not reply["ok"]:
            raise RoomError(reply["code"], reply["detail"], reply["status"])
        return reply["result"]

    @staticmethod
    async def _first(pubsub: Any) -> dict[str, Any]:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None:
                answer: dict[str, Any] = json.loads(message["data"])
                return answer

    async def _run(self, op: str, table_id: str, body: dict[str, Any]) -> Any:
        from burraco.server.app import _local

        return await _local(self.room, op, table_id, body)

    # --- relayed sockets ------------------------------------------------------------------

    async def relay(
        self,
        table: str,
        token: str,
        send: Callable[[dict[str, Any]], Awaitable[None]],
        receive: Callable[[], Awaitable[str]],
    ) -> None:
        """Carry one player's socket to the table's owner and back, until it closes."""
        connection = secrets.token_hex(8)
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(f"burraco:out:{connection}")

        async def pump() -> None:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is not None:
                    await send(json.loads(message["data"]))

        pumping = asyncio.create_task(pump())
        inbox = f"burraco:in:{table}"
        hello = {"conn": connection, "kind": "connect", "token": token}
        try:
            await self.redis.publish(inbox, json.dumps(hello))
            while True:
                raw = await receive()
                note = {"conn": connection, "kind": "message", "raw": raw}
                await self.redis.publish(inbox, json.dumps(note))
        finally:
            pumping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pumping
            bye = {"conn": connection, "kind": "disconnect"}
            with contextlib.suppress(Exception):
                await self.redis.publish(inbox, json.dumps(bye))
            await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _listen(self, pubsub: Any) -> None:
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                channel: str = message["channel"]
                data = json.loads(message["data"])
                if channel.startswith("burraco:rpc:"):
                    task = asyncio.create_task(self._answer(data))
                    self._answering.add(task)
                    task.add_done_callback(self._answering.discard)
                else:
                    table = channel.removeprefix("burraco:in:")
                    if table in self.owned:
                        await self._relayed(table, data)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster listener")

    async def _answer(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any]
        try:
            result = await self._run(request["op"], request["table"], request["body"])
            reply = {"ok": True, "result": result}
        except RoomError as error:
            reply = {
                "ok": False,
                "code": error.code,
                "detail": error.message,
                "status": error.status,
            }
        await self.redis.publish(f"burraco:reply:{request['id']}", json.dumps(reply))

    async def _relayed(self, table_id: str, data: dict[str, Any]) -> None:
        connection = data["conn"]
        room = self.room
        table = room.table(table_id)
        if data["kind"] == "connect":
            out = f"burraco:out:{connection}"

            async def publish(message: dict[str, Any]) -> None:
                await self.redis.publish(out, json.dumps(message))

            send: Callable[[dict[str, Any]], Awaitable[None]] = publish

            try:
                seat = room.seat_of(table, data["token"])
            except RoomError as error:
                await send({"type": "error", "code": "forbidden", "message": error.message})
                return
            self._relays[connection] = send
            self._remote[connection] = (table_id, seat)
            await room.connect(table, seat, send)
        elif data["kind"] == "message" and connection in self._relays:
            _, seat = self._remote[connection]
            await room.message(table, seat, self._relays[connection], data["raw"])
        elif data["kind"] == "disconnect" and connection in self._relays:
            send = self._relays.pop(connection)
            _, seat = self._remote.pop(connection)
            await room.disconnect(table, seat, send)
