"""Hand-built Burraco positions (``italian``, ``online``) for the rule tests.

``Deal.from_deck(variant, order, dealer=d)`` takes the whole deck, top card first. As
RULES.md and 002 describe the deal, the pozzetti are built first, card by card and
alternately, from the bottom of the deck (the last card goes to the first pozzetto, the one
before it to the second, and so on; a pozzetto that is full is skipped); then the cards are
dealt one at a time from the top, starting with the seat after the dealer, ``hand_size``
rounds; the next card is turned up to start the pile; the rest is the stock, its top the
card right after the up-card.

:func:`stacked` builds such an order from the cards a test wants in each place and fills
every other place with the cards left over (in a fixed pseudo-random order);
:func:`dealt` deals it and checks that every card landed where it was asked to.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

import pytest

from burraco import Action, Card, Deal, IllegalMove, Variant, deck, parse_cards

__all__ = [
    "SHARED",
    "assert_illegal",
    "assert_legal",
    "cards",
    "check_quotes",
    "counter",
    "dealt",
    "drawn_card",
    "idle_turn",
    "play",
    "pozzetto_sizes",
    "snapshot",
    "stacked",
    "value",
]

CardsLike = str | Iterable[int]


def _find_shared() -> Path:
    here = Path(__file__).resolve()
    for base in (*here.parents, Path("/work")):
        if (base / "shared" / "RULES.md").is_file():
            return base / "shared"
    return Path("/work/shared")


#: Where RULES.md and the seeds live: the shared/ folder beside the repository.
SHARED = _find_shared()

#: Card values by rank as RULES.md gives them: "3-7 = 5; 8-K = 10; A = 15; 2 = 20; joker = 30".
_VALUES = {1: 15, 2: 20, 3: 5, 4: 5, 5: 5, 6: 5, 7: 5, 8: 10, 9: 10, 10: 10, 11: 10, 12: 10, 13: 10}


def cards(text: CardsLike) -> list[Card]:
    """Cards from text (``"5H 6H 7H"``) or from card kinds."""
    if isinstance(text, str):
        return parse_cards(text)
    return [Card(c) for c in text]


def counter(text: CardsLike) -> Counter[str]:
    """A multiset of cards, by their text."""
    return Counter(str(c) for c in cards(text))


def value(text: CardsLike) -> int:
    """The points of some cards, computed here from RULES.md's table (not by the engine)."""
    return sum(30 if c.is_joker else _VALUES[c.rank] for c in cards(text))


