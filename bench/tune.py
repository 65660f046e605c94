"""Tune the greedy player's weights with CMA-ES, on duplicate boards against the hand-set
greedy player.

Run from the repository root (the ``cma`` package: ``pip install 'burraco[tune]'``)::

    nice -n 19 python bench/tune.py run --out artifacts/tune-italian2 [--variant italian]
        [--players 2] [--boards 150] [--popsize 12] [--generations 30] [--sigma 0.25]
        [--seed 1] [--minutes M] [--against greedy,random]
    python bench/tune.py verify WEIGHTS.json [--boards 2000] [--seed 7] [--expert-worlds W]
        [--against random|expert]

``run``: each generation, CMA-ES proposes ``--popsize`` weight sets; each plays the same
``--boards`` boards of the generation (common random numbers: the luck of the cards is
the same for every candidate, so their ranks measure their play). A board is one deal (a
seed and a dealer) played twice, the candidate in each line in turn against the hand-set
greedy player (:data:`~burraco.bots.weights.HAND_SET`); its value is the candidate's
line's points minus the other line's, the mean of the two seatings: MP a deal. The
fitness is the mean over the boards. The boards of generation g are fresh (they follow from
``--seed`` and g), so no weight set is fitted to one sample of deals.

The search is in scaled units: each weight divided by the size of its hand-set value
(at least 1), so one ``--sigma`` moves every weight by about that fraction. The state
(the optimiser, pickled) is saved after every generation in ``OUT/state.pkl``, with a
line per generation in ``OUT/log.jsonl`` and the distribution's mean, the recommended
weights of a noisy search, in ``OUT/mean.json`` (the generation's best candidate in
``OUT/best.json``); running again with the same ``--out``
resumes where it stopped. ``--minutes`` stops after the generation that passes the time.

``verify``: a weight set against the hand-set greedy player on fresh boards (seeds apart
from any the tuner played: ``--seed`` and board b give the deal seed
``(seed * 1_000_003 + b) * 101 + 7_777``), with a 95% interval over boards. With
``--expert-worlds W``, the same for the expert whose playouts use the weights against the
expert with the hand-set ones, both on a budget of W sampled deals a decision. With
``--against random`` (``--against expert``: the expert with hand-set playouts on a budget
of ``--expert-worlds`` worlds, 8 by default), both play that bot on each board instead,
and the figure is the weights' gain over the hand-set ones there.

``run --against greedy,random`` measures each candidate against both opponents on the
generation's boards: its fitness is the mean of its gains over the hand-set weights
against each (a weight set that only exploits the hand-set player loses against the
random bot: docs/research.md, "Tuning").
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from burraco import Deal, variant  # noqa: E402
from burraco.actions import DISCARD  # noqa: E402
from burraco.bots import Bot, RandomBot  # noqa: E402
from burraco.bots.arena import interval95  # noqa: E402
from burraco.bots.expert import ExpertBot  # noqa: E402
from burraco.bots.greedy import GreedyBot  # noqa: E402
from burraco.bots.weights import HAND_SET, GreedyWeights, weight_names  # noqa: E402
from burraco.deal import OVER  # noqa: E402
from burraco.variants import Variant  # noqa: E402

#: Bots of one seating: the candidate's and the hand-set player's, each for a seed.
BotMaker = Callable[[int], Bot]


def board_seed(seed: int, generation: int, board: int) -> int:
    """The deal seed of a board: the run's seed, the generation and the board's number."""
    return (seed * 1_000_003 + generation * 10_007 + board) * 101


def play_seating(
    v: Variant, seed: int, dealer: int, new: BotMaker, old: BotMaker, new_line: int
) -> int:
    """One deal with ``new`` in the seats of ``new_line`` and ``old`` elsewhere: the new
    line's points minus the best other line's. A line's bot is made from the deal's seed
    and the line, whichever bot it is: the same bots in both seatings play alike."""
    deal = Deal.new(v, seed, dealer=dealer)
    bots = [(new if line == new_line else old)(seed * 131 + line) for line in range(v.lines)]
    line_of = v.line_of
    while not deal.is_over:
        seat = deal.turn
        deal.apply(bots[line_of[seat]].choose(deal.view(seat), deal.legal_actions()))
    points = deal.score().points
    return points[new_line] - max(p for line, p in enumerate(points) if line != new_line)


def board_value(v: Variant, seed: int, dealer: int, new: BotMaker, old: BotMaker) -> float:
    """MP a deal of ``new`` on one duplicate board: the mean over its seatings (the new
    bot in each line in turn)."""
    margins = [play_seating(v, seed, dealer, new, old, line) for line in range(v.lines)]
    return sum(margins) / len(margins)


def greedy_seating(
    v: Variant, seed: int, dealer: int, new: GreedyBot, old: GreedyBot, new_line: int
) -> int:
    """:func:`play_seating` for two greedy players, four times faster: each plays as it does
    in the expert's playouts (:meth:`GreedyBot.playout`, reading the deal in place, the same
    choices as from its view), and the deal performs its legal choice unchecked."""
    deal = Deal.new(v, seed, dealer=dealer)
    line_of = v.line_of
    thrown: list[set[int]] = [set() for _ in range(v.players)]
    while deal.phase != OVER:
        seat = deal.turn
        action = (new if line_of[seat] == new_line else old).playout(deal, thrown)
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
        deal._perform(action)
    points = deal.score().points
    return points[new_line] - max(p for line, p in enumerate(points) if line != new_line)


def random_seating(v: Variant, seed: int, dealer: int, new: GreedyBot, new_line: int) -> int:
    """:func:`greedy_seating` against the random bot (made from the deal's seed and its
    line, as :func:`play_seating` makes bots)."""
    deal = Deal.new(v, seed, dealer=dealer)
    line_of = v.line_of
    others = {line: RandomBot(seed * 131 + line) for line in range(v.lines)}
    thrown: list[set[int]] = [set() for _ in range(v.players)]
    while deal.phase != OVER:
        seat = deal.turn
        line = line_of[seat]
        if line == new_line:
            action = new.playout(deal, thrown)
            deal._perform(action)
        else:
            action = others[line].choose(deal.view(seat), deal.legal_actions())
            deal.apply(action)
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
    points = deal.score().points
    return points[new_line] - max(p for line, p in enumerate(points) if line != new_line)


def greedy_maker(weights: GreedyWeights) -> BotMaker:
    # The greedy player is deterministic: one bot serves every seating.
    bot = GreedyBot(weights=weights)
    return lambda _seed: bot


def fitness(
    v: Variant, weights: GreedyWeights, seeds: Sequence[int], old: GreedyWeights = HAND_SET
) -> float:
    """Mean MP a deal of the greedy player with ``weights`` against ``old`` (the hand-set
    greedy player) over the boards of ``seeds``."""
    new, against = GreedyBot(weights=weights), GreedyBot(weights=old)
    total = 0
    for s in seeds:
        for line in range(v.lines):
            total += greedy_seating(v, s, s % v.players, new, against, line)
    return total / (len(seeds) * v.lines)


def fitness_vs_random(v: Variant, weights: GreedyWeights, seeds: Sequence[int]) -> float:
    """Mean MP a deal of the greedy player with ``weights`` against the random bot."""
    new = GreedyBot(weights=weights)
    total = 0
    for s in seeds:
        for line in range(v.lines):
            total += random_seating(v, s, s % v.players, new, line)
    return total / (len(seeds) * v.lines)


#: The opponents a candidate may be measured against: MP a deal on some boards.
OPPONENTS: dict[str, Callable[[Variant, GreedyWeights, Sequence[int]], float]] = {
    "greedy": fitness,
    "random": fitness_vs_random,
}


def opponents_of(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for n in names:
        if n not in OPPONENTS:
            raise SystemExit(f"no opponent {n!r} ({', '.join(OPPONENTS)})")
    if not names:
        raise SystemExit("--against names no opponent")
    return names


# --- the search space -------------------------------------------------------------------


def scales() -> list[float]:
    """Each tunable weight's unit in the search: the size of its hand-set value, at least 1."""
    return [max(1.0, abs(x)) for x in HAND_SET.vector()]


