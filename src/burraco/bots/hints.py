"""Hints: the review's judge asked before the move, with a short reason, for the web
room's hint button.

A hint and a review are the same search (:func:`burraco.bots.review.weigh`: the expert's
wide list of candidates, its playouts and its leaf, sampled deals added until the interval
is narrow or the budget is spent), and both say why in the same words (:data:`WHY`,
:func:`why_of`). The action a hint suggests is the one a review of the same sample would
call best; its margin over the next best is measured on sampled deals it was not chosen
on (:func:`~burraco.bots.review.split_cost`), not the best of noisy means. A hint whose
time ran out before the review's width is ``quick``: it says so.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> hint = suggest(deal.view(deal.turn), seconds=0.05)
>>> hint.action in deal.legal_actions(), bool(hint.reason)
(True, True)
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from burraco.actions import DISCARD, DRAW, EXTEND, MELD, TAKE, Action
from burraco.bots.greedy import pile_worth
from burraco.bots.review import sampler, split_cost, weigh
from burraco.cards import CARDS
from burraco.deal import Deal
from burraco.melds import Meld, extended, grade_of, is_wild, meld_or_refusal, read_meld
from burraco.view import DealView

__all__ = ["Hint", "suggest", "why_of"]


#: Why a hint suggests its action: a code, and its English text with ``{param}`` places
#: (the web page says each in the player's language).
WHY: dict[str, str] = {
    "take_fits": "take the pile: {fit} of its {size} cards fit your game",
    "take_fits_none": "take the pile: {size} cards to build with, worth more than the stock",
    "draw_little": "draw from the stock: the pile would give you little",
    "draw_not_worth": "draw from the stock: the pile is not worth its cards",
    "meld_pozzetto": "lay down {meld}: it empties your hand and takes your pozzetto",
    "meld_empties": "lay down {meld}: it empties your hand",
    "meld_burraco": "lay down {meld}: it is a {grade} burraco",
    "meld_towards": "lay down {meld}: {size} cards towards a burraco",
    "extend_burraco": "add {card} to {meld}: it makes a burraco",
    "extend": "add {card} to {meld}",
    "discard_pozzetto": "discard {card}: your last card, and you take your pozzetto",
    "discard_close": "discard {card} and close",
    "discard_safe": "discard {card}: no opponent meld can take it",
    "discard_least": "discard {card}: the least useful card to keep",
    "other": "{action}",
}
#: How much better the suggested action scored than the next best.
MARGIN = " (about {margin:+d} points over the next best)"
#: Said of a hint whose time ran out before the review's interval width.
QUICK = " (a quick look: {worlds} sampled deals)"


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action, why (a code of :data:`WHY` and its parameters), and the
    searched candidates' mean values.

    >>> Hint(Action.parse("draw"), "draw_little").reason
    'draw from the stock: the pile would give you little'
    """

    action: Action
    why: str
    params: dict[str, str | int] = field(default_factory=dict)
    values: dict[Action, float] = field(default_factory=dict)
    #: The search stopped on its time before the review's interval width: a quick look.
    quick: bool = False
    #: The sampled deals it weighed.
    worlds: int = 0

    @property
    def reason(self) -> str:
        """The reason in English, with the margin over the next best when it is known."""
        text = WHY[self.why].format(**self.params)
        if "margin" in self.params:
            text += MARGIN.format(margin=self.params["margin"])
        if self.quick:
            text += QUICK.format(worlds=self.worlds)
        return text


