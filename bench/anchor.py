"""Random-play speed of our engine against the gin rummy engines researchers use as anchors.

Run from the repository root::

    python bench/anchor.py [--seconds N] [--seed S] [--install]

``--install`` pip-installs the anchors (``rlcard``, ``open_spiel``) into the running
interpreter's environment if they are missing; they are an optional extra
(``pip install -e '.[anchor]'`` does the same), never a core dependency. To measure
our engine from a checkout without installing it, put ``src`` on the path::

    PYTHONPATH=src python bench/anchor.py --install

What it measures: the process is pinned to one core, then each engine plays random
games (every choice uniform among the legal actions, drawn from ``random.Random(seed)``)
for about N seconds (default 10). The clock is read between games, so a run ends on a
whole game. It reports decisions per second (one decision = one action applied by a
player, forced or not) and games per second:

* RLCard ``gin-rummy`` twice: ``game`` drives ``env.game`` directly (``init_game``,
  ``judge.get_legal_actions``, ``step``), which measures the rules engine itself; ``env``
  drives ``env.reset``/``env.step`` with action ids, as ``env.run`` does with random
  agents, so it adds RLCard's feature extraction (a 5x52 numpy observation per step).
  RLCard counts two bookkeeping decisions at the end of each game (score North, score
  South); they are counted like any other action, as RLCard's agents do take them.
* OpenSpiel ``gin_rummy`` (C++ via pybind11): chance nodes are resolved by sampling
  ``state.chance_outcomes()`` and are counted apart (``chance/s``), player nodes by a
  uniform choice from ``state.legal_actions()``. ``open_spiel`` starts each game with
  ``game.new_initial_state()``, which alone costs more than the game's moves (1.7 ms);
  ``open_spiel-clone`` starts each from a clone of one initial state, to show the moves.
* Ours: ``Deal.new(variant(game, players=n), seed=s)`` played to the end through
  ``legal_actions``/``apply``, at italian, buraco and canasta for 2 and for 4, on the
  engine that runs (compiled by mypyc where it was built; ``BURRACO_PURE=1`` runs the
  pure one: the first lines say which). If ``burraco`` does not import (yet), the script says so
  and still reports the anchors.

Games differ (gin rummy is shorter and simpler than burraco), so the ratios say how far
our engine is from engines used in published work per decision, not per unit of rules.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Anchor packages: (import name, pip requirement), as in the ``anchor`` extra.
ANCHORS: tuple[tuple[str, str], ...] = (("rlcard", "rlcard>=1.2"), ("pyspiel", "open_spiel>=1.5"))
#: A random game longer than this is taken as a bug (an endless loop), not measured.
MAX_DECISIONS_PER_GAME = 100_000
#: Untimed games played first, so imports, caches and allocators are warm.
WARMUP_GAMES = 3

#: The clock of the slots: wall time, or with ``--clock cpu`` this process's CPU time (on a
#: machine others load, a slot's wall time counts the time the process waited for a core).
CLOCK: list[Callable[[], float]] = [time.perf_counter]

#: Plays one whole game with the given game index; returns (player decisions, chance steps).
GameFn = Callable[[int], tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Result:
    """What one engine did in its time slot."""

    engine: str
    games: int
    decisions: int
    chance: int
    seconds: float

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def chance_per_s(self) -> float:
        return self.chance / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_game(self) -> float:
        return self.decisions / self.games if self.games else 0.0


class Slots:
    """An engine's games, played in one-core time slots: one slot a round.

    Games continue across slots (the game index keeps counting), so every slot
    plays new deals; the clock is read between games, so a slot ends on a whole game.
    """

    def __init__(self, engine: str, play: GameFn) -> None:
        self.engine = engine
        self.play = play
        self.next_game = 0
        self.rounds: list[Result] = []
        for i in range(WARMUP_GAMES):
            play(-1 - i)

    def slot(self, seconds: float) -> Result:
        games = decisions = chance = 0
        start = CLOCK[0]()
        elapsed = 0.0
        while elapsed < seconds:
            d, c = self.play(self.next_game)
            self.next_game += 1
            games += 1
            decisions += d
            chance += c
            elapsed = CLOCK[0]() - start
        result = Result(self.engine, games, decisions, chance, elapsed)
        self.rounds.append(result)
        return result

    def total(self) -> Result:
        return Result(
            self.engine,
            sum(r.games for r in self.rounds),
            sum(r.decisions for r in self.rounds),
            sum(r.chance for r in self.rounds),
            sum(r.seconds for r in self.rounds),
        )


def too_long(engine: str) -> RuntimeError:
    return RuntimeError(f"{engine}: a game ran past {MAX_DECISIONS_PER_GAME} decisions")


# --- RLCard ------------------------------------------------------------------------------


def rlcard_game(seed: int) -> GameFn:
    """Raw ``env.game``: the rules engine, without RLCard's observation encoding."""
    rlcard = importlib.import_module("rlcard")
    env: Any = rlcard.make("gin-rummy", config={"seed": seed})  # seeds game.np_random (deals)
    game: Any = env.game
    judge: Any = game.judge
    rng = random.Random(seed)
    choice = rng.choice

    def play(_: int) -> tuple[int, int]:
        game.init_game()
        n = 0
        while not game.is_over():
            # game.step also builds RLCard's raw state dict (lists of card indices): that is
            # part of its engine, not of the env's feature extraction.
            game.step(choice(judge.get_legal_actions()))
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("rlcard game")
        return n, 0

    return play


