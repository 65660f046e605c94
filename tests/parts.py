"""What the tests of the room's parts (server/table/) build on: a real store in a
temporary directory, tables dealt by the engine, moves the greedy bot chooses. No server,
no mocks: the parts are wired as the room wires them, or given by hand what they call."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event
from waits import seconds

from burraco.bots.arena import make_bot
from burraco.server.room import Room
from burraco.server.table.live import LiveTable, SeatState, begin
from burraco.server.table.seats import hash_token, new_row
from burraco.server.table.turns import Turns
from burraco.storage import SeatRow, Store
from burraco.variants import variant

#: A short match of two players, two lines, three deals.
OPTIONS: dict[str, Any] = {"players": 2, "deals": 3, "target": None}


def store_in(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'room.db'}")


def room_in(tmp_path: Path, **settings: Any) -> Room:
    """A room on a fresh database whose bots move at once; no server around it."""
    return Room(store_in(tmp_path), **({"bot_delay": 0.0} | settings))


async def seated(
    room: Room, kinds: tuple[str, ...] = ("human", "human"), **given: Any
) -> tuple[LiveTable, dict[int, str]]:
    """A table started at once with these seats (people's seats have tokens)."""
    seats = [(f"Player {i}", kind) for i, kind in enumerate(kinds)]
    options = OPTIONS | {"players": len(kinds)}
    return await room.create_seated("italian", options, seats, **given)


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


def play_deal(turns: Turns, table: LiveTable) -> int:
    """Play the deal in play to its end through the turn (nothing told); the moves made."""
    match = table.match
    assert match is not None
    ended = len(match.scores)
    moves = 0
    while len(match.scores) == ended and not match.is_over:
        turns.apply(table, match.deal.turn, greedy_move(table), table.version, False)
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
