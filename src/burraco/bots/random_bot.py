"""A bot that plays uniformly at random among the legal actions.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> legal = deal.legal_actions()
>>> a, b = RandomBot(seed=3), RandomBot(seed=3)
>>> picks = [a.choose(deal.view(deal.turn), legal) for _ in range(8)]
>>> picks == [b.choose(deal.view(deal.turn), legal) for _ in range(8)]
True
>>> all(p in legal for p in picks)
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from burraco.actions import Action
from burraco.view import DealView

__all__ = ["RandomBot"]


class RandomBot:
    """Chooses uniformly from the legal actions with its own seeded generator, so a
    seeded match against it is the same every time."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        return legal[self.rng.randrange(len(legal))]