#: Lower bounds in weight units (None: none): the pile's danger divisor stays positive.
LOWER = {"danger_pile": 0.5}


def decode(x: Sequence[float]) -> GreedyWeights:
    """The weights at a point of the search (scaled units), rounded to 0.01: a weight set
    reads and writes the same in JSON."""
    values = [round(xi * s, 2) for xi, s in zip(x, scales(), strict=True)]
    for i, name in enumerate(weight_names()):
        low = LOWER.get(name)
        if low is not None:
            values[i] = max(low, values[i])
    return GreedyWeights.of_vector(values)


def encode(weights: GreedyWeights) -> list[float]:
    return [w / s for w, s in zip(weights.vector(), scales(), strict=True)]


# --- the run ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Generation:
    generation: int
    fitnesses: tuple[float, ...]
    best: GreedyWeights
    mean: GreedyWeights
    seconds: float


def new_search(seed: int, popsize: int, sigma: float) -> Any:
    import warnings

    with warnings.catch_warnings():
        # cma warns that it has no matplotlib for its plots: none are drawn here.
        warnings.simplefilter("ignore")
        import cma

    options = {"seed": seed, "popsize": popsize, "verbose": -9}
    return cma.CMAEvolutionStrategy(encode(HAND_SET), sigma, options)


def step(
    es: Any,
    v: Variant,
    seed: int,
    boards: int,
    log: Callable[[str], None] = print,
    against: Sequence[str] = ("greedy",),
) -> Generation:
    """One generation: ask, play every candidate on the generation's boards, tell.

    A candidate's fitness is its gain over the hand-set weights, in MP a deal, averaged over
    the opponents ``against``: against each, its MP a deal less the hand-set weights' on
    the same boards (nothing against the hand-set greedy player itself)."""
    start = time.perf_counter()
    g = int(es.countiter)
    seeds = [board_seed(seed, g, b) for b in range(boards)]
    base = {n: 0.0 if n == "greedy" else OPPONENTS[n](v, HAND_SET, seeds) for n in against}
    points = es.ask()
    fitnesses = []
    for i, x in enumerate(points):
        weights = decode(x)
        gains = {n: OPPONENTS[n](v, weights, seeds) - base[n] for n in against}
        f = sum(gains.values()) / len(gains)
        fitnesses.append(f)
        parts = ", ".join(f"{gain:+.1f} against {n}" for n, gain in gains.items())
        log(f"  generation {g} candidate {i + 1}/{len(points)}: {f:+.1f} MP a deal ({parts})")
    # CMA-ES minimises.
    es.tell(points, [-f for f in fitnesses])
    best = max(range(len(points)), key=lambda i: fitnesses[i])
    return Generation(
        g,
        tuple(fitnesses),
        decode(points[best]),
        decode(es.mean),
        time.perf_counter() - start,
    )


