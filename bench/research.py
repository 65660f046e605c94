"""Environment steps per second, observation and mask included, against the environments
researchers use as anchors.

Run from the repository root (the anchors are the ``anchor`` extra, the environments
the ``research`` extra)::

    PYTHONPATH=src python bench/research.py [--rounds 5] [--seconds 2]

Every environment plays random games on one core, in interleaved time slots (as
``bench/anchor.py`` does), and one step is what an agent does: read the observation and
the legal-action mask of the player to act, choose uniformly among the legal ids, act.

* ``rlcard-env``: RLCard ``gin-rummy`` through ``env.reset``/``env.step``; each step
  builds RLCard's state (its 5x52 observation and the legal actions).
* ``open_spiel-obs``: OpenSpiel ``gin_rummy`` (C++), each game from a clone of one initial
  state, driven from a Python loop that reads ``observation_tensor`` and
  ``legal_actions_mask`` into numpy arrays at every player step; chance nodes are sampled
  and not counted as steps.
* ``italian-2``, ``canasta-2``: our ids through :class:`burraco.encoding.Decisions`, with
  :func:`burraco.encoding.observe` and the mask of the seat to act at every step (a meld
  is a pick per card and a commit; each is a step, as an agent takes it).
* ``italian-2-aec``: the same through the PettingZoo AEC environment (``env.last()`` and
  ``env.step``), if the research extra is installed.

The ratios are per step; ``actions/s`` also counts our engine actions alone.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from anchor import (
    MAX_DECISIONS_PER_GAME,
    GameFn,
    Slots,
    chance_outcome,
    dist_version,
    fmt,
    median_ratio,
    pin_one_core,
    report,
    rlcard_env,
    too_long,
)

#: Engine actions our last game played, for the actions/s column.
ACTIONS: dict[str, int] = {}


def openspiel_obs(seed: int) -> GameFn:
    pyspiel = importlib.import_module("pyspiel")
    game: Any = pyspiel.load_game("gin_rummy")
    initial: Any = game.new_initial_state()
    rng = random.Random(seed)
    uniform = rng.random
    choice = rng.choice
    asarray = np.asarray
    float32 = np.float32
    int8 = np.int8
    flatnonzero = np.flatnonzero

    def play(_: int) -> tuple[int, int]:
        state = initial.clone()
        n = c = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance_outcome(state, uniform()))
                c += 1
                continue
            player = state.current_player()
            _obs = asarray(state.observation_tensor(player), dtype=float32)
            mask = asarray(state.legal_actions_mask(player), dtype=int8)
            state.apply_action(int(choice(flatnonzero(mask))))
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("open_spiel")
        return n, c

    return play


def burraco_env(seed: int, game: str = "italian") -> GameFn:
    from burraco import Deal, variant
    from burraco.encoding import Decisions, observe

    v = variant(game, players=2)
    rng = random.Random(seed)
    choice = rng.choice

    def play(i: int) -> tuple[int, int]:
        deal = Deal.new(v, seed=seed + i)
        decisions = Decisions(deal)
        n = actions = 0
        while not deal.is_over:
            seat = deal.turn
            _obs = observe(deal, seat, picked=decisions.picked)
            _mask = decisions.mask()
            if decisions.apply(choice(decisions.legal_ids())) is not None:
                actions += 1
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("burraco")
        ACTIONS[game] = ACTIONS.get(game, 0) + actions
        return n, 0

    return play


def burraco_aec(seed: int) -> GameFn:
    aec = importlib.import_module("burraco.research.aec")
    env: Any = aec.env(variant="italian", players=2)
    rng = random.Random(seed)
    choice = rng.choice
    flatnonzero = np.flatnonzero

    def play(i: int) -> tuple[int, int]:
        env.reset(seed=seed + i)
        n = 0
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(choice(flatnonzero(obs["action_mask"]))))
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise too_long("burraco aec")
        return n, 0

    return play


RATIOS = tuple(
    (ours, anchor)
    for ours in ("italian-2", "italian-2-aec", "canasta-2")
    for anchor in ("rlcard-env", "open_spiel-obs")
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of slots (5)")
    parser.add_argument("--seconds", type=float, default=2.0, help="one slot's time (2)")
    parser.add_argument("--seed", type=int, default=0, help="seed for deals and choices (0)")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()}, {pin_one_core()}")
    versions = ", ".join(
        f"{d} {dist_version(d)}" for d in ("rlcard", "open_spiel", "pettingzoo", "numpy")
    )
    print(f"{versions}; {args.rounds} rounds of {args.seconds:g} s per environment")

    engines: list[tuple[str, Callable[[int], GameFn]]] = [
        ("rlcard-env", rlcard_env),
        ("open_spiel-obs", openspiel_obs),
        ("italian-2", burraco_env),
        ("italian-2-aec", burraco_aec),
        ("canasta-2", lambda seed: burraco_env(seed, "canasta")),
    ]
    slots: dict[str, Slots] = {}
    for name, make in engines:
        try:
            slots[name] = Slots(name, make(args.seed))
        except ImportError as e:
            print(f"{name}: skipped, does not import: {e}")
    ACTIONS.clear()
    for k in range(args.rounds):
        line = []
        for name, s in slots.items():
            r = s.slot(args.seconds)
            line.append(f"{name} {fmt(r.decisions_per_s)}")
        print(f"round {k + 1}: " + ", ".join(line), flush=True)
    report(slots, ratios=())  # its "decisions" are environment steps here
    for ours, game in (("italian-2", "italian"), ("canasta-2", "canasta")):
        if ours in slots and game in ACTIONS:
            total = slots[ours].total()
            print(f"  {ours}: {fmt(ACTIONS[game] / total.seconds)} engine actions/s")
    print("ratios of environment steps per second, median of the rounds (lowest-highest):")
    for ours, anchor in RATIOS:
        if ours in slots and anchor in slots:
            mid, lo, hi = median_ratio(slots[ours], slots[anchor])
            print(f"  {ours} / {anchor}: {mid:.2f}x ({lo:.2f}-{hi:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
