"""Calls between processes: a room operation run on a table's owner, or an operation of
the server's own run on a named process, over Redis.

A request goes on ``burraco:rpc:{node}`` with the channel of its answer,
``burraco:reply:{asking node}:{id}``, and the asking process waits up to
:data:`~burraco.server.cluster.wire.RPC_SECONDS` for it (else RoomError "unavailable", a
503 that may be retried: the next request finds the owner dead and takes its table). The
asked process runs it (:meth:`Calls.run`): a table's operation from ``forwarded``, or with
no table one of its :attr:`Calls.handlers` (the desk's "seat a tournament table here", a
bot token's revocation), each in a task of its own, and publishes the answer (a RoomError
as its code, detail, status and params). The cluster's listener hands each request and
each answer here. Built on ``owners`` (where a table lives) and ``leases`` (a rematch made
here is owned here).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from burraco.server.cluster.forwarded import run_here
from burraco.server.cluster.leases import Leases
from burraco.server.cluster.owners import Owners
from burraco.server.cluster.wire import REPLY, RPC, RPC_SECONDS
from burraco.server.room import Room, RoomError

__all__ = ["Calls"]


class Calls:
    """The calls this process makes to others, and answers for them."""

    def __init__(self, room: Room, owners: Owners, leases: Leases) -> None:
        self.room = room
        self.owners = owners
        self.leases = leases
        self.node = leases.node
        self.redis = leases.redis
        #: Operations of the server's own (not a table's) another process may ask of this
        #: one with :meth:`call_node`: the desk's "seat a tournament table here".
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]] = {}
        #: Per request this process sent to another, the future of its answer.
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._answering: set[asyncio.Task[None]] = set()

    async def call(self, table: str, op: str, body: dict[str, Any]) -> Any:
        """Run a room operation on the table's owner, here or over Redis."""
        node = await self.owners.owner(table)
        if node == self.node:
            return await self.run(op, table, body)
        return await self.call_node(node, op, body, table)

    async def call_node(
        self,
        node: str,
        op: str,
        body: dict[str, Any],
        table: str = "",
        seconds: float = RPC_SECONDS,
    ) -> Any:
        """Run ``op`` on the process ``node`` over Redis: a room operation on ``table``,
        or with no table one of that process's :attr:`handlers`; RoomError "unavailable"
        if no answer comes within ``seconds``."""
        request_id = secrets.token_hex(8)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = answer
        try:
            message = {
                "id": request_id,
                "op": op,
                "table": table,
                "body": body,
                "reply": f"{REPLY}{self.node}:{request_id}",
            }
            await self.redis.publish(RPC + node, json.dumps(message))
            reply = await asyncio.wait_for(answer, seconds)
        except TimeoutError:
            # The owner is gone: the next request finds it dead and takes the table.
            raise RoomError(
                "unavailable", "the table's server does not answer; retry", 503
            ) from None
        finally:
            self._replies.pop(request_id, None)
        if not reply["ok"]:
            raise RoomError(
                reply["code"], reply["detail"], reply["status"], params=reply.get("params")
            )
        return reply["result"]

    def answered(self, request_id: str, reply: dict[str, Any]) -> None:
        """The answer to a request of this process's came (the listener's)."""
        waiting = self._replies.get(request_id)
        if waiting is not None and not waiting.done():
            waiting.set_result(reply)

    def asked(self, request: dict[str, Any]) -> None:
        """Another process's request came (the listener's): answered in a task of its own."""
        task = asyncio.create_task(self._answer(request))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def run(self, op: str, table_id: str, body: dict[str, Any]) -> Any:
        """Run an operation here: a handler's (no table), or the table's in the room."""
        if not table_id and op in self.handlers:
            return await self.handlers[op](body)
        result = await run_here(self.room, op, table_id, body)
        if op == "rematch":
            # The rematch was made here, by the finished table's owner: it owns it too.
            await self.leases.claim(str(result["table"]))
        return result

    async def _answer(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any]
        try:
            result = await self.run(request["op"], request["table"], request["body"])
            reply = {"ok": True, "result": result}
        except RoomError as error:
            reply = {
                "ok": False,
                "code": error.code,
                "detail": error.message,
                "status": error.status,
                "params": error.params,
            }
        await self.redis.publish(request["reply"], json.dumps(reply))
