"""Melds: reading them, checking them, extending them, grading them.

A sequence (scala) is three or more consecutive cards of one suit; a set
(combinazione, trinca) is three or more cards of one rank. Wildcards are the
jokers and the 2s; a 2 standing in its natural place in a sequence of its own
suit is a natural card.

Positions in a sequence run from 1 (the ace below the 2) to 14 (the ace above
the king). A sequence keeps the reading found when it was laid down: its
natural cards run from ``lo`` to ``hi``; a wildcard standing between two
naturals has a fixed position ``gap``; a wildcard at an end has ``gap == 0``
and may move to the other end or into a gap when cards are added (burraco).
In buraco melds are never rearranged, so there a wildcard's position is always
fixed, even at an end.

>>> from burraco.variants import variant
>>> it = variant("italian")
>>> info = check_meld(parse_cards("KH AH 2H"), it)
>>> info.kind, info.cards_text, info.points
('sequence', '2H KH AH', 45)
>>> check_meld(parse_cards("KH AH 3H"), it)
Traceback (most recent call last):
...
burraco.errors.IllegalMove: KH AH 3H is not a meld: the cards of a sequence must be consecutive, with at most one wildcard filling a gap (the ace goes below the 2 or above the K, never round the corner)
>>> m = read_meld(parse_cards("3H 2H 5H"), it)
>>> format_cards(m.cards)
'3H 2H 5H'
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, combinations, combinations_with_replacement, product
from operator import itemgetter
from types import MappingProxyType
from typing import Final, NamedTuple

from burraco.actions import Action, meld_action
from burraco.cards import CARDS, JOKER, Card, format_cards, parse_cards
from burraco.errors import IllegalMove
from burraco.refusals import Refusal, nested
from burraco.variants import PerVariant, Variant

__all__ = [
    "SEQUENCE",
    "SET",
    "WILD",
    "Meld",
    "MeldInfo",
    "check_meld",
    "extend_meld",
    "grade_of",
    "is_wild",
    "meld_bonus",
    "meld_candidates",
    "meld_or_refusal",
    "meld_points",
    "read_meld",
    "wild_limit",
]

SEQUENCE: Final = "sequence"
SET: Final = "set"
#: A canasta meld of wildcards only.
WILD: Final = "wild"

#: The wildcards by kind: the four 2s and the joker.
WILDCARDS: Final = (1, 14, 27, 40, JOKER)


def is_wild(card: int) -> bool:
    """Jokers and 2s are wildcards (a natural 2 in its sequence is read by the meld)."""
    return card == JOKER or card % 13 == 1


def _card_at(suit: int, position: int) -> int:
    return suit * 13 + (0 if position == 14 else position - 1)


def _positions(card: int) -> tuple[int, ...]:
    rank = card % 13 + 1
    return (1, 14) if rank == 1 else (rank,)


class Meld(NamedTuple):
    """A meld on the table with its kept reading."""

    kind: str
    #: The suit of a sequence, -1 for a set.
    suit: int
    #: The rank of a set (1-13), 0 for a sequence or a meld of wildcards.
    rank: int
    #: The positions of the lowest and highest natural card of a sequence (1-14).
    lo: int
    hi: int
    #: The position a sequence's wildcard stands for; 0 when it floats at an end.
    gap: int
    #: The wildcards in the meld.
    wilds: tuple[Card, ...]
    #: The cards in display order.
    cards: tuple[Card, ...]
    #: With several wildcards (buraco's option): the position each one stands for.
    fixed: tuple[int, ...] = ()

    def __str__(self) -> str:
        return format_cards(self.cards)

    @property
    def size(self) -> int:
        return len(self.cards)


def _sequence(suit: int, lo: int, hi: int, gap: int, wilds: tuple[int, ...]) -> Meld:
    cards: list[Card] = []
    low_wild = bool(wilds) and gap == 0 and lo > 1
    if low_wild:
        cards.append(CARDS[wilds[0]])
    first = min(lo, gap) if gap else lo
    last = max(hi, gap) if gap else hi
    for p in range(first, last + 1):
        cards.append(CARDS[wilds[0]] if p == gap else CARDS[_card_at(suit, p)])
    if wilds and gap == 0 and not low_wild:
        cards.append(CARDS[wilds[0]])
    # Cards, not ints: compiled, a tuple of ints loses their Card type (and prints so).
    wild_cards: list[Card] = [CARDS[w] for w in wilds]
    return _NEW_MELD(Meld, (SEQUENCE, suit, 0, lo, hi, gap, tuple(wild_cards), tuple(cards), ()))


def _set(rank: int, naturals: Iterable[int], wilds: tuple[int, ...]) -> Meld:
    # Plain loops over CARDS: compiled, native reads, where map() called CARDS.__getitem__.
    wild_cards: list[Card] = [CARDS[c] for c in sorted(wilds)]
    cards: list[Card] = [CARDS[c] for c in sorted(naturals)]
    cards.extend(wild_cards)
    kind = WILD if rank == 0 else SET
    return _NEW_MELD(Meld, (kind, -1, rank, 0, 0, 0, tuple(wild_cards), tuple(cards), ()))


#: Builds a :class:`Meld` as its constructor does (``Meld(*fields)`` is ``tuple.__new__(Meld,
#: fields)``), without the constructor's interpreted frame: compiled, a NamedTuple is called
#: as any Python class.
_NEW_MELD: Final = tuple.__new__


# --- the reasons cards are not a meld (codes of burraco.refusals) -------------------------

_NO_CARDS: Final = Refusal("no_cards")
_TOO_SHORT: Final = Refusal("meld_too_short")
_TWO_NATURALS: Final = Refusal("meld_needs_two_naturals")
_WILDCARDS_ONLY: Final = Refusal("wildcards_only")
_CANASTA_WILD_LIMIT: Final = Refusal("canasta_wildcard_limit")
_SET_ONE_RANK: Final = Refusal("set_one_rank")
_NO_SETS: Final = Refusal("no_sets")
_SET_WRONG_CARD: Final = Refusal("set_wrong_card")
_WILD_MELD_WILDCARDS: Final = Refusal("wild_meld_takes_wildcards")
_BLACK_THREES: Final = Refusal("black_threes_no_wildcards")
_RED_THREES: Final = Refusal("red_threes_not_melded")
_ONE_SUIT: Final = Refusal("sequence_one_suit")
_WRONG_SUIT: Final = Refusal("sequence_wrong_suit")
_REPEATS_RANK: Final = Refusal("sequence_repeats_rank")
_HOLDS_CARD: Final = Refusal("sequence_holds_card")
_ONE_ACE: Final = Refusal("sequence_one_ace")
_TOO_LONG: Final = Refusal("sequence_too_long")
_NO_ROOM: Final = Refusal("sequence_no_room_for_wildcard")
_NOT_CONSECUTIVE: Final = Refusal("sequence_not_consecutive")
_GAP: Final = Refusal("sequence_gap")
_GAPS: Final = Refusal("sequence_gaps")
_NO_FIT: Final = Refusal("card_does_not_fit")
_NEVER_MOVED: Final = Refusal("wildcard_never_moved")


@functools.cache
def _wildcard_limit(most: int) -> Refusal:
    if most == 1:
        return Refusal("wildcard_limit_one")
    return Refusal("wildcard_limit", MappingProxyType({"most": most}))


@functools.cache
def _set_too_long(most: int) -> Refusal:
    return Refusal("set_too_long", MappingProxyType({"most": most}))


def wild_limit(naturals: int, v: Variant) -> int:
    """The most wildcards a set with so many naturals may hold."""
    if v.canasta_wild_limit:
        return 1 if naturals <= 2 else 2
    return v.max_wildcards


# --- reading a meld laid down -------------------------------------------------------------


def _read_sequence(cards: Sequence[int], v: Variant) -> Meld | Refusal:
    naturals = [c for c in cards if not is_wild(c)]
    if not naturals:
        return _TWO_NATURALS
    suit = naturals[0] // 13
    if any(c // 13 != suit for c in naturals):
        return _ONE_SUIT
    own_twos = sum(1 for c in cards if c == suit * 13 + 1)
    others = [c for c in cards if is_wild(c) and c != suit * 13 + 1]
    error = _NOT_CONSECUTIVE
    # The reading with no wildcard comes first: an own 2 in its natural place.
    for natural_two in (True, False) if own_twos else (False,):
        positions = [c % 13 + 1 for c in naturals] + ([2] if natural_two else [])
        wilds = tuple(others + [suit * 13 + 1] * (own_twos - (1 if natural_two else 0)))
        if len(wilds) > v.max_wildcards:
            error = _wildcard_limit(v.max_wildcards)
            continue
        aces = positions.count(1)
        if aces > 2 or (aces == 2 and not v.canastra_real):
            error = _ONE_ACE
            continue
        if aces == 2:
            choices = [sorted([1, 14] + [p for p in positions if p != 1])]
        elif aces == 1:
            rest = [p for p in positions if p != 1]
            choices = [sorted([1, *rest]), sorted([*rest, 14])]
        else:
            choices = [sorted(positions)]
        for pos in choices:
            reading = _place(suit, pos, wilds, v)
            if isinstance(reading, Meld):
                return reading
            error = reading
    return error


def _place(suit: int, pos: list[int], wilds: tuple[int, ...], v: Variant) -> Meld | Refusal:
    if len(wilds) > 1:
        return _place_many(suit, pos, wilds)
    if len(set(pos)) != len(pos):
        return _REPEATS_RANK
    if len(pos) < 2:
        return _TWO_NATURALS
    if len(pos) + len(wilds) < 3:
        return _TOO_SHORT
    lo, hi = pos[0], pos[-1]
    missing = hi - lo + 1 - len(pos)
    if missing > len(wilds):
        return _GAP
    if missing == 1:
        gap = next(p for p in range(lo, hi + 1) if p not in pos)
        return _sequence(suit, lo, hi, gap, wilds)
    if not wilds:
        return _sequence(suit, lo, hi, 0, ())
    if (lo == 1 and hi == 14) or len(pos) + 1 > 14:
        return _NO_ROOM
    if v.wildcard_displacement:
        return _sequence(suit, lo, hi, 0, wilds)
    # Buraco: the wildcard keeps the place it is read in, the low end when there is one.
    return _sequence(suit, lo, hi, lo - 1 if lo > 1 else hi + 1, wilds)


def _read_set(cards: Sequence[int], v: Variant) -> Meld | Refusal:
    jokers = tuple(c for c in cards if c == JOKER)
    others = [c for c in cards if c != JOKER]
    if v.sets_of_twos and len(others) >= 2 and all(c % 13 == 1 for c in others):
        naturals, wilds = others, jokers
    else:
        naturals = [c for c in others if c % 13 != 1]
        wilds = jokers + tuple(c for c in others if c % 13 == 1)
    if not naturals:
        if v.wild_melds and len(cards) >= 3:
            return _set(0, (), tuple(cards))
        return _WILDCARDS_ONLY if cards else _NO_CARDS
    rank = naturals[0] % 13 + 1
    if any(c % 13 + 1 != rank for c in naturals):
        return _SET_ONE_RANK
    if len(naturals) < 2:
        return _TWO_NATURALS
    limit = wild_limit(len(naturals), v)
    if len(wilds) > limit:
        if v.canasta_wild_limit:
            return _CANASTA_WILD_LIMIT
        return _wildcard_limit(limit)
    if len(cards) < 3:
        return _TOO_SHORT
    if v.set_max and len(cards) > v.set_max:
        return _set_too_long(v.set_max)
    if v.black_threes_only_out and rank == 3 and wilds:
        return _BLACK_THREES
    if v.red_threes and rank == 3 and any(c // 13 in (1, 2) for c in naturals):
        return _RED_THREES
    return _set(rank, naturals, wilds)


def read_meld(cards: Sequence[int], v: Variant) -> Meld:
    """Find the reading of some cards laid down as one new meld, or raise :class:`IllegalMove`.

    The reading is the one with no wildcard when there is one, then the one with
    the wildcard at the low end.
    """
    result = _read(sorted(cards), v)
    if isinstance(result, Refusal):
        raise IllegalMove(nested("cards_not_a_meld", result, cards=format_cards(cards)))
    return result


def meld_or_refusal(cards: Sequence[int], v: Variant) -> Meld | Refusal:
    """:func:`read_meld`'s reading, or the reason the cards are not a meld."""
    return _read(sorted(cards), v)


