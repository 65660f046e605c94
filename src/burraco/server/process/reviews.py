"""The room's reviews of deals: a bounded pool of low-priority worker processes.

A review (:mod:`burraco.bots.review`) is search, seconds of CPU: it never runs on the
event loop. Requests wait in one queue per table and the pool takes them in turn from
table to table (a table that asks for ten reviews does not hold back the next table's
one); at most ``queue`` wait in all and ``per_person`` of one person's are waiting or
running. The workers are separate processes started as the thinking pool's are (from a
fork server, ending with the room), niced (``os.nice``) further so that the tables'
turns, bots and hints always come first, ``workers`` of them (one by default). A finished
review is stored (``Store.save_review``); a deal's seat is reviewed once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from burraco.server.process.background import cancel
from burraco.server.process.thinking import _context, _worker_start
from burraco.server.table.errors import RoomError
from burraco.storage import ReviewRow, Store

__all__ = ["Job", "ReviewPool", "ReviewSettings"]

QUEUED: Final = "queued"
RUNNING: Final = "running"
DONE: Final = "done"
FAILED: Final = "failed"


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """The pool's bounds and a review's budget (docs/operating.md)."""

    #: Worker processes (each reviews one deal's seat at a time).
    workers: int = 1
    #: Reviews waiting, over every table, beyond which a request is refused (busy).
    queue: int = 20
    #: Reviews of one person (an account, or an address) waiting or running at once.
    per_person: int = 2
    #: Sampling time of one decision, and its most sampled deals.
    seconds: float = 0.3
    worlds: int = 64
    #: How much lower than the room the workers run (os.nice's increment).
    nice: int = 19

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ReviewSettings:
        """Defaults overridden by ``BURRACO_REVIEW_<FIELD>`` variables
        (``BURRACO_REVIEW_WORKERS=2``).

        >>> ReviewSettings.from_env({"BURRACO_REVIEW_SECONDS": "1.5"}).seconds
        1.5
        """
        environ = os.environ if environ is None else environ
        changes: dict[str, Any] = {}
        for f in fields(cls):
            name = f"BURRACO_REVIEW_{f.name.upper()}"
            raw = environ.get(name)
            if raw is None:
                continue
            kind = float if f.type == "float" else int
            try:
                changes[f.name] = kind(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not {kind.__name__}") from None
        settings = replace(cls(), **changes)
        if settings.workers < 1 or settings.queue < 0 or settings.per_person < 1:
            raise ValueError("the reviews need a worker, a queue and one review a person at least")
        return settings


@dataclass(slots=True)
class Job:
    """One requested review, from the queue to its stored result."""

    id: int
    table_id: str
    deal: int
    seat: int
    person: str
    record: str
    status: str = QUEUED
    done: int = 0
    total: int = 0
    error: str = ""
    created: float = field(default_factory=time.time)

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "deal": self.deal,
            "seat": self.seat,
            "status": self.status,
            "done": self.done,
            "total": self.total,
            "error": self.error,
        }


# --- in the worker processes -------------------------------------------------------------------

_PROGRESS: Any = None
#: The niceness the thinking pool's start gives its workers (server/process/thinking.py).
_THINKING_NICE: Final = 10


def _start_worker(progress: Any, nice: int, room_pid: int) -> None:
    """A worker's start: as the thinking pool's workers (nice 10, ending with the room
    however it ends), then lower still, to ``nice`` in all and the idle scheduling class;
    keep the progress queue."""
    global _PROGRESS
    _PROGRESS = progress
    _worker_start(room_pid)
    with contextlib.suppress(OSError):
        os.nice(max(0, nice - _THINKING_NICE))
    # Linux: run only on a core nothing else wants (SCHED_IDLE), below even nice 19.
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _review(job_id: int, record: str, deal: int, seat: int, seconds: float, worlds: int) -> str:
    """Review one deal's seat (in a worker process); its JSON."""
    from burraco.bots.review import review_deal
    from burraco.record import read_record

    def progress(done: int, total: int) -> None:
        if _PROGRESS is not None:
            _PROGRESS.put((job_id, done, total))

    review = review_deal(
        read_record(record),
        deal,
        seat,
        seconds=seconds,
        worlds=worlds,
        # The table's own seed would do; a fixed one keeps a review repeatable.
        seed=0,
        progress=progress,
    )
    return review.to_json()


# --- in the room -------------------------------------------------------------------------------


