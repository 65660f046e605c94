"""Hints: the expert's choice with a short reason, for the web room's hint button.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> hint = suggest(deal.view(deal.turn), seconds=0.05)
>>> hint.action in deal.legal_actions(), bool(hint.reason)
(True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from burraco.actions import DISCARD, DRAW, EXTEND, MELD, TAKE, Action
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import pile_worth
from burraco.cards import CARDS, counts_of
from burraco.deal import Deal
from burraco.melds import Meld, extended, grade_of, read_meld
from burraco.view import DealView

__all__ = ["Hint", "suggest"]


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action, why, and the searched candidates' mean values."""

    action: Action
    reason: str
    values: dict[Action, float] = field(default_factory=dict)


def suggest(view: DealView, seconds: float = 0.5, seed: int = 0) -> Hint:
    """The expert's action for the seat of ``view`` (which must be on turn), with a reason."""
    if not view.to_play:
        raise ValueError(f"seat {view.seat} is not on turn")
    # The legal actions depend only on the seat's own cards and the public table.
    legal = Deal.resample(view, random.Random(seed)).legal_actions()
    expert = ExpertBot(seconds=seconds, seed=seed)
    action = expert.choose(view, legal)
    return Hint(action, _reason(view, action, expert.last_values), dict(expert.last_values))


def _reason(view: DealView, action: Action, values: dict[Action, float]) -> str:
    v = view.rules
    assert v is not None
    margin = ""
    if len(values) > 1 and action in values:
        rest = [x for a, x in values.items() if a != action]
        margin = f" (about {values[action] - max(rest):+.0f} points over the next best)"
    if action.kind == TAKE:
        fit = [c for c in view.pile if _fits(c, view)]
        return f"take the pile: {len(fit)} of its {len(view.pile)} cards fit your game{margin}"
    if action.kind == DRAW:
        worth = pile_worth(view, v) if view.pile else 0.0
        why = "the pile would give you little" if worth <= 0 else "the pile is not worth its cards"
        return f"draw from the stock: {why}{margin}"
    if action.kind == MELD:
        meld = read_meld(action.cards, v)
        if len(action.cards) == len(view.hand):
            return f"lay down {meld}: it empties your hand{margin}"
        if grade_of(meld, v) is not None:
            return f"lay down {meld}: it is a {grade_of(meld, v)} burraco{margin}"
        return f"lay down {meld}: {meld.size} cards towards a burraco{margin}"
    if action.kind == EXTEND:
        before = view.own_melds[action.target]
        after = extended(before, action.cards[0], v)
        if isinstance(after, Meld) and grade_of(before, v) is None and grade_of(after, v):
            return f"add {action.cards[0]} to {before}: it makes a burraco{margin}"
        return f"add {action.cards[0]} to {before}{margin}"
    if action.kind == DISCARD:
        card = action.cards[0]
        if len(view.hand) == 1:
            return f"discard {card} and close{margin}"
        opponents = [m for line, ms in enumerate(view.melds) if line != view.line for m in ms]
        if not any(isinstance(extended(m, card, v), Meld) for m in opponents):
            return f"discard {card}: no opponent meld can take it{margin}"
        return f"discard {card}: the least useful card to keep{margin}"
    return f"{action}{margin}"


def _fits(card: int, view: DealView) -> bool:
    v = view.rules
    assert v is not None
    counts = counts_of(view.hand)
    rank = card % 13
    if sum(counts[s * 13 + rank] for s in range(4)) >= 2:
        return True
    return any(isinstance(extended(m, CARDS[card], v), Meld) for m in view.own_melds)