def _write(path: Path, data: bytes) -> None:
    """Write a file whole or not at all (a stop mid-write leaves the old one)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def run(args: argparse.Namespace, log: Callable[[str], None] = print) -> list[Generation]:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    state = out / "state.pkl"
    v = variant(args.variant, players=args.players)
    setup = {
        "variant": args.variant,
        "players": args.players,
        "boards": args.boards,
        "popsize": args.popsize,
        "sigma": args.sigma,
        "seed": args.seed,
    }
    against = opponents_of(args.against)
    if against != ("greedy",):
        setup["against"] = list(against)
    if state.exists():
        saved = pickle.loads(state.read_bytes())
        if saved["setup"] != setup:
            raise SystemExit(f"{out} holds a run of {saved['setup']}, not {setup}")
        es = saved["es"]
        log(f"resuming {out} at generation {int(es.countiter)}")
    else:
        es = new_search(args.seed, args.popsize, args.sigma)
    started = time.perf_counter()
    done: list[Generation] = []
    while int(es.countiter) < args.generations:
        gen = step(es, v, args.seed, args.boards, log, against)
        done.append(gen)
        _write(state, pickle.dumps({"setup": setup, "es": es}))
        _write(out / "mean.json", gen.mean.to_json().encode())
        # The generation's best candidate: chosen on its boards, so its fitness is biased
        # upwards; verify it on fresh boards before trusting it over the mean.
        _write(out / "best.json", gen.best.to_json().encode())
        line = {
            "generation": gen.generation,
            "mean_fitness": sum(gen.fitnesses) / len(gen.fitnesses),
            "best_fitness": max(gen.fitnesses),
            "sigma": float(es.sigma),
            "seconds": round(gen.seconds, 1),
            "mean": gen.mean.to_dict(),
            "best": gen.best.to_dict(),
        }
        with (out / "log.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        log(
            f"generation {gen.generation}: mean {line['mean_fitness']:+.1f}, best "
            f"{line['best_fitness']:+.1f} MP a deal, sigma {es.sigma:.3f}, {gen.seconds:.0f} s"
        )
        if args.minutes is not None and time.perf_counter() - started > 60 * args.minutes:
            log(f"stopping after {args.minutes} minutes; run again to resume")
            break
    return done


# --- verification -------------------------------------------------------------------------


def verify_seed(seed: int, board: int) -> int:
    """A verification board's deal seed: apart from the tuner's (they are multiples of 101)."""
    return (seed * 1_000_003 + board) * 101 + 7_777


def verify(
    args: argparse.Namespace, log: Callable[[str], None] = print
) -> tuple[float, float, float]:
    weights = GreedyWeights.load(Path(args.weights))
    v = variant(args.variant, players=args.players)
    new: BotMaker
    old: BotMaker
    if args.expert_worlds and args.against != "expert":
        worlds = args.expert_worlds
        what = f"expert ({worlds} worlds a decision) with {args.weights} in its playouts"

        def new(seed: int) -> Bot:
            return ExpertBot(worlds=worlds, seed=seed, weights=weights)

        def old(seed: int) -> Bot:
            return ExpertBot(worlds=worlds, seed=seed)
    else:
        what = f"greedy with {args.weights}"
        new, old = greedy_maker(weights), greedy_maker(HAND_SET)
    opponent: BotMaker | None = None
    if args.against == "random":
        opponent = RandomBot
    elif args.against == "expert":
        expert_worlds = args.expert_worlds or 8

        def opponent(seed: int) -> Bot:
            return ExpertBot(worlds=expert_worlds, seed=seed)

    random_opponent = opponent is not None
    if opponent is not None:
        # Against a third bot: the gain over the hand-set weights, board by board.
        what += f" against the {args.against} bot, less the hand-set one's"
        hand_set = old
    values: list[float] = []
    #: Against a third bot: the weights' own MP a deal against it, board by board.
    own: list[float] = []
    start = time.perf_counter()
    for b in range(args.boards):
        s = verify_seed(args.seed, b)
        if random_opponent:
            assert opponent is not None
            own.append(board_value(v, s, s % v.players, new, opponent))
            values.append(own[-1] - board_value(v, s, s % v.players, hand_set, opponent))
        else:
            values.append(board_value(v, s, s % v.players, new, old))
        if (b + 1) % max(1, args.boards // 20) == 0 or b + 1 == args.boards:
            mean, low, high = interval95(values)
            log(
                f"  {b + 1}/{args.boards} boards: {mean:+.1f} MP a deal, 95% [{low:+.1f}, "
                f"{high:+.1f}] ({time.perf_counter() - start:.0f} s)"
            )
    mean, low, high = interval95(values)
    if own:
        own_mean, own_low, own_high = interval95(own)
        log(
            f"  the weights' own MP a deal against the {args.against} bot: {own_mean:+.1f}, "
            f"95% [{own_low:+.1f}, {own_high:+.1f}]"
        )
    log(
        f"result: {args.variant} {args.players}p, {what}"
        f"{'' if random_opponent else ' against the hand-set one'}: "
        f"{mean:+.1f} MP a deal, 95% [{low:+.1f}, {high:+.1f}] over {len(values)} boards "
        f"({2 * len(values)} deals), seed {args.seed}"
    )
    return mean, low, high


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="tune (resumes a run in --out)")
    r.add_argument("--out", required=True)
    r.add_argument("--boards", type=int, default=150)
    r.add_argument("--popsize", type=int, default=12)
    r.add_argument("--generations", type=int, default=30)
    r.add_argument("--sigma", type=float, default=0.25)
    r.add_argument("--minutes", type=float, default=None)
    r.add_argument(
        "--against",
        default="greedy",
        help="opponents, comma separated (greedy, random): the fitness is the mean gain "
        "over the hand-set weights against each",
    )
    c = sub.add_parser("verify", help="a weight set on fresh boards, with its interval")
    c.add_argument("weights")
    c.add_argument("--boards", type=int, default=2000)
    c.add_argument("--expert-worlds", type=int, default=None)
    c.add_argument(
        "--against",
        default="hand-set",
        choices=("hand-set", "random", "expert"),
        help="the same bot with the hand-set weights (default), or the random bot, or the "
        "expert (hand-set playouts, --expert-worlds worlds, 8 by default): then the gain "
        "over the hand-set weights against it",
    )
    for q in (r, c):
        q.add_argument("--variant", default="italian")
        q.add_argument("--players", type=int, default=2)
        q.add_argument("--seed", type=int, default=1)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.command == "run":
        run(args)
    else:
        verify(args)


if __name__ == "__main__":
    main()