class ReviewPool:
    """The queue of requested reviews and the processes that run them."""

    #: Seconds a table's stored reviews are read from memory (another process of a
    #: cluster may store one meanwhile: it shows this much later), and tables kept so.
    CACHED = 2.0
    CACHE_TABLES = 256

    def __init__(self, store: Store, settings: ReviewSettings | None = None) -> None:
        self.store = store
        self.settings = settings or ReviewSettings()
        self._ids = itertools.count(1)
        #: Waiting jobs, one queue per table, the tables in the order they are served.
        self._waiting: OrderedDict[str, deque[Job]] = OrderedDict()
        #: Every job not yet stored, and the failed ones (by table, deal, seat).
        self._jobs: dict[tuple[str, int, int], Job] = {}
        self._running = 0
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._executor: ProcessPoolExecutor | None = None
        self._progress: Any = None
        self._reader: threading.Thread | None = None
        self._by_id: dict[int, Job] = {}
        #: The clock of the cache of stored reviews (a test's own).
        self.clock: Callable[[], float] = time.monotonic
        #: Each table's stored reviews as last read, and when (:meth:`stored`).
        self._stored: OrderedDict[str, tuple[float, list[tuple[int, int, dict[str, Any]]]]] = (
            OrderedDict()
        )

    # --- requests ---------------------------------------------------------------------------

    def submit(self, table_id: str, record: str, deal: int, seat: int, person: str) -> Job:
        """Queue a review of ``seat`` in deal ``deal`` (the caller checked who may); the job
        already asked for, or stored, when there is one."""
        key = (table_id, deal, seat)
        job = self._jobs.get(key)
        if job is not None and job.status != FAILED:
            return job
        if any(r.deal == deal and r.seat == seat for r in self.store.reviews(table_id)):
            return Job(0, table_id, deal, seat, person, "", DONE)
        self._make_room(person)
        job = Job(next(self._ids), table_id, deal, seat, person, record)
        self._jobs[key] = job
        self._by_id[job.id] = job
        self._waiting.setdefault(table_id, deque()).append(job)
        self._start()
        assert self._wake is not None
        self._wake.set()
        return job

    def admit(self, table_id: str, deal: int, seat: int, person: str) -> None:
        """The refusal :meth:`submit` would give for want of room, before the caller reads
        the table and builds its record (issue 32: a flood of requests built records the
        full queue then refused); nothing when the review is asked for or stored already."""
        job = self._jobs.get((table_id, deal, seat))
        if job is not None and job.status != FAILED:
            return
        try:
            self._make_room(person)
        except RoomError:
            if (deal, seat) not in {(d, s) for d, s, _ in self.stored(table_id)}:
                raise

    def _make_room(self, person: str) -> None:
        """A 429 for a person with their most reviews waiting or running, a 503 for a
        full queue."""
        s = self.settings
        mine = sum(
            1 for j in self._jobs.values() if j.person == person and j.status in (QUEUED, RUNNING)
        )
        if mine >= s.per_person:
            raise RoomError(
                "too_many_reviews",
                f"at most {s.per_person} of your reviews wait or run at once",
                429,
                retry_after=10,
            )
        waiting = sum(len(q) for q in self._waiting.values())
        if waiting >= s.queue:
            raise RoomError(
                "reviews_busy", "the reviews' queue is full: try again later", 503, retry_after=30
            )

    def stored(self, table_id: str) -> list[tuple[int, int, dict[str, Any]]]:
        """A table's stored reviews (deal, seat, review), read from the database at most
        once every :attr:`CACHED` seconds (issue 32: each read of a flood parsed every
        review again), and at once after this process stores one."""
        now = self.clock()
        cached = self._stored.get(table_id)
        if cached is not None and now - cached[0] < self.CACHED:
            self._stored.move_to_end(table_id)
            return cached[1]
        reviews = [(r.deal, r.seat, json.loads(r.data)) for r in self.store.reviews(table_id)]
        self._stored[table_id] = (now, reviews)
        self._stored.move_to_end(table_id)
        while len(self._stored) > self.CACHE_TABLES:
            self._stored.popitem(last=False)
        return reviews

    def jobs(self, table_id: str) -> list[Job]:
        """A table's reviews waiting, running or failed."""
        return [j for (t, _, _), j in self._jobs.items() if t == table_id]

    # --- the pool ---------------------------------------------------------------------------

    def _start(self) -> None:
        if self._task is not None:
            return
        # The thinking pool's context: workers forked from a fork server, holding none of
        # the room's file descriptors (its listening socket).
        context = _context()
        self._progress = context.Queue()
        self._executor = ProcessPoolExecutor(
            max_workers=self.settings.workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(self._progress, self.settings.nice, os.getpid()),
        )
        self._reader = threading.Thread(
            target=self._read_progress, args=(self._progress,), name="review-progress", daemon=True
        )
        self._reader.start()
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._serve())

    def _read_progress(self, progress: Any) -> None:
        while True:
            try:
                item = progress.get()
            except (EOFError, OSError, ValueError):
                return
            if item is None:
                return
            job = self._by_id.get(item[0])
            if job is not None:
                job.done, job.total = item[1], item[2]

    def _next(self) -> Job | None:
        """The next job, from the table first in turn; that table goes to the back."""
        while self._waiting:
            table_id, waiting = next(iter(self._waiting.items()))
            self._waiting.move_to_end(table_id)
            if not waiting:
                del self._waiting[table_id]
                continue
            job = waiting.popleft()
            if not waiting:
                del self._waiting[table_id]
            return job
        return None

    async def _serve(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._running < self.settings.workers:
                job = self._next()
                if job is None:
                    break
                self._running += 1
                job.status = RUNNING
                asyncio.get_running_loop().create_task(self._run(job))

    async def _run(self, job: Job) -> None:
        s = self.settings
        loop = asyncio.get_running_loop()
        try:
            assert self._executor is not None
            data = await loop.run_in_executor(
                self._executor, _review, job.id, job.record, job.deal, job.seat, s.seconds, s.worlds
            )
            row = ReviewRow(job.table_id, job.deal, job.seat, data, time.time())
            await asyncio.to_thread(self.store.save_review, row)
            self._stored.pop(job.table_id, None)
            job.status = DONE
            self._jobs.pop((job.table_id, job.deal, job.seat), None)
            self._by_id.pop(job.id, None)
        except Exception as error:  # the review's own error, or the worker's death
            job.status = FAILED
            job.error = str(error) or type(error).__name__
        finally:
            job.record = ""
            self._running -= 1
            if self._wake is not None:
                self._wake.set()

    async def close(self) -> None:
        """Stop the pool: cancel what waits, end the workers."""
        await cancel(self._task)
        executor, self._executor = self._executor, None
        if executor is not None:
            # A review running is abandoned: its worker is ended, not waited for.
            processes = list(getattr(executor, "_processes", {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                with contextlib.suppress(Exception):
                    process.terminate()
        if self._progress is not None:
            with contextlib.suppress(Exception):
                self._progress.put(None)
        if self._reader is not None:
            self._reader.join(timeout=2)
        self._task = None
