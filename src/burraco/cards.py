"""Cards, their text form, and decks.

A card is one of 53 kinds: thirteen ranks in four suits, and the joker. Several
decks are shuffled together, so two cards of one kind are the same card for
every rule: a hand is a multiset, kept as a count per kind.

A :class:`Card` is a small ``int`` (``suit * 13 + rank - 1``, the joker is 52),
so the engine indexes arrays with it and never builds objects in its loops,
while ``str(card)`` gives the canonical text.

>>> parse_cards("10H TH AS 2C JK 7♦")
[Card.parse('10H'), Card.parse('10H'), Card.parse('AS'), Card.parse('2C'), Card.parse('JK'), Card.parse('7D')]
>>> str(parse_card("th"))
'10H'
>>> format_cards(parse_cards("kh ah 2h"))
'KH AH 2H'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from mypy_extensions import mypyc_attr

__all__ = [
    "ACE",
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "JOKER",
    "KINDS",
    "RANK_NAMES",
    "SPADES",
    "SUIT_NAMES",
    "Card",
    "card_of",
    "counts_of",
    "deck",
    "format_cards",
    "is_red",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
]

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUIT_NAMES: Final = "SHDC"
RANK_NAMES: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE: Final = 1
JOKER: Final = 52
#: The number of card kinds (52 suited kinds and the joker).
KINDS: Final = 53

_SUIT_SYMBOLS: Final = {
    "S": SPADES,
    "♠": SPADES,
    "♤": SPADES,
    "H": HEARTS,
    "♥": HEARTS,
    "♡": HEARTS,
    "D": DIAMONDS,
    "♦": DIAMONDS,
    "♢": DIAMONDS,
    "C": CLUBS,
    "♣": CLUBS,
    "♧": CLUBS,
}
_RANK_TEXT: Final = {name: rank for rank, name in enumerate(RANK_NAMES) if name} | {"T": 10, "1": 1}


# An int subclass cannot be a native class: compiled, it stays a Python class over int.
@mypyc_attr(native_class=False)
class Card(int):
    """One kind of card.

    >>> c = Card.parse("QS")
    >>> c.rank, c.suit, str(c)
    (12, 0, 'QS')
    >>> Card.parse("JK").is_joker
    True
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 for the ace up to 13 for the king; 0 for the joker."""
        return 0 if self == JOKER else self % 13 + 1

    @property
    def suit(self) -> int:
        """0 to 3 for S, H, D, C; -1 for the joker."""
        return -1 if self == JOKER else self // 13

    @property
    def is_joker(self) -> bool:
        return self == JOKER

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_TEXT[self]!r})"


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(KINDS))
_TEXT: Final[tuple[str, ...]] = tuple(
    [RANK_NAMES[i % 13 + 1] + SUIT_NAMES[i // 13] for i in range(52)] + ["JK"]
)
_BY_TEXT: Final[dict[str, Card]] = {text: CARDS[i] for i, text in enumerate(_TEXT)}


def card_of(rank: int, suit: int) -> Card:
    """The card of a rank (1-13) and a suit (0-3).

    >>> str(card_of(10, HEARTS))
    '10H'
    """
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise ValueError(f"no card of rank {rank} and suit {suit}")
    return CARDS[suit * 13 + rank - 1]


def rank_of(card: int) -> int:
    """The rank of a card kind (1-13), or 0 for the joker."""
    return 0 if card == JOKER else card % 13 + 1


def suit_of(card: int) -> int:
    """The suit of a card kind (0-3), or -1 for the joker."""
    return -1 if card == JOKER else card // 13


def is_red(card: int) -> bool:
    """Hearts and diamonds are red."""
    return card != JOKER and card // 13 in (HEARTS, DIAMONDS)


def parse_card(token: str) -> Card:
    """Parse one card: rank then suit (``10H``, ``TH``, ``AS``, ``2C``), ``JK`` for the joker.

    Suit symbols are accepted and case does not matter.

    >>> parse_card("10♥") == parse_card("th")
    True
    >>> parse_card("11H")
    Traceback (most recent call last):
    ...
    ValueError: not a card: '11H' (a card is a rank A 2-10 J Q K and a suit S H D C, or JK)
    """
    text = token.strip().upper()
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    if text in ("JK", "JOKER", "🃏", "JO", "*"):
        return CARDS[JOKER]
    if len(text) >= 2:
        rank = _RANK_TEXT.get(text[:-1])
        suit = _SUIT_SYMBOLS.get(text[-1])
        if rank is not None and suit is not None:
            return CARDS[suit * 13 + rank - 1]
    raise ValueError(
        f"not a card: {token!r} (a card is a rank A 2-10 J Q K and a suit S H D C, or JK)"
    )


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas.

    >>> parse_cards("5H 11H")
    Traceback (most recent call last):
    ...
    ValueError: not a card: '11H' (a card is a rank A 2-10 J Q K and a suit S H D C, or JK)
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


def format_cards(cards: Iterable[int]) -> str:
    """The canonical text of some cards, in the order given."""
    return " ".join(_TEXT[c] for c in cards)


def counts_of(cards: Iterable[int]) -> list[int]:
    """A multiset of cards as a count per kind (a list of 53 integers)."""
    counts = [0] * KINDS
    for c in cards:
        counts[c] += 1
    return counts


def deck(decks: int, jokers: int) -> list[Card]:
    """The cards of ``decks`` French decks and ``jokers`` jokers, in a fixed order.

    >>> len(deck(2, 4)), len(deck(2, 0)), len(deck(3, 6))
    (108, 104, 162)
    """
    return [CARDS[i] for _ in range(decks) for i in range(52)] + [CARDS[JOKER]] * jokers


def cards_from_counts(counts: Sequence[int]) -> list[Card]:
    """The cards of a count per kind, sorted by kind."""
    out: list[Card] = []
    for i, n in enumerate(counts):
        if n == 1:
            out.append(CARDS[i])
        elif n:
            out.extend([CARDS[i]] * n)
    return out
