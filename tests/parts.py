"""What the tests of the room's parts (server/table/) build on: a real store in a
temporary directory, tables dealt by the engine, moves the greedy bot chooses. No server,
no mocks: each test builds the part it tests and the real parts below it, in the order
the room builds them (:func:`step_on`: the step and what it calls); the room's own tests
(its door, its reaping) build a room (:func:`room_in`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event
from waits import seconds

from burraco.bots.arena import make_bot
from burraco.server.door.capacity import Capacity
from burraco.server.door.limits import Limits, Rates
from burraco.server.process.thinking import Thinking
from burraco.server.room import Room
from burraco.server.table.bots import Bots
from burraco.server.table.chat import TableChat
from burraco.server.table.clocks import Clocks
from burraco.server.table.finish import Finisher, Results
from burraco.server.table.live import LiveTable, SeatState, Shared, begin
from burraco.server.table.lobby import Lobby
from burraco.server.table.log import EventLog
from burraco.server.table.pause import Pauser
from burraco.server.table.seats import Seats, hash_token, new_row
from burraco.server.table.spectators import Spectators
from burraco.server.table.step import Step
from burraco.server.table.turns import Turns
from burraco.server.table.views import Views
from burraco.storage import SeatRow, Store
from burraco.variants import variant

#: A short match of two players, two lines, three deals.
OPTIONS: dict[str, Any] = {"players": 2, "deals": 3, "target": None}


def store_in(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'room.db'}")


def room_in(tmp_path: Path, **settings: Any) -> Room:
    """A room on a fresh database whose bots move at once; no server around it."""
    return Room(store_in(tmp_path), **({"bot_delay": 0.0} | settings))


def step_on(
    store: Store,
    *,
    bot_delay: float = 0.0,
    next_deal_seconds: float = 30.0,
    capacity: Capacity | None = None,
    results: Results | None = None,
) -> Step:
    """The step and the parts it calls, built in the room's order: bots that move at
    once (unless ``bot_delay``), no results recorded (unless ``results``)."""
    shared, capacity = Shared(), capacity or Capacity()
    tables: dict[str, LiveTable] = {}
    views = Views()
    pauser = Pauser(next_deal_seconds)
    bots = Bots(tables, capacity, Thinking(None), delay=bot_delay)
    return Step(
        shared,
        EventLog(store, pauser),
        Turns(Thinking(None)),
        pauser,
        Clocks(bots),
        bots,
        views,
        Spectators(shared, capacity, TableChat(store, Rates(Limits()))),
        Finisher(store, results),
    )


def seats_on(step: Step, capacity: Capacity | None = None) -> Seats:
    """The seats part over the step's store and tables."""
    store, tables, capacity = step.log.store, step.bots.tables, capacity or Capacity()
    return Seats(store, tables, capacity, Lobby(store, tables, capacity), step)


async def closed(step: Step) -> None:
    """Stop the timers of the step's tables and write the last group of events, as the
    room does when it stops."""
    step.shared.closing = True
    for table in step.bots.tables.values():
        for task in (table.clock_task, table.bot_task, table.deal_task, table.pause_task):
            if task is not None:
                task.cancel()
    await step.log.group.close()


async def seated(
    where: Step | Room, kinds: tuple[str, ...] = ("human", "human"), **given: Any
) -> tuple[LiveTable, dict[int, str]]:
    """A table started at once with these seats (people's seats have tokens), by the
    seats part over a step or by a room."""
    seats = [(f"Player {i}", kind) for i, kind in enumerate(kinds)]
    options = OPTIONS | {"players": len(kinds)}
    create = where.create_seated if isinstance(where, Room) else seats_on(where).create_seated
    return await create("italian", options, seats, **given)


def dealt(kinds: tuple[str, ...] = ("human", "human"), **row: Any) -> LiveTable:
    """A table in play in memory alone (nothing stored): for the parts that store nothing."""
    v = variant("italian", **(OPTIONS | {"players": len(kinds)}))
    made = new_row(v, OPTIONS, row.pop("move_seconds", 0), "greedy", True)
    seats = [SeatState(f"Player {i}", k, hash_token(f"token-{i}")) for i, k in enumerate(kinds)]
    table = LiveTable(row=made, variant=v, seats=seats)
    begin(table)
    if row:
        import dataclasses

        table.row = dataclasses.replace(table.row, **row)
    return table


def stored(store: Store, kinds: tuple[str, ...] = ("human", "empty")) -> LiveTable:
    """A waiting table created in ``store`` (seat ``i`` of a person has token ``token-i``)."""
    v = variant("italian", **(OPTIONS | {"players": len(kinds)}))
    row = new_row(v, OPTIONS, 0, "greedy", True)
    rows = [
        SeatRow(row.id, i, f"Player {i}" if k != "empty" else "", k, hash_token(f"token-{i}"))
        for i, k in enumerate(kinds)
    ]
    store.create_table(row, rows)
    seats = [SeatState(r.name, r.kind, r.token_hash, r.user_id) for r in rows]
    return LiveTable(row=row, variant=v, seats=seats)


async def until(done: Callable[[], bool], what: str, within: float = 10.0) -> None:
    """Poll ``done`` until it holds, for at most ``within`` seconds (scaled)."""
    deadline = time.time() + seconds(within)
    while not done():
        assert time.time() < deadline, f"waited in vain for {what}"
        await asyncio.sleep(0.01)


def greedy_move(table: LiveTable) -> str:
    """The greedy bot's move for the seat on turn."""
    match = table.match
    assert match is not None
    seat = match.deal.turn
    return str(make_bot("greedy", seed=seat).choose(match.view(seat), match.legal_actions()))


def play_deal(step: Step, table: LiveTable) -> int:
    """Play the deal in play to its end through the step (nothing told); the moves made."""
    match = table.match
    assert match is not None
    ended = len(match.scores)
    moves = 0
    while len(match.scores) == ended and not match.is_over:
        step.apply(table, match.deal.turn, greedy_move(table), table.version, False)
        moves += 1
    return moves


class Socket:
    """A seat's socket as the room sees it: what it was sent, and whether it was closed."""

    def __init__(self) -> None:
        self.heard: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        self.heard.append(message)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.heard if m["type"] == kind]


def _query_only(connection: Any, _record: Any) -> None:
    connection.execute("PRAGMA query_only = ON")


def refuse_writes(store: Store) -> None:
    """The database refuses every write from now on (as a full disk does)."""
    event.listen(store.engine, "connect", _query_only)
    store.engine.dispose()


def accept_writes(store: Store) -> None:
    event.remove(store.engine, "connect", _query_only)
    store.engine.dispose()
