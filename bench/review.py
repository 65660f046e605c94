"""What a review says of the expert's own play, and of the greedy player's.

Run from the repository root: ``python bench/review.py [--deals 8] [--fours 2]
[--worlds 24]``

One-deal matches of italian are played by the expert (16 sampled deals a decision, seeded)
in every seat, ``--deals`` for two players and ``--fours`` for four, and ``--deals`` by the
greedy player for two; every seat of every deal is then reviewed
(:func:`burraco.bots.review.review_deal`, ``--worlds`` sampled deals a decision, seeded).
It prints, per group: the decisions weighed, the mean cost of a weighed decision (MP)
with its standard error, the mean accuracy, the tags, and the time. A review judges with
the expert's eyes, so the expert's own decisions should cost only the noise of picking
the best of a few means (docs/review.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

from burraco import variant
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.review import review_deal
from burraco.match import Match
from burraco.record import MatchRecord, read_record, write_record


def played(seed: int, players: int, expert: bool) -> MatchRecord:
    match = Match(variant("italian", players=players, deals=1), seed=seed)
    bots = [
        ExpertBot(worlds=16, seed=seed * 10 + s) if expert else GreedyBot() for s in range(players)
    ]
    while not match.is_over:
        match.apply(bots[match.turn].choose(match.view(match.turn), match.legal_actions()))
    return read_record(write_record(match))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--fours", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=24)
    args = parser.parse_args()
    groups = (
        ("expert, italian for 2", 2, True, args.deals),
        ("expert, italian for 4", 4, True, args.fours),
        ("greedy, italian for 2", 2, False, args.deals),
    )
    for label, players, expert, deals in groups:
        start = time.perf_counter()
        costs: list[float] = []
        accuracy: list[float] = []
        tags = {"blunder": 0, "mistake": 0, "inaccuracy": 0}
        decisions = 0
        for seed in range(1, deals + 1):
            record = played(seed, players, expert)
            for seat in range(players):
                review = review_deal(record, 1, seat, worlds=args.worlds, seed=seed)
                costs += [d.cost for d in review.decisions if d.weighed]
                decisions += len(review.decisions)
                accuracy.append(review.accuracy)
                for tag in tags:
                    tags[tag] += len(review.tagged(tag))
        error = statistics.stdev(costs) / len(costs) ** 0.5
        print(
            f"{label}: {deals} deals, {len(costs)} weighed of {decisions} decisions; "
            f"mean cost {statistics.mean(costs):.1f} MP (± {error:.1f}), "
            f"accuracy {statistics.mean(accuracy):.1f}; "
            + ", ".join(f"{k} {v}" for k, v in tags.items())
            + f"; {time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
