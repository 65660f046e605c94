"""How fast the rules engine plays: random legal play for every variant and setup.

Run: ``python bench/engine.py [--seconds 3] [--seed 0] [--only italian]``

For each variant and table it plays random legal deals on one core (pinned to
core 0 where the OS allows it) for a few seconds and prints:

- complete deals per second and decisions (applied actions) per second;
- the median and 99th percentile time of ``legal_actions()``;
- the median time of ``clone()`` (search bots copy states constantly);
- the size in memory of a state in the middle of a deal (its own objects, not
  the shared variant and card objects).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from typing import Any

from burraco import Deal, variant
from burraco.variants import SETUPS


def deep_size(obj: Any, shared: set[int]) -> int:
    """Bytes held by ``obj`` and what it alone refers to (``shared`` ids are not counted)."""
    seen: set[int] = set(shared)
    total = 0
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, list | tuple | set | frozenset):
            stack.extend(o)
        elif hasattr(o, "__slots__"):
            for name in getattr(type(o), "__slots__", ()):
                if hasattr(o, name):
                    stack.append(getattr(o, name))
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench(name: str, players: int, lines: int, seconds: float, seed: int) -> dict[str, float]:
    v = variant(name, players=players, lines=lines)
    rng = random.Random(seed)
    deals = decisions = 0
    legal_times: list[float] = []
    clone_times: list[float] = []
    middle: Deal | None = None
    clock = time.perf_counter
    # Throughput first, without timing each call (timing costs as much as a decision).
    start = clock()
    while clock() - start < seconds:
        deal = Deal.new(v, rng.getrandbits(32), dealer=deals % players)
        while not deal.is_over:
            actions = deal.legal_actions()
            deal.apply(actions[rng.randrange(len(actions))])
            decisions += 1
        deals += 1
    elapsed = clock() - start
    # Then the latency of legal_actions() and clone() on the positions random play reaches.
    start = clock()
    while clock() - start < seconds / 2:
        deal = Deal.new(v, rng.getrandbits(32))
        steps = 0
        while not deal.is_over:
            t0 = clock()
            actions = deal.legal_actions()
            legal_times.append(clock() - t0)
            if steps % 8 == 0:
                t0 = clock()
                deal.clone()
                clone_times.append(clock() - t0)
            if steps == 20 or middle is None:
                middle = deal.clone()
            deal.apply(actions[rng.randrange(len(actions))])
            steps += 1
    assert middle is not None
    shared = {id(v)} | {id(c) for c in middle.deck_order}
    return {
        "deals/s": deals / elapsed,
        "decisions/s": decisions / elapsed,
        "decisions/deal": decisions / max(1, deals),
        "legal p50 us": statistics.median(legal_times) * 1e6,
        "legal p99 us": percentile(legal_times, 0.99) * 1e6,
        "clone p50 us": statistics.median(clone_times) * 1e6,
        "state bytes": deep_size(middle, shared),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per setup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default=None, help="one variant name")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    gc.collect()
    header = (
        f"{'variant':8} {'pl':>2} {'ln':>2} {'deals/s':>8} {'dec/s':>8} {'dec/deal':>8} "
        f"{'legal p50':>9} {'legal p99':>9} {'clone p50':>9} {'state':>7}"
    )
    print(header)
    print("-" * len(header))
    for name, players, lines in SETUPS:
        if args.only and name != args.only:
            continue
        r = bench(name, players, lines, args.seconds, args.seed)
        print(
            f"{name:8} {players:>2} {lines:>2} {r['deals/s']:>8.0f} {r['decisions/s']:>8.0f} "
            f"{r['decisions/deal']:>8.1f} {r['legal p50 us']:>7.1f}us {r['legal p99 us']:>7.1f}us "
            f"{r['clone p50 us']:>7.1f}us {r['state bytes'] / 1024:>5.1f}KB",
            flush=True,
        )


if __name__ == "__main__":
    main()
