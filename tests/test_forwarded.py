"""The operations a route asks of a table's owner (server/cluster/forwarded.py), run on a real
room without a server: each named in the table runs here, an unknown one is refused, and
with a cluster's call every operation goes through it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from parts import room_in

from burraco.server.cluster.forwarded import OPERATIONS, on_owner, run_here
from burraco.server.room import RoomError

TABLE = {"variant": "italian", "players": 2, "name": "Anna"}


def test_join_and_info_run_here_and_answer_as_the_routes_did(tmp_path: Path) -> None:
    room = room_in(tmp_path)
    table, _, _ = room.create(TABLE)

    async def scenario() -> tuple[Any, Any]:
        joined = await run_here(room, "join", table.id, {"name": "Bruno", "user_id": "7"})
        return joined, await run_here(room, "info", table.id, {})

    joined, info = asyncio.run(scenario())
    assert joined["table"] == table.id and joined["seat"] == 1
    assert joined["url"] == f"/table/{table.id}" and joined["token"]
    # A user id that is no int (it may come over Redis) is nobody's account.
    assert table.seats[1].user_id is None
    assert info == table.info()
    assert [s["name"] for s in info["seats"]][:2] == ["Anna", "Bruno"]


def test_an_unknown_operation_is_refused_naming_it(tmp_path: Path) -> None:
    room = room_in(tmp_path)
    table, _, _ = room.create(TABLE)
    with pytest.raises(RoomError) as refused:
        asyncio.run(run_here(room, "drop_table", table.id, {}))
    assert refused.value.code == "bad_message" and refused.value.status == 400
    assert "'drop_table'" in refused.value.message
    assert table.id in room.tables  # nothing changed


def test_every_route_operation_is_in_the_table() -> None:
    asked = {"info", "join", "start", "rematch", "record", "replay", "deal", "review_access"}
    assert set(OPERATIONS) == asked


def test_on_owner_runs_here_alone_and_through_the_cluster_with_one(tmp_path: Path) -> None:
    room = room_in(tmp_path)
    table, _, _ = room.create(TABLE)
    calls: list[tuple[str, str, dict[str, Any]]] = []

    async def cluster_call(table_id: str, op: str, body: dict[str, Any]) -> Any:
        calls.append((table_id, op, body))  # the owner's answer, as Calls.call gives it
        return await run_here(room, op, table_id, body)

    here = asyncio.run(on_owner(room, None)(table.id, "info", {}))
    through = asyncio.run(on_owner(room, cluster_call)(table.id, "info", {}))
    assert here == through == table.info()
    assert calls == [(table.id, "info", {})]
