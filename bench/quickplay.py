"""Quick play's matcher under a crowd: simulated players queueing for 2- and 4-player tables.

Run: ``python bench/quickplay.py [--players 1000] [--rates 0.1,0.5,2,10] [--seed 1]``

For each arrival rate (players a second, a Poisson process) ``--players`` players
press "Play" through the real :class:`QuickQueue` on a simulated clock that moves in
the service's steps of 0.5 s. Each player:

* is registered (70 %), with a rating (OpenSkill's mu) drawn from a normal spread
  around 25 (sd 4, as a club's players settle after some matches), or a guest (30 %),
  who plays at 25 and queues apart;
* wants a 2-player table (60 %) or a 4-player one (40 %), of Italian Burraco;
* allows bots (75 %) or not; one who does not gives up after 5 minutes.

It prints, per rate: the waits of those seated (median, p90, p99), those who gave up,
the share of tables with bots, the rating spread inside tables with two people or more
(max - min of their mu: median and p90; one point of mu is about 20 points of the
rating shown), and the matcher's own time per step.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from burraco.server.quick.play import Entry, Group, QuickQueue, QuickRules

STEP = 0.5
GIVE_UP = 300.0


@dataclass(frozen=True, slots=True)
class Figures:
    rate: float
    seated: int
    gave_up: int
    waits: list[float]
    tables: int
    bot_tables: int
    spreads: list[float]
    step_ms: list[float]


def arrivals(players: int, rate: float, rng: random.Random) -> list[tuple[float, Entry]]:
    """Who comes when: exponential gaps at ``rate`` a second."""
    now, found = 0.0, []
    for i in range(players):
        now += rng.expovariate(rate)
        registered = rng.random() < 0.7
        rating = min(45.0, max(5.0, rng.gauss(25.0, 4.0))) if registered else 25.0
        entry = Entry(
            ticket=f"p{i}",
            variant="italian",
            players=2 if rng.random() < 0.6 else 4,
            rating=rating,
            registered=registered,
            bots=rng.random() < 0.75,
            name=f"Player {i}",
        )
        found.append((now, entry))
    return found


def simulate(players: int, rate: float, seed: int, rules: QuickRules) -> Figures:
    rng = random.Random(seed)
    queue = QuickQueue(rules, {"italian-2": _BOTS, "italian-4": _BOTS})
    coming = arrivals(players, rate, rng)
    came: dict[str, float] = {}
    waits: list[float] = []
    groups: list[Group] = []
    step_ms: list[float] = []
    gave_up = 0
    now, next_one = 0.0, 0
    while next_one < len(coming) or len(queue):
        now += STEP
        while next_one < len(coming) and coming[next_one][0] <= now:
            at, entry = coming[next_one]
            queue.join(entry, at)
            came[entry.ticket] = at
            next_one += 1
        started = time.perf_counter()
        made = queue.match(now)
        step_ms.append((time.perf_counter() - started) * 1000)
        for group in made:
            groups.append(group)
            waits += [now - came[e.ticket] for e in group.people]
        for ticket, at in list(came.items()):
            if ticket in queue and now - at >= GIVE_UP:
                queue.leave(ticket)
                gave_up += 1
    spreads = [
        max(e.rating for e in g.people) - min(e.rating for e in g.people)
        for g in groups
        if len(g.people) > 1
    ]
    return Figures(
        rate=rate,
        seated=len(waits),
        gave_up=gave_up,
        waits=waits,
        tables=len(groups),
        bot_tables=sum(1 for g in groups if g.bots),
        spreads=spreads,
        step_ms=step_ms,
    )


#: The bot levels' ratings (mu) in both games, roughly where the shipped ones sit.
_BOTS = {"random": 12.0, "greedy": 24.0, "expert": 30.0}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument(
        "--rates", default="0.1,0.5,2,10", help="arrivals a second, comma separated"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wait", type=float, default=20.0, help="seconds before bots")
    args = parser.parse_args()
    rules = QuickRules(wait_seconds=args.wait)
    print(
        f"{args.players} players a run; bots after {rules.wait_seconds:.0f} s; window "
        f"±({rules.gap} + {rules.widen}/s) mu, at most ±{rules.most}"
    )
    print(
        "rate/s  seated  gave up  wait p50  p90    p99    tables  with bots  "
        "spread p50  p90   step ms p99  max"
    )
    for rate in (float(r) for r in args.rates.split(",")):
        f = simulate(args.players, rate, args.seed, rules)
        print(
            f"{rate:6.1f}  {f.seated:6d}  {f.gave_up:7d}  "
            f"{statistics.median(f.waits):7.1f}s {percentile(f.waits, 90):5.1f}s "
            f"{percentile(f.waits, 99):5.1f}s  {f.tables:6d}  {f.bot_tables / f.tables:8.0%}   "
            f"{statistics.median(f.spreads) if f.spreads else float('nan'):9.2f}  "
            f"{percentile(f.spreads, 90):5.2f}  {percentile(f.step_ms, 99):10.2f}  "
            f"{max(f.step_ms):5.2f}"
        )


if __name__ == "__main__":
    main()
