"""The room's thinking processes: expert bots and hints search outside the event loop.

A search takes up to a second of one core; run on the event loop it would hold up every
table. So searches go to a small pool of worker processes, with three rules that keep
one table (or one visitor) from taking it over:

* **a queue cap**: at most ``queue`` searches wait or run at once; past it a hint is
  refused as busy and an expert bot plays that move as the greedy bot would;
* **bots first**: hints may take at most ``hint_queue`` of those places, and a waiting
  bot is served before a waiting hint, so people asking for hints never stop the expert
  tables;
* **one at a time per table**: a table has at most one search waiting or running.

The workers are started by a fork server, not forked from the room, so they never hold
the room's listening socket; each one dies with the room, even when the room is killed
with ``kill -9`` (Linux's parent-death signal, and a watchdog thread elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

__all__ = ["Busy", "Thinking", "ThinkingSettings"]

log = logging.getLogger("burraco.thinking")


class Busy(Exception):
    """No place for this search now (the queue is full, or the table has one on its way)."""


@dataclass(frozen=True, slots=True)
class ThinkingSettings:
    """How much thinking the room does at once."""

    #: Worker processes (the event loop keeps the other core of a 2-core machine).
    workers: int = 1
    #: Searches waiting or running at once, for bots and hints together.
    queue: int = 8
    #: Of those, how many hints at most: the rest is kept for the expert bots.
    hint_queue: int = 4


class Thinking:
    """The pool of thinking processes of one room (started at the first search)."""

    def __init__(self, settings: ThinkingSettings | None = None) -> None:
        self.settings = settings or ThinkingSettings()
        self._pool: ProcessPoolExecutor | None = None
        self._pending = 0
        self._hints = 0
        self._tables: set[str] = set()
        self._closed = False
        #: Searches given a worker, and those waiting for one (bots first, then in order).
        self._running = 0
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @property
    def pending(self) -> int:
        return self._pending

    async def think(
        self, table: str, function: Callable[..., Any], *args: Any, hint: bool = False
    ) -> Any:
        """Run ``function(*args)`` in a worker for ``table``; :class:`Busy` if it may not."""
        settings = self.settings
        if self._closed:
            raise Busy("the room is stopping")
        if table in self._tables:
            raise Busy("this table already has a search on its way")
        if self._pending >= settings.queue or (hint and self._hints >= settings.hint_queue):
            raise Busy("the thinking processes are busy")
        self._pending += 1
        self._hints += hint
        self._tables.add(table)
        try:
            await self._take_a_worker(hint)
            try:
                pool = self._ensure_pool()
                return await asyncio.get_running_loop().run_in_executor(pool, function, *args)
            except BrokenProcessPool:
                # A worker died (killed, out of memory): the next search starts a new pool.
                if self._pool is pool:
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                raise Busy("a thinking process stopped; it is being replaced") from None
            finally:
                self._hand_on_the_worker()
        finally:
            self._pending -= 1
            self._hints -= hint
            self._tables.discard(table)

    async def _take_a_worker(self, hint: bool) -> None:
        # The pool's own queue is first come, first served: searches wait here instead,
        # where a bot goes before a hint, and reach the pool only when a worker is free.
        if self._running < max(1, self.settings.workers) and not self._waiting:
            self._running += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (int(hint), next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._hand_on_the_worker()  # it was given a worker just as it was cancelled
            raise

    def _hand_on_the_worker(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._running -= 1

    def _ensure_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = _context()
            self._pool = ProcessPoolExecutor(
                max_workers=max(1, self.settings.workers),
                mp_context=context,
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self, timeout: float = 1.0) -> None:
        """Stop at once: running searches are abandoned and the workers end within
        ``timeout`` seconds (terminated, then killed)."""
        self._closed = True
        # Searches still waiting for a worker end now, as "busy", rather than hang the
        # room's shutdown.
        waiting, self._waiting = self._waiting, []
        for _, _, turn in waiting:
            if not turn.done():
                turn.set_exception(Busy("the room is stopping"))
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        deadline = time.monotonic() + timeout
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()

    def worker_pids(self) -> list[int]:
        """The workers' process ids (for tests and operators)."""
        pool = self._pool
        if pool is None:
            return []
        return [p.pid for p in getattr(pool, "_processes", {}).values() if p.pid]


def _context() -> Any:
    """Workers that do not inherit the room's file descriptors (its listening socket)."""
    if sys.platform.startswith("linux"):
        context = multiprocessing.get_context("forkserver")
        # The fork server imports the searches once; the workers are forked from it.
        context.set_forkserver_preload(["burraco.bots.expert", "burraco.bots.hints"])
        return context
    return multiprocessing.get_context("spawn")


def _worker_start(room_pid: int) -> None:
    """In each worker: end with the room, whatever way the room ends."""
    # A stopping room sends SIGTERM to its workers: end quietly, not with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Searches are background work: the room's event loop, which serves every table,
    # always goes first on a shared core.
    with contextlib.suppress(OSError):
        os.nice(10)
    with contextlib.suppress(Exception):
        import ctypes

        # Linux: SIGKILL when the parent (the fork server, which ends with the room) dies.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    def watch() -> None:
        while True:
            time.sleep(0.5)
            try:
                os.kill(room_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass

    threading.Thread(target=watch, name="watch-room", daemon=True).start()
