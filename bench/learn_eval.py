"""The learned bot against the greedy players (and random), on duplicate boards.

Run from the repository root::

    python bench/learn_eval.py [--boards 200] [--seed 0] [--players 2|4]
        [--against greedy-hand,greedy-tuned] [--weights FILE]
    python bench/learn_eval.py --matches [--workers 2] [--opponents random,greedy]
    python bench/learn_eval.py --curve RUN/curve.csv --png curve.png [--players 4]

``--against`` plays the learned bot (the shipped weights of the table, or ``--weights``)
in this process on duplicate single deals of Italian Burraco for ``--players`` (four:
two lines of partners, the learned bot in both seats of its line), by
:func:`burraco.research.iterate.duplicate`: ``greedy-hand`` is ``GreedyBot()`` (the
hand-set weights), ``greedy-tuned`` (or ``greedy``) the greedy level as the room plays it
(tuned weights), ``random`` the random bot. It prints the mean MP a deal of the learned
line less the other's, with its 95% interval over boards. The boards are dealt from seeds
no training deal uses (``2**40 + seed * 100003 + board``).

Without ``--against``, the older arena path below:

It plays the shipped weights (``src/burraco/bots/learned_italian2.npz``, the ``learned``
level) through the arena (:func:`burraco.bots.arena.run_arena`): each board is a deck
order played twice, the bots swapping seats, so the luck of the cards cancels out. By
default a board is one deal of Italian Burraco for two (``deals=1``); ``--matches`` plays
whole matches to 2005 instead (slower; adds victory points).

For each opponent it prints the boards, the deals, the learned bot's mean MP a deal
(its line's deal points less the other line's) with the arena's 95% interval over boards,
the share of matches (deals) it won (a draw counts a half) with a 95% Wilson interval
(over matches: a slight overstatement of their independence, as the two seatings of a
board share the cards), and the mean time of its decisions.

``--weights FILE`` without ``--against`` plays that file against ``--opponents`` the
same way (:func:`burraco.research.iterate.duplicate`, in this process). ``--curve`` draws
the learning curve a training wrote (``RUN/curve.csv`` of ``python -m
burraco.research.iterate``) to a PNG (matplotlib, the ``learn`` extra).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from burraco.bots.arena import run_arena
from burraco.bots.learned import Policy
from burraco.research.iterate import duplicate, plot_curve
from burraco.variants import variant


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (draws count a half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--matches", action="store_true", help="whole matches, not deals")
    parser.add_argument("--weights", type=Path, help="another weights file (in process)")
    parser.add_argument("--curve", type=Path, help="a training's learning-curve CSV")
    parser.add_argument("--png", type=Path, default=Path("learning_curve.png"))
    parser.add_argument("--players", type=int, default=2, choices=(2, 4))
    parser.add_argument(
        "--against", help="greedy-hand, greedy-tuned (the level), random: comma-separated"
    )
    args = parser.parse_args(argv)
    if args.curve is not None:
        plot_curve(args.curve, args.png, args.players)
        print(f"learning curve: {args.png}")
        return 0
    against = args.against or (args.opponents if args.weights is not None else None)
    if against:
        policy = Policy.load(args.weights) if args.weights is not None else None
        for name in (o for o in against.split(",") if o):
            start = time.perf_counter()
            bot = "greedy" if name == "greedy-tuned" else name
            d = duplicate(policy, bot, args.players, args.boards, seed=args.seed)
            print(
                f"{args.players} players vs {name:12s} {d.boards} boards  {2 * d.boards} deals  "
                f"MP/deal {d.mean:+7.1f} [{d.interval[0]:+.1f}, {d.interval[1]:+.1f}]  "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
        return 0
    opponents = [o for o in args.opponents.split(",") if o]
    v = variant("italian", players=2) if args.matches else variant("italian", players=2, deals=1)
    for name in opponents:
        start = time.perf_counter()
        report = run_arena(
            v, ["learned", name], boards=args.boards, seed=args.seed, workers=args.workers
        )
        mine = report.results[0]
        won = mine.wins + mine.draws / 2
        low, high = wilson(won, mine.matches)
        unit = "matches" if args.matches else "deals"
        line = (
            f"vs {name:7s} {report.boards} boards  {mine.deals} deals  "
            f"MP/deal {mine.mean_difference:+7.1f} "
            f"[{mine.interval[0]:+.1f}, {mine.interval[1]:+.1f}]  "
            f"{unit} won {won / mine.matches:.3f} [{low:.3f}, {high:.3f}]  "
            f"{mine.mean_decision_ms:.2f} ms/decision"
        )
        if args.matches:
            line += f"  VP {mine.victory_points:.2f}"
        print(f"{line}  ({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
