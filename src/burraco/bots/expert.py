"""A search bot for hidden information: determinized rollouts with the greedy player.

At each decision that matters (draw or take, which card to discard, whether
to lay down more or discard now) the expert deals the cards it cannot see at random, many
times, consistently with what it knows (:meth:`Deal.resample`: the cards taken
from the pile stay in the hands that took them, every hand keeps its size), and
plays each candidate action on with :class:`GreedyBot` in every seat, to the
end of the deal or for a horizon of turns, where the deal's provisional score
(melded cards and bonuses, minus the hands and the pozzetto not yet taken)
stands for the outcome. The candidate with the best mean score difference for its line
wins. All candidates are weighed on the same sampled deals, so the luck of the
sample cancels between them.

Its budget is a time per decision (1 second by default) or a number of sampled
deals; its choices depend only on its view and its seed.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

from burraco.actions import DISCARD, Action
from burraco.bots.greedy import GreedyBot
from burraco.bots.search import Budget, pimc
from burraco.deal import Deal
from burraco.view import DealView

__all__ = ["ExpertBot"]


class ExpertBot:
    """Determinized search with greedy rollouts, within a budget.

    ``seconds`` bounds the time of one decision; ``worlds`` bounds the number of
    sampled deals instead (reproducible whatever the machine's speed).
    """

    def __init__(
        self,
        seconds: float = 1.0,
        worlds: int | None = None,
        seed: int = 0,
        discards: int = 4,
        lays: int = 2,
        horizon: int | None = 6,
    ) -> None:
        self.seconds = seconds
        self.worlds = worlds
        self.horizon = horizon
        self.seed = seed
        self.discards = discards
        self.lays = lays
        self.policy = GreedyBot()
        self.last_values: dict[Action, float] = {}

    def candidates(self, view: DealView, legal: Sequence[Action]) -> list[Action]:
        """The actions worth a search: draw or take; at the discard, greedy's best
        discards and lay-downs. Other lay-downs follow the greedy player."""
        if view.phase == "draw":
            return list(legal)
        first = self.policy.choose(view, legal)
        if first.kind != DISCARD:
            return [first]
        ranked = self.policy.ranked(view, legal)
        chosen = [first]
        discards = [a for a in ranked if a.kind == DISCARD][: self.discards]
        lays = [a for a in ranked if a.kind != DISCARD][: self.lays]
        for a in (*lays, *discards):
            if a not in chosen:
                chosen.append(a)
        return chosen

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        options = self.candidates(view, legal)
        if len(options) == 1:
            return options[0]
        # The seed and the public position fix the sampled deals: same view, same choice.
        key = f"{self.seed}|{view.seat}|{len(view.history)}|{view.hand}".encode()
        rng = random.Random(zlib.crc32(key))
        budget = Budget(worlds=self.worlds) if self.worlds else Budget(seconds=self.seconds)
        seat = view.seat
        best, self.last_values = pimc(
            options,
            sample=lambda r: Deal.resample(view, r),
            value=lambda world, action: self._rollout(world, action, seat),
            rng=rng,
            budget=budget,
        )
        return best

    def _rollout(self, world: Deal, action: Action, seat: int) -> float:
        deal = world.clone()
        deal.apply(action)
        policy = self.policy
        stop = None if self.horizon is None else deal.turns + self.horizon
        while not deal.is_over and (stop is None or deal.turns < stop):
            turn = deal.turn
            deal.apply(policy.choose(deal.view(turn), deal.legal_actions()))
        score = deal.score()
        mine = deal.line_of[seat]
        totals = {ls.line: ls.total for ls in score.lines}
        others = [t for line, t in totals.items() if line != mine]
        return totals[mine] - (max(others) if others else 0)
