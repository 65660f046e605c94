"""The cyclic garbage collector of a long-running room: what is built at start-up is
frozen, and the whole heap is walked on the room's schedule, not the interpreter's.

A full collection walks every object the collector tracks. A serving process holds tens
of thousands built once at start-up (the modules, the app and its routes, the database's
metadata, the variants) that live as long as the process: freezing them
(:func:`gc.freeze`) takes them out of every later collection's walk. Only what is alive
when the process starts is frozen, once, after a collection: nothing frozen is garbage,
and nothing frozen is let go of before the process ends, so freezing leaks nothing. The
tables are frozen only by the walks below, and thawed by the walk of the whole heap: a
finished table's reference cycles must stay collectable.

What stays is every table's and every socket's objects (a socket holds about two
hundred: the protocol's buffers, each layer of the web framework's stack). The
interpreter walks all of them whenever a quarter as many objects as the oldest generation
holds have been promoted since its last walk; a room promotes a few with every action, so
with 500 tables a walk of 100-180 ms came every few seconds, and the actions that arrived
meanwhile waited behind it. :class:`FullCollections` leaves the young generations to the
interpreter (a few milliseconds each: most garbage dies young) and takes the oldest:

- every ``check`` seconds (1) it walks what came since its last walk, and freezes what
  survives (all of it alive then), so the next walk sees only the objects made since: at
  500 tables and a thousand actions a second, 7-15 ms each;
- every ``every`` seconds (600), or when the process's memory has grown by ``growth``
  (half) since the last walk (a second before: a burst), it thaws the whole heap, walks
  it and freezes it again.

The cyclic garbage of an object that was alive at a walk (a table let go of, a closed
socket) waits for the whole walk to be freed (what reference counting frees goes at once,
as ever); a player meets a walk of the whole heap once in ten minutes.

>>> FullCollections(every=600).every
600
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from burraco.server.process.background import cancel

if TYPE_CHECKING:
    from burraco.server.door.capacity import Capacity

__all__ = ["FullCollections", "freeze_startup", "resident_bytes"]

log = logging.getLogger(__name__)

#: The oldest generation's threshold while a room schedules its walks: never reached.
_NEVER = 1 << 30


def freeze_startup() -> int:
    """Collect, then freeze every object alive now; the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def resident_bytes() -> int | None:
    """The process's resident memory now (Linux's /proc), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


class FullCollections:
    """The whole heap walked every ``every`` seconds, or when the resident memory has
    grown by ``growth`` (a fraction) since the last walk; what came since the last walk,
    every ``check`` seconds; the young generations as the interpreter does. Each walk
    freezes what survives it.

    Every room of the process shares the one collector: the first to :meth:`start`
    takes the oldest generation from the interpreter, the last to :meth:`stop` gives it
    back. ``pauses`` keeps each walk's seconds (the latest 100)."""

    _running = 0
    _saved: tuple[int, int, int] | None = None

    def __init__(
        self,
        every: float = 600.0,
        growth: float = 0.5,
        check: float = 1.0,
        memory: Callable[[], int | None] = resident_bytes,
    ) -> None:
        self.every = every
        self.growth = growth
        self.check = check
        self.memory = memory
        self.pauses: list[float] = []
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, capacity: Capacity) -> FullCollections:
        """The schedule a room's capacity settings give (``full_collection_*``)."""
        return cls(capacity.full_collection_every, capacity.full_collection_growth)

    def start(self) -> None:
        """Take the oldest generation from the interpreter and walk it on this schedule
        (nothing when ``every`` is 0: the interpreter's schedule stays)."""
        if self.every <= 0 or (self._task is not None and not self._task.done()):
            return
        if FullCollections._running == 0:
            FullCollections._saved = gc.get_threshold()
            young, middle, _ = FullCollections._saved
            gc.set_threshold(young, middle, _NEVER)
        FullCollections._running += 1
        self._task = asyncio.get_running_loop().create_task(self._walk_forever())

    async def stop(self) -> None:
        if self._task is None:
            return
        await cancel(self._task)
        self._task = None
        FullCollections._running -= 1
        if FullCollections._running == 0 and FullCollections._saved is not None:
            gc.set_threshold(*FullCollections._saved)
            # What the walks froze is the interpreter's again (a process that made rooms
            # and let them go, as the tests do, would keep their cycles for ever).
            gc.unfreeze()

    def due(self, since: float, base: int | None, now: float, size: int | None) -> bool:
        """Whether a walk is due ``now``: ``every`` seconds after the last one (at
        ``since``), or the memory grown past ``growth`` from ``base``."""
        if now - since >= self.every:
            return True
        return base is not None and size is not None and size > base * (1 + self.growth)

    def walk(self, whole: bool = True) -> float:
        """Walk the heap now, and freeze what survives; the seconds it took (kept in
        :attr:`pauses`). ``whole``: thaw what earlier walks froze and walk it too; else
        only what came since the last walk."""
        began = time.perf_counter()
        if whole:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        took = time.perf_counter() - began
        self.pauses = [*self.pauses[-99:], took]
        log.debug("%s walk: %.1f ms", "whole" if whole else "young", took * 1000)
        return took

    async def _walk_forever(self) -> None:
        since, base = time.monotonic(), self.memory()
        while True:
            await asyncio.sleep(min(self.check, self.every))
            now, size = time.monotonic(), self.memory()
            whole = self.due(since, base, now, size)
            self.walk(whole)
            if whole:
                since = time.monotonic()
            base = self.memory()