def _read(cards: Sequence[int], v: Variant) -> Meld | Refusal:
    if len(cards) < 3:
        return _TOO_SHORT
    naturals = [c for c in cards if not is_wild(c)]
    if v.sequences and len({c % 13 for c in naturals}) > 1:
        return _read_sequence(cards, v)
    if not v.sets:
        # Buraco aberto and STBL ("sem trinca"): sequences only.
        as_sequence = _read_sequence(cards, v)
        if isinstance(as_sequence, Meld) or len({c % 13 for c in naturals}) > 1:
            return as_sequence
        return _NO_SETS if len(naturals) >= 2 else as_sequence
    as_set = _read_set(cards, v)
    if isinstance(as_set, Meld) or not v.sequences:
        return as_set
    as_sequence = _read_sequence(cards, v)
    if isinstance(as_sequence, Meld):
        return as_sequence
    return as_set if len(naturals) >= 2 else as_sequence


# --- extending a meld ---------------------------------------------------------------------


def extend_meld(meld: Meld, card: int, v: Variant) -> Meld:
    """The meld with one more card, or raise :class:`IllegalMove` naming the rule.

    >>> from burraco.variants import variant
    >>> it = variant("italian")
    >>> m = read_meld(parse_cards("3H 2H 5H"), it)
    >>> extend_meld(m, parse_cards("2C")[0], it)
    Traceback (most recent call last):
    ...
    burraco.errors.IllegalMove: cannot add 2C to 3H 2H 5H: a meld holds at most one wildcard
    >>> print(extend_meld(m, parse_cards("4H")[0], it))
    2H 3H 4H 5H
    """
    result = extended(meld, card, v)
    if isinstance(result, Refusal):
        raise IllegalMove(nested("cannot_add", result, card=str(CARDS[card]), meld=str(meld)))
    return result


