"""Actions and their text form.

An action is one decision of the player on turn::

    draw                 draw from the stock (canasta: two cards)
    take                 take the whole discard pile
    take 7H 7S           canasta: take the pile, melding its top with two naturals
    redraw               buraco: the dealer's first drawn card goes to the pile, draw again
    pass                 stock empty and no pile to take (buraco); end the deal (canasta)
    meld 5H 6H 7H        lay down a new meld
    extend 2 8H          add a card to the line's meld number 2 (counting from 0)
    discard 9C           discard a card, ending the turn

>>> a = Action.parse("extend 2 8h")
>>> a, str(a)
(Action.parse('extend 2 8H'), 'extend 2 8H')
>>> Action.parse("meld 7H 5H 6H") == Action.parse("meld 5H 6H 7H")
True
>>> Action.parse("fold")
Traceback (most recent call last):
...
ValueError: not an action: 'fold' (draw, take, redraw, pass, meld CARDS, extend N CARD, discard CARD)
"""

from __future__ import annotations

from typing import Final, NamedTuple

from burraco.cards import CARDS, Card, format_cards, parse_card, parse_cards

__all__ = [
    "DISCARD",
    "DRAW",
    "EXTEND",
    "MELD",
    "PASS",
    "REDRAW",
    "TAKE",
    "Action",
    "discard",
    "draw",
    "extend",
    "meld",
    "take",
]

DRAW: Final = "draw"
TAKE: Final = "take"
REDRAW: Final = "redraw"
PASS: Final = "pass"
MELD: Final = "meld"
EXTEND: Final = "extend"
DISCARD: Final = "discard"

_USAGE: Final = "draw, take, redraw, pass, meld CARDS, extend N CARD, discard CARD"


class Action(NamedTuple):
    """One decision. ``cards`` is sorted by kind, so equal actions compare equal."""

    kind: str
    cards: tuple[Card, ...] = ()
    #: For ``extend``: the index of the meld in the line's melds.
    target: int = -1

    def __str__(self) -> str:
        if self.kind == EXTEND:
            return f"extend {self.target} {format_cards(self.cards)}"
        if self.cards:
            return f"{self.kind} {format_cards(self.cards)}"
        return self.kind

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form; raise ``ValueError`` naming what is wrong."""
        words = text.split()
        if not words:
            raise ValueError(f"not an action: {text!r} ({_USAGE})")
        kind = words[0].lower()
        rest = words[1:]
        if kind in (DRAW, REDRAW, PASS) and not rest:
            return _PLAIN[kind]
        if kind == TAKE:
            return take(parse_cards(rest)) if rest else _TAKE
        if kind == MELD and rest:
            return meld(parse_cards(rest))
        if kind == DISCARD and len(rest) == 1:
            return discard(parse_card(rest[0]))
        if kind == EXTEND and len(rest) == 2 and rest[0].isdigit():
            return extend(int(rest[0]), parse_card(rest[1]))
        raise ValueError(f"not an action: {text!r} ({_USAGE})")


# The actions below are interned: each one object, built once, whether it comes from the
# engine's legal-move lists, a bot or a player's text. A table's history then holds no
# object of its own per action: each Action (and its tuple of Cards) is one more object
# for the cyclic collector to walk, for as long as the table lives.
_DRAW: Final = Action(DRAW)
_TAKE: Final = Action(TAKE)
_REDRAW: Final = Action(REDRAW)
_PASS: Final = Action(PASS)
_PLAIN: Final = {DRAW: _DRAW, TAKE: _TAKE, REDRAW: _REDRAW, PASS: _PASS}
_DISCARDS: Final = tuple(Action(DISCARD, (card,)) for card in CARDS)
#: Extensions of meld numbers past this are built, not interned (a player's text may name
#: any number; a line holds far fewer melds).
_INTERNED_TARGETS: Final = 64


def draw() -> Action:
    return _DRAW


def take(cards: list[Card] | tuple[int, ...] = ()) -> Action:
    return take_action(tuple(sorted(cards))) if cards else _TAKE


def meld(cards: list[Card] | tuple[int, ...]) -> Action:
    return meld_action(tuple(sorted(cards)))


def extend(target: int, card: int) -> Action:
    if 0 <= target < _INTERNED_TARGETS:
        return extend_action(target, card)
    return Action(EXTEND, (CARDS[card],), target)


def discard(card: int) -> Action:
    return _DISCARDS[card]


# Interned actions for the engine's legal-move lists: one object per action, built once,
# so listing the legal actions builds nothing it has built before. Their cards are sorted
# kinds, as :class:`Action` keeps them.
_MELDS: dict[tuple[int, ...], Action] = {}
_EXTENDS: list[tuple[Action, ...]] = []
_TAKES: dict[tuple[int, ...], Action] = {}


def _new_action(kind: str, kinds: tuple[int, ...]) -> Action:
    """``Action(kind, cards)`` of some sorted card kinds, built as its NamedTuple constructor
    builds it (``tuple.__new__``) without that constructor's interpreted frame (compiled, a
    NamedTuple is called as any Python class), its cards picked by a plain loop."""
    cards: list[Card] = [CARDS[c] for c in kinds]
    return _NEW_ACTION(Action, (kind, tuple(cards), -1))


_NEW_ACTION: Final = tuple.__new__


def meld_action(cards: tuple[int, ...]) -> Action:
    """The interned ``meld`` of some sorted card kinds."""
    action = _MELDS.get(cards)
    if action is None:
        if len(_MELDS) >= 1 << 16:
            _MELDS.clear()  # a bound on memory: interning only saves building them again
        action = _new_action(MELD, cards)
        _MELDS[action.cards] = action  # Cards are ints: the action's cards serve as the key
    return action


def extend_action(target: int, card: int) -> Action:
    """The interned ``extend`` of meld number ``target`` with a card kind."""
    return extend_actions(target)[card]


def extend_actions(target: int) -> tuple[Action, ...]:
    """The interned ``extend`` of meld number ``target``, indexed by card kind."""
    return extend_tables(target + 1)[target]


def extend_tables(melds: int) -> list[tuple[Action, ...]]:
    """:func:`extend_actions` of every meld number below ``melds`` (and maybe more), by
    meld number."""
    while len(_EXTENDS) < melds:
        n = len(_EXTENDS)
        _EXTENDS.append(tuple(Action(EXTEND, (card,), n) for card in CARDS))
    return _EXTENDS


def take_action(cards: tuple[int, ...]) -> Action:
    """The interned canasta ``take`` naming sorted card kinds."""
    action = _TAKES.get(cards)
    if action is None:
        if len(_TAKES) >= 1 << 12:
            _TAKES.clear()
        action = _TAKES[cards] = _new_action(TAKE, cards)
    return action