def suggest(
    view: DealView,
    seconds: float | None = 0.5,
    seed: int = 0,
    worlds: int | None = None,
    horizon: int | None = 6,
) -> Hint:
    """The review's best action for the seat of ``view`` (which must be on turn), with a
    reason: :func:`~burraco.bots.review.weigh` within ``seconds`` and/or ``worlds``
    sampled deals (the table's budget)."""
    if not view.to_play:
        raise ValueError(f"seat {view.seat} is not on turn")
    # The legal actions depend only on the seat's own cards and the public table.
    legal = Deal.resample(view, random.Random(seed)).legal_actions()
    if len(legal) == 1:
        why, params = why_of(view, legal[0])
        return Hint(legal[0], why, params)
    # The seed and the public position fix the sampled deals: same view, same hint. The
    # review of this decision samples others (see sampler).
    rng = sampler(view, seed, "hint")
    weighing = weigh(view, legal, None, rng, seconds=seconds, worlds=worlds, horizon=horizon)
    options = weighing.options
    if not weighing.outcomes:
        why, params = why_of(view, options[0])
        return Hint(options[0], why, params)
    best = weighing.best()
    means = weighing.means()
    values = dict(zip(options, means, strict=True))
    why, params = why_of(view, options[best])
    # The margin over the next best, measured as a review measures a cost: the runner-up
    # against the best chosen on other sampled deals (unbiased, so it can agree with
    # the review that follows).
    runner = max((k for k in range(len(options)) if k != best), key=lambda k: means[k])
    params["margin"] = round(split_cost(weighing.values(), runner).cost)
    return Hint(options[best], why, params, values, weighing.rough, len(weighing.outcomes))


def why_of(view: DealView, action: Action) -> tuple[str, dict[str, str | int]]:
    """Why ``action`` is good, in words the hint and the review share: a code of
    :data:`WHY` and its parameters."""
    return _why(view, action)


def _why(view: DealView, action: Action) -> tuple[str, dict[str, str | int]]:
    v = view.rules
    assert v is not None
    # Emptying the hand takes the pozzetto where the line has not taken it yet.
    to_pozzetto = v.family == "burraco" and v.pozzetti and not view.has_pozzetto[view.line]
    if action.kind == TAKE:
        fit = sum(1 for c in view.pile if _fits(c, view))
        size = len(view.pile)
        return (
            ("take_fits", {"fit": fit, "size": size}) if fit else ("take_fits_none", {"size": size})
        )
    if action.kind == DRAW:
        worth = pile_worth(view, v) if view.pile else 0.0
        return ("draw_little" if worth <= 0 else "draw_not_worth"), {}
    if action.kind == MELD:
        meld = read_meld(action.cards, v)
        text = str(meld)
        if len(action.cards) == len(view.hand):
            return ("meld_pozzetto" if to_pozzetto else "meld_empties"), {"meld": text}
        grade = grade_of(meld, v)
        if grade is not None:
            return "meld_burraco", {"meld": text, "grade": grade}
        return "meld_towards", {"meld": text, "size": meld.size}
    if action.kind == EXTEND:
        before = view.own_melds[action.target]
        after = extended(before, action.cards[0], v)
        params: dict[str, str | int] = {"card": str(action.cards[0]), "meld": str(before)}
        if isinstance(after, Meld) and grade_of(before, v) is None and grade_of(after, v):
            return "extend_burraco", params
        return "extend", params
    if action.kind == DISCARD:
        card = action.cards[0]
        if len(view.hand) == 1:
            return ("discard_pozzetto" if to_pozzetto else "discard_close"), {"card": str(card)}
        opponents = [m for line, ms in enumerate(view.melds) if line != view.line for m in ms]
        if not any(isinstance(extended(m, card, v), Meld) for m in opponents):
            return "discard_safe", {"card": str(card)}
        return "discard_least", {"card": str(card)}
    return "other", {"action": str(action)}


def _fits(card: int, view: DealView) -> bool:
    """Whether a pile card helps the seat: a wildcard, a card one of its melds takes, or
    a card that makes a meld with two cards of its hand."""
    v = view.rules
    assert v is not None
    if is_wild(card):
        return True
    if any(isinstance(extended(m, CARDS[card], v), Meld) for m in view.own_melds):
        return True
    hand = sorted(set(view.hand))
    return any(
        isinstance(meld_or_refusal((card, a, b), v), Meld)
        for a, b in itertools.combinations(hand, 2)
    )