def rlcard_env(seed: int) -> GameFn:
    """``env.reset``/``env.step`` with action ids: what ``env.run`` costs with random agents."""
    rlcard = importlib.import_module("rlcard")
    env: Any = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    choice = rng.choice

    def play(_: int) -> tuple[int, int]:
        state, _player = env.reset()
        n = 0
        while not env.is_over():
            state, _player = env.step(choice(list(state["legal_actions"])))
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("rlcard env")
        return n, 0

    return play


# --- OpenSpiel ---------------------------------------------------------------------------


def chance_outcome(state: Any, r: float) -> int:
    """The chance outcome a uniform draw ``r`` in [0, 1) picks from ``chance_outcomes()``."""
    outcomes = state.chance_outcomes()
    for a, p in outcomes:
        r -= p
        if r < 0.0:
            return int(a)
    return int(outcomes[-1][0])


def openspiel(seed: int, clone: bool = False) -> GameFn:
    """OpenSpiel ``gin_rummy``; chance nodes sampled from ``chance_outcomes()``.

    ``game.new_initial_state()`` costs about 1.7 ms in gin_rummy (it rebuilds the meld
    tables), more than all the moves of a random game; with ``clone`` each game starts from
    a clone of one initial state instead (about 16 us), which measures the moves alone.
    """
    pyspiel = importlib.import_module("pyspiel")
    game: Any = pyspiel.load_game("gin_rummy")
    initial: Any = game.new_initial_state()
    new_state: Callable[[], Any] = initial.clone if clone else game.new_initial_state
    rng = random.Random(seed)
    choice = rng.choice
    uniform = rng.random

    def play(_: int) -> tuple[int, int]:
        state = new_state()
        n = c = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance_outcome(state, uniform()))
                c += 1
            else:
                state.apply_action(choice(state.legal_actions()))
                n += 1
                if n > MAX_DECISIONS_PER_GAME:
                    raise too_long("open_spiel")
        return n, c

    return play


# --- Ours --------------------------------------------------------------------------------


def burraco_engine(seed: int, game: str = "italian", players: int = 2) -> GameFn:
    """Our engine, one ``Deal`` per game with seed ``seed + i``."""
    burraco = importlib.import_module("burraco")
    try:  # the API being written: from burraco import Deal, variant
        deal_class: Any = burraco.Deal
        variant: Any = burraco.variant
    except AttributeError as e:
        raise ImportError(f"burraco has no {e.name} yet") from e
    v = variant(game, players=players)
    new = deal_class.new
    rng = random.Random(seed)
    choice = rng.choice

    def play(i: int) -> tuple[int, int]:
        deal = new(v, seed=seed + i)
        n = 0
        while not deal.is_over:
            deal.apply(choice(deal.legal_actions()))
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("burraco")
        return n, 0

    return play


# --- Driver ------------------------------------------------------------------------------


def _ours(game: str, players: int) -> Callable[[int], GameFn]:
    return lambda seed: burraco_engine(seed, game, players)


def engine_line() -> str:
    """Which of our engines runs: compiled (mypyc) or pure (``BURRACO_PURE=1``)."""
    try:
        from burraco._engine import REASON, engine
    except ImportError:
        return "burraco: no engine choice here (an older burraco)"
    return f"burraco: {engine()} engine ({REASON})"


def install_missing() -> None:
    """pip-install the anchors that do not import, into this interpreter's environment."""
    missing = [req for mod, req in ANCHORS if importlib.util.find_spec(mod) is None]
    if not missing:
        print("anchors already installed")
        return
    print(f"installing {' '.join(missing)} with {sys.executable} -m pip", flush=True)
    subprocess.check_call([sys.executable, "-m", "pip", "install", *missing])
    importlib.invalidate_caches()


def dist_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def pin_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0 if 0 in allowed else min(allowed)})
    return f"pinned to cpu {sorted(os.sched_getaffinity(0))} of {sorted(allowed)}"


def fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


