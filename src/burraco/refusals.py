"""Refusals: why the engine refuses an action, as a stable code and its parameters.

A :class:`Refusal` names the broken rule by a snake_case ``code`` and carries the
``params`` its sentence needs (cards in the engine's notation as text, a minimum as
an int, a meld's index). :data:`TEXTS` is the one catalogue of codes: for each, the
English template whose ``{name}`` placeholders the params fill; ``str()`` of a refusal
is that English sentence. A page can say the same refusal in another language from
the code and the params alone.

A refusal that wraps another (``not a meld: <why>``) has the inner refusal's code as
its ``reason`` param, next to the inner refusal's own params: the inner template,
filled from the same params, takes the place of ``{reason}``.

>>> str(Refusal("hand_lacks_cards", {"cards": "5H 6H 7H"}))
'the hand does not hold 5H 6H 7H'
>>> inner = Refusal("wildcard_limit_one")
>>> outer = nested("cannot_add", inner, card="2C", meld="3H 2H 5H")
>>> outer.code, dict(outer.params)
('cannot_add', {'card': '2C', 'meld': '3H 2H 5H', 'reason': 'wildcard_limit_one'})
>>> print(outer)
cannot add 2C to 3H 2H 5H: a meld holds at most one wildcard
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

__all__ = ["TEXTS", "Refusal", "nested"]

#: Every refusal code with its English template. ``{reason}`` is filled with the text
#: of the refusal named by the ``reason`` param (see :func:`nested`).
TEXTS: Final[dict[str, str]] = {
    # --- the turn and its order -----------------------------------------------------------
    "deal_over": "the deal is over",
    "match_over": "the match is over",
    "time_out_called": "it has already been called",
    "unknown_kind": "unknown action {kind!r}",
    "not_a_card": "not a card",
    "not_drawn_yet": "first draw from the stock or take the pile",
    "already_drawn": "the player has already drawn this turn",
    "stock_empty": "the stock is empty",
    "pass_needs_empty_stock": "a player passes only when the stock is empty",
    "must_take_pile": "with the stock empty a player must take the pile",
    "opened_draws_from_stock": "a player who opened before drawing draws one card from the stock",
    "open_before_draw": "a player who opens draws one card: the opening comes before the draw",
    "no_redraw": "there is no second draw in this game",
    "redraw_dealer_first_turn": "only the dealer, on the first turn of the deal, may draw again",
    "redraw_once": "the dealer may draw again only once, right after the first draw",
    "hand_lacks_cards": "the hand does not hold {cards}",
    # --- taking the pile ------------------------------------------------------------------
    "pile_empty": "the discard pile is empty",
    "take_names_no_cards": "take takes the whole pile; name no cards",
    "one_card_no_single_pile": "a player holding one card may not take a pile of one card",
    "closed_pile_top_unmeldable": (
        "the pile is closed: it is taken only by a player who can meld its top card at once"
    ),
    "meld_pile_top_first": (
        "the pile was closed: first meld its top card, in a new meld or on one of the line's melds"
    ),
    "pile_frozen_black_three": "the pile is frozen while its top is a black 3",
    "wild_pile_needs_three": (
        "a pile topped by a wildcard is taken only with three cards equal to it"
    ),
    "pile_needs_pair": (
        "the pile is taken only with two naturals equal to its top ({top}), melded with it at once"
    ),
    "take_cannot_open": (
        "the first melds of a line must be worth at least {minimum}, "
        "reached with the top card and the hand: the rest of the pile never counts, "
        "and this take cannot reach it"
    ),
    "take_leaves_dead_end": "after this take the turn could not end legally ({reason})",
    # --- melding and extending ------------------------------------------------------------
    "not_a_meld": "not a meld: {reason}",
    "cards_not_a_meld": "{cards} is not a meld: {reason}",
    "cannot_add": "cannot add {card} to {meld}: {reason}",
    "extend_one_card": "extend adds one card to one meld",
    "no_such_meld": "the line has no meld {target} (its melds are 0 to {last})",
    "line_not_opened": "the line has not opened yet",
    "two_sets_same_rank": "a line may not hold two separate sets of the same rank",
    "one_meld_per_rank": "a line holds one meld of each rank: extend it",
    "one_wild_meld": "a line holds one meld of wildcards: extend it",
    "black_threes_going_out": "black 3s may be melded only by a player going out",
    "meld_minimum_not_reached": "the first melds of a line must be worth at least {minimum}",
    "meld_minimum_unreachable": (
        "the first melds of a line must be worth at least {minimum}; "
        "the hand cannot reach it after this"
    ),
    "meld_minimum_laid_so_far": (
        "the first melds of a line must be worth at least {minimum} (laid so far: {laid})"
    ),
    "vulnerable_minimum": "the first lay-down of a vulnerable line is worth at least {minimum}",
    # --- ending the turn, going out, closing ----------------------------------------------
    "discard_one_card": "discard one card",
    "discard_back_single": (
        "the card taken from a one-card pile may not be discarded in the same turn, "
        "unless the hand holds two equal to it"
    ),
    "leaves_taken_card": (
        "this would leave only the card taken from a one-card pile, which may not be discarded back"
    ),
    "leaves_only_wildcard": (
        "this would leave only a wildcard, and the closing discard may not be a wildcard"
    ),
    "leaves_dead_end": "this would leave a hand that cannot end the turn legally",
    "leaves_last_card_no_burraco": (
        "this would leave one card, and discarding it would empty the hand, "
        "which the line may not do yet: {reason}"
    ),
    "go_out_by_discard": "going out is a final discard; the hand may not be emptied by melding",
    "go_out_needs_canastra": "to go out the line needs a canastra",
    "go_out_needs_clean_canastra": "to go out the line needs a clean canastra",
    "go_out_two_canastas": "to go out a line needs two canastas, one of them clean",
    "close_by_discard": (
        "a line that has its pozzetto empties the hand only by closing, "
        "and the last card always leaves as a discard"
    ),
    "burraco_before_pozzetto": "with 6 players a line needs a burraco before it takes its pozzetto",
    "close_needs_burraco": "to close the line needs at least one burraco",
    "closing_discard_wildcard": "the closing discard may not be a wildcard",
    # --- what makes a meld (the reasons of melds.py) --------------------------------------
    "no_cards": "no cards",
    "meld_too_short": "a meld has at least three cards",
    "meld_needs_two_naturals": "a meld needs at least two natural cards",
    "wildcards_only": "a meld of wildcards only is not allowed",
    "wildcard_limit_one": "a meld holds at most one wildcard",
    "wildcard_limit": "a meld holds at most {most} wildcards",
    "canasta_wildcard_limit": "two naturals take at most one wildcard, three or more take two",
    "set_one_rank": "a set is of one rank",
    "no_sets": "this game has no sets (sem trinca): a meld is a sequence of one suit",
    "set_too_long": "a set holds at most {most} cards",
    "set_wrong_card": "a set takes only cards of its rank and wildcards",
    "wild_meld_takes_wildcards": "a meld of wildcards takes only wildcards",
    "black_threes_no_wildcards": "black 3s are melded without wildcards",
    "red_threes_not_melded": "red 3s are laid aside, never melded",
    "sequence_one_suit": "a sequence is of one suit",
    "sequence_wrong_suit": "a sequence takes only cards of its suit and wildcards",
    "sequence_repeats_rank": "a sequence holds one card of each rank",
    "sequence_holds_card": "the sequence already holds that card",
    "sequence_one_ace": "a sequence holds one natural ace at most",
    "sequence_too_long": "a sequence has at most 14 cards",
    "sequence_no_room_for_wildcard": "a sequence has no room for the wildcard",
    "sequence_not_consecutive": "the cards of a sequence must be consecutive",
    "sequence_gap": (
        "the cards of a sequence must be consecutive, with at most one wildcard filling a gap"
        " (the ace goes below the 2 or above the K, never round the corner)"
    ),
    "sequence_gaps": (
        "the cards of a sequence must be consecutive, wildcards filling its gaps"
        " (the ace goes below the 2 or above the K, never round the corner)"
    ),
    "card_does_not_fit": "the card does not fit at either end of the sequence",
    "wildcard_never_moved": (
        "a wildcard is never moved, except a 2 going back to its natural place in a canastra"
    ),
    # --- action ids (burraco.encoding: a meld laid a card at a time) -------------------
    "no_action_id": "there is no action id {id}: ids run from 0 to {last}",
    "finish_the_pick": (
        "cards are picked ({cards}): pick a card that a legal meld holds with them, or commit"
    ),
    "pick_fits_no_meld": "no legal meld or take holds {card} with the cards picked",
    "nothing_picked": "no cards are picked to commit",
    "id_not_allowed": "{action} is not allowed now",
}


_NO_PARAMS: Final[Mapping[str, str | int]] = MappingProxyType({})


def _no_params() -> Mapping[str, str | int]:
    return _NO_PARAMS


@dataclass(frozen=True, slots=True)
class Refusal:
    """The rule that forbids an action: a code of :data:`TEXTS` and its params.

    ``str()`` is the English sentence. Refusals are built only when an action is refused;
    where the engine refuses often they are built once and shared, so params are never
    changed in place.
    """

    code: str
    params: Mapping[str, str | int] = field(default_factory=_no_params)

    def __hash__(self) -> int:
        return hash((self.code, frozenset(self.params.items())))

    def __reduce__(self) -> tuple[type[Refusal], tuple[str, dict[str, str | int]]]:
        return Refusal, (self.code, dict(self.params))

    def __str__(self) -> str:
        template = TEXTS[self.code]
        params = self.params
        if not params:
            return template
        reason = params.get("reason")
        if isinstance(reason, str) and reason in TEXTS:
            params = {**params, "reason": TEXTS[reason].format_map(params)}
        return template.format_map(params)


#: The refusals :func:`nested` built with no params but ``reason``, by code and reason.
_NESTED: dict[tuple[str, str], Refusal] = {}


def nested(code: str, inner: Refusal, **params: str | int) -> Refusal:
    """The refusal ``code`` wrapping ``inner``: ``inner``'s params, ``params`` and
    ``reason``, the code of ``inner``.

    A reason is one level deep: wrapping a refusal that wraps another wraps the
    innermost one, with the params it carries.

    >>> middle = nested("leaves_last_card_no_burraco", Refusal("close_needs_burraco"))
    >>> outer = nested("take_leaves_dead_end", middle)
    >>> dict(outer.params)
    {'reason': 'close_needs_burraco'}
    >>> print(outer)
    after this take the turn could not end legally (to close the line needs at least one burraco)
    """
    reason = inner.params.get("reason")
    if isinstance(reason, str) and reason in TEXTS:
        rest = {k: value for k, value in inner.params.items() if k != "reason"}
        inner = Refusal(reason, MappingProxyType(rest) if rest else _NO_PARAMS)
    if params or inner.params:
        return Refusal(code, {**inner.params, **params, "reason": inner.code})
    key = (code, inner.code)
    found = _NESTED.get(key)
    if found is None:
        found = _NESTED[key] = Refusal(code, MappingProxyType({"reason": inner.code}))
    return found
