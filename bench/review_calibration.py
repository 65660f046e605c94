"""Is the review honest? Its figures on play whose cost is known (issue 33, §1).

Run from the repository root: ``python bench/review_calibration.py [--deals 30]
[--worlds 24] [--groups expert,hint,greedy]``

Three kinds of one-deal matches of italian for two, seeded 1…``--deals``, seat 0 reviewed
at ``--worlds`` sampled deals a decision (:func:`burraco.bots.review.review_deal`):

* ``expert``: the expert in both seats, searching with the review's own budget
  (``--worlds`` sampled deals a decision): its deal's total should be near zero;
* ``hint``: seat 0 follows the room's hint on every decision
  (:func:`burraco.bots.hints.suggest`, the same budget), the greedy player opposite: near
  zero, and fewer than 5% of its decisions tagged;
* ``greedy``: the greedy player in both seats: a clearly positive total.

It prints, per group: deals, decisions weighed, the mean cost of a weighed decision (MP)
with its standard error over the decisions, the mean deal total with its standard error
over the deals, how many deals' totals lie beyond noise (their 95% interval above zero),
the share of decisions tagged, the decisions marked rough, the mean accuracy, the time.
docs/review.md has the figures.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from burraco import variant
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.hints import suggest
from burraco.bots.review import DealReview, review_deal
from burraco.match import Match
from burraco.record import MatchRecord, read_record, write_record

GROUPS = ("expert", "hint", "greedy")


def played(kind: str, seed: int, worlds: int) -> MatchRecord:
    """One deal of italian for two: ``kind``'s seat 0 and its opponent (see the module)."""
    match = Match(variant("italian", deals=1), seed=seed)
    greedy = GreedyBot()
    experts = [ExpertBot(worlds=worlds, seed=seed * 10 + s) for s in range(2)]
    while not match.is_over:
        view, legal = match.view(match.turn), match.legal_actions()
        if kind == "expert":
            action = experts[match.turn].choose(view, legal)
        elif kind == "hint" and match.turn == 0 and len(legal) > 1:
            action = suggest(view, seconds=None, worlds=worlds, seed=seed).action
        else:
            action = greedy.choose(view, legal)
        match.apply(action)
    return read_record(write_record(match))


def reviewed(kind: str, seed: int, worlds: int) -> DealReview:
    return review_deal(played(kind, seed, worlds), 1, 0, worlds=worlds, seed=seed)


@dataclass(frozen=True, slots=True)
class Figures:
    deals: int
    weighed: int
    per_decision: float
    per_decision_error: float
    total: float
    total_error: float
    beyond: int
    tagged: float
    rough: int
    accuracy: float

    def line(self, kind: str) -> str:
        return (
            f"{kind:6} deals {self.deals:3}  decisions {self.weighed:5}  "
            f"cost/decision {self.per_decision:+6.2f} (± {self.per_decision_error:.2f})  "
            f"total/deal {self.total:+7.1f} (± {self.total_error:.1f})  "
            f"totals beyond noise {self.beyond}/{self.deals}  tagged {self.tagged:.1%}  "
            f"rough {self.rough}  accuracy {self.accuracy:.1f}"
        )


def figures(reviews: Sequence[DealReview]) -> Figures:
    costs = [d.cost for r in reviews for d in r.decisions if d.weighed]
    totals = [r.cost for r in reviews]

    def error(xs: Sequence[float]) -> float:
        return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0

    return Figures(
        len(reviews),
        len(costs),
        statistics.mean(costs) if costs else 0.0,
        error(costs),
        statistics.mean(totals),
        error(totals),
        sum(1 for r in reviews if r.cost - r.margin > 0),
        sum(1 for r in reviews for d in r.decisions if d.tag) / max(1, len(costs)),
        sum(r.rough for r in reviews),
        statistics.mean(r.accuracy for r in reviews),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=24)
    parser.add_argument("--groups", default=",".join(GROUPS))
    args = parser.parse_args()
    for kind in args.groups.split(","):
        start = time.perf_counter()
        reviews = [reviewed(kind, seed, args.worlds) for seed in range(1, args.deals + 1)]
        print(figures(reviews).line(kind), f" {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