def extended(meld: Meld, card: int, v: Variant) -> Meld | Refusal:
    """The meld with one more card, or the reason it cannot take it."""
    if meld.kind == SEQUENCE:
        return _extend_sequence(meld, card, v)
    if meld.kind == WILD:
        if not is_wild(card):
            return _WILD_MELD_WILDCARDS
        return _set(0, (), (*meld.wilds, card))
    naturals = list(meld.cards[: len(meld.cards) - len(meld.wilds)])
    if v.set_max and meld.size >= v.set_max:
        return _set_too_long(v.set_max)
    if card != JOKER and card % 13 + 1 == meld.rank:
        return _set(meld.rank, (*naturals, card), meld.wilds)
    if is_wild(card):
        if len(meld.wilds) >= wild_limit(len(naturals), v):
            if v.canasta_wild_limit:
                return _CANASTA_WILD_LIMIT
            return _wildcard_limit(wild_limit(len(naturals), v))
        if v.black_threes_only_out and meld.rank == 3:
            return _BLACK_THREES
        return _set(meld.rank, naturals, (*meld.wilds, card))
    return _SET_WRONG_CARD


def _extend_sequence(m: Meld, card: int, v: Variant) -> Meld | Refusal:
    own_two_home = card == m.suit * 13 + 1 and m.lo == 3
    if m.fixed or (v.max_wildcards > 1 and m.wilds and is_wild(card) and not own_two_home):
        return _extend_many(m, card, v)
    suit, lo, hi, wilds = m.suit, m.lo, m.hi, m.wilds
    own_two = suit * 13 + 1
    if card == own_two:
        # An own 2 goes to its natural place when it can; otherwise it is a wildcard.
        natural = _add_natural(m, 2, v)
        if isinstance(natural, Meld):
            return natural
    if is_wild(card):
        if len(wilds) >= v.max_wildcards:
            return _wildcard_limit(v.max_wildcards)
        if wilds:  # a second wildcard (buraco's option): both keep their places
            return _extend_many(m, card, v)
        if hi - lo + 2 > 14 or (lo == 1 and hi == 14):
            return _TOO_LONG
        if v.wildcard_displacement:
            return _sequence(suit, lo, hi, 0, (card,))
        return _sequence(suit, lo, hi, lo - 1 if lo > 1 else hi + 1, (card,))
    if card // 13 != suit:
        return _WRONG_SUIT
    reason = _NO_FIT
    for p in _positions(card):
        result = _add_natural(m, p, v)
        if isinstance(result, Meld):
            return result
        if (p != 14 or reason.code == _NO_FIT.code) and result.code != _NO_FIT.code:
            reason = result
    return reason


def _add_natural(m: Meld, p: int, v: Variant) -> Meld | Refusal:
    suit, lo, hi, gap, wilds = m.suit, m.lo, m.hi, m.gap, m.wilds
    if p in (1, 14) and (lo == 1 or hi == 14) and not v.canastra_real:
        return _ONE_ACE
    if lo <= p <= hi and p != gap:
        return _HOLDS_CARD
    if gap and p == gap:
        return _displace(m, v)
    if gap and not lo <= gap <= hi:
        # Buraco: a wildcard fixed just beyond an end; the next card goes beyond it.
        if gap == lo - 1 and p == lo - 2:
            return _fit(suit, p, hi, gap, wilds, v)
        if gap == hi + 1 and p == hi + 2:
            return _fit(suit, lo, p, gap, wilds, v)
        if (gap == lo - 1 and p == hi + 1) or (gap == hi + 1 and p == lo - 1):
            return _fit(suit, min(lo, p), max(hi, p), gap, wilds, v)
        return _NO_FIT
    if p == lo - 1 or p == hi + 1:
        return _fit(suit, min(lo, p), max(hi, p), gap, wilds, v)
    if wilds and not gap and (p == lo - 2 or p == hi + 2):
        # The wildcard at an end moves into the gap the new card leaves.
        hole = p + 1 if p == lo - 2 else p - 1
        return _fit(suit, min(lo, p), max(hi, p), hole, wilds, v)
    return _NO_FIT


