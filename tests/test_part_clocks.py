"""The clocks (server/table/clocks.py): the move clock's deadline, what its end does (a bot
takes over, or the player abandons), and the deal clock's time-out."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from parts import dealt, room_in, seated, until


def test_the_move_clock_runs_only_with_seconds_in_a_deal_in_play() -> None:
    from burraco.server.table.clocks import move_deadline

    assert move_deadline(dealt(), 1000.0) is None  # no move clock at this table
    table = dealt(move_seconds=30)
    assert move_deadline(table, 1000.0) == 1030.0
    table.pause_until = 2000.0
    assert move_deadline(table, 1000.0) is None  # between two deals no clock runs


def test_a_person_away_on_turn_is_waited_for_before_the_clock_runs() -> None:
    from burraco.server.table.clocks import move_deadline

    table = dealt(move_seconds=30)
    assert table.match is not None
    table.unseen = {table.match.deal.turn}
    table.absent_until = 1500.0
    assert move_deadline(table, 1000.0) == 1530.0
    table.unseen = set()
    assert move_deadline(table, 1000.0) == 1030.0


def test_at_the_clocks_end_a_bot_takes_the_seat_over(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, ("human", "bot"))
        assert table.match is not None
        match = table.match
        await until(lambda: match.deal.turn == 0, "the bot's turn played")
        table.deadline = time.time()
        version = table.version
        await room.clocks.move_clock(table, version)
        assert table.seats[0].taken_over
        await until(lambda: table.version > version, "the bot playing the person's turn")
        await room.shutdown()

    asyncio.run(scenario())


def test_at_a_tournaments_clock_end_the_player_abandons(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, move_seconds=60, tournament="t:1:1")
        assert table.match is not None and not table.row.takeover
        turn = table.match.deal.turn
        table.deadline = time.time()
        await room.clocks.move_clock(table, table.version)
        assert table.match.is_over and table.match.abandoned_by == turn
        assert table.status == "over"
        await room.shutdown()

    asyncio.run(scenario())


def test_a_clock_of_a_table_moved_on_meanwhile_does_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, move_seconds=60)
        table.deadline = time.time()
        await room.clocks.move_clock(table, table.version - 1)
        assert table.status == "playing" and not any(s.taken_over for s in table.seats)
        await room.shutdown()

    asyncio.run(scenario())


def test_the_deal_clocks_end_calls_the_time_out_and_stores_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, deal_seconds=600, tournament="t:1:1")
        assert table.match is not None
        table.deal_started = time.time() - 600
        await room.clocks.deal_clock(table, 1)
        assert table.match.deal.timeout_turns >= 0
        assert table.events[-1]["action"] == "time-out"
        assert room.store.events(table.id)[-1].kind == "time-out"
        await room.shutdown()

    asyncio.run(scenario())
