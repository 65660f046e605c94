"""The expert's memory and pauses over a long run: what a room's or an arena's process holds.

Run from the repository root::

    python bench/memory.py [--deals 25] [--worlds 30] [--src src]

It plays ``--deals`` deals of italian for 4 and as many for 2, the expert in every seat
with a budget of worlds (so the work is the same whatever the machine's load and the
code's speed), each deal on a variant object of its own, as every table of a room and
every board of an arena builds one. It prints the time, the decisions and the longest,
the process's resident memory, the objects the garbage collector tracks, and what a
full collection then costs. ``--src`` runs another checkout's code (e.g. one made with
``git worktree add /tmp/old <commit>``: ``--src /tmp/old/src``) in a subprocess.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
from pathlib import Path


def resident_mb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def run(deals: int, worlds: int) -> None:
    from burraco import Deal, variant
    from burraco.bots.expert import ExpertBot

    longest = 0.0
    decisions = 0
    start = time.perf_counter()
    for seed in range(deals):
        for players in (4, 2):
            deal = Deal.new(variant("italian", players=players), seed=5000 + seed, dealer=0)
            while not deal.is_over:
                began = time.perf_counter()
                bot = ExpertBot(worlds=worlds, seed=seed)
                deal.apply(bot.choose(deal.view(deal.turn), deal.legal_actions()))
                longest = max(longest, time.perf_counter() - began)
                decisions += 1
    took = time.perf_counter() - start
    tracked = len(gc.get_objects())
    began = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - began
    print(
        f"{2 * deals} deals, {decisions} decisions in {took:.1f} s "
        f"(longest {longest * 1000:.0f} ms); resident {resident_mb()} MB, "
        f"{tracked:,} objects tracked, a full collection {full * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=25)
    parser.add_argument("--worlds", type=int, default=30)
    parser.add_argument("--src", default=None, help="the code to run (default: this checkout)")
    args = parser.parse_args()
    if args.src is not None:
        env = dict(os.environ, PYTHONPATH=str(Path(args.src).resolve()))
        command = [sys.executable, __file__, "--deals", str(args.deals)]
        raise SystemExit(subprocess.call([*command, "--worlds", str(args.worlds)], env=env))
    here = Path(__file__).resolve().parent.parent / "src"
    if str(here) not in sys.path and "PYTHONPATH" not in os.environ:
        sys.path.insert(0, str(here))
    run(args.deals, args.worlds)


if __name__ == "__main__":
    main()