def _displace(m: Meld, v: Variant) -> Meld | Refusal:
    suit, lo, hi, gap, wilds = m.suit, m.lo, m.hi, m.gap, m.wilds
    own_two = suit * 13 + 1
    new_lo, new_hi = min(lo, gap), max(hi, gap)
    if gap == 2 and wilds[0] != own_two:
        pass  # a natural 2 displaces whatever stood for it
    if v.wildcard_displacement:
        # The displaced wildcard stays in the meld and moves to an end.
        return _fit(suit, new_lo, new_hi, 0, wilds, v)
    # Buraco: a 2 moves only to its natural place, cleaning the canastra.
    if wilds[0] == own_two and new_lo == 3 and m.size + 1 >= v.burraco_length:
        return _sequence(suit, 2, new_hi, 0, ())
    return _NEVER_MOVED


def _fit(
    suit: int, lo: int, hi: int, gap: int, wilds: tuple[int, ...], v: Variant
) -> Meld | Refusal:
    if lo < 1 or hi > 14:
        return _NO_FIT
    if lo == 1 and hi == 14 and not v.canastra_real:
        return _ONE_ACE
    span = hi - lo + 1 + (1 if wilds and (gap == 0 or not lo <= gap <= hi) else 0)
    if span > 14:
        return _TOO_LONG
    if wilds and gap == 0:
        if lo == 3 and wilds[0] == suit * 13 + 1:
            return _sequence(suit, 2, hi, 0, ())
        if lo == 1 and hi == 14:
            return _NO_ROOM
    return _sequence(suit, lo, hi, gap, wilds)


# --- sequences with several wildcards (buraco's option: no limit) ------------------------


def _many(suit: int, naturals: list[int], fixed: list[int], wilds: tuple[int, ...]) -> Meld:
    """A sequence whose wildcards stand at the positions ``fixed`` (never moved: buraco)."""
    if len(fixed) == 1:
        # One wildcard has one reading, the one a lay-down gives (its place as the gap),
        # so the meld compares, writes and grows alike however it was made.
        return _sequence(suit, min(naturals), max(naturals), fixed[0], wilds)
    at = dict(zip(fixed, wilds, strict=True))
    span = sorted([*naturals, *fixed])
    cards = tuple(CARDS[at[p]] if p in at else CARDS[_card_at(suit, p)] for p in span)
    order = sorted(range(len(fixed)), key=lambda i: fixed[i])
    return Meld(
        SEQUENCE,
        suit,
        0,
        min(naturals),
        max(naturals),
        0,
        tuple(CARDS[wilds[i]] for i in order),
        cards,
        tuple(fixed[i] for i in order),
    )


def _place_many(suit: int, pos: list[int], wilds: tuple[int, ...]) -> Meld | Refusal:
    if len(set(pos)) != len(pos):
        return _REPEATS_RANK
    if len(pos) < 2:
        return _TWO_NATURALS
    lo, hi = pos[0], pos[-1]
    holes = [p for p in range(lo, hi + 1) if p not in pos]
    if len(holes) > len(wilds):
        return _GAPS
    fixed = list(holes)
    low, high = lo, hi
    # The wildcards left over go to the low end, then to the high end.
    for _ in range(len(wilds) - len(holes)):
        if low > 1:
            low -= 1
            fixed.append(low)
        elif high < 14:
            high += 1
            fixed.append(high)
        else:
            return _TOO_LONG
    return _many(suit, pos, fixed, tuple(sorted(wilds)))


def _extend_many(m: Meld, card: int, v: Variant) -> Meld | Refusal:
    suit = m.suit
    fixed = list(m.fixed) or ([m.gap] if m.gap else [])
    if m.wilds and not fixed:  # a floating wildcard: give it its place first
        fixed = [m.lo - 1 if m.lo > 1 else m.hi + 1]
    naturals = [p for p in range(min([m.lo, *fixed]), max([m.hi, *fixed]) + 1) if p not in fixed]
    low, high = min([*naturals, *fixed]), max([*naturals, *fixed])
    wilds = tuple(w for _, w in sorted(zip(fixed, m.wilds, strict=True)))
    fixed.sort()
    if card == suit * 13 + 1 and low == 3:
        return _many(suit, [2, *naturals], fixed, wilds)
    if is_wild(card):
        if len(wilds) >= v.max_wildcards:
            return _wildcard_limit(v.max_wildcards)
        place = low - 1 if low > 1 else high + 1
        if place > 14:
            return _TOO_LONG
        return _many(suit, naturals, [*fixed, place], (*wilds, card))
    if card // 13 != suit:
        return _WRONG_SUIT
    for p in _positions(card):
        if p in naturals:
            return _HOLDS_CARD
        if p in fixed:
            return _NEVER_MOVED
        if p in (low - 1, high + 1):
            if p in (1, 14) and (1 in naturals or 14 in naturals) and not v.canastra_real:
                return _ONE_ACE
            return _many(suit, [*naturals, p], fixed, wilds)
    return _NO_FIT


# --- grades and points --------------------------------------------------------------------


def meld_points(meld: Meld, v: Variant) -> int:
    """The values of the meld's cards."""
    values = v.values
    cards: tuple[int, ...] = meld.cards
    return sum(values[0 if c == JOKER else c % 13 + 1] for c in cards)


def grade_of(meld: Meld, v: Variant) -> str | None:
    """``None`` below seven cards; else ``clean``, ``semi-clean``, ``dirty``, or a special grade.

    Canasta's melds of wildcards only are ``jokers`` (six jokers and one 2),
    ``twos`` (all 2s) or ``twos-and-jokers``; buraco's canastra of 2s is ``twos``.
    """
    size = len(meld.cards)
    if size < v.burraco_length:
        return None
    if meld.kind == WILD:
        jokers = sum(1 for c in meld.wilds if c == JOKER)
        if jokers == 6 and size == 7:
            return "jokers"
        return "twos" if jokers == 0 else "twos-and-jokers"
    if meld.kind == SET and meld.rank == 2:
        return "twos" if not meld.wilds else "dirty"
    if not meld.wilds:
        return "clean"
    if v.semi_clean:
        naturals = size - len(meld.wilds)
        if meld.kind == SET and naturals >= 7:
            return "semi-clean"
        if meld.kind == SEQUENCE:
            if meld.gap == 0 and naturals >= 7:
                return "semi-clean"
            if v.semi_inner and meld.gap and max(meld.gap - meld.lo, meld.hi - meld.gap) >= 7:
                return "semi-clean"
    return "dirty"


