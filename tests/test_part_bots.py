"""The bots (server/table/bots.py): the bot of a seat, its pace, when it may take a seat
over, and the move it chooses on its turn (the step plays it: test_part_step.py)."""

from __future__ import annotations

import asyncio

from parts import Socket, dealt

from burraco.server.door.capacity import Capacity
from burraco.server.process.thinking import Thinking
from burraco.server.table.bots import UNSEEN_PACE, Bots
from burraco.server.table.live import LiveTable


def _bots(tables: dict[str, LiveTable], delay: float = 0.5, **capacity: int) -> Bots:
    return Bots(tables, Capacity(**capacity), Thinking(None), delay=delay)


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


def test_the_bot_on_turn_chooses_a_legal_move_for_its_seat() -> None:
    table = dealt(("human", "human"))
    assert table.match is not None
    turn = table.match.deal.turn
    table.seats[turn].taken_over = True
    move = asyncio.run(_bots({}, delay=0.0).turn(table, table.version))
    assert move is not None and move[0] == turn
    assert move[1] in [str(a) for a in table.match.legal_actions()]


def test_a_bot_whose_table_moved_or_whose_seat_was_taken_back_looks_again() -> None:
    table = dealt(("human", "human"))
    assert table.match is not None
    turn = table.match.deal.turn
    bots = _bots({}, delay=0.0)
    table.seats[turn].taken_over = True
    assert asyncio.run(bots.turn(table, table.version - 1)) is None
    table.seats[turn].taken_over = False  # the person plays their own turn
    assert asyncio.run(bots.turn(table, table.version)) is None
