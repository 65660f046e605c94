"""The clocks (server/table/clocks.py): the move clock's deadline, what its end means (a bot
takes over, or the player abandons), and what a table wakes after a change. What the step
does at a clock's end: test_part_step.py."""

from __future__ import annotations

import asyncio
import time

from parts import dealt

from burraco.server.door.capacity import Capacity
from burraco.server.process.thinking import Thinking
from burraco.server.table.bots import Bots
from burraco.server.table.clocks import Clocks, Wakes, wakes
from burraco.server.table.live import LiveTable


def test_the_move_clock_runs_only_with_seconds_in_a_deal_in_play() -> None:
    from burraco.server.table.pause import move_deadline

    assert move_deadline(dealt(), 1000.0) is None  # no move clock at this table
    table = dealt(move_seconds=30)
    assert move_deadline(table, 1000.0) == 1030.0
    table.pause_until = 2000.0
    assert move_deadline(table, 1000.0) is None  # between two deals no clock runs


def test_a_person_away_on_turn_is_waited_for_before_the_clock_runs() -> None:
    from burraco.server.table.pause import move_deadline

    table = dealt(move_seconds=30)
    assert table.match is not None
    table.unseen = {table.match.deal.turn}
    table.absent_until = 1500.0
    assert move_deadline(table, 1000.0) == 1530.0
    table.unseen = set()
    assert move_deadline(table, 1000.0) == 1030.0


def _clocks(tables: dict[str, LiveTable], **capacity: int) -> Clocks:
    return Clocks(Bots(tables, Capacity(**capacity), Thinking(None), delay=0.0))


def test_at_the_clocks_end_a_bot_takes_the_seat_over_or_the_player_abandons() -> None:
    table = dealt(("human", "human"))
    assert table.match is not None
    turn = table.match.deal.turn
    table.deadline = time.time()
    assert asyncio.run(_clocks({}).move_clock(table, table.version)) == ("takeover", turn)
    # Bots alone at the table, and the room plays its most tables of bots alone already.
    table.seats[1 - turn].taken_over = True
    full = _clocks({table.id: table}, max_bot_tables=0)
    assert asyncio.run(full.move_clock(table, table.version)) == ("abandon", turn)
    without = dealt(("human", "human"), takeover=False)  # a tournament's table
    without.deadline = time.time()
    assert asyncio.run(_clocks({}).move_clock(without, without.version))[0] == "abandon"


def test_a_clock_of_a_table_moved_on_meanwhile_ends_in_nothing() -> None:
    table = dealt(("human", "human"), move_seconds=60)
    table.deadline = time.time()
    assert asyncio.run(_clocks({}).move_clock(table, table.version - 1)) is None
    table.deadline = None  # no clock runs
    assert asyncio.run(_clocks({}).move_clock(table, table.version)) is None


def test_after_a_change_the_table_wakes_its_bot_its_clocks_or_its_pause() -> None:
    table = dealt(("human", "human"), move_seconds=60, deal_seconds=600)
    assert table.match is not None
    turn = table.match.deal.turn
    table.deadline = time.time() + 60
    assert wakes(table, closing=False) == Wakes(move_clock=True, deal_clock=1)
    table.deal_clocked = 1  # its deal clock runs already
    table.seats[turn].taken_over = True
    assert wakes(table, closing=False) == Wakes(bot=True)
    table.pause_until = time.time() + 30
    assert wakes(table, closing=False) == Wakes(countdown=True)
    assert wakes(table, closing=True) == Wakes()  # the room stops: nothing starts
