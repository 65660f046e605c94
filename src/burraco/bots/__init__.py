"""Players that choose actions.

A bot is anything with ``choose(view, legal) -> Action``: it sees only its
seat's :class:`~burraco.view.DealView` and the legal actions, in the engine's
fixed order, and returns one of them.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> bot: Bot = RandomBot(seed=1)
>>> str(bot.choose(deal.view(deal.turn), deal.legal_actions()))
'draw'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from burraco.actions import Action
from burraco.bots.random_bot import RandomBot
from burraco.view import DealView

__all__ = ["Bot", "RandomBot"]


class Bot(Protocol):
    """A player: chooses one of the legal actions from what its seat can see."""

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action: ...
