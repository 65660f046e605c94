"""The door: which tables leave memory (reaping), and who may bring a new table in.

Reaping lets go of finished tables after a while, of waiting tables nobody has open, and
ends the tables in play nobody is at (deserted.py); they all stay in the database.

``capacity.max_tables`` is shared so that a flood of fresh guests cannot keep people out.
The tables of *fresh* creators (guests, and accounts with no finished match yet) that no
person plays at (waiting, or in play with nobody at them) hold at most
``capacity.guest_share`` of it; the rest stays for the tables people play at, accounts
with a history and tournaments. When a share is full, a newcomer's table takes the place
of the oldest fresh table nobody has had open for ``capacity.evict_after`` seconds (which
goes as a waiting table nobody opened goes, or as a deserted one ends: unrated, nobody's
loss); with none such, the newcomer hears "busy, try again in N s", N the seconds until
one is.

New tables come in at a pace (:class:`Pace`): past a burst of creations (a script making
hundreds of tables at once) a creator hears "busy, try again in N s", so the tables come
in a few each second instead of taking the event loop from the tables in play at once.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable

from burraco.server.door.capacity import Capacity
from burraco.server.table.deserted import Deserted, nobody_at
from burraco.server.table.errors import RoomError
from burraco.server.table.live import LiveTable, Shared
from burraco.storage import Store
from burraco.storage.store import StorageUnavailable

__all__ = ["BUSY_WAIT", "Door", "Pace"]

#: What a creator hears when the share of their tables is full, N the seconds to wait.
BUSY_WAIT = "the room is full right now: try again in {seconds} s (the tables in play go on)"


def busy_for(seconds: float) -> RoomError:
    """The "busy" refusal (503) of a new table, saying in how many seconds to try again."""
    whole = max(1, math.ceil(seconds))
    return RoomError(
        "busy", BUSY_WAIT.format(seconds=whole), 503, retry_after=whole, params={"seconds": whole}
    )


class Pace:
    """New tables (made or started) at most ``rate`` a second after a first ``burst``: a
    token bucket. Past it a request hears "busy, try again in N s" at once: it must not
    wait inside the room, where it would hold one of the turnstile's places (a request
    waiting there keeps the others out)."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.last = clock()

    def admit(self) -> None:
        """Take a turn, or raise the "busy" RoomError saying when one is free."""
        if self.rate <= 0:
            return
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            raise busy_for((1 - self.tokens) / self.rate)
        self.tokens -= 1


class Door:
    """Reaping and the shares of ``max_tables``; ``pending`` counts the tables still loading
    after a restart (they hold their place)."""

    def __init__(
        self,
        store: Store,
        tables: dict[str, LiveTable],
        capacity: Capacity,
        shared: Shared,
        changed: Callable[[], None],
        pending: Callable[[], int] = lambda: 0,
    ) -> None:
        self.store = store
        self.tables = tables
        self.capacity = capacity
        self.changed = changed
        self.pending = pending
        self.deserted = Deserted(store, shared, capacity)
        #: The tables fresh creators made (guests, accounts with no finished match).
        self.fresh: set[str] = set()
        #: The accounts seen at the door with a finished match.
        self.history: set[int] = set()
        #: The pace new tables come in at.
        self.pace = Pace(capacity.new_tables_per_second, capacity.new_tables_burst)

    # --- reaping --------------------------------------------------------------------------

    def reap(self, now: float) -> list[str]:
        """Let go of finished tables after a while, of tables nobody started and of tables
        in play nobody is at; the ids let go of."""
        gone = []
        for table in list(self.tables.values()):
            if self.deserted.due(table, now):
                if self.deserted.end(table):
                    gone.append(table.id)
                continue
            if any(s.connections for s in table.seats) or table.watchers:
                continue
            if table.status == "over" and now - table.over_at >= self.capacity.finished_linger:
                gone.append(table.id)
            elif (
                table.status == "waiting"
                and not table.row.tournament
                and (
                    now - table.row.created_at >= self.capacity.waiting_expiry
                    # Nobody has it open: a visitor who made it and left, or a script.
                    or now - self._idle_since(table) >= self.capacity.waiting_idle
                )
            ):
                with contextlib.suppress(StorageUnavailable):
                    self.store.set_status(table.id, "expired")
                    gone.append(table.id)
        self._let_go(gone)
        return gone

    def _let_go(self, gone: list[str]) -> None:
        for table_id in gone:
            self.tables.pop(table_id, None)
            self.fresh.discard(table_id)
        if gone:
            self.changed()

    @staticmethod
    def _idle_since(table: LiveTable) -> float:
        return max(table.row.created_at, table.seen)

    # --- the shares of max_tables ---------------------------------------------------------

    def is_fresh(self, user_id: int | None) -> bool:
        """A guest, or an account with no finished match (asked once an account has one)."""
        if user_id is None:
            return True
        if user_id in self.history:
            return False
        if self.store.results(user_id=user_id, limit=1):
            self.history.add(user_id)
            return False
        return True

    def made(self, table: LiveTable, fresh: bool) -> None:
        """A new table came in (``fresh``: its creator is)."""
        if fresh:
            self.fresh.add(table.id)

    def _held(self) -> list[LiveTable]:
        """The fresh tables in memory nobody plays at: waiting, or in play nobody is at."""
        held = []
        for table_id in list(self.fresh):
            table = self.tables.get(table_id)
            if table is None or table.status not in ("waiting", "playing"):
                self.fresh.discard(table_id)
            elif table.status == "waiting" or nobody_at(table):
                held.append(table)
        return held

    def admit(self, fresh: bool, now: float) -> None:
        """Let a new table in, making room if its share is full; else a "busy" RoomError
        (503) saying in how many seconds to try again."""
        share = max(1, math.floor(self.capacity.max_tables * self.capacity.guest_share))
        held = self._held() if fresh or self._full() else []
        if not self._full() and not (fresh and len(held) >= share):
            return
        # The oldest fresh table nobody has had open for a while makes room.
        closed = [t for t in held if not any(s.connections for s in t.seats)]
        closed.sort(key=self._idle_since)
        if closed and now - self._idle_since(closed[0]) >= self.capacity.evict_after:
            self._evict(closed[0])
            return
        wait = self.capacity.evict_after
        if closed:
            wait = self._idle_since(closed[0]) + self.capacity.evict_after - now
        raise busy_for(wait)

    def _full(self) -> bool:
        return len(self.tables) + self.pending() >= self.capacity.max_tables

    def _evict(self, table: LiveTable) -> None:
        if table.status == "playing":
            ended = self.deserted.end(table)
        else:
            try:
                self.store.set_status(table.id, "expired")
                ended = True
            except StorageUnavailable:
                ended = False
        if ended:
            self._let_go([table.id])
