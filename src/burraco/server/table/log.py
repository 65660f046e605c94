"""The event log and its storage: each event stored first; a table rebuilt from its log.

Every action is committed before anyone hears of it (the actions of many tables that
arrive together in one transaction: :class:`GroupCommit`); after a restart a table is
its log replayed into a match dealt from the same seed, as it was live.
"""

from __future__ import annotations

import json
import time
from typing import Any

from burraco.server.table.errors import UNAVAILABLE, RoomError
from burraco.server.table.event import apply_event
from burraco.server.table.live import LiveTable, SeatState, with_row
from burraco.server.table.pause import Pauser
from burraco.server.table.spectators import Spectators
from burraco.storage import EventRow, Store, TableRow
from burraco.storage.group import GroupCommit
from burraco.storage.store import StaleVersion, StorageUnavailable
from burraco.variants import variant

__all__ = ["EventLog"]


class EventLog:
    """Appends a table's events to the store, and replays a stored log into a live table."""

    def __init__(self, store: Store, pauser: Pauser) -> None:
        self.store = store
        self.pauser = pauser
        self.group = GroupCommit(store)

    async def commit_event(
        self, table: LiveTable, kind: str, seat: int | None, payload: dict[str, Any]
    ) -> None:
        """:meth:`store_event` in the next group commit, off the event loop: back once
        the group that holds the event is committed. The caller holds the table's lock,
        so nothing else moves the table while it waits."""
        row = EventRow(table.id, table.version + 1, kind, seat, json.dumps(payload), time.time())
        try:
            await self.group.append(row)
        except StaleVersion as error:
            raise RoomError("stale", "another action was stored first") from error
        except Exception as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        table.version += 1
        table.backoff = 0.0

    def store_event(
        self, table: LiveTable, kind: str, seat: int | None, payload: dict[str, Any]
    ) -> None:
        """Append the table's next event and commit it; the table's version moves on.
        Raises :class:`RoomError` ("stale", "unavailable") and the table stays as it was."""
        try:
            self.store.append_event(table.id, table.version + 1, kind, seat, json.dumps(payload))
        except StaleVersion as error:
            raise RoomError("stale", "another action was stored first") from error
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        table.version += 1
        table.backoff = 0.0

    def load(self, row: TableRow) -> LiveTable:
        """The table of ``row`` as its log leaves it: its match replayed, its pause and
        clock where they were (a log that ends the match is finished after:
        :meth:`Finisher.loaded`). Each event is applied as live play applies it
        (:func:`apply_event`). Raises what the engine raises for a log that no longer
        replays."""
        v = variant(row.variant, **json.loads(row.options))
        seats = [
            SeatState(s.name, s.kind, s.token_hash, s.user_id) for s in self.store.seats(row.id)
        ]
        # Loaded (after a restart, say): its people's pages have the idle wait to come back.
        table = LiveTable(row=row, variant=v, seats=seats, seen=time.time())
        last_time = row.updated_at
        #: When the deal that follows a finished one began (the pause is not logged: it
        #: ended at its time, or sooner at the next deal's first action).
        next_start: float | None = None
        ended: int | None = None
        events = self.store.events(row.id)
        # Spectators some moves behind see the table as it was: the latest states again.
        remember = events[-1].version - row.watch_delay - 1 if row.watch_delay and events else None
        for event in events:
            payload = json.loads(event.payload)
            if event.kind == "action" and next_start is not None:
                table.deal_started = min(next_start, event.created_at)
                next_start = None
            ended = apply_event(table, event.version, event.kind, event.seat, payload)
            if event.kind == "start":
                table.deal_started = event.created_at
            if ended is not None:
                next_start = event.created_at + self.pauser.seconds_after(table)
                table.deal_started = next_start
                table.events[-1]["sent"] = True  # told live, or nobody waits for it now
            last_time = event.created_at
            if remember is not None and event.version >= remember and table.row.watchable:
                Spectators.remember(table)
        if row.status in ("over", "expired"):
            # Finished before (a replay reopened, say) or ended as nobody was at it
            # (deserted.py): replaying its start made it "playing" again, but its end is
            # stored already; finishing it again would restamp its finish time (the
            # history's) and tell its listeners a second time.
            table.row = with_row(table.row, status=row.status)
            table.over_at = time.time()
        if table.status == "playing" and ended is not None and next_start is not None:
            # The log ends with the end of a deal: its pause goes on, or is over.
            if next_start > time.time():
                table.pause_until = next_start
            last_time = next_start
        if table.status == "playing" and table.row.move_seconds and table.pause_until is None:
            table.deadline = last_time + table.row.move_seconds
        return table
