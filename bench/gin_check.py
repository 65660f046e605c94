"""An outside check of our determinized search: ``pimc`` against OpenSpiel's gin rummy bot.

Run from the repository root, in an environment with OpenSpiel (``pip install -e
'.[anchor]'``, or the ``.venv-anchor`` venv with the package installed)::

    python bench/gin_check.py --games 1000 --worlds 64 [--seconds S] [--seed 0] [--workers 2]
        [--keen] [--race S] [--start K] [--csv games.csv]

What it does: our ``GinSearchBot`` (``burraco.bots.gin``: the same ``pimc`` as the
Burraco expert, over OpenSpiel's ``gin_rummy`` through ``pyspiel``) plays ``--games``
games against ``SimpleGinRummyBot``, OpenSpiel's C++ rule-based player, obtained with
``pyspiel.make_simple_gin_rummy_bot(params, player)``. Games come in pairs on the same
deal (the same order of the 52 cards for every chance outcome, from ``--seed``) with the
seats swapped, so each player moves first in half of the games (OpenSpiel's player 0
always does). Games are shared out to a process pool of ``--workers``. Game ``i`` is the
same whatever the run (its deal and our seed come from ``--seed`` and ``i``), so
``--start K`` plays games K to K + games - 1 (K even: whole pairs) and runs on slices add
up to one run; ``--csv`` writes each game's outcome (its index, our seat, our points) as
it ends, for paired comparisons between settings on the same games.

The budget of one decision is ``--worlds`` sampled worlds (or ``--seconds``, or both:
first reached), each candidate played out to the end by the simple bot for both
players; worlds come from ``--particles`` guesses of the opponent's hidden cards
(``--model simple``: a particle filter on what the simple bot did; ``uniform``: all
deals consistent with what was seen). ``--layoffs`` lets our seat lay off in the
playouts as it does for real (the simple bot never does); ``--shortlist N`` spends the
same playouts in two rounds, half the worlds for every option, the rest on the N best.
``--keen`` plays our seat in the playouts better than the simple bot: it lays off, and
its discards leave the least deadwood, keep near-melds and never hand the sampled
world's opponent a card it would take (``SimplePolicy(keen=True)``). ``--race S`` lets
the options race (``pimc``'s ``race``): one behind the leader by more than S standard
errors after 10 worlds is played no more, so the same worlds cost fewer playouts (the
summary gives the mean playouts a decision, the budget to compare settings by).
``--player simple`` plays the simple bot itself in our seat instead, a sanity check (it
should win about half); ``--player keen`` the keen playout policy (it reads the real
opponent's hand: a measure of the playouts, not a fair player).

It prints progress, then wins, draws and losses, the win rate with a 95% Wilson
interval, the mean points, the mean time of a searched decision and the budget.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from burraco.bots.gin import (
    MODELS,
    OBJECTIVES,
    GinSearchBot,
    SimplePolicy,
    load_game,
    play_game,
    shuffled_deck,
)


@dataclass(frozen=True, slots=True)
class Config:
    """What our seat plays with (picklable, sent once to each worker)."""

    player: str
    worlds: int | None
    seconds: float | None
    seed: int
    discards: int | None
    objective: str
    model: str
    particles: int
    chains: int
    moves: int
    lays_off: bool
    shortlist: int
    keen: bool
    race: float | None
    feed: float | None
    keen_discards: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game, from our seat."""

    index: int
    seat: int
    points: float
    decisions: int
    search_seconds: float
    unexplained: int
    playouts: int


_game: Any = None
_opponents: list[Any] = []
_config: Config | None = None


def _start(config: Config) -> None:
    """Worker initializer: the game and the two simple bots, made once per process."""
    global _game, _opponents, _config
    import pyspiel  # type: ignore[import-not-found, unused-ignore]

    _game = load_game()
    _opponents = [pyspiel.make_simple_gin_rummy_bot(_game.get_parameters(), p) for p in (0, 1)]
    _config = config


