"""The door (server/table/door.py): fresh guests' tables nobody plays at hold a share of
``max_tables`` of their own, so a newcomer gets in (in the place of the oldest such table
nobody has had open for a while) or hears "busy, try again in N s"; accounts with a
history and tables people play at keep the rest."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from parts import Socket, room_in

from burraco.server.door.capacity import Capacity
from burraco.server.room import Room, RoomError
from burraco.server.table.door import Pace
from burraco.server.table.live import LiveTable
from burraco.storage import ResultRow, TableRow

#: Room for four tables, two of them for fresh guests' tables nobody plays at.
CAPACITY = Capacity(max_tables=4, guest_share=0.5, evict_after=30.0)
TABLE = {"variant": "italian", "players": 2, "deals": 1, "name": "Guest"}


def _guest(room: Room, address: str) -> LiveTable:
    return room.create(TABLE, None, f"address-{address}")[0]


def _aged(table: LiveTable, seconds: float) -> None:
    """The table was made (and last opened) ``seconds`` ago."""
    table.row = dataclasses.replace(table.row, created_at=table.row.created_at - seconds)
    table.seen -= seconds


def _with_history(room: Room, name: str) -> int:
    """An account with a finished match."""
    user = room.store.create_user(name, "x")
    old = TableRow(f"t-{name}", "italian", "{}", 1, 0, "greedy", True, "over", 0.0, 0.0)
    room.store.create_table(old)
    fields: dict[str, Any] = dict.fromkeys(ResultRow.__slots__, 0)
    fields.update(table_id=old.id, seat=0, user_id=user.id, name=name, game="italian-2")
    fields.update(outcome="win", abandoned=False, rated=False)
    fields.update(rating_before=None, rating_after=None)
    room.store.save_results([ResultRow(**fields)])
    return user.id


def test_a_newcomer_takes_the_place_of_a_stale_guest_table_or_hears_when_to_try(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=CAPACITY)
        first, second = _guest(room, "1.1.1.1"), _guest(room, "2.2.2.2")
        with pytest.raises(RoomError) as refused:
            _guest(room, "9.9.9.9")
        assert refused.value.code == "busy" and refused.value.status == 503
        assert refused.value.params["seconds"] in range(29, 31)
        assert refused.value.retry_after == refused.value.params["seconds"]
        assert "try again in" in refused.value.message
        # Nobody opened the first for longer than evict_after: the newcomer takes its place.
        _aged(first, 31)
        newcomer = _guest(room, "9.9.9.9")
        assert newcomer.id in room.tables and first.id not in room.tables
        stored = room.store.table(first.id)
        assert stored is not None and stored.status == "expired"
        assert second.id in room.tables
        await room.shutdown()

    asyncio.run(scenario())


def test_accounts_with_a_history_and_tables_people_play_keep_their_share(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=CAPACITY)
        first, _, token = room.create(TABLE, None, "address-1.1.1.1")
        _guest(room, "2.2.2.2")
        # The guests' share is full, but a player with a history still gets in.
        anna = _with_history(room, "Anna")
        made = room.create(TABLE | {"name": "Anna"}, anna, f"user-{anna}")[0]
        assert made.id in room.tables
        # A guest who plays at his table (against a bot, his page open) frees his place in
        # the guests' share: the next newcomer gets in.
        await room.start(first.id, token)
        guest = Socket()
        await room.connect(first, 0, guest.send, guest.close)
        newcomer = _guest(room, "9.9.9.9")
        assert newcomer.id in room.tables and first.id in room.tables
        await room.shutdown()

    asyncio.run(scenario())


def test_a_full_room_refuses_everyone_when_no_fresh_table_may_go(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=CAPACITY)
        ids = [_with_history(room, f"Player{i}") for i in range(5)]
        for user_id in ids[:4]:
            room.create(TABLE, user_id, f"user-{user_id}")
        with pytest.raises(RoomError) as refused:
            room.create(TABLE, ids[4], f"user-{ids[4]}")
        assert refused.value.code == "busy"
        await room.shutdown()

    asyncio.run(scenario())


def test_a_guest_table_a_person_has_open_is_never_taken(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=CAPACITY)
        first, second = _guest(room, "1.1.1.1"), _guest(room, "2.2.2.2")
        anna, bruno = Socket(), Socket()
        await room.connect(first, 0, anna.send, anna.close)
        await room.connect(second, 0, bruno.send, bruno.close)
        _aged(first, 3600)
        _aged(second, 3600)
        with pytest.raises(RoomError) as refused:
            _guest(room, "9.9.9.9")
        assert refused.value.params["seconds"] == 30
        assert first.id in room.tables and second.id in room.tables
        await room.shutdown()

    asyncio.run(scenario())


def test_past_a_burst_new_tables_come_at_a_pace_and_the_others_hear_when() -> None:
    now = [0.0]
    pace = Pace(rate=20.0, burst=2, clock=lambda: now[0])
    pace.admit()
    pace.admit()
    with pytest.raises(RoomError) as refused:
        pace.admit()
    assert refused.value.code == "busy" and refused.value.status == 503
    assert refused.value.params["seconds"] == 1 and "try again in 1 s" in refused.value.message
    now[0] += 1 / 20  # one more turn a twentieth of a second later
    pace.admit()
    with pytest.raises(RoomError):
        pace.admit()
    now[0] += 60  # a quiet minute refills the burst, no more
    pace.admit()
    pace.admit()
    with pytest.raises(RoomError):
        pace.admit()
