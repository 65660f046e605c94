"""The end of a match: its record and status stored, the players and listeners told.

Listeners are results, ratings and tournaments; while the database refuses writes the
end is retried, as it follows from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from burraco.server.table.live import LiveTable, Shared, with_row
from burraco.server.table.views import Views, match_over
from burraco.storage import Store
from burraco.storage.store import StorageUnavailable

__all__ = ["Finisher"]

log = logging.getLogger("burraco.room")


class Finisher:
    """Finishes the tables whose match has ended, and tells who listens."""

    def __init__(self, store: Store, shared: Shared, views: Views) -> None:
        self.store = store
        self.shared = shared
        self.views = views
        #: Called with each table whose match has just ended (tournaments listen here).
        self.listeners: list[Callable[[LiveTable], Awaitable[None]]] = []
        #: Tables finished on rebuilding (the process stopped between the last action and
        #: the end of the match): their listeners have not heard of the end yet.
        self.unannounced: list[LiveTable] = []

    def finish(self, table: LiveTable) -> None:
        """Store the record and the status "over"; no clock runs any more. Raises
        :class:`StorageUnavailable` (the table is then unchanged)."""
        from burraco.record import write_record

        assert table.match is not None
        names = [s.name for s in table.seats]
        self.store.save_record(table.id, write_record(table.match, names=names, event=table.id))
        self.store.set_status(table.id, "over")
        table.row = with_row(table.row, status="over")
        table.over_at = time.time()
        table.deadline = None
        table.pause_until = None
        if table.clock_task is not None:
            table.clock_task.cancel()

    async def ended(self, table: LiveTable) -> None:
        """The match has just ended: finish it and tell everyone, or, while the database
        refuses, retry later (the last action is stored: the end follows from the log)."""
        try:
            self.finish(table)
        except StorageUnavailable:
            # The last action is stored: the end follows from the log, now or later.
            self.retry_later(table, self._finish_later(table))
        else:
            await self.announce(table)

    async def announce(self, table: LiveTable) -> None:
        """Tell the players the match is over, then every listener."""
        await self.views.send_all(table, match_over(table))
        await self._tell_listeners(table)

    async def _tell_listeners(self, table: LiveTable) -> None:
        for listener in self.listeners:
            try:
                await listener(table)
            except Exception:
                log.exception("a listener of table %s failed", table.id)

    async def announce_unannounced(self) -> None:
        """Tell the finish listeners of the tables whose match the log alone finished."""
        while self.unannounced:
            await self._tell_listeners(self.unannounced.pop(0))

    async def _finish_later(self, table: LiveTable) -> None:
        while table.status != "over":
            await asyncio.sleep(table.next_backoff())
            with contextlib.suppress(StorageUnavailable):
                self.finish(table)
        table.backoff = 0.0
        await self.announce(table)
        await self.views.broadcast(table)

    def retry_later(self, table: LiveTable, work: Awaitable[None]) -> None:
        """Run ``work`` (which waits its backoff first) as the table's retry task."""
        log.warning("table %s: the database refuses writes; retrying", table.id)
        self.shared.keep(asyncio.ensure_future(work))