#: Our tables measured (issue 35's goal names each): (game, players).
TABLES: tuple[tuple[str, int], ...] = tuple(
    (game, players) for game in ("italian", "buraco", "canasta") for players in (2, 4)
)
#: The ratios reported: (ours, anchor). ``open_spiel-clone`` measures OpenSpiel's moves;
#: ``open_spiel`` adds ``new_initial_state()`` (its dealing) to every game.
RATIOS: tuple[tuple[str, str], ...] = tuple(
    (f"{game}-{players}", anchor)
    for game, players in TABLES
    for anchor in ("open_spiel-clone", "open_spiel", "rlcard-game", "rlcard-env")
)


def median_ratio(ours: Slots, anchor: Slots) -> tuple[float, float, float]:
    """The median, lowest and highest of the per-round ratios of decisions per second."""
    ratios = sorted(
        o.decisions_per_s / a.decisions_per_s
        for o, a in zip(ours.rounds, anchor.rounds, strict=True)
        if a.decisions_per_s
    )
    if not ratios:
        return 0.0, 0.0, 0.0
    return statistics.median(ratios), ratios[0], ratios[-1]


def report(slots: dict[str, Slots], ratios: tuple[tuple[str, str], ...] = RATIOS) -> None:
    header = ["engine", "games", "decisions", "s", "decisions/s", "games/s", "dec/game",
              "chance/s"]  # fmt: skip
    rows = []
    for s in slots.values():
        r = s.total()
        rows.append(
            [r.engine, str(r.games), str(r.decisions), f"{r.seconds:.2f}", fmt(r.decisions_per_s),
             fmt(r.games_per_s), f"{r.decisions_per_game:.1f}",
             fmt(r.chance_per_s) if r.chance else "-"]
        )  # fmt: skip
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
        print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
        for row in rows:
            print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
    else:
        table = Table(title="random play, one core, all rounds")
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*row)
        console = Console()
        if not console.is_terminal:  # piped: do not squeeze the table into 80 columns
            console = Console(width=120)
        console.print(table)
    if not ratios:
        return
    print("ratios of decisions per second, median of the rounds (lowest-highest):")
    for ours, anchor in ratios:
        if ours in slots and anchor in slots:
            mid, lo, hi = median_ratio(slots[ours], slots[anchor])
            note = {
                "open_spiel-clone": "its moves: each game from a cloned start",
                "open_spiel": "its moves plus new_initial_state() each game",
                "rlcard-game": "its bare game loop",
                "rlcard-env": "its environment, with observations",
            }[anchor]
            print(f"  {ours} / {anchor}: {mid:.2f}x ({lo:.2f}-{hi:.2f})  [{note}]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of slots (5)")
    parser.add_argument("--seconds", type=float, default=2.0, help="one slot's time (2)")
    parser.add_argument("--seed", type=int, default=0, help="seed for deals and choices (0)")
    parser.add_argument("--install", action="store_true", help="pip-install missing anchors")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time slots by the wall clock (default) or by this process's CPU time",
    )
    args = parser.parse_args(argv)
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter

    if args.install:
        install_missing()
    print(f"python {platform.python_version()}, {pin_one_core()}")
    versions = ", ".join(f"{d} {dist_version(d)}" for d in ("rlcard", "open_spiel", "numpy"))
    print(
        f"{versions}; {args.rounds} rounds of {args.seconds:g} s ({args.clock} clock) per engine, "
        f"seed {args.seed}"
    )
    print(engine_line())

    engines: list[tuple[str, str, Callable[[int], GameFn]]] = [
        ("rlcard-game", "rlcard", rlcard_game),
        ("rlcard-env", "rlcard", rlcard_env),
        ("open_spiel", "pyspiel", openspiel),
        ("open_spiel-clone", "pyspiel", lambda seed: openspiel(seed, clone=True)),
        *((f"{game}-{players}", "burraco", _ours(game, players)) for game, players in TABLES),
    ]
    slots: dict[str, Slots] = {}
    for name, module, make in engines:
        try:
            slots[name] = Slots(name, make(args.seed))
        except ImportError as e:
            hint = "" if module == "burraco" else " (pass --install)"
            print(f"{name}: skipped, {module} does not import: {e}{hint}")
        except Exception as e:  # an engine half-written or broken must not hide the others
            print(f"{name}: skipped, setup failed: {type(e).__name__}: {e}")
    for k in range(args.rounds):
        line = []
        for name, s in list(slots.items()):
            try:
                r = s.slot(args.seconds)
            except Exception as e:
                print(f"{name}: failed while playing: {type(e).__name__}: {e}")
                del slots[name]
                continue
            line.append(f"{name} {fmt(r.decisions_per_s)}")
        print(f"round {k + 1}: " + ", ".join(line), flush=True)
    if slots:
        report(slots)
    return 0 if slots else 1


if __name__ == "__main__":
    sys.exit(main())
