"""How much one room process takes on, and how it says "busy" instead of slowing down.

The room serves every table from one event loop. A visitor who opens thousands of
sockets or tables, or a crowd that outgrows the machine, would otherwise slow every
table at once. So the room caps what any one seat holds, keeps only live tables in
memory, and when the loop falls behind (or a hard cap is reached) turns *new* visitors
away with a clear "busy" answer, while the players already seated play on.

>>> Capacity().sockets_per_seat
4
>>> Capacity.from_env({"BURRACO_MAX_TABLES": "50"}).max_tables
50
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from burraco.server.process.background import cancel

__all__ = ["BUSY", "Capacity", "LoopLag", "from_env"]

T = TypeVar("T")

#: What a visitor turned away hears.
BUSY = "the room is full right now: try again in a minute (the tables in play go on)"


@dataclass(frozen=True, slots=True)
class Capacity:
    """The room's capacity settings (``burraco serve`` options, or ``BURRACO_*`` variables).

    The defaults suit this project's reference machine (2 cores): a club evening of a few
    hundred tables is far below them; a script that floods the room meets them."""

    #: Sockets open at once on one seat; a new one replaces the oldest (a reload, a phone).
    sockets_per_seat: int = 4
    #: Sockets open at once in the process. A seat's socket is admitted past it (the
    #: newest spectators are closed to make room); a spectator's is told "busy".
    max_sockets: int = 5000
    #: Tables in memory (waiting or playing); past it, new tables are refused as "busy".
    max_tables: int = 2000
    #: Spectators watching one table at once; past it, a new one is told the table is full.
    max_watchers: int = 500
    #: Spectators' sockets one address holds open at once (a club behind one address
    #: watches a few tables; a script opening hundreds meets it).
    watchers_per_address: int = 20
    #: Tables played by bots alone at once: bot seats, and people's seats a bot took over
    #: (a tournament's bot lines, a table its people left). Past it no seat is taken over
    #: by a bot where that would leave bots alone at the table.
    max_bot_tables: int = 100
    #: Open tables (waiting or playing) one creator holds at once: a registered player's
    #: account, a guest's address.
    tables_per_creator: int = 3
    #: The share of ``max_tables`` the tables of fresh creators (guests, accounts with no
    #: finished match) that no person plays at may hold; the rest stays for the tables
    #: people play at, accounts with a history and tournaments (table/door.py).
    guest_share: float = 0.5
    #: Seconds a fresh table nobody has open is kept from a newcomer who needs its place.
    evict_after: float = 30.0
    #: New tables made or started a second, after a first burst: past them a request hears
    #: "busy, try again in N s", so a burst of creations does not take the event loop
    #: from the tables in play (table/door.py; 0: no pace).
    new_tables_per_second: float = 20.0
    new_tables_burst: float = 20.0
    #: Rated matches between the same two opponents in 24 hours; past it their tables play
    #: unrated, and say so (server/results/fairplay.py; a negative number: no cap).
    rated_pair_cap: int = 5
    #: HTTP requests (and spectators' sockets until their first message) in the room at
    #: once, and how many more may wait their turn at the door before the newest is told
    #: "busy": a flood waits outside instead of standing between the players and their
    #: moves (burraco.server.door.turnstile). A seat's socket never waits.
    requests_inside: int = 6
    requests_waiting: int = 1000
    #: Seconds the event loop may fall behind before new visitors are told "busy".
    busy_lag: float = 0.25
    #: Threads hashing passwords (Argon2, off the event loop), and hashes that may wait
    #: for one; past that a login or sign-up is told "busy" (503, Retry-After). One thread
    #: leaves the other core to the tables.
    hash_threads: int = 1
    hash_queue: int = 32
    #: Seconds a finished match stays in memory after its end (and as long as a socket is
    #: open on it: its players read the score sheet); it stays in the database for ever,
    #: and loads again on demand. Short: what the collector walks grows with it.
    finished_linger: float = 60.0
    #: Seconds a table may wait for its players before it leaves the lobby ("expired").
    waiting_expiry: float = 6 * 3600.0
    #: Seconds a waiting table stays with none of its seats open (since it was created,
    #: or since its last socket closed) before it expires.
    waiting_idle: float = 180.0
    #: Seconds a table in play may stand with no person's socket open and no move made
    #: before it ends, unrated and nobody's loss, whatever its clock (table/deserted.py).
    deserted_seconds: float = 600.0
    #: Tables in one page of the lobby, and the most a page may ask for.
    lobby_page: int = 50
    lobby_page_max: int = 200
    #: Seconds the lobby's list is kept before it is built again.
    lobby_cache: float = 1.0
    #: Seconds between two walks of the whole heap by the cyclic garbage collector, and
    #: the growth of the process's memory (a fraction) that brings one sooner
    #: (burraco.server.process.collector); 0 leaves the collector's schedule to the interpreter.
    full_collection_every: float = 600.0
    full_collection_growth: float = 0.5

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Capacity:
        """Defaults overridden by ``BURRACO_<FIELD>`` variables (``BURRACO_MAX_TABLES=500``)."""
        return from_env(cls, environ)


def from_env(cls: type[T], environ: Mapping[str, str] | None = None) -> T:
    """The settings ``cls()`` with each field overridden by its ``BURRACO_<FIELD>``
    variable, read as the field's type (int, float or str)."""
    environ = os.environ if environ is None else environ
    changes: dict[str, object] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        raw = environ.get(f"BURRACO_{field.name.upper()}")
        if raw is not None:
            kind = {"int": int, "float": float}.get(str(field.type), str)
            try:
                changes[field.name] = kind(raw)
            except ValueError:
                name = f"BURRACO_{field.name.upper()}"
                raise ValueError(f"{name}={raw!r} is not {kind.__name__}") from None
    return dataclasses.replace(cls(), **changes)  # type: ignore[type-var]


class LoopLag:
    """How far the event loop falls behind: a task that asks to sleep ``period`` seconds
    and measures how late it wakes up. ``lag`` is the latest measure, smoothed a little
    so that one slow moment does not turn visitors away."""

    def __init__(self, period: float = 0.05) -> None:
        self.period = period
        self.lag = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch())

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None

    async def _watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.period)
            late = max(0.0, time.perf_counter() - before - self.period)
            # A quick rise, a slower fall: "busy" ends once the loop keeps up again.
            self.lag = late if late > self.lag else 0.8 * self.lag + 0.2 * late
