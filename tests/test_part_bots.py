"""The bots (server/table/bots.py): the bot of a seat, its pace, when it may take a seat
over, and its turn played through the turn like anyone's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from parts import Socket, dealt, room_in, seated

from burraco.server.capacity import Capacity
from burraco.server.table.bots import UNSEEN_PACE, Bots
from burraco.server.table.live import LiveTable, Shared
from burraco.server.thinking import Thinking


def _bots(tables: dict[str, LiveTable], **capacity: int) -> Bots:
    return Bots(Shared(), tables, Capacity(**capacity), Thinking(None), delay=0.5)


def test_a_seats_bot_is_kept_and_seeded_by_the_table_and_the_seat() -> None:
    table = dealt(("bot", "bot"))
    assert table.match is not None
    bots = _bots({})
    assert bots.bot(table, 0) is bots.bot(table, 0)
    turn = table.match.deal.turn
    view, legal = table.match.view(turn), table.match.legal_actions()
    again = _bots({})
    twin = dealt(("bot", "bot"))
    twin.row = table.row
    assert bots.bot(table, turn).choose(view, legal) == again.bot(twin, turn).choose(view, legal)


def test_bots_nobody_follows_play_slower() -> None:
    table = dealt(("bot", "bot"))
    bots = _bots({})
    assert bots.pace(table) == 0.5 * UNSEEN_PACE
    table.seats[0].connections.append(Socket().send)
    assert bots.pace(table) == 0.5


def test_a_bot_takes_over_while_a_person_plays_or_bot_tables_are_few() -> None:
    alone = dealt(("human", "bot"))
    tables = {alone.id: alone}
    assert _bots(tables, max_bot_tables=0).may_take_over(alone, 1)  # the person plays on
    assert _bots(tables, max_bot_tables=1).may_take_over(alone, 0)
    other = dealt(("bot", "bot"))
    tables[other.id] = other
    assert _bots(tables).bot_tables() == 1
    assert not _bots(tables, max_bot_tables=1).may_take_over(alone, 0)
    alone.seats[0].taken_over = True
    assert _bots(tables).bot_tables() == 2


def test_the_bot_on_turn_plays_through_the_turn_and_is_logged_as_a_bot(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, ("human", "human"))
        assert table.match is not None
        turn, version = table.match.deal.turn, table.version
        table.seats[turn].taken_over = True
        await room.bots.turn(table, version)
        assert table.version == version + 1 and table.turns.of(turn).bot == 1
        assert json.loads(room.store.events(table.id)[-1].payload)["bot"] is True
        await room.shutdown()

    asyncio.run(scenario())


def test_a_bot_whose_table_moved_meanwhile_does_not_play(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, ("human", "human"))
        assert table.match is not None
        table.seats[table.match.deal.turn].taken_over = True
        version = table.version
        await room.bots.turn(table, version - 1)
        assert table.version == version
        await room.shutdown()

    asyncio.run(scenario())
