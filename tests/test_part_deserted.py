"""Tables nobody is at (server/table/deserted.py): a table in play that no person has
open and where nobody moved for ``deserted_seconds`` ends, whatever its clock, unrated and
nobody's loss; a program still at it hears why; a person at it, or moves, keep it on."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from parts import Socket, greedy_move, room_in, seated, until

from burraco.server.door.capacity import Capacity
from burraco.server.room import RoomError
from burraco.server.table.deserted import nobody_at

IDLE = 600.0


def test_a_table_with_no_clock_whose_players_never_open_it_ends_unrated(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=Capacity(deserted_seconds=IDLE))
        table, _ = await seated(room, rated=True, move_seconds=0)
        started = time.time()
        assert nobody_at(table)
        assert room.reap(now=started + 1) == []
        assert room.reap(now=started + IDLE - 1) == []
        assert room.reap(now=started + IDLE + 2) == [table.id]
        assert table.id not in room.tables
        stored = room.store.table(table.id)
        assert stored is not None and stored.status == "expired"
        # No result: rated for nobody, nobody's loss.
        assert room.store.results(table_id=table.id) == []
        # Asked for again, it stays ended: no move is taken.
        again = room.table(table.id)
        assert again.status == "expired"
        with pytest.raises(RoomError, match="nobody played"):
            await room.act(again, 0, greedy_move(again), again.version)
        await room.shutdown()

    asyncio.run(scenario())


def test_a_program_waiting_for_a_challenger_who_never_comes_is_let_go(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=Capacity(deserted_seconds=IDLE))
        table, _ = await seated(room, move_seconds=0)
        # Seat 1 is a person's bot (a program): at the table, but nobody a table waits for.
        table.seats[1].program = True
        bot = Socket()
        await room.connect(table, 1, bot.send, bot.close)
        started = time.time()
        room.reap(now=started)
        assert room.reap(now=started + IDLE + 1) == [table.id]
        await until(lambda: bot.closed is not None, "the program's socket closed")
        assert bot.heard[-1]["type"] == "error" and bot.heard[-1]["code"] == "over"
        assert bot.heard[-1]["params"] == {"minutes": 10}
        await room.shutdown()

    asyncio.run(scenario())


def test_a_person_at_the_table_or_a_move_keeps_it_in_play(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, capacity=Capacity(deserted_seconds=IDLE))
        table, _ = await seated(room, move_seconds=0)
        anna = Socket()
        await room.connect(table, 0, anna.send, anna.close)
        started = time.time()
        assert room.reap(now=started) == []
        assert room.reap(now=started + 10 * IDLE) == []
        await room.disconnect(table, 0, anna.send)
        assert room.reap(now=started + 10 * IDLE) == []
        # A move (a bot's, a player's from another device) starts the wait again.
        await room.act(table, table.match.deal.turn, greedy_move(table), table.version)  # type: ignore[union-attr]
        assert room.reap(now=started + 11 * IDLE - 1) == []
        assert room.reap(now=started + 12 * IDLE) == [table.id]
        await room.shutdown()

    asyncio.run(scenario())