def meld_bonus(meld: Meld, v: Variant) -> int:
    """The burraco (canastra, canasta) bonus of the meld, 0 if it is not one."""
    grade = grade_of(meld, v)
    if grade is None:
        return 0
    if meld.kind == SEQUENCE and meld.lo == 1 and meld.hi == 14 and v.canastra_real:
        return v.real_clean_bonus if grade == "clean" else v.real_dirty_bonus
    if v.long_clean_bonus and grade == "clean" and meld.kind == SEQUENCE and meld.size == 13:
        return v.long_clean_bonus  # ace to king (or 2 to ace), clean: the "canastra de 500"
    if grade == "twos":
        return v.twos_bonus
    if grade == "jokers":
        return v.jokers_bonus
    if grade == "twos-and-jokers":
        return v.wild_mix_bonus
    if meld.kind == SET and v.set_bonus_1000:
        return 1000
    if grade == "clean":
        return v.clean_bonus
    if grade == "semi-clean":
        return v.semi_clean_bonus
    return v.dirty_bonus


@dataclass(frozen=True, slots=True)
class MeldInfo:
    """What :func:`check_meld` finds: the reading, the grade, the points and the bonus."""

    meld: Meld
    kind: str
    grade: str | None
    points: int
    bonus: int

    @property
    def cards_text(self) -> str:
        return format_cards(self.meld.cards)


def check_meld(cards: Sequence[int] | str, v: Variant) -> MeldInfo:
    """Check some cards as one new meld of ``v``; raise :class:`IllegalMove` if they are not one.

    >>> from burraco.variants import variant
    >>> check_meld("5S 6S 7S 8S 9S 10S JS", variant("italian")).grade
    'clean'
    >>> check_meld("JK 5S 6S 7S 8S 9S 10S JS", variant("italian")).grade
    'semi-clean'
    >>> check_meld("JK 5S 6S 7S 8S 9S 10S JS", variant("italian", semi_clean=False)).bonus
    100
    """
    if isinstance(cards, str):
        cards = parse_cards(cards)
    meld = read_meld(cards, v)
    return MeldInfo(meld, meld.kind, grade_of(meld, v), meld_points(meld, v), meld_bonus(meld, v))


# --- every new meld a hand can lay down ---------------------------------------------------


def new_melds(counts: Sequence[int], v: Variant) -> list[tuple[int, ...]]:
    """Every multiset of cards from a hand (a count per kind) that is a legal new meld.

    Each comes once, as a sorted tuple of card kinds.

    >>> from burraco.cards import counts_of
    >>> from burraco.variants import variant
    >>> hand = counts_of(parse_cards("3H 4H 5H 7S 7S JK"))
    >>> [format_cards(m) for m in new_melds(hand, variant("italian"))]
    ['7S 7S JK', '3H 4H 5H', '3H 4H 5H JK', '3H 4H JK', '3H 5H JK', '4H 5H JK']
    """
    return sorted(meld_candidates(counts, v))


def meld_candidates(counts: Sequence[int], v: Variant) -> dict[tuple[int, ...], int]:
    """:func:`new_melds` with, for each, the rank of a set (0 for a sequence, -1 for wildcards)."""
    return {cards: rank for cards, rank, _ in tables_for(v).candidates(counts)}


