"""The operations a route asks of a table's owner: run here, or forwarded to its process.

A table lives in one process (docs/cluster.md). A route that reads or changes it names
an operation (``info``, ``join``, ``start``, ``rematch``, ``record``, ``replay``,
``deal``, ``review_access``) with a JSON body; :func:`on_owner` runs it here without a
cluster, or asks the cluster to run it where the table lives, where :func:`run_here`
runs it from :data:`OPERATIONS`. The routers and the cluster import this module; it
imports neither of them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from burraco.server.room import Room
from burraco.server.table.errors import RoomError

__all__ = ["OPERATIONS", "OnOwner", "on_owner", "run_here", "seat_answer"]

#: Runs an operation on a table where it lives: (table id, operation, body) -> its answer.
OnOwner = Callable[[str, str, dict[str, Any]], Awaitable[Any]]
#: One operation, run on this process: (room, table id, body) -> its answer (JSON).
Operation = Callable[[Room, str, dict[str, Any]], Awaitable[Any]]


def seat_answer(table_id: str, seat: int, token: str) -> dict[str, Any]:
    """What a new seat's holder is told: the table, the seat, its token and the page."""
    return {"table": table_id, "seat": seat, "token": token, "url": f"/table/{table_id}"}


def _user_id(body: dict[str, Any]) -> int | None:
    # The body may have come over Redis: anything but an int is nobody's account.
    user_id = body.get("user_id")
    return user_id if isinstance(user_id, int) else None


async def _info(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return room.table(table_id).info()


async def _join(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    table, seat, token = await room.join(table_id, body, _user_id(body))
    return seat_answer(table.id, seat, token)


async def _start(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return (await room.start(table_id, body["token"], _user_id(body))).info()


async def _rematch(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    room.admit()
    new, offered, offer_token = await room.seats.rematch(
        room.table(table_id),
        str(body.get("token") or ""),
        _user_id(body),
        str(body.get("creator") or ""),
    )
    if offered is None:  # seated there already: the page holds the seat's token
        return {"table": new.id, "seat": None, "token": None, "url": f"/table/{new.id}"}
    return seat_answer(new.id, offered, offer_token)


async def _record(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return room.record(table_id)


async def _replay(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return room.replay(table_id)


async def _deal(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return room.finished_deal(table_id, int(body["number"]))


async def _review_access(room: Room, table_id: str, body: dict[str, Any]) -> Any:
    return room.review_access(
        table_id,
        str(body.get("token") or ""),
        _user_id(body),
        bool(body.get("with_record")),
    )


#: Every operation a process may be asked to run on a table it owns.
OPERATIONS: dict[str, Operation] = {
    "info": _info,
    "join": _join,
    "start": _start,
    "rematch": _rematch,
    "record": _record,
    "replay": _replay,
    "deal": _deal,
    "review_access": _review_access,
}


async def run_here(room: Room, op: str, table_id: str, body: dict[str, Any]) -> Any:
    """Run ``op`` on a table of this process's room; a 400 for an unknown operation."""
    operation = OPERATIONS.get(op)
    if operation is None:
        raise RoomError("bad_message", f"unknown operation {op!r}")
    return await operation(room, table_id, body)


def on_owner(
    room: Room, call: Callable[[str, str, dict[str, Any]], Awaitable[Any]] | None
) -> OnOwner:
    """How a route runs an operation on a table: here (no cluster: ``call`` is None), or
    by ``call`` (``Calls.call``, ``cluster.calls``), which runs it on the table's owner."""

    async def run(table_id: str, op: str, body: dict[str, Any]) -> Any:
        if call is None:
            return await run_here(room, op, table_id, body)
        return await call(table_id, op, body)

    return run
