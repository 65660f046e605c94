"""Would a cheaper playout narrow a closed pile's review within the same time? (issue 33)

Run from the repository root: ``python bench/review_closed_pile.py [--preset
buraco-fechado] [--deals 2] [--worlds 32] [--horizons end,24,12,6]``

A closed pile's playouts go to the deal's end (``ExpertBot.playout_turns``), and its
review's intervals stay wide at the room's budget (docs/review.md). Here the greedy
player's one-deal matches (seeded 1…``--deals``) are replayed, and every third decision of
seat 0 is weighed (:func:`burraco.bots.review.weigh`) at ``--worlds`` sampled deals with the
playouts cut at each horizon ("end": as the review weighs now). For each horizon it prints
the median half-width of the played action's 95% interval, the CPU time of a sampled deal,
the half-width a decision would get in the deal-end playouts' time (the interval narrows
as the square root of the sampled deals the time buys), and how often the horizon's best
is the deal-end judge's best on the same sampled deals.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

from burraco import variant
from burraco.actions import Action
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.review import Weighing, split_cost, weigh
from burraco.match import Match
from burraco.view import DealView


@contextmanager
def horizon(turns: int | None) -> Iterator[None]:
    """The expert's playouts cut at ``turns`` at every table (None: as they are)."""
    original = ExpertBot.playout_turns
    if turns is not None:
        ExpertBot.playout_turns = lambda self, deal: turns  # type: ignore[method-assign]
    try:
        yield
    finally:
        ExpertBot.playout_turns = original  # type: ignore[method-assign]


def decisions(preset: str, deals: int) -> Iterator[tuple[int, DealView, list[Action]]]:
    """Every third decision of seat 0 in the greedy player's deals: (key, view, legal)."""
    greedy = GreedyBot()
    for seed in range(1, deals + 1):
        match = Match(variant(preset, deals=1), seed=seed)
        k = 0
        while not match.is_over:
            view, legal = match.view(match.turn), match.legal_actions()
            if match.turn == 0:
                if len(legal) > 1 and k % 3 == 0:
                    yield seed * 1000 + k, view, list(legal)
                k += 1
            match.apply(greedy.choose(view, legal))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="buraco-fechado")
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--horizons", default="end,24,12,6")
    args = parser.parse_args()
    horizons = [None if h == "end" else int(h) for h in args.horizons.split(",")]
    assert not variant(args.preset).pile_open, "a closed-pile preset"
    margins: dict[int | None, list[float]] = {h: [] for h in horizons}
    seconds: dict[int | None, list[float]] = {h: [] for h in horizons}
    same: dict[int | None, int] = {h: 0 for h in horizons}
    count = 0
    for key, view, legal in decisions(args.preset, args.deals):
        weighed: dict[int | None, Weighing] = {}
        for h in horizons:
            with horizon(h):
                start = time.process_time()
                w = weigh(
                    view, legal, legal[0], random.Random(key), seconds=None, worlds=args.worlds
                )
                spent = time.process_time() - start
            if not w.outcomes:
                break
            weighed[h] = w
            margins[h].append(split_cost(w.values(), 0).margin)
            seconds[h].append(spent / len(w.outcomes))
        else:
            count += 1
            end = weighed[None].best() if None in weighed else None
            for h in horizons:
                same[h] += weighed[h].best() == end
    base = statistics.mean(seconds[None]) if None in seconds else None
    print(f"{args.preset}: {count} decisions of the greedy player, {args.worlds} sampled deals")
    for h in horizons:
        cost = statistics.mean(seconds[h])
        median = statistics.median(margins[h])
        line = f"horizon {'end' if h is None else h:>3}: median ± {median:6.1f} MP, {cost * 1000:5.1f} ms a sampled deal"
        if base is not None:
            line += f", ± {median * (cost / base) ** 0.5:6.1f} MP in the deal-end time"
            line += f", the deal-end judge's best {same[h]}/{count}"
        print(line)


if __name__ == "__main__":
    main()
