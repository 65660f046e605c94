"""A rule-based bot that plays like a sound club player, fast (well under 5 ms a decision).

It takes the pile when the cards in it fit its hand or its line's melds, lays
down natural melds and extensions, keeps its wildcards for a burraco, goes to
the pozzetto and closes when it can, and discards safely: it remembers the
cards each opponent took from the pile (the view's ``known`` cards) and the ones
they threw away, and avoids feeding an opponent's melds.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> bot = GreedyBot()
>>> while not deal.is_over:
...     deal.apply(bot.choose(deal.view(deal.turn), deal.legal_actions()))
>>> deal.end_reason in ("closed", "stock", "stall")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from burraco.actions import DISCARD, DRAW, EXTEND, MELD, REDRAW, TAKE, Action
from burraco.cards import JOKER, counts_of
from burraco.melds import SEQUENCE, Meld, extended, grade_of, is_wild, read_meld
from burraco.variants import Variant
from burraco.view import DealView

__all__ = ["GreedyBot", "discard_danger", "pile_worth"]

_WILD_KEEP: Final = 200


def _fits_hand(card: int, counts: Sequence[int]) -> bool:
    """Whether a card makes a meld, or most of one, with cards of the hand."""
    if is_wild(card):
        return True
    rank = card % 13
    same = sum(counts[s * 13 + rank] for s in range(4))
    if same >= 2:
        return True
    suit = card // 13
    base = suit * 13

    def has(r: int) -> bool:
        # r is a rank index 0-12 (0 the ace); the ace also follows the king.
        return 0 <= r <= 13 and counts[base + (r % 13)] > 0

    near = [has(rank + d) for d in (-2, -1, 1, 2)]
    return (near[1] and near[2]) or (near[0] and near[1]) or (near[2] and near[3])


def _extends_any(card: int, melds: Sequence[Meld], v: Variant) -> Meld | None:
    wild = card == JOKER or card % 13 == 1
    for m in melds:
        # Most cards cannot fit most melds: skip those before building anything.
        if not wild and (card // 13 != m.suit if m.kind == SEQUENCE else card % 13 + 1 != m.rank):
            continue
        own_two = card % 13 == 1 and card // 13 == m.suit
        if wild and m.kind == SEQUENCE and len(m.wilds) >= v.max_wildcards and not own_two:
            continue
        grown = extended(m, card, v)
        if isinstance(grown, Meld):
            return grown
    return None


def pile_worth(view: DealView, v: Variant) -> float:
    """How much taking the whole pile is worth to the seat, in rough points."""
    counts = counts_of(view.hand)
    for c in view.pile:
        counts[c] += 1
    own = view.own_melds
    worth = 0.0
    late = view.stock_size < 20
    for c in view.pile:
        counts[c] -= 1
        useful = _fits_hand(c, counts) or _extends_any(c, own, v) is not None
        counts[c] += 1
        if useful:
            worth += 15 + v.value(c)
        else:
            worth -= v.value(c) * (1.0 if late else 0.5)
    return worth


def _discarded_by(view: DealView) -> list[set[int]]:
    """The cards each seat has discarded in this deal (cards it did not want)."""
    seat = (view.dealer + 1) % view.players
    if view.rules is not None and view.rules.dealer_plays_first:
        seat = view.dealer
    thrown: list[set[int]] = [set() for _ in range(view.players)]
    for action in view.history:
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
            seat = (seat + 1) % view.players
        elif action.kind == "pass":
            seat = (seat + 1) % view.players
    return thrown


def discard_danger(
    card: int, view: DealView, v: Variant, thrown: list[set[int]] | None = None
) -> float:
    """How much a discard may help the opponents (``thrown``: each seat's discards so far)."""
    danger = 0.0
    mine = view.line
    if thrown is None:
        thrown = _discarded_by(view)
    next_seat = (view.seat + 1) % view.players
    for seat in range(view.players):
        line = view.line_of[seat]
        if line == mine:
            continue
        weight = 1.5 if seat == next_seat else 1.0
        if _extends_any(card, view.melds[line], v) is not None:
            danger += 60 * weight
        known_cards = view.known[seat] if view.known else ()
        if known_cards and (card in known_cards or _fits_hand(card, counts_of(known_cards))):
            danger += 35 * weight
        if card in thrown[seat]:
            danger -= 20
    if is_wild(card):
        danger += 80
    return danger * (1 + len(view.pile) / 6)


class GreedyBot:
    """Plays the best-looking action by simple club rules; deterministic."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        v = view.rules
        assert v is not None
        if view.phase == "draw":
            return self._draw_or_take(view, legal, v)
        return self._play(view, legal, v)

    def _draw_or_take(self, view: DealView, legal: Sequence[Action], v: Variant) -> Action:
        takes = [a for a in legal if a.kind == TAKE]
        draw = next((a for a in legal if a.kind == DRAW), None)
        if not takes:
            return draw or legal[0]
        if draw is None:
            return takes[0]
        if v.pile_needs_pair:
            return takes[0]  # canasta: the pile is the game
        return takes[0] if pile_worth(view, v) > 0 else draw

    def _play(self, view: DealView, legal: Sequence[Action], v: Variant) -> Action:
        counts = counts_of(view.hand)
        size = len(view.hand)
        best: Action | None = None
        best_score = 0.0
        for action in legal:
            if action.kind == MELD:
                score = self._meld_score(action, size, v)
            elif action.kind == EXTEND:
                score = self._extend_score(action, view, size, v)
            elif action.kind == REDRAW:
                score = -1.0
            else:
                continue
            if score > best_score:
                best, best_score = action, score
        if best is not None:
            return best
        discards = [a for a in legal if a.kind == DISCARD]
        if not discards:
            return legal[0]
        thrown = _discarded_by(view)
        return min(discards, key=lambda a: self._keep_score(a.cards[0], counts, view, v, thrown))

    def ranked(self, view: DealView, legal: Sequence[Action]) -> list[Action]:
        """The play-phase actions from most to least attractive: lay-downs that score
        above nothing first, by score; then discards, safest first."""
        v = view.rules
        assert v is not None
        counts = counts_of(view.hand)
        size = len(view.hand)
        lays: list[tuple[float, int, Action]] = []
        discards: list[tuple[float, int, Action]] = []
        thrown = _discarded_by(view)
        for i, action in enumerate(legal):
            if action.kind == MELD:
                lays.append((-self._meld_score(action, size, v), i, action))
            elif action.kind == EXTEND:
                lays.append((-self._extend_score(action, view, size, v), i, action))
            elif action.kind == DISCARD:
                keep = self._keep_score(action.cards[0], counts, view, v, thrown)
                discards.append((keep, i, action))
        return [a for _, _, a in sorted(lays)] + [a for _, _, a in sorted(discards)]

    def _meld_score(self, action: Action, size: int, v: Variant) -> float:
        meld = read_meld(action.cards, v)
        n = len(action.cards)
        score = 10.0 * n + sum(v.value(c) for c in action.cards)
        if meld.wilds and n < 6 and n < size:
            score -= 45 + 10 * (6 - n)  # keep the wildcard for a burraco
        if grade_of(meld, v) is not None:
            score += 150
        if n == size:
            score += 120  # the pozzetto in diretta, or going out
        return score

    def _extend_score(self, action: Action, view: DealView, size: int, v: Variant) -> float:
        card = action.cards[0]
        before = view.own_melds[action.target]
        after = extended(before, card, v)
        if not isinstance(after, Meld):
            return -1.0
        score = 12.0 + v.value(card)
        old_grade, new_grade = grade_of(before, v), grade_of(after, v)
        if old_grade is None and new_grade is not None:
            score += 160
        if old_grade == "clean" and new_grade != "clean":
            score -= 250
        spends_wild = card == JOKER or (card % 13 == 1 and bool(after.wilds))
        if spends_wild and new_grade is None and size > 1:
            score -= 60 if before.kind == SEQUENCE else 40
        if size == 1:
            score += 100
        return score

    def _keep_score(
        self, card: int, counts: list[int], view: DealView, v: Variant, thrown: list[set[int]]
    ) -> float:
        """Lower is a better discard: little use to us, little help to them."""
        counts[card] -= 1
        use = 30.0 if _fits_hand(card, counts) else 0.0
        counts[card] += 1
        if _extends_any(card, view.own_melds, v) is not None:
            use += 25
        if is_wild(card):
            use += _WILD_KEEP
        return use + discard_danger(card, view, v, thrown) - 0.4 * v.value(card)