@dataclass(frozen=True, slots=True)
class _Keen:
    """Our seat's keen playout policy as a player (``--player keen``). It reads the real
    opponent's hand, as it reads a sampled world's in the playouts: not a fair player, a
    measure of how well the playouts play our seat."""

    policy: SimplePolicy

    def step(self, state: Any) -> int:
        return self.policy.act(state)


def deck_of(seed: int, index: int) -> list[int]:
    """The deal of game ``index``: games 2k and 2k+1 share it, seats swapped."""
    return shuffled_deck(random.Random(f"gin-check/{seed}/{index // 2}"))


def play(index: int) -> Outcome:
    """Game ``index``: our seat is ``index % 2`` (seat 0 moves first)."""
    import pyspiel

    config = _config
    assert config is not None
    seat = index % 2
    opponent = _opponents[1 - seat]
    opponent.restart()
    ours: Any
    if config.player == "simple":
        ours = pyspiel.make_simple_gin_rummy_bot(_game.get_parameters(), seat)
    elif config.player == "keen":
        ours = _Keen(SimplePolicy(_game, seat, keen=True))
    else:
        ours = GinSearchBot(
            _game,
            seat,
            worlds=config.worlds,
            seconds=config.seconds,
            seed=config.seed * 1_000_003 + index,
            discards=config.discards,
            objective=config.objective,
            model=config.model,
            particles=config.particles,
            chains=config.chains,
            moves=config.moves,
            lays_off=config.lays_off,
            shortlist=config.shortlist,
            keen=config.keen,
            race=config.race,
            feed=config.feed,
            keen_discards=config.keen_discards,
        )
    players = [ours, opponent] if seat == 0 else [opponent, ours]
    returns = play_game(_game, players, deck_of(config.seed, index))
    searched = isinstance(ours, GinSearchBot)
    return Outcome(
        index=index,
        seat=seat,
        points=returns[seat],
        decisions=ours.decisions if searched else 0,
        search_seconds=ours.search_seconds if searched else 0.0,
        unexplained=ours.unexplained if searched else 0,
        playouts=ours.playouts if searched else 0,
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def summary(outcomes: list[Outcome]) -> dict[str, float]:
    n = len(outcomes)
    wins = sum(o.points > 0 for o in outcomes)
    return {
        "games": n,
        "wins": wins,
        "draws": sum(o.points == 0 for o in outcomes),
        "losses": sum(o.points < 0 for o in outcomes),
        "rate": wins / n if n else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--worlds", type=int, default=64, help="worlds per decision (0: none)")
    parser.add_argument("--seconds", type=float, default=None, help="time per decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--discards", type=int, default=0, help="discards searched (0: all)")
    parser.add_argument("--objective", choices=OBJECTIVES, default="points")
    parser.add_argument("--model", choices=MODELS, default="simple")
    parser.add_argument("--particles", type=int, default=512, help="particle filter size")
    parser.add_argument("--chains", type=int, default=64, help="guesses moved by MCMC")
    parser.add_argument("--moves", type=int, default=100, help="MCMC steps per chain")
    parser.add_argument(
        "--layoffs",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="our seat lays off in its playouts",
    )
    parser.add_argument(
        "--shortlist", type=int, default=0, help="a second round for the N best (0: none)"
    )
    parser.add_argument(
        "--keen",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="our seat lays off and feeds the opponent no meld in its playouts",
    )
    parser.add_argument(
        "--race", type=float, default=None, help="options race (standard errors; none: off)"
    )
    parser.add_argument(
        "--feed",
        type=float,
        default=None,
        help="no discard the opponent takes in more than this share of the posterior",
    )
    parser.add_argument(
        "--keen-discards",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="discards by keen_discard, not searched",
    )
    parser.add_argument("--start", type=int, default=0, help="first game (even)")
    parser.add_argument("--csv", default=None, help="write each game's outcome here")
    parser.add_argument("--player", choices=("pimc", "simple", "keen"), default="pimc")
    args = parser.parse_args(argv)
    if args.start < 0 or args.start % 2:
        parser.error("--start must be even and not negative (games come in pairs)")
    worlds = args.worlds or None
    if worlds is None and args.seconds is None:
        parser.error("give --worlds or --seconds")
    config = Config(
        player=args.player,
        worlds=worlds,
        seconds=args.seconds,
        seed=args.seed,
        discards=args.discards or None,
        objective=args.objective,
        model=args.model,
        particles=args.particles,
        chains=args.chains,
        moves=args.moves,
        lays_off=args.layoffs,
        shortlist=args.shortlist,
        keen=args.keen,
        race=args.race,
        feed=args.feed,
        keen_discards=args.keen_discards,
    )
    budget = ", ".join(
        part
        for part in (
            f"{worlds} worlds" if worlds else "",
            f"{args.seconds:g} s" if args.seconds is not None else "",
        )
        if part
    )
    print(
        f"gin rummy: {config.player} vs SimpleGinRummyBot, {args.games} games, "
        f"{args.workers} workers, seed {args.seed}, from game {args.start}; per decision: {budget}, "
        f"{config.particles} particles ({config.model}), {config.chains} chains x "
        f"{config.moves} moves, layoffs in playouts {'on' if config.lays_off else 'off'}, "
        f"shortlist {config.shortlist or 'none'}, keen playouts {'on' if config.keen else 'off'}, "
        f"race {config.race if config.race is not None else 'off'}, "
        f"feed {config.feed if config.feed is not None else 'any'}, "
        f"discards {'by the keen rule' if config.keen_discards else 'searched'} "
        f"({config.discards or 'all'}), objective {config.objective}",
        flush=True,
    )
    start = time.perf_counter()
    outcomes: list[Outcome] = []
    step = max(1, args.games // 20)
    games = range(args.start, args.start + args.games)
    with (
        open(args.csv, "w", encoding="utf-8") if args.csv else contextlib.nullcontext() as log,
        ProcessPoolExecutor(args.workers, initializer=_start, initargs=(config,)) as pool,
    ):
        if log is not None:
            log.write("game,seat,points,decisions,search_seconds,playouts\n")
        for outcome in pool.map(play, games, chunksize=1):
            outcomes.append(outcome)
            if log is not None:
                log.write(
                    f"{outcome.index},{outcome.seat},{outcome.points:g},"
                    f"{outcome.decisions},{outcome.search_seconds:.3f},{outcome.playouts}\n"
                )
                log.flush()
            done = len(outcomes)
            if done % step == 0 or done == args.games:
                s = summary(outcomes)
                elapsed = time.perf_counter() - start
                eta = elapsed / done * (args.games - done)
                print(
                    f"  {done:5d} games  wins {s['wins']:4.0f}  rate {s['rate']:.3f}  "
                    f"{elapsed:6.0f} s  eta {eta:5.0f} s",
                    flush=True,
                )
    elapsed = time.perf_counter() - start
    s = summary(outcomes)
    low, high = wilson(int(s["wins"]), len(outcomes))
    decisions = sum(o.decisions for o in outcomes)
    searching = sum(o.search_seconds for o in outcomes)
    points = sum(o.points for o in outcomes) / len(outcomes)
    first = [o for o in outcomes if o.seat == 0]
    second = [o for o in outcomes if o.seat == 1]
    print(
        f"games {len(outcomes)}: wins {s['wins']:.0f}, draws {s['draws']:.0f}, "
        f"losses {s['losses']:.0f}"
    )
    print(f"win rate {s['rate']:.3f}  (95% Wilson interval {low:.3f} .. {high:.3f})")
    print(
        f"  moving first {summary(first)['rate']:.3f}, second {summary(second)['rate']:.3f}; "
        f"mean points {points:+.2f} per game"
    )
    if decisions:
        print(
            f"searched decisions {decisions} ({decisions / len(outcomes):.1f} per game), "
            f"mean {1000 * searching / decisions:.0f} ms and "
            f"{sum(o.playouts for o in outcomes) / decisions:.0f} playouts each; "
            f"opponent decisions no guess explained: "
            f"{sum(o.unexplained for o in outcomes) / len(outcomes):.2f} per game"
        )
    print(
        f"budget: {budget} per decision; wall time {elapsed:.0f} s "
        f"({elapsed / len(outcomes) * args.workers:.2f} s per game per worker)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
