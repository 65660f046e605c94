"""OpenSpiel's ISMCTS against our expert (or greedy), on duplicate boards.

Run from the repository root, in the environment with OpenSpiel (the ``anchor`` or
``research`` extra)::

    PYTHONPATH=src python bench/ismcts.py [--boards 10] [--against expert|greedy]
        [--expert-seconds 0.3 | --expert-worlds N] [--rollout greedy|random] [--simulations 100]
        [--uct-c 250] [--child-selection uct|puct] [--greedy-prior 0.5]
        [--final-policy max-visits|visit-share|max-value] [--world-samples -1]
        [--rollouts 1] [--horizon 0] [--greedy-weights hand-set|level] [--seed 0]
        [--variant "italian 2"]

ISMCTS is OpenSpiel's own (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) on the game
``python_burraco`` (:mod:`burraco.research.spiel`). Its evaluator is, with ``--rollout
greedy`` (the default), :class:`burraco.research.rollout.GreedyRolloutEvaluator`: our
greedy player plays every seat from the leaf on, to the end of the deal (or ``--horizon``
turns, then the provisional score), ``--rollouts`` rollouts a leaf; its prior (PUCT only)
puts ``--greedy-prior`` of the mass on greedy's id. That greedy plays the hand-set weights
(as the expert's playouts) or, with ``--greedy-weights level``, the greedy level's for
the table (tuned where they were measured to win). ``--rollout random`` is OpenSpiel's
``RandomRolloutEvaluator`` (random ids to the end of the deal, a uniform prior).

It plays as one of our bots: at each of its decisions it builds a game state from its
view, the cards it cannot see dealt at random (``spiel.state_from_view``), and steps the
search; a meld takes one search a card picked and one for the commit, each of
``--simulations`` simulations, every simulation starting from a determinization
(``resample_from_infostate``; at most ``--world-samples`` different ones a search, -1 a
fresh one every simulation). ``--child-selection`` is UCT or PUCT, ``--uct-c`` its
constant in points (the returns are points); ``--final-policy`` picks the action played:
the most visited child, a child drawn in proportion to its visits, or the best mean.

The other lines play ``--against``: the expert (``ExpertBot``, ``--expert-seconds`` a
decision, or ``--expert-worlds`` sampled deals a decision: the same work whatever the
machine's load) or the greedy level (``make_bot("greedy")``).

A board is one deal (a seed and a dealer), played once for each line ISMCTS can sit in,
the opponent in the other lines: the luck of the cards cancels, what is left is the
difference in play. A deal's MP is ISMCTS's line's points less the mean of the other
lines'; a board's value is the mean of its seatings; the interval is 95% over boards
(mean +- 1.96 sd / sqrt(boards)).

It prints a line a board as it goes, then the boards, ISMCTS's mean MP a deal with its
interval, each side's mean time a decision, on the wall clock and of CPU (a decision is
one engine action; single legal actions count, at no cost) and the options.
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
from burraco.bots.arena import interval95, make_bot
from burraco.bots.weights import HAND_SET
from burraco.encoding import EXTEND_BASE, PICK_BASE
from burraco.research import spiel
from burraco.research.rollout import GreedyRolloutEvaluator
from burraco.variants import Variant
from burraco.view import DealView

FINAL_POLICIES = {
    "max-visits": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    "visit-share": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
    "max-value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE,
}
CHILD_SELECTION = {
    "uct": ismcts.ChildSelectionPolicy.UCT,
    "puct": ismcts.ChildSelectionPolicy.PUCT,
}


def evaluator(args: argparse.Namespace, seed: int) -> Any:
    """The leaf evaluator ``--rollout`` names."""
    if args.rollout == "random":
        state = np.random.RandomState(seed)
        return mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=state)
    return GreedyRolloutEvaluator(
        rollouts=args.rollouts,
        horizon=args.horizon or None,
        greedy_prior=args.greedy_prior,
        weights=HAND_SET if args.greedy_weights == "hand-set" else None,
        seed=seed,
    )


class IsmctsBot:
    """OpenSpiel's ISMCTS as one of our bots: ``choose(view, legal) -> Action``."""

    def __init__(self, game: Any, args: argparse.Namespace, seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)
        state = np.random.RandomState(seed)
        self.search = ismcts.ISMCTSBot(
            game,
            evaluator(args, seed),
            args.uct_c,
            args.simulations,
            max_world_samples=args.world_samples,
            random_state=state,
            final_policy_type=FINAL_POLICIES[args.final_policy],
            child_selection_policy=CHILD_SELECTION[args.child_selection],
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
    #: The process's CPU time in its decisions: on a loaded machine the wall clock also
    #: counts the other programs' turns, the CPU time does not.
    cpu: float = 0.0

    @property
    def ms(self) -> float:
        return 1000 * self.seconds / self.decisions if self.decisions else 0.0

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu / self.decisions if self.decisions else 0.0


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
                bots[line] = IsmctsBot(game, args, bot_seed)
            else:
                bots[line] = make_bot(
                    args.against,
                    seed=bot_seed,
                    seconds=args.expert_seconds,
                    worlds=args.expert_worlds or None,
                )
        while not deal.is_over:
            seat = deal.turn
            line = v.line_of[seat]
            legal = deal.legal_actions()
            start, cpu = time.perf_counter(), time.process_time()
            action = bots[line].choose(deal.view(seat), legal)
            side = sides["ismcts" if line == ismcts_line else "opponent"]
            side.seconds += time.perf_counter() - start
            side.cpu += time.process_time() - cpu
            side.decisions += 1
            deal.apply(action)
        points = deal.score().points
        others = [p for line, p in enumerate(points) if line != ismcts_line]
        margins.append(points[ismcts_line] - statistics.fmean(others))
        sides["searches"].decisions += bots[ismcts_line].searches
    return Board(board, margins)


def options_of(v: Variant, args: argparse.Namespace) -> str:
    """The settings in words, for the report."""
    if args.rollout == "random":
        leaf = f"random rollouts x{args.rollouts}"
    else:
        reach = f"{args.horizon} turns" if args.horizon else "the end"
        leaf = f"greedy ({args.greedy_weights}) rollouts x{args.rollouts} to {reach}"
        if args.child_selection == "puct":
            leaf += f", greedy prior {args.greedy_prior:g}"
    worlds = "a fresh world" if args.world_samples < 0 else f"{args.world_samples} worlds"
    if args.against == "greedy":
        against = "greedy"
    elif args.expert_worlds:
        against = f"expert {args.expert_worlds} worlds a decision"
    else:
        against = f"expert {args.expert_seconds:g} s a decision"
    return (
        f"{v.name} {v.players}p {v.lines} lines, {args.simulations} simulations a search, "
        f"{leaf}, {args.child_selection} c {args.uct_c:g}, final {args.final_policy}, "
        f"{worlds} a search; against {against}; seed {args.seed}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=10)
    parser.add_argument("--against", choices=("expert", "greedy"), default="expert")
    parser.add_argument("--expert-seconds", type=float, default=0.3)
    parser.add_argument(
        "--expert-worlds", type=int, default=0, help="the expert's budget in worlds, not seconds"
    )
    parser.add_argument("--rollout", choices=("greedy", "random"), default="greedy")
    parser.add_argument("--simulations", type=int, default=100, help="a search (a step)")
    parser.add_argument("--uct-c", type=float, default=250.0, help="in points")
    parser.add_argument("--child-selection", choices=tuple(CHILD_SELECTION), default="uct")
    parser.add_argument(
        "--greedy-prior", type=float, default=0.5, help="greedy's share of the prior (puct)"
    )
    parser.add_argument("--final-policy", choices=tuple(FINAL_POLICIES), default="max-visits")
    parser.add_argument(
        "--world-samples", type=int, default=-1, help="determinizations a search; -1: fresh"
    )
    parser.add_argument("--rollouts", type=int, default=1, help="rollouts a leaf")
    parser.add_argument(
        "--greedy-weights",
        choices=("hand-set", "level"),
        default="hand-set",
        help="the rollouts' and prior's greedy: the expert's playouts' or the greedy level's",
    )
    parser.add_argument(
        "--horizon", type=int, default=0, help="turns a greedy rollout plays; 0: to the end"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="italian 2", help='"name [players [lines]]"')
    args = parser.parse_args()
    if args.simulations < 1:
        parser.error(f"a search runs 1 simulation or more, not {args.simulations}")
    if args.world_samples == 0 or args.world_samples < -1:
        parser.error(f"--world-samples is -1 (fresh) or 1 or more, not {args.world_samples}")
    if args.expert_worlds < 0:
        parser.error(
            f"--expert-worlds is 0 (use --expert-seconds) or more, not {args.expert_worlds}"
        )
    if args.horizon < 0:
        parser.error(f"--horizon is 0 (to the end) or 1 turn or more, not {args.horizon}")
    v = table(args.variant)
    game = pyspiel.load_game(
        "python_burraco", {"variant": v.name, "players": v.players, "lines": v.lines}
    )
    options = options_of(v, args)
    print(f"ISMCTS against {args.against}: {args.boards} boards; {options}", flush=True)
    sides = {"ismcts": Side(), "opponent": Side(), "searches": Side()}
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
    ism, opponent = sides["ismcts"], sides["opponent"]
    searches = sides["searches"].decisions
    print(f"boards played: {len(boards)} ({deals} deals)")
    print(f"ISMCTS MP a deal: {mean:+.1f}, 95% [{low:+.1f}, {high:+.1f}]")
    print(
        f"ISMCTS: {ism.decisions} decisions, {ism.ms:.1f} ms a decision, {ism.cpu_ms:.1f} ms "
        f"of CPU ({searches} searches of {args.simulations} simulations, "
        f"{1000 * ism.cpu / max(searches, 1):.0f} ms of CPU a search)"
    )
    print(
        f"{args.against}: {opponent.decisions} decisions, {opponent.ms:.1f} ms a decision, "
        f"{opponent.cpu_ms:.1f} ms of CPU"
    )
    print(f"options: {options}")


if __name__ == "__main__":
    main()