def _enumerate(counts: Sequence[int], v: Variant) -> dict[tuple[int, ...], int]:
    """Every new meld of a hand, enumerated from scratch (what :class:`MeldTables` keeps)."""
    found: dict[tuple[int, ...], int] = {}
    hand = list(counts)
    present = [c for c in range(53) if counts[c]]
    wild_kinds = [w for w in WILDCARDS if counts[w]]
    suits = [0, 0, 0, 0]
    by_rank: dict[int, list[int]] = {}
    for c in present:
        if c != JOKER:
            suits[c // 13] += 1
            by_rank.setdefault(c % 13 + 1, []).append(c)
    if v.sequences:
        for suit in range(4):
            if suits[suit] >= 2:
                _sequences_of_suit(hand, suit, wild_kinds, v, found)
                if v.max_wildcards > 1 and sum(counts[w] for w in wild_kinds) > 1:
                    _sequences_with_many_wilds(hand, suit, wild_kinds, v, found)
    if v.sets:
        _sets(counts, by_rank, wild_kinds, v, found)
    return found


#: The card kind at each position (0-15) of a sequence of each suit; -1 off the ends.
_AT: Final = tuple(
    tuple(-1 if p in (0, 15) else _card_at(suit, p) for p in range(16)) for suit in range(4)
)


def _held_places(counts: list[int], at: tuple[int, ...]) -> list[bool]:
    """Whether the hand holds the natural card of each position of a suit's sequence."""
    return [p not in (0, 15) and counts[at[p]] > 0 for p in range(16)]


def _sequences_of_suit(
    counts: list[int],
    suit: int,
    wild_kinds: list[int],
    v: Variant,
    found: dict[tuple[int, ...], int],
) -> None:
    at = _AT[suit]
    have = _held_places(counts, at)
    if sum(have) < 2:
        return
    own_two = at[2]
    both_aces = v.canastra_real
    for lo in range(1, 14):
        if not have[lo]:
            continue
        # The first missing position above lo bounds where a hole can usefully be.
        end = lo + 1
        while have[end] and not (lo == 1 and end == 14 and (not both_aces or counts[at[1]] < 2)):
            end += 1
        # Position lo stands for no hole (0), then each position above it: a plain range,
        # native when compiled, where (0, *range(...)) built a list and a tuple.
        for at_hole in range(lo, (end if end < 13 else 13) + 1):
            hole = 0 if at_hole == lo else at_hole
            # Natural cards from lo upwards, one position (the hole) left to a wildcard.
            cards = [at[lo]]
            for hi in range(lo + 1, 15):
                if hi == hole:
                    continue
                if not have[hi] or (lo == 1 and hi == 14 and not both_aces):
                    break
                if lo == 1 and hi == 14 and counts[at[1]] < 2:
                    break  # the ace at both ends takes two aces
                cards.append(at[hi])
                if hole > hi:
                    continue
                ordered = sorted(cards) if hi == 14 else cards
                if not hole and len(cards) >= 3:
                    found[tuple(ordered)] = 0
                if len(cards) >= 14:
                    continue
                uses_own_two = lo <= 2 <= hi and hole != 2
                for w in wild_kinds:
                    if w == own_two and uses_own_two and counts[w] < 2:
                        continue
                    found[_with_card(ordered, w)] = 0


def _with_card(cards: list[int], card: int) -> tuple[int, ...]:
    """Sorted ``cards`` with one more card, in its place: compiled, a native walk, where
    sorting the cards again compared them as objects."""
    at = 0
    for c in cards:
        if c > card:
            break
        at += 1
    grown = cards.copy()
    grown.insert(at, card)
    return tuple(grown)


def _sequences_with_many_wilds(
    counts: list[int],
    suit: int,
    wild_kinds: list[int],
    v: Variant,
    found: dict[tuple[int, ...], int],
) -> None:
    """Sequences of two wildcards or more (buraco's option), checked by reading them."""
    at = _AT[suit]
    have = _held_places(counts, at)
    most = min(v.max_wildcards, sum(counts[w] for w in wild_kinds))
    for lo in range(1, 14):
        if not have[lo]:
            continue
        for hi in range(lo + 1, 15):
            if not have[hi]:
                continue
            inside = [p for p in range(lo + 1, hi) if have[p]]
            missing = hi - lo - 1 - len(inside)
            if missing > most:
                break
            # Natural cards: both ends and any choice of those inside; wildcards fill the
            # rest of the span and may run past its ends.
            for leave in range(len(inside) + 1):
                if missing + leave > most:
                    break
                for dropped in combinations(inside, leave):
                    naturals = [lo, hi, *(p for p in inside if p not in dropped)]
                    holes = missing + leave
                    for extra in range(0, most - holes + 1):
                        size = holes + extra
                        if size < 2:
                            continue
                        for chosen in _submultisets(counts, wild_kinds, size, size):
                            cards = tuple(sorted([at[p] for p in naturals] + list(chosen)))
                            if cards in found:
                                continue
                            if any(cards.count(c) > counts[c] for c in set(cards)):
                                continue
                            if isinstance(_read_sequence(cards, v), Meld):
                                found[cards] = 0


def _submultisets(
    counts: Sequence[int], kinds: Sequence[int], least: int, most: int
) -> Iterable[tuple[int, ...]]:
    if most <= 2:
        return _few_of_kinds(counts, kinds, least, most)
    # Many cards of a few kinds (a set's naturals, a meld of wildcards): the same few
    # counts come back again and again, so their choices are kept.
    key = (tuple(kinds), tuple([counts[k] for k in kinds]), least, most)
    found = _CHOICES.get(key)
    if found is None:
        if len(_CHOICES) >= TABLE_LIMIT:
            _CHOICES.clear()
        found = _CHOICES[key] = tuple(_choices(key[0], key[1], least, most))
    return found


def _few_of_kinds(
    counts: Sequence[int], kinds: Sequence[int], least: int, most: int
) -> Iterable[tuple[int, ...]]:
    # A few cards of many kinds (the wildcards a set takes): choose them directly.
    kinds = [k for k in kinds if counts[k]]
    for size in range(max(least, 0), most + 1):
        for combo in combinations_with_replacement(kinds, size):
            if size < 2 or combo[0] != combo[1] or counts[combo[0]] >= 2:
                yield combo


def _choices(
    kinds: tuple[int, ...], held: tuple[int, ...], least: int, most: int
) -> Iterable[tuple[int, ...]]:
    for choice in product(*[range(n + 1) for n in held]):
        n = sum(choice)
        if least <= n <= most:
            yield tuple(k for k, m in zip(kinds, choice, strict=True) for _ in range(m))


#: :func:`_submultisets` of many cards, by kinds, their counts, and the sizes allowed.
_CHOICES: dict[tuple[tuple[int, ...], tuple[int, ...], int, int], tuple[tuple[int, ...], ...]] = {}


def _sets(
    counts: Sequence[int],
    by_rank: dict[int, list[int]],
    wild_kinds: list[int],
    v: Variant,
    found: dict[tuple[int, ...], int],
    wild_melds: bool = True,
) -> None:
    set_max = v.set_max or 99
    canasta_limit = v.canasta_wild_limit
    most_wild = v.max_wildcards
    for rank, kinds in by_rank.items():
        if rank == 2:
            if not v.sets_of_twos:
                continue
            wilds = [JOKER] if counts[JOKER] else []
        else:
            wilds = wild_kinds
        if rank == 3 and v.red_threes:
            kinds = [k for k in kinds if k // 13 in (0, 3)]
        total = sum(counts[k] for k in kinds)
        if total < 2 or (total == 2 and not wilds):
            continue
        limit_all = 0 if rank == 3 and v.black_threes_only_out else 99
        extras: dict[int, list[tuple[int, ...]]] = {}  # the wildcards to add, by their limit
        for naturals in _submultisets(counts, kinds, 2, set_max):
            # wild_limit() with the variant's rules read once, and min() of ints written
            # out: compiled, both native.
            n = len(naturals)
            limit = (1 if n <= 2 else 2) if canasta_limit else most_wild
            if limit_all < limit:
                limit = limit_all
            if set_max - n < limit:
                limit = set_max - n
            if len(naturals) >= 3:
                found[naturals] = rank
            if limit:
                added = extras.get(limit)
                if added is None:
                    added = extras[limit] = list(_submultisets(counts, wilds, 1, limit))
                for extra in added:
                    found[tuple(sorted(naturals + extra))] = rank
    if v.wild_melds and wild_melds:
        for meld in _submultisets(counts, wild_kinds, 3, 99):
            found[meld] = -1


# --- the candidates of a hand, kept by the counts of each suit and rank -------------------

_NO_WILDCARDS: Final = bytes(5)
#: The lowest rank whose sets :meth:`MeldTables._moved_sets` takes from another rank's: the
#: 2s and the 3s have rules of their own, and an ace sorts below the 2 of its suit.
_SHAPED_RANK: Final = 4

#: Entries a table of meld readings or fitting cards keeps before it starts again.
TABLE_LIMIT: Final = 1 << 14
#: Candidates (and entries) the tables of new melds keep in all before they start again:
#: a bound on memory (about 100 MB a variant) that only long runs of canasta reach.
STORE_LIMIT: Final = 1 << 19

#: One candidate: its cards (sorted kinds), the rank of a set (0 for a sequence, -1 for
#: wildcards) and the number of the action that lays it down in its tables'
#: :attr:`MeldTables.actions`. Plain ints only: the collector stops tracking such tuples
#: (an Action, or a Card, would keep every stored candidate under its watch).
Candidate = tuple[tuple[int, ...], int, int]
#: The candidates of one suit or rank (sorted), the most cards one of them holds, and the
#: rank of its sets (0: sequences, -1: melds of wildcards).
Part = tuple[tuple[Candidate, ...], int, int]


class MeldTables:
    """A variant's new melds, kept by what they depend on.

    The sequences of a suit depend only on the counts of that suit's cards and of the
    wildcards; the sets of a rank on the counts of that rank's cards and of the
    wildcards. A hand changes by a card or two a turn, so most of its suits and ranks
    are as they were and their melds come from here instead of being enumerated again.
    """

    __slots__ = (
        "_black_threes_only_out",
        "_canasta_wild_limit",
        "_cap",
        "_fits",
        "_max_wildcards",
        "_numbers",
        "_ranks",
        "_readings",
        "_sequences",
        "_set_max",
        "_set_shapes",
        "_sets",
        "_stored",
        "_suits",
        "_wild_melds",
        "_wilds",
        "actions",
        "v",
    )

    def __init__(self, v: Variant) -> None:
        self.v = v
        # The rules read at every call, kept as the tables' own attributes: compiled
        # (mypyc), these are native fields, where the variant's are looked up by name.
        self._sequences: bool = v.sequences
        self._sets: bool = v.sets
        self._wild_melds: bool = v.wild_melds
        self._set_max: int = v.set_max
        self._canasta_wild_limit: bool = v.canasta_wild_limit
        self._max_wildcards: int = v.max_wildcards
        self._black_threes_only_out: bool = v.black_threes_only_out
        most = max(v.max_wildcards, 2 if v.canasta_wild_limit else 1)
        self._cap = bytes(min(n, most) for n in range(256))
        self._suits: list[dict[bytes, Part]] = [{} for _ in range(4)]
        self._ranks: list[dict[bytes, Part]] = [{} for _ in range(14)]
        self._wilds: dict[bytes, Part] = {}
        #: The sets of the ranks 4 to K, by their key (naturals' and wildcards' counts): the
        #: first rank's part found, which another rank's with the same key repeats with
        #: its naturals moved (:meth:`_moved_sets`).
        self._set_shapes: dict[bytes, Part] = {}
        self._stored = 0
        #: The meld actions the candidates name, by their number (a candidate's third item).
        self.actions: list[Action] = []
        self._numbers: dict[tuple[int, ...], int] = {}
        self._fits: dict[Meld, tuple[int, ...]] = {}
        self._readings: dict[tuple[int, ...], Meld | Refusal] = {}

    def __reduce__(self) -> tuple[Callable[[Variant], MeldTables], tuple[Variant]]:
        # A deal keeps its variant's tables: pickled or copied with it, they come back as
        # the variant's own tables (tables_for), not as a copy of all they hold (up to
        # about 100 MB).
        return tables_for, (self.v,)

    def fitting(self, meld: Meld, counts: Sequence[int]) -> list[int]:
        """The hand's cards that a meld on the table takes, by kind (the rules of the
        meld only, not those of the line): ``extended`` gives each one a meld."""
        return [card for card in self.fit_kinds(meld) if counts[card]]

    def fit_kinds(self, meld: Meld) -> tuple[int, ...]:
        """Every card kind a meld on the table takes (held or not), sorted: what
        :meth:`fitting` picks the hand's cards from."""
        kind = meld.kind
        if kind == SET:
            # Any natural of its rank, and wildcards up to its limit (sets differ by their
            # suits too often to be worth keeping).
            set_max = self._set_max
            if set_max and len(meld.cards) >= set_max:
                return ()
            wilds = len(meld.wilds)
            if self._canasta_wild_limit:
                wild_ok = wilds < (1 if len(meld.cards) - wilds <= 2 else 2)
            else:
                wild_ok = wilds < self._max_wildcards
            if wild_ok and self._black_threes_only_out and meld.rank == 3:
                wild_ok = False
            kinds = _SET_FITS[meld.rank][wild_ok]
        elif kind == WILD:
            kinds = WILDCARDS
        else:
            found = self._fits.get(meld)
            if found is None:
                if len(self._fits) >= TABLE_LIMIT:
                    self._fits.clear()
                found = self._fits[meld] = _fits(meld, self.v)
            kinds = found
        return kinds

    def reading(self, cards: tuple[int, ...]) -> Meld | Refusal:
        """:func:`meld_or_refusal` of sorted cards, kept."""
        found = self._readings.get(cards)
        if found is None:
            if len(self._readings) >= TABLE_LIMIT:
                self._readings.clear()
            found = _read(cards, self.v)
            # Kept under plain ints: a tuple of Cards (a class's instances) stays tracked by
            # the cyclic collector, one of ints is let go of after its first pass.
            self._readings[tuple(map(int, cards))] = found
        return found

    def candidates(self, counts: Sequence[int], taken: Collection[int] = ()) -> list[Candidate]:
        """Every new meld of the hand, sorted by its cards: what :func:`new_melds` lists;
        without the sets of the ranks in ``taken`` (-1: the meld of wildcards)."""
        return merged([part[0] for part in self.parts(counts, taken)])

    def parts(self, counts: Sequence[int], taken: Collection[int] = ()) -> list[Part]:
        """:meth:`candidates` in parts: the sequences of each suit, the sets of each rank,
        the melds of wildcards; each part sorted."""
        v = self.v
        if self._stored > STORE_LIMIT:
            # Start again before any part is read, so the numbers of every part this call
            # returns name the same actions.
            self._stored = 0
            for kept in (*self._suits, *self._ranks, self._wilds, self._set_shapes):
                kept.clear()
            self.actions = []
            self._numbers.clear()
        hand = bytes(counts)
        wilds = hand[1:41:13] + hand[52:]
        # Beyond the most a sequence or a set may hold, more copies of a wildcard change
        # nothing to its melds.
        wild = wilds.translate(self._cap)
        parts: list[Part] = []
        if self._sequences:
            for suit, table in enumerate(self._suits):
                # A suit of fewer than two kinds (no sequence) is looked up as any other:
                # its empty part is kept, at less than counting its kinds at every call
                # (bytes.count is a call by name when compiled).
                key = hand[suit * 13 : suit * 13 + 13] + wild
                part = table.get(key)
                if part is None:
                    part = self._store(table, key, _suit_melds(counts, suit, v), 0)
                if part[0]:
                    parts.append(part)
        if self._sets:
            ranks = self._ranks
            # The naturals of a rank read byte by byte: native when compiled (mypyc), where
            # adding the suits' counts as ints (int.from_bytes) was four calls by name.
            for rank in range(1, 14):
                if hand[rank - 1] + hand[rank + 12] + hand[rank + 25] + hand[rank + 38] < 2:
                    continue  # a set needs two naturals
                if rank in taken:
                    continue
                key = hand[rank - 1 : 52 : 13] + wild
                table = ranks[rank]
                part = table.get(key)
                if part is None:
                    if rank < _SHAPED_RANK:
                        part = self._store(table, key, _rank_melds(counts, rank, v), rank)
                    else:
                        shape = self._set_shapes.get(key)
                        if shape is None:
                            found = _rank_melds(counts, rank, v)
                            part = self._set_shapes[key] = self._store(table, key, found, rank)
                        else:
                            part = self._moved_sets(table, key, shape, rank)
                if part[0]:
                    parts.append(part)
        if self._wild_melds and wilds != _NO_WILDCARDS and -1 not in taken:
            part = self._wilds.get(wilds)
            if part is None:
                part = self._store(self._wilds, wilds, _wild_melds(counts, v), -1)
            if part[0]:
                parts.append(part)
        return parts

    def _moved_sets(self, table: dict[bytes, Part], key: bytes, shape: Part, rank: int) -> Part:
        """The sets of ``rank`` for ``key``, from ``shape``: another rank's for the same
        key (both 4 to K). The rules read no rank above 3, so the melds are the same but
        for their naturals' kinds; and every natural of a rank from 3 to K sorts between
        the 2 of its suit and the next suit's, so they come in the same order."""
        shift = rank - shape[2]
        numbers = self._numbers
        melds = []
        for candidate in shape[0]:
            # Plain loops: compiled, native, where a comprehension builds a list first.
            cards = candidate[0]
            moved = list(cards)
            for i in range(len(moved)):
                card = moved[i]
                if card != JOKER and card % 13 != 1:
                    moved[i] = card + shift
            shifted = tuple(moved)
            number = numbers.get(shifted)
            if number is None:
                number = numbers[shifted] = len(self.actions)
                self.actions.append(meld_action(shifted))
            melds.append((shifted, rank, number))
        self._stored += len(melds) + 1
        part = (tuple(melds), shape[1], rank)
        table[key] = part
        return part

    def _store(
        self, table: dict[bytes, Part], key: bytes, found: dict[tuple[int, ...], int], rank: int
    ) -> Part:
        self._stored += len(found) + 1
        numbers = self._numbers
        melds = []
        most = 0
        # Every meld of a part has the part's rank (``found``'s values): not looked up again.
        for cards in sorted(found):
            number = numbers.get(cards)
            if number is None:
                number = numbers[cards] = len(self.actions)
                self.actions.append(meld_action(cards))
            melds.append((cards, rank, number))
            if len(cards) > most:
                most = len(cards)
        part = (tuple(melds), most, rank)
        table[key] = part
        return part


def merged(parts: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    """The candidates of some parts (each sorted), sorted by their cards."""
    if len(parts) == 1:
        return list(parts[0])
    # The sort merges the parts' runs. No two parts share a meld: a sequence has
    # naturals of two ranks, a set of one, a meld of wildcards none.
    out = list(chain.from_iterable(parts))
    # By the cards alone (each candidate's are its own): the sort then compares tuples of
    # ints, twice as fast as candidates whose first items are tuples.
    out.sort(key=_CARDS_OF)
    return out


_CARDS_OF: Final = itemgetter(0)


def _fits(meld: Meld, v: Variant) -> tuple[int, ...]:
    """Every card kind a sequence takes."""
    kinds = {*range(meld.suit * 13, meld.suit * 13 + 13), *WILDCARDS}
    return tuple(card for card in sorted(kinds) if isinstance(extended(meld, card, v), Meld))


#: The kinds a set of each rank may take, by kind: its naturals, and the wildcards too.
_SET_FITS: Final = tuple(
    (
        tuple(range(rank - 1, 52, 13)) if rank else (),
        tuple(sorted({*range(rank - 1, 52, 13), *WILDCARDS})) if rank else WILDCARDS,
    )
    for rank in range(14)
)


def _suit_melds(counts: Sequence[int], suit: int, v: Variant) -> dict[tuple[int, ...], int]:
    found: dict[tuple[int, ...], int] = {}
    # A list: compiled, the enumeration reads it natively, where a Sequence is read through
    # the generic protocol.
    hand = list(counts)
    wild_kinds = [w for w in WILDCARDS if hand[w]]
    _sequences_of_suit(hand, suit, wild_kinds, v, found)
    if v.max_wildcards > 1 and sum(hand[w] for w in wild_kinds) > 1:
        _sequences_with_many_wilds(hand, suit, wild_kinds, v, found)
    return found


def _rank_melds(counts: Sequence[int], rank: int, v: Variant) -> dict[tuple[int, ...], int]:
    found: dict[tuple[int, ...], int] = {}
    wild_kinds = [w for w in WILDCARDS if counts[w]]
    kinds = [k for k in range(rank - 1, 52, 13) if counts[k]]
    _sets(counts, {rank: kinds}, wild_kinds, v, found, wild_melds=False)
    return found


def _wild_melds(counts: Sequence[int], v: Variant) -> dict[tuple[int, ...], int]:
    wild_kinds = [w for w in WILDCARDS if counts[w]]
    return dict.fromkeys(_submultisets(counts, wild_kinds, 3, 99), -1)


_TABLES: PerVariant[MeldTables] = PerVariant(MeldTables)


def tables_for(v: Variant) -> MeldTables:
    """The variant's :class:`MeldTables` (one per variant object, kept while it lives)."""
    return _TABLES.of(v)
