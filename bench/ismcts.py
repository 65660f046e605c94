"""OpenSpiel's ISMCTS against our expert, on duplicate boards.

Run from the repository root::

    python bench/ismcts.py [--boards 10] [--simulations 30] [--expert-seconds 1.0]
        [--seed 0] [--variant "italian 2"] [--uct-c 250]

ISMCTS is OpenSpiel's own (``open_spiel.python.algorithms.ismcts.ISMCTSBot``, with
``RandomRolloutEvaluator``: one random playout to the end of the deal a simulation), on
the game ``python_burraco`` (:mod:`burraco.research.spiel`). It plays as one of our bots:
at each of its decisions it builds a game state from its view, the cards it cannot see
dealt at random (``spiel.state_from_view``), and steps the search; a meld takes one search
a card picked and one for the commit, each of ``--simulations`` simulations, every
simulation starting from a fresh determinization (``resample_from_infostate``). The expert
(``ExpertBot``) has ``--expert-seconds`` a decision.

A board is one deal (a seed and a dealer), played once for each line ISMCTS can sit in,
the expert in the other lines: the luck of the cards cancels, what is left is the
difference in play. A deal's MP is ISMCTS's line's points less the mean of the other
lines'; a board's value is the mean of its seatings; the interval is 95% over boards
(mean +- 1.96 sd / sqrt(boards)).

It prints a line a board as it goes, then the boards, ISMCTS's mean MP a deal with its
interval, each side's mean time a decision (a decision is one engine action; single legal
actions count, at no cost) and the options.

The UCT constant is in points (the returns are points): 250 is about the standard
deviation of a random playout's return in italian for two.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from burraco import Action, Deal, variant
from burraco.bots.arena import interval95
from burraco.bots.expert import ExpertBot
from burraco.encoding import EXTEND_BASE, PICK_BASE
from burraco.research import spiel
from burraco.variants import Variant
from burraco.view import DealView


class IsmctsBot:
    """OpenSpiel's ISMCTS as one of our bots: ``choose(view, legal) -> Action``."""

    def __init__(self, game: Any, simulations: int, uct_c: float, seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)
        state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=state)
        self.search = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c,
            simulations,
            random_state=state,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        # Seeded determinizations (OpenSpiel's default sampler is seeded by the clock).
        self.search.set_resampler(
            lambda s, player: s.resample_from_infostate(player, self.rng.random)
        )
        self.searches = 0

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        state = spiel.state_from_view(self.game, view, self.rng)
        while True:
            action_id = int(self.search.step(state))
            self.searches += 1
            if not PICK_BASE <= action_id < EXTEND_BASE:
                action: Action = state.decisions.action_of(action_id)
                return action
            state.apply_action(action_id)


@dataclass
class Side:
    """One bot's decisions and time."""

    decisions: int = 0
    seconds: float = 0.0

    @property
    def ms(self) -> float:
        return 1000 * self.seconds / self.decisions if self.decisions else 0.0


@dataclass
class Board:
    board: int
    #: Per seating, ISMCTS's MP of the deal.
    margins: list[float]

    @property
    def value(self) -> float:
        return statistics.fmean(self.margins)


def table(text: str) -> Variant:
    """``"italian 2"`` or ``"buraco 4 2"``: a variant, its players and lines."""
    name, *numbers = text.split()
    options = dict(zip(("players", "lines"), map(int, numbers), strict=False))
    return variant(name, **options)


def play_board(
    board: int,
    v: Variant,
    game: Any,
    args: argparse.Namespace,
    sides: dict[str, Side],
) -> Board:
    seed = args.seed * 1_000_003 + board
    dealer = board % v.players
    margins: list[float] = []
    for ismcts_line in range(v.lines):
        deal = Deal.new(v, seed, dealer=dealer)
        bots: dict[int, Any] = {}
        for line in range(v.lines):
            bot_seed = seed * 131 + line
            if line == ismcts_line:
                bots[line] = IsmctsBot(game, args.simulations, args.uct_c, bot_seed)
            else:
                bots[line] = ExpertBot(seconds=args.expert_seconds, seed=bot_seed)
        while not deal.is_over:
            seat = deal.turn
            line = v.line_of[seat]
            legal = deal.legal_actions()
            start = time.perf_counter()
            action = bots[line].choose(deal.view(seat), legal)
            side = sides["ismcts" if line == ismcts_line else "expert"]
            side.seconds += time.perf_counter() - start
            side.decisions += 1
            deal.apply(action)
        points = deal.score().points
        others = [p for line, p in enumerate(points) if line != ismcts_line]
        margins.append(points[ismcts_line] - statistics.fmean(others))
        sides["searches"].decisions += bots[ismcts_line].searches
    return Board(board, margins)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=30, help="a search (a step)")
    parser.add_argument("--expert-seconds", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="italian 2", help='"name [players [lines]]"')
    parser.add_argument("--uct-c", type=float, default=250.0, help="in points")
    args = parser.parse_args()
    v = table(args.variant)
    game = pyspiel.load_game(
        "python_burraco", {"variant": v.name, "players": v.players, "lines": v.lines}
    )
    options = (
        f"{v.name} {v.players}p {v.lines} lines, {args.simulations} simulations a search, "
        f"uct_c {args.uct_c:g}, expert {args.expert_seconds:g} s a decision, seed {args.seed}"
    )
    print(f"ISMCTS against the expert: {args.boards} boards; {options}", flush=True)
    sides = {"ismcts": Side(), "expert": Side(), "searches": Side()}
    boards: list[Board] = []
    for b in range(args.boards):
        boards.append(play_board(b, v, game, args, sides))
        mean, low, high = interval95([x.value for x in boards])
        margins = ", ".join(f"{m:+.0f}" for m in boards[-1].margins)
        print(
            f"board {b} ({margins}): {len(boards)} boards, ISMCTS {mean:+.1f} MP a deal, "
            f"95% [{low:+.1f}, {high:+.1f}]",
            flush=True,
        )
    mean, low, high = interval95([x.value for x in boards])
    deals = sum(len(x.margins) for x in boards)
    ism, expert = sides["ismcts"], sides["expert"]
    searches = sides["searches"].decisions
    print(f"boards played: {len(boards)} ({deals} deals)")
    print(f"ISMCTS MP a deal: {mean:+.1f}, 95% [{low:+.1f}, {high:+.1f}]")
    print(
        f"ISMCTS: {ism.decisions} decisions, {ism.ms:.0f} ms a decision "
        f"({searches} searches of {args.simulations} simulations)"
    )
    print(f"expert: {expert.decisions} decisions, {expert.ms:.0f} ms a decision")
    print(f"options: {options}")


if __name__ == "__main__":
    main()
