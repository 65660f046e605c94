"""Group commits of the event log: the events that arrive together, one transaction.

Every table's action waits until its event is committed, and a commit costs far more
than an insert: the actions of many tables that arrive while one group is being written
go to the store together, in the next group, one transaction for all of them. The
writing happens on a thread of its own, so the event loop serves the players while the
database works (SQLite and PostgreSQL release the interpreter while they write). A
caller hears of its event only once its group is committed, or why it was not: the
guarantee of :meth:`Store.append_event` ("stored before anyone hears of it"), kept.

>>> import asyncio
>>> from burraco.storage import Store, TableRow
>>> store = Store("sqlite://")
>>> store.create_table(TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "waiting", 0.0, 0.0))
>>> group = GroupCommit(store)
>>> async def two() -> None:
...     rows = [EventRow("t-1", v, "start", None, "{}", 0.0) for v in (1, 2)]
...     await asyncio.gather(*(group.append(row) for row in rows))
...     await group.close()
>>> asyncio.run(two())
>>> [e.version for e in store.events("t-1")], group.groups
([1, 2], 1)
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor

from burraco.storage.store import EventRow, Store

__all__ = ["GroupCommit"]


class GroupCommit:
    """Writes the events handed to :meth:`append` in groups, one transaction a group,
    one group at a time (the next one gathers while the last is written)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        #: Groups committed (or refused) so far: fewer than the events when it pays.
        self.groups = 0
        self._pending: list[tuple[EventRow, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        # One connection shared by every caller (an in-memory SQLite database) must not
        # be used from two threads at once: such a store is written on the loop itself.
        shared = store.url == "sqlite://"
        self._thread = None if shared else ThreadPoolExecutor(1, thread_name_prefix="event-log")

    def append(self, row: EventRow) -> asyncio.Future[None]:
        """Hand one event to the next group: the future is done once its group is
        committed, or fails with :class:`StaleVersion` or :class:`StorageUnavailable`."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._pending.append((row, future))
        if self._writer is None:
            # Started on the loop's next turn: every event handed in this turn joins it.
            self._writer = loop.create_task(self._write())
        return future

    async def _write(self) -> None:
        try:
            while self._pending:
                group, self._pending = self._pending, []
                rows = [row for row, _ in group]
                outcomes: list[Exception | None]
                try:
                    if self._thread is None:
                        outcomes = self.store.append_events(rows)
                    else:
                        loop = asyncio.get_running_loop()
                        outcomes = await loop.run_in_executor(
                            self._thread, self.store.append_events, rows
                        )
                except Exception as error:  # a fault of the store itself: nobody stored
                    outcomes = [error] * len(rows)
                self.groups += 1
                for (_, future), outcome in zip(group, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
        finally:
            self._writer = None

    async def close(self) -> None:
        """Write what is pending, then stop the writing thread."""
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._writer)
        if self._thread is not None:
            self._thread.shutdown(wait=True)
