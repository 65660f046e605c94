"""An OpenSpiel evaluator whose rollouts are played by our greedy player.

OpenSpiel's tree searches (``open_spiel.python.algorithms.mcts.MCTSBot`` and
``open_spiel.python.algorithms.ismcts.ISMCTSBot``) ask an evaluator two things of a
state of ``python_burraco`` (:mod:`burraco.research.spiel`): ``evaluate(state)``, the
value of the state for each seat, and ``prior(state)``, a probability for each legal
id. OpenSpiel's own ``RandomRolloutEvaluator`` plays random ids to the end of the deal,
which in Burraco is a poor guess of what a position is worth (random play never closes
and seldom melds). :class:`GreedyRolloutEvaluator` plays :class:`GreedyBot` in every
seat instead, as our expert's playouts do:

* ``evaluate`` plays ``rollouts`` deals on from the state's own deal (a clone; the state
  is not touched) and returns the mean of their returns (:func:`burraco.encoding.returns`:
  a seat's line's points less the mean of the other lines', zero-sum). With a
  ``horizon``, a rollout stops after that many turns and the deal's provisional totals
  (:func:`burraco.bots.expert.line_totals`) stand for the points, as in the expert's
  playouts; None plays to the end of the deal. Greedy is deterministic, so a second
  rollout of the same state would repeat the first: each one after the first shuffles the
  stock (the cards no seat has seen) again.
* ``prior`` gives the id greedy would play ``greedy_prior`` of the mass and shares the
  rest evenly among the legal ids (0: uniform, as OpenSpiel's evaluators).

A state in the middle of a meld (cards picked, the commit awaited) is played on with
the meld greedy likes best among those that hold the picked cards, so a rollout never
undoes a pick.

>>> import pyspiel, burraco.research.spiel
>>> game = pyspiel.load_game("python_burraco(variant=italian,players=2)")
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(min(state.legal_actions()))
>>> values = GreedyRolloutEvaluator().evaluate(state)
>>> len(values), round(float(values.sum()), 6)
(2, 0.0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from open_spiel.python.algorithms import mcts

from burraco.actions import MELD, TAKE, Action
from burraco.bots.expert import line_totals
from burraco.bots.greedy import GreedyBot, discarded_by
from burraco.bots.weights import HAND_SET, GreedyWeights
from burraco.cards import counts_of
from burraco.deal import Deal
from burraco.encoding import MELD_ID, PICK_BASE, TAKE_WITH_ID, Decisions, returns

__all__ = ["GreedyRolloutEvaluator", "greedy_id", "play_out", "rollout_returns"]


def _completions(decisions: Decisions) -> list[Action]:
    """The engine actions that hold every card picked so far (a meld, or canasta's take
    with cards): what a meld in the making may still become."""
    picked = decisions.picked
    return [
        a
        for a in decisions.deal.legal_actions()
        if (a.kind == MELD or (a.kind == TAKE and a.cards))
        and all(n >= p for n, p in zip(counts_of(a.cards), picked, strict=True))
    ]


def _next_id(action: Action, decisions: Decisions) -> int:
    """The id that plays ``action`` on from the cards picked so far: its own id, its next
    card to pick, or the commit once every card is picked."""
    space = decisions.space
    single = space.id_of(action)
    if single is not None:
        return single
    left = counts_of(action.cards)
    for c, p in enumerate(decisions.picked):
        left[c] -= p
    for c in action.cards:
        if left[c] > 0:
            return PICK_BASE + c
    return MELD_ID if action.kind == MELD else TAKE_WITH_ID


def _greedy_action(policy: GreedyBot, decisions: Decisions, thrown: list[set[int]]) -> Action:
    """The engine action greedy plays at this decision, within the picks made so far."""
    deal = decisions.deal
    if decisions.picking:
        return policy.choose(deal.view(deal.turn), _completions(decisions))
    return policy.playout(deal, thrown)


def greedy_id(decisions: Decisions, policy: GreedyBot | None = None) -> int:
    """The id greedy plays at ``decisions`` (an allowed id: a pick when it lays a new meld).

    >>> from burraco import Deal, variant
    >>> greedy_id(Decisions(Deal.new(variant("italian"), seed=3)))  # draw or take
    0
    """
    deal = decisions.deal
    if deal.is_over:
        raise ValueError("the deal is over: no seat has an id to play")
    policy = policy or GreedyBot()
    action = _greedy_action(policy, decisions, discarded_by(deal.view(deal.turn)))
    return _next_id(action, decisions)


def play_out(
    decisions: Decisions,
    policy: GreedyBot,
    thrown: Sequence[set[int]],
    horizon: int | None = None,
    shuffle: random.Random | None = None,
) -> Deal:
    """The deal after greedy plays every seat on from ``decisions`` (left as it is): to the
    end of the deal, or for ``horizon`` turns. ``thrown`` holds each seat's discards so far;
    with ``shuffle``, the stock is shuffled first."""
    deal: Deal = decisions.deal.clone()
    if shuffle is not None:
        shuffle.shuffle(deal.stock)
    seen = [set(cards) for cards in thrown]
    if decisions.picking:
        # Finish the meld in the making first (its cards are the seat's choice already).
        deal.apply(_greedy_action(policy, decisions, seen))
    policy.play_on(deal, seen, horizon)
    return deal


def rollout_returns(deal: Deal) -> list[float]:
    """Each seat's return: of the deal if it is over, else by the provisional totals (its
    line's less the mean of the other lines', zero-sum as :func:`returns`)."""
    if deal.is_over:
        return returns(deal)
    totals = line_totals(deal)
    total = sum(totals.values())
    others = len(totals) - 1
    return [
        float(totals[line]) - (total - totals[line]) / others
        for line in (deal.line_of[seat] for seat in range(deal.v.players))
    ]


class GreedyRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """OpenSpiel's evaluator with greedy rollouts (see the module's docstring).

    ``rollouts``: deals played per evaluation (their returns averaged); ``horizon``: turns
    a rollout plays (None: to the end of the deal); ``greedy_prior``: the prior's mass on
    greedy's id, in [0, 1]; ``weights``: the greedy player's (the hand-set ones); ``seed``:
    the stock's shuffles of the rollouts after the first.
    """

    def __init__(
        self,
        rollouts: int = 1,
        horizon: int | None = None,
        greedy_prior: float = 0.5,
        weights: GreedyWeights | None = HAND_SET,
        seed: int = 0,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"an evaluation plays 1 rollout or more, not {rollouts}")
        if horizon is not None and horizon < 1:
            raise ValueError(f"a rollout's horizon is 1 turn or more (or None), not {horizon}")
        if not 0.0 <= greedy_prior <= 1.0:
            raise ValueError(f"greedy's share of the prior is in [0, 1], not {greedy_prior}")
        self.rollouts = rollouts
        self.horizon = horizon
        self.greedy_prior = greedy_prior
        self.policy = GreedyBot(weights=weights)
        self.rng = random.Random(seed)

    @staticmethod
    def _decisions(state: Any) -> Decisions:
        decisions: Decisions | None = state.decisions
        if decisions is None:
            raise ValueError("the deck is still being shuffled: a rollout starts once dealt")
        return decisions

    def evaluate(self, state: Any) -> npt.NDArray[np.float64]:
        """The mean return of each seat over the rollouts from ``state``."""
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        decisions = self._decisions(state)
        deal = decisions.deal
        thrown = discarded_by(deal.view(deal.turn))
        total = np.zeros(deal.v.players)
        for k in range(self.rollouts):
            shuffle = self.rng if k else None
            ended = play_out(decisions, self.policy, thrown, self.horizon, shuffle)
            total += rollout_returns(ended)
        result: npt.NDArray[np.float64] = total / self.rollouts
        return result

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Greedy's id ``greedy_prior`` of the mass, the rest evenly over the legal ids."""
        legal = state.legal_actions()
        if not legal:
            return []
        even = (1.0 - self.greedy_prior) / len(legal)
        if self.greedy_prior == 0.0 or len(legal) == 1:
            return [(a, 1.0 / len(legal)) for a in legal]
        chosen = greedy_id(self._decisions(state), self.policy)
        return [(a, even + (self.greedy_prior if a == chosen else 0.0)) for a in legal]
