"""The garbage collector's pauses in a room of bots: what a player waits for the collector.

Run from the repository root::

    python bench/collector.py [--tables 300] [--seconds 120] [--bot-delay 0.2] [--src src]
                              [--no-freeze] [--interpreter-schedule] [--census SECONDS]

A room (no HTTP: the Room itself, on a SQLite file in a temporary directory) keeps
``--tables`` tables of four greedy bots playing italian, a new table started for every
one that ends, for ``--seconds`` (an hour is ``--seconds 3600``). Every collection
of the cyclic garbage collector is timed through ``gc.callbacks``, and a ticker on the
event loop measures how late it wakes (the wait any player's message would have had).
It prints the collections of each generation and the longest, the loop's lateness
(p50, p99, max), the actions played, and the objects the collector tracks at the end.
As ``burraco serve`` does, what is built before the tables is frozen
(``burraco.server.process.collector.freeze_startup``; ``--no-freeze``: not, or an older checkout
without it), and the room walks the whole heap on its own schedule
(``FullCollections``; ``--interpreter-schedule``: whenever the interpreter would).
``--census 60`` prints every minute what the collector tracks, by type. ``--src`` runs
another checkout's code (e.g. one made with ``git worktree add /tmp/old <commit>``:
``--src /tmp/old/src``) in a subprocess.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class Collections:
    """Every collection's wall time and CPU time, by generation, from ``gc.callbacks``.

    The CPU time (the thread's) is the collector's own work; on a busy machine the wall
    time also holds the moments the process waited for a core."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.work: dict[int, list[float]] = {0: [], 1: [], 2: []}
        #: When each collection ended (``time.perf_counter``), by generation.
        self.ended: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = self._cpu = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            self._cpu = time.thread_time()
        else:
            now = time.perf_counter()
            self.pauses[info["generation"]].append(now - self._began)
            self.work[info["generation"]].append(time.thread_time() - self._cpu)
            self.ended[info["generation"]].append(now)

    def line(self) -> str:
        parts = []
        for generation, pauses in self.pauses.items():
            longest = max(pauses, default=0.0) * 1000
            cpu = max(self.work[generation], default=0.0) * 1000
            parts.append(
                f"gen{generation} {len(pauses)} (longest {longest:.1f} ms, CPU {cpu:.1f} ms)"
            )
        return "collections: " + ", ".join(parts)


async def lateness(stop: float, every: float, late: list[float]) -> None:
    """Wake every ``every`` seconds and note how late each wake-up came."""
    while time.perf_counter() < stop:
        due = time.perf_counter() + every
        await asyncio.sleep(every)
        late.append(max(0.0, time.perf_counter() - due))


def print_census(room: Any, elapsed: float, collections: Collections) -> None:
    """What the collector tracks now, by type (the ten commonest), and the room's tables."""
    from collections import Counter

    from burraco.server.process.collector import resident_bytes

    kinds = Counter(type(o).__name__ for o in gc.get_objects())
    statuses = Counter(t.status for t in room.tables.values())
    longest = max(collections.pauses[2], default=0.0) * 1000
    # What the room's walks froze is out of gc.get_objects(): the resident memory says
    # whether garbage waits among it.
    resident = (resident_bytes() or 0) / 2**20
    print(
        f"[{elapsed:.0f} s] {sum(kinds.values()):,} tracked ({gc.get_freeze_count():,} frozen), "
        f"resident {resident:.0f} MB, tables {dict(statuses)}, "
        f"longest gen2 so far {longest:.0f} ms"
    )
    print("   " + ", ".join(f"{name} {n:,}" for name, n in kinds.most_common(10)), flush=True)


async def run(
    tables: int,
    seconds: float,
    bot_delay: float,
    freeze: bool,
    census: float = 0.0,
    schedule: bool = True,
) -> None:
    from burraco.server.room import Room
    from burraco.storage import Store

    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"sqlite:///{directory}/collector.db")
        try:
            from burraco.server.door.capacity import Capacity

            every = 600.0 if schedule else 0.0
            capacity = Capacity(
                max_bot_tables=100_000, full_collection_every=every, new_tables_per_second=0.0
            )
        except TypeError:  # an older checkout: the interpreter's schedule
            capacity = Capacity(max_bot_tables=100_000, new_tables_per_second=0.0)
        room = Room(store, bot_delay=bot_delay, next_deal_seconds=0, capacity=capacity)
        # As a serving room does: its lag watch, its reaper, its collector's schedule.
        room.start_watching()
        frozen = 0
        if freeze:
            try:
                from burraco.server.process.collector import freeze_startup
            except ImportError:  # an older checkout: nothing frozen
                pass
            else:
                frozen = freeze_startup()
        bots = [(f"greedy bot {i + 1}", "bot") for i in range(4)]
        collections = Collections()
        late: list[float] = []
        live: list[Any] = []
        ended = [0]
        started = 0

        async def keep_full() -> None:
            nonlocal started
            # A finished table's moves are counted as it leaves (the room lets it go).
            ended[0] += sum(t.version for t in live if t.status == "over")
            live[:] = [t for t in live if t.status != "over"]
            while len(live) < tables:
                table, _ = await room.create_seated("italian", {"players": 4}, bots)
                live.append(table)
                started += 1

        await keep_full()
        versions = sum(t.version for t in room.tables.values())
        gc.callbacks.append(collections)
        began = time.perf_counter()
        stop = began + seconds
        ticker = asyncio.create_task(lateness(stop, 0.01, late))
        next_census = began + census if census else float("inf")
        while time.perf_counter() < stop:
            await asyncio.sleep(1.0)
            await keep_full()
            if time.perf_counter() >= next_census:
                next_census += census
                print_census(room, time.perf_counter() - began, collections)
        await ticker
        took = time.perf_counter() - began
        gc.callbacks.remove(collections)
        actions = ended[0] + sum(t.version for t in live) - versions
        tracked = len(gc.get_objects())
        await room.shutdown()
    late_ms = sorted(x * 1000 for x in late)
    p99 = late_ms[int(0.99 * (len(late_ms) - 1))]
    print(
        f"{tables} tables for {took:.0f} s: {actions / took:.0f} actions/s, "
        f"{started} tables started; {tracked:,} objects tracked at the end ({frozen:,} frozen)"
    )
    print(collections.line())
    print(
        f"loop late: p50 {statistics.median(late_ms):.1f} ms, p99 {p99:.1f} ms, "
        f"max {late_ms[-1]:.1f} ms over {len(late_ms)} wake-ups"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--bot-delay", type=float, default=0.2, help="seconds a bot waits")
    parser.add_argument("--src", default=None, help="the code to run (default: this checkout)")
    parser.add_argument("--no-freeze", action="store_true", help="freeze nothing at start-up")
    parser.add_argument(
        "--interpreter-schedule",
        action="store_true",
        help="leave full collections to the interpreter (not the room's schedule)",
    )
    parser.add_argument(
        "--census", type=float, default=0.0, help="every so many seconds, print what is tracked"
    )
    args = parser.parse_args()
    if args.src is not None:
        env = dict(os.environ, PYTHONPATH=str(Path(args.src).resolve()))
        command = [sys.executable, __file__, "--tables", str(args.tables)]
        command += ["--seconds", str(args.seconds), "--bot-delay", str(args.bot_delay)]
        command += ["--no-freeze"] if args.no_freeze else []
        command += ["--census", str(args.census)] if args.census else []
        command += ["--interpreter-schedule"] if args.interpreter_schedule else []
        raise SystemExit(subprocess.call(command, env=env))
    here = Path(__file__).resolve().parent.parent / "src"
    if str(here) not in sys.path and "PYTHONPATH" not in os.environ:
        sys.path.insert(0, str(here))
    asyncio.run(
        run(
            args.tables,
            args.seconds,
            args.bot_delay,
            not args.no_freeze,
            args.census,
            not args.interpreter_schedule,
        )
    )


if __name__ == "__main__":
    main()