def pozzetto_sizes(v: Variant, phase: int = 1) -> list[int]:
    """The pozzetti of a table, in the order they are built and taken (RULES.md)."""
    if not v.pozzetti:
        return []
    if v.players in (3, 5):
        return [18] + [11] * (v.players // 2) if phase == 1 else [11] * v.players
    return [11] * v.lines


def stacked(
    v: Variant,
    hands: Mapping[int, CardsLike] | None = None,
    *,
    up: str | None = None,
    stock: CardsLike = "",
    stock_bottom: CardsLike = "",
    pozzetti: Sequence[CardsLike] = (),
    dealer: int = 0,
    phase: int = 1,
    seed: int = 0,
) -> list[Card]:
    """A whole deck order, top card first, that deals the cards asked for.

    ``hands`` maps seats to (some of) their cards; ``up`` is the card turned up;
    ``stock`` the top cards of the stock (top first, the first one is drawn first);
    ``stock_bottom`` the last cards of the stock (top first: with ``"9S 3D 4D"`` the 9S is
    the third-last card and 3D 4D the last two); ``pozzetti`` (some of) the cards of each
    pozzetto, the first one taken first. Every other place gets a card left over.
    """
    n = v.deck_size
    slots: list[Card | None] = [None] * n
    # The pozzetti, from the bottom, card by card, alternately.
    sizes = pozzetto_sizes(v, phase)
    places: list[list[int]] = [[] for _ in sizes]
    bottom = n
    while any(len(p) < s for p, s in zip(places, sizes, strict=True)):
        for p, s in zip(places, sizes, strict=True):
            if len(p) < s:
                bottom -= 1
                p.append(bottom)
    # The hands, one card at a time from the top, starting after the dealer.
    first = (dealer + 1) % v.players
    hand_places: dict[int, list[int]] = {s: [] for s in range(v.players)}
    for k in range(v.hand_size):
        for j in range(v.players):
            hand_places[(first + j) % v.players].append(k * v.players + j)
    up_place = v.players * v.hand_size
    stock_places = list(range(up_place + 1, bottom))

    wanted: list[tuple[list[int], list[Card], str]] = []
    for seat, text in (hands or {}).items():
        wanted.append((hand_places[seat], cards(text), f"hand of seat {seat}"))
    if up is not None:
        wanted.append(([up_place], cards(up), "up-card"))
    top_cards = cards(stock)
    low_cards = cards(stock_bottom)
    wanted.append((stock_places[: len(top_cards)], top_cards, "stock top"))
    wanted.append((stock_places[len(stock_places) - len(low_cards) :], low_cards, "stock bottom"))
    for i, text in enumerate(pozzetti):
        wanted.append((places[i], cards(text), f"pozzetto {i}"))

    pool = Counter(deck(v.decks, v.jokers))
    for where, what, name in wanted:
        if len(what) > len(where):
            raise ValueError(f"{name}: {len(what)} cards for {len(where)} places")
        for place, card in zip(where, what, strict=False):
            if slots[place] is not None:
                raise ValueError(f"{name}: place {place} is asked for twice")
            if pool[card] == 0:
                raise ValueError(f"{name}: no {card} left in a deck of {n} cards")
            pool[card] -= 1
            slots[place] = card
    rest = sorted(pool.elements())
    random.Random(seed).shuffle(rest)
    order = []
    for card in slots:
        order.append(rest.pop() if card is None else card)
    assert not rest
    return order


def dealt(
    v: Variant,
    hands: Mapping[int, CardsLike] | None = None,
    *,
    up: str | None = None,
    stock: CardsLike = "",
    stock_bottom: CardsLike = "",
    pozzetti: Sequence[CardsLike] = (),
    dealer: int = 0,
    phase: int = 1,
) -> Deal:
    """The deal of :func:`stacked`, checked: each seat holds the cards asked for, the
    up-card is turned up, and the pozzetti hold theirs."""
    order = stacked(
        v,
        hands,
        up=up,
        stock=stock,
        stock_bottom=stock_bottom,
        pozzetti=pozzetti,
        dealer=dealer,
        phase=phase,
    )
    deal = Deal.from_deck(v, order, dealer=dealer, phase=phase)
    for seat, text in (hands or {}).items():
        want = counter(text)
        have = Counter(str(c) for c in deal.hand(seat))
        assert not want - have, f"seat {seat} should hold {want}, holds {have}"
        assert sum(have.values()) == v.hand_size
    if up is not None:
        assert [str(Card(c)) for c in deal.pile] == [str(cards(up)[0])]
    for i, text in enumerate(pozzetti):
        assert not counter(text) - Counter(str(Card(c)) for c in deal.pozzetti[i])
    return deal


def snapshot(deal: Deal) -> tuple[object, ...]:
    """Everything a rule could change: every seat's view, hands, stock, pozzetti."""
    seats = range(deal.players)
    return (
        tuple(deal.view(s) for s in seats),
        tuple(tuple(deal.hand(s)) for s in seats),
        tuple(deal.stock),
        tuple(deal.pile),
        tuple(tuple(p) for p in deal.pozzetti),
        tuple(tuple(m) for m in deal.melds),
        deal.phase,
        deal.turn,
        deal.is_over,
    )


def assert_legal(deal: Deal, text: str) -> None:
    """The action is listed, is legal, and is applied."""
    action = Action.parse(text)
    assert deal.is_legal(action), f"{text} should be legal"
    assert action in deal.legal_actions(), f"{text} should be listed as legal"
    deal.apply(text)


def assert_illegal(deal: Deal, text: str, rule: str) -> None:
    """The action is not listed, not legal, raises IllegalMove naming ``rule`` (a regular
    expression), and changes nothing."""
    action = Action.parse(text)
    before = snapshot(deal)
    assert not deal.is_legal(action), f"{text} should be illegal"
    assert action not in deal.legal_actions(), f"{text} should not be listed"
    with pytest.raises(IllegalMove, match=rule):
        deal.check(action)
    with pytest.raises(IllegalMove, match=rule):
        deal.apply(text)
    assert snapshot(deal) == before, f"the illegal {text} changed the state"


def play(deal: Deal, *texts: str) -> None:
    """Apply legal actions one after another."""
    for text in texts:
        deal.apply(text)


def drawn_card(before: Sequence[Card], after: Sequence[Card]) -> Card:
    """The one card a hand gained."""
    (card,) = list((Counter(after) - Counter(before)).elements())
    return card


def idle_turn(deal: Deal) -> None:
    """The player on turn draws from the stock and discards the card drawn."""
    seat = deal.turn
    before = deal.hand(seat)
    deal.apply("draw")
    deal.apply(f"discard {drawn_card(before, deal.hand(seat))}")


_QUOTE = re.compile(r"(RULES\.md|seeds/[0-9a-f_]+\.txt):\s*«(.*?)»", re.S)


def _flat(text: str) -> str:
    return " ".join(text.split())


def check_quotes(module: ModuleType) -> int:
    """Every ``FILE: «...»`` quote in the module's test docstrings is verbatim in FILE.

    Whitespace (line breaks of RULES.md, docstring indentation) is not compared. Returns the
    number of quotes checked; every test must carry at least one.
    """
    if not (SHARED / "RULES.md").exists():
        pytest.skip("the rule documents are not on this machine")
    checked = 0
    for name, func in vars(module).items():
        if not name.startswith("test_") or name == "test_quotes_are_verbatim":
            continue
        doc = func.__doc__ or ""
        quotes = _QUOTE.findall(doc)
        assert quotes, f"{name} quotes no source"
        for file, quote in quotes:
            source = _flat((SHARED / file).read_text(encoding="utf-8"))
            assert _flat(quote) in source, f"{name}: not verbatim in {file}: {quote!r}"
            checked += 1
    return checked
