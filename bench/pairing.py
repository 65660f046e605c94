"""How fast the movements seat a round: Danish, Mitchell and round-robin for a big field.

Run: ``python bench/pairing.py [--pairs 500] [--rounds 7] [--crowded 30] [--repeat 5]``

It plays Danish pairs tournaments of ``--pairs`` pairs through the director's
desk (:class:`burraco.tournament.Tournament`), with results drawn from hidden
strengths (stronger pairs win more, by more), so the standings and the history
of meetings are those of a real evening:

- *a club evening*: ``--rounds`` rounds with the usual spread of scores;
- *a crowded top*: ``--crowded`` rounds where the stronger pair nearly always
  wins, so the standings barely move and the lines next to each other have
  mostly met already: the hard case for "avoid repeat meetings".

For the next round of each it times ``danish()`` alone (the pairing) and
``Tournament.start_round()`` (standings with tie-breaks, then the pairing),
then ``mitchell()`` and ``round_robin()`` and their ``start_round()`` for the
same field. Each figure is the median (and the worst) of ``--repeat`` runs, in
milliseconds.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable

from burraco.tournament import Settings, Tournament
from burraco.tournament.movements import danish, mitchell, round_robin


def _timed(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times), max(times)


def _timed_start(t: Tournament, repeat: int) -> tuple[float, float]:
    """``start_round()`` on fresh copies of ``t`` (made before the clock starts)."""
    copies = [copy.deepcopy(t) for _ in range(repeat)]
    return _timed(lambda: copies.pop().start_round(), repeat)


def _evening(pairs: int, rounds: int, spread: float, seed: int) -> Tournament:
    """A Danish tournament after ``rounds`` rounds of results drawn from pair strengths."""
    rng = random.Random(seed)
    t = Tournament(Settings(format="danish", kind="pairs", rounds=rounds + 1, seed=seed))
    t.pad_with_bots(pairs, "greedy")
    strength = {e.id: rng.gauss(0, 1) for e in t.entrants}
    for _ in range(rounds):
        for a in t.start_round():
            edge = strength[a.first] - strength[a.second]
            # A round of 3 deals: about 2500 points a line, the better pair ahead on average.
            first = round(rng.gauss(2500 + 400 * edge, spread) / 5) * 5
            second = round(rng.gauss(2500 - 400 * edge, spread) / 5) * 5
            t.enter_result(a.table, first, second)
        t.close_round()
    return t


def _danish(label: str, pairs: int, rounds: int, spread: float, seed: int, repeat: int) -> None:
    build = time.perf_counter()
    t = _evening(pairs, rounds, spread, seed)
    build = time.perf_counter() - build
    order = [s.entrant for s in t.standings()]
    met: dict[int, set[int]] = defaultdict(set)
    byes: dict[int, int] = defaultdict(int)
    for r in t.rounds:
        for a in r.tables:
            met[a.first].add(a.second)
            met[a.second].add(a.first)
        for line in r.byes:
            byes[line] += 1
    neighbours = sum(1 for i in range(0, len(order) - 1, 2) if order[i + 1] in met[order[i]])
    print(
        f"Danish, {label}: {pairs} pairs after {rounds} rounds (played in {build:.2f} s); "
        f"{neighbours} of the {pairs // 2} pairs of neighbours in the standings have met"
    )
    pairing = danish(order, met, byes)
    _line(
        "danish()",
        _timed(lambda: danish(order, met, byes), repeat),
        f"  repeats {pairing.repeats}",
    )
    _line("Tournament.start_round() (standings + pairing)", _timed_start(t, repeat))


def _line(label: str, figures: tuple[float, float], note: str = "") -> None:
    median, worst = figures
    print(f"  {label:<46} {median:9.1f} ms  (worst {worst:7.1f}){note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the club evening")
    parser.add_argument("--crowded", type=int, default=30, help="rounds of the crowded top")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pairs, repeat = args.pairs, args.repeat
    _danish("a club evening", pairs, args.rounds, 600, args.seed, repeat)
    _danish("a crowded top", pairs, args.crowded, 20, args.seed, repeat)

    lines = list(range(1, pairs + 1))
    print(f"Mitchell and round-robin, {pairs} pairs:")
    _line("mitchell() round 3", _timed(lambda: mitchell(lines, 3), repeat))
    _line(
        f"round_robin() round {pairs // 2}", _timed(lambda: round_robin(lines, pairs // 2), repeat)
    )
    for fmt in ("mitchell", "round-robin"):
        fresh = Tournament(Settings(format=fmt, kind="pairs"))
        fresh.pad_with_bots(pairs, "greedy")
        _line(f"{fmt} Tournament.start_round() round 1", _timed_start(fresh, repeat))


if __name__ == "__main__":
    main()
