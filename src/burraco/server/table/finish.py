"""The end of a match: its record and status stored, then its results recorded.

The room hands the finisher what records results and ratings (server/results/record.py); other
listeners (tournaments) register in :attr:`Finisher.listeners`. The players hear of the end
from the step's one publish (:meth:`Step.publish`), between the two. While the database
refuses writes the step retries the end, as it follows from the log.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from burraco.server.table.live import LiveTable, with_row
from burraco.storage import Store
from burraco.storage.store import StorageUnavailable

__all__ = ["Finisher", "Results"]

log = logging.getLogger("burraco.room")


#: What records a finished table's results and rates a rated one (server/results/record.py's
#: ``listener``: the room hands it here), retrying while the database refuses.
Results = Callable[[LiveTable], Awaitable[None]]


class Finisher:
    """Finishes the tables whose match has ended, records their results and ratings, and
    tells who listens."""

    def __init__(self, store: Store, results: Results | None = None) -> None:
        self.store = store
        #: Records the results and ratings of each finished table (None: a room that
        #: keeps none, as some tests').
        self.results = results
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

    def loaded(self, table: LiveTable) -> None:
        """A table just rebuilt from its log: if the process stopped between the match's
        last event and its end (the record, the status), the log alone says the match is
        over, so finish it now; its end was never announced, so its results and listeners
        hear of it later (:meth:`announce_unannounced`)."""
        match = table.match
        if match is None or not match.is_over or table.status != "playing":
            return
        with contextlib.suppress(StorageUnavailable):
            self.finish(table)
            self.unannounced.append(table)

    async def tell_listeners(self, table: LiveTable) -> None:
        """The listeners of a match just finished (tournaments), then what records its
        results and ratings (after them, as when the results were one more listener)."""
        told = [*self.listeners, *([self.results] if self.results is not None else [])]
        for listener in told:
            try:
                await listener(table)
            except Exception:
                log.exception("a listener of table %s failed", table.id)

    async def announce_unannounced(self) -> None:
        """Tell the finish listeners of the tables whose match the log alone finished."""
        while self.unannounced:
            await self.tell_listeners(self.unannounced.pop(0))
