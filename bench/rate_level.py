"""Rate one new bot level against the shipped ratings of the others, without re-rating them.

Run: ``python bench/rate_level.py --level learned --game italian-2 --rounds 8 [--write]``

``burraco ratings --write-defaults`` rates all the levels together; with the expert in
half the matches that is a quarter of an hour of CPU for Italian Burraco for two. A new
level can be rated more cheaply the same way: the same whole matches (server/results/ladder.py's
``play_match``, the expert at the same 0.05 s a decision), the same OpenSkill updates
(``rate_matches``), but only the new level's matches, against each shipped level in both
seatings, round after round, starting from the shipped ratings of the others. Only the
new level's rating is kept: the others stay as shipped, since their own matches measured
them better than these few would. The expert thinks by the clock, so two runs differ a
little (learned at Italian Burraco for two: 1350, then 1377, the one shipped).

``--same-as greedy`` instead copies another level's figures: for a table where the new
level plays exactly as that one (the learned bot plays as the greedy bot except at
Italian Burraco for two), no match would tell them apart.

``--write`` puts the level's figures into the package's bot_ratings.json, with a note
under ``runs`` of how they were found.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from burraco.bots.arena import BOT_NAMES
from burraco.server.results import ladder
from burraco.server.results import record as results
from burraco.server.results.ratings import Skill, game_variant

DEFAULTS = Path(results.__file__).with_name(results.DEFAULTS)


def plan(level: str, others: list[str], rounds: int) -> list[tuple[str, str]]:
    """Each round: the new level against each other level, from each seat."""
    return [
        order
        for _ in range(rounds)
        for other in others
        for order in ((level, other), (other, level))
    ]


def measure(args: argparse.Namespace, shipped: dict[str, Any]) -> tuple[dict[str, Any], str]:
    v = game_variant(args.game)
    if v is None or v.lines != 2:
        raise SystemExit(f"{args.game}: only games of two lines")
    others = sorted(shipped, key=lambda k: shipped[k]["mu"])
    orders = plan(args.level, others, args.rounds)
    seeds = [args.seed * 1_000_003 + i for i in range(len(orders))]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        played = list(
            pool.map(
                ladder.play_match,
                [v] * len(orders),
                orders,
                seeds,
                [args.expert_seconds] * len(orders),
            )
        )
    seconds = time.perf_counter() - started
    start = {k: Skill(f["mu"], f["sigma"]) for k, f in shipped.items()}
    rated = ladder.rate_matches(played, start)
    record = []
    for other in others:
        games = [p for p in played if other in p.levels]
        won = sum(p.levels[p.ranks.index(0)] == args.level for p in games)
        record.append(f"{won} of {len(games)} against {other}")
        print(f"  against {other}: won {won} of {len(games)}")
    new = rated[args.level]
    print(
        f"{args.game} {args.level}: mu {new.skill.mu:.2f} sigma {new.skill.sigma:.2f} "
        f"rating {new.skill.shown} after {new.matches} matches ({seconds:.0f} s)"
    )
    for other in others:
        print(
            f"  {other}: shipped {start[other].shown}, after these matches {rated[other].skill.shown}"
        )
    figures = {
        "mu": round(new.skill.mu, 4),
        "sigma": round(new.skill.sigma, 4),
        "matches": new.matches,
    }
    note = (
        f"{new.matches} matches (bench/rate_level.py --rounds {args.rounds} --seed {args.seed}"
        f", expert {args.expert_seconds} s) from the shipped ratings of {', '.join(others)}"
        f" (kept as shipped); won {', '.join(record)}"
    )
    return figures, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", required=True, choices=BOT_NAMES)
    parser.add_argument("--game", default="italian-2")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--expert-seconds", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--same-as", choices=BOT_NAMES, help="Copy this level's figures.")
    parser.add_argument("--write", action="store_true", help="Write into bot_ratings.json.")
    args = parser.parse_args()

    data = json.loads(DEFAULTS.read_text())
    shipped = {k: f for k, f in data["games"][args.game].items() if k != args.level}
    if args.same_as:
        figures = dict(shipped[args.same_as])
        note = f"{args.same_as}'s figures: at this table it plays as the {args.same_as} bot"
        print(f"{args.game} {args.level}: {figures} ({note})")
    else:
        figures, note = measure(args, shipped)
    if args.write:
        data["games"][args.game][args.level] = figures
        data["games"][args.game] = dict(sorted(data["games"][args.game].items()))
        data["runs"].setdefault(args.game, {})[args.level] = note
        DEFAULTS.write_text(json.dumps(data, indent=2) + "\n")
        print(f"written to {DEFAULTS}")


if __name__ == "__main__":
    main()
