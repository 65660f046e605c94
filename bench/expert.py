"""How many playouts a second the expert plays: the new expert against the present one.

Run from the repository root: ``python bench/expert.py [--seconds 0.2] [--rounds 5]
[--positions 10] [--scattered] [--seed 0]``

The decisions are real positions of greedy deals of italian 2 players, italian 4
players (pairs) and canasta 2 players, from fixed seeds: per table, ``--positions``
decisions in a row of one seat that the expert searches (more than one candidate), from a
random point of a deal,
as one expert meets them in a game (``--scattered``: two decisions a deal at random
points instead). Both experts decide each position with the same time budget
(``--seconds`` a decision); a playout is one greedy rollout of one candidate in one
sampled deal (the horizon is the expert's own, 6 turns for both). Playouts a second are
the playouts of all the decisions over the time the decisions took (wall time; and over
the CPU time of the worker, which other work on the machine disturbs less).

The present expert is the code at the base commit (``bench/base_commit.py``: a git
worktree in /tmp, added if missing); each version runs in its own subprocess, with
``PYTHONPATH`` on its own ``src``, so they never share a process, and a fresh process
each round. Rounds alternate (present, new, present, new...); each round prints both
figures and their ratio, and the end the median ratio over the rounds, with the figures
per table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

#: The tables of the bench: (variant, players, lines).
TABLES = (("italian", 2, 2), ("italian", 4, 2), ("canasta", 2, 2))


def positions(per_table: int, seed: int, scattered: bool = False) -> list[dict[str, Any]]:
    """Decisions from greedy deals: each a table, a deal seed, a dealer and the actions
    played before it (as text, so any version of the engine replays them).

    By default, per table, ``per_table`` decisions of one seat in a row, from a random
    point of a deal: the decisions one expert meets in a game, one after the other (its
    memos of melds and hands carry over from one to the next, as they do in play). With
    ``scattered``, two decisions a deal at random points, of any seat."""
    from burraco import Deal, variant
    from burraco.bots.expert import ExpertBot
    from burraco.bots.greedy import GreedyBot

    rng = random.Random(seed)
    bot = GreedyBot()
    expert = ExpertBot()
    out: list[dict[str, Any]] = []
    for name, players, lines in TABLES:
        v = variant(name, players=players, lines=lines)
        found = 0
        deal_seed = seed * 1000
        while found < per_table:
            deal_seed += 1
            dealer = deal_seed % players
            deal = Deal.new(v, deal_seed, dealer=dealer)
            played: list[str] = []
            seat = (dealer + 1) % players
            start = rng.randrange(4 * players)  # the turn the run starts at
            cuts = 0
            while not deal.is_over and found < per_table and (not scattered or cuts < 2):
                legal = deal.legal_actions()
                view = deal.view(deal.turn)
                if scattered:
                    chosen = rng.random() < 0.08
                else:
                    chosen = deal.turn == seat and deal.turns >= start
                # Only the decisions the expert searches (more than one candidate).
                chosen = chosen and len(legal) > 1 and len(expert.candidates(view, legal)) > 1
                if chosen:
                    out.append(
                        {
                            "table": f"{name} {players}p",
                            "variant": name,
                            "players": players,
                            "lines": lines,
                            "seed": deal_seed,
                            "dealer": dealer,
                            "actions": list(played),
                        }
                    )
                    found += 1
                    cuts += 1
                action = bot.choose(view, legal)
                played.append(str(action))
                deal.apply(action)
    return out


def work(seconds: float) -> None:
    """Worker mode: decide every position read from stdin with the expert of the code on
    ``PYTHONPATH``, and print the playouts and the time per table."""
    import burraco
    from burraco import Action, Deal, variant
    from burraco.bots.expert import ExpertBot

    todo = json.loads(sys.stdin.readline())
    by_table: dict[str, dict[str, float]] = {}
    for p in todo:
        v = variant(p["variant"], players=p["players"], lines=p["lines"])
        deal = Deal.new(v, p["seed"], dealer=p["dealer"])
        for text in p["actions"]:
            deal.apply(Action.parse(text))
        bot = ExpertBot(seconds=seconds, seed=1)
        count = [0]
        rollout = bot._rollout

        def counted(*args: Any, rollout: Any = rollout, count: list[int] = count) -> float:
            count[0] += 1
            return float(rollout(*args))

        bot._rollout = counted  # type: ignore[method-assign]
        view = deal.view(deal.turn)
        legal = deal.legal_actions()
        start, cpu = time.perf_counter(), time.process_time()
        bot.choose(view, legal)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        row = by_table.setdefault(
            p["table"], {"playouts": 0, "seconds": 0.0, "cpu": 0.0, "searched": 0}
        )
        if count[0]:
            row["playouts"] += count[0]
            row["seconds"] += took
            row["cpu"] += cpu
            row["searched"] += 1
    print(json.dumps({"code": str(Path(burraco.__file__).parent.parent), "tables": by_table}))


def run(src: Path, todo: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    from base_commit import worker

    proc = worker(Path(__file__), src, "--worker", "--seconds", str(seconds))
    out, _ = proc.communicate(json.dumps(todo) + "\n")
    if proc.returncode:
        raise SystemExit(f"the worker on {src} failed")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    if Path(result["code"]).resolve() != src.resolve():
        raise SystemExit(f"the worker ran {result['code']}, not {src}")
    return result


def rate(tables: dict[str, dict[str, float]], table: str | None = None, cpu: bool = False) -> float:
    """Playouts a second of wall time (or of the process's CPU time), over all the tables
    or one."""
    rows = [tables[table]] if table else list(tables.values())
    playouts = sum(r["playouts"] for r in rows)
    took = sum(r["cpu" if cpu else "seconds"] for r in rows)
    return playouts / took if took else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.2, help="budget of a decision")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--positions", type=int, default=10, help="decisions per table")
    parser.add_argument(
        "--scattered", action="store_true", help="decisions from all over, not in a row"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        work(args.seconds)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from base_commit import BASE_COMMIT, NEW_SRC, ensure_base

    base_src = ensure_base()
    sys.path.insert(0, str(NEW_SRC))
    todo = positions(args.positions, args.seed, args.scattered)
    print(
        f"{len(todo)} decisions ({args.positions} per table, "
        f"{'scattered' if args.scattered else 'in a row'}: "
        f"{', '.join(f'{n} {p}p' for n, p, _ in TABLES)}), {args.seconds} s a decision; "
        f"present = {BASE_COMMIT} ({base_src}), new = {NEW_SRC}",
        flush=True,
    )
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    per_table: dict[str, list[tuple[float, float]]] = {}
    for r in range(args.rounds):
        old = run(base_src, todo, args.seconds)["tables"]
        new = run(NEW_SRC, todo, args.seconds)["tables"]
        ratio = rate(new) / rate(old)
        cpu_ratio = rate(new, cpu=True) / rate(old, cpu=True)
        ratios.append(ratio)
        cpu_ratios.append(cpu_ratio)
        for table in old:
            per_table.setdefault(table, []).append((rate(old, table), rate(new, table)))
        print(
            f"round {r + 1}: present {rate(old):6.0f} playouts/s, new {rate(new):6.0f}, "
            f"ratio {ratio:.2f}  (a second of CPU: present {rate(old, cpu=True):6.0f}, "
            f"new {rate(new, cpu=True):6.0f}, ratio {cpu_ratio:.2f})",
            flush=True,
        )
    print()
    for table, pairs in per_table.items():
        olds = [o for o, _ in pairs]
        news = [n for _, n in pairs]
        print(
            f"{table:12} present {statistics.median(olds):6.0f}  new {statistics.median(news):6.0f}"
            f"  ratio {statistics.median(n / o for o, n in pairs):.2f} (wall time, medians)"
        )
    print(
        f"median ratio over {len(ratios)} rounds: {statistics.median(ratios):.2f} "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}); by CPU time "
        f"{statistics.median(cpu_ratios):.2f} (min {min(cpu_ratios):.2f}, "
        f"max {max(cpu_ratios):.2f})"
    )


if __name__ == "__main__":
    main()
