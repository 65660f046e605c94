"""Hand-built deck orders for the ``buraco`` and ``canasta`` rule tests.

``Deal.from_deck(variant, order, dealer=d)`` takes the whole deck, top card first, and deals
it one card at a time, starting with the seat after the dealer, until every hand is full
(``hand_size`` rounds). In ``buraco`` there are no pozzetti and no up-card, so the next card
is the top of the stock. In ``canasta`` each seat (in dealing order) then lays aside its red
3s and replaces them from the top of the stock, and the pile is built from the top of the
stock: the turned card, with as many face-down cards buried under it as its value (a
wildcard or a 3 turned goes to the bottom of the stock and the next card is turned).

The functions here build such an order from the hands and the stock a test wants, and fill
the rest of the deck with the cards left over, in a fixed order.
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

import pytest

from burraco import Action, Card, Deal, IllegalMove, Variant, deck, parse_cards

__all__ = [
    "assert_holds",
    "buraco_order",
    "canasta_order",
    "cards",
    "check_quotes",
    "deal_order",
    "hand_text",
    "illegal",
    "legal",
    "pile_value",
    "snapshot",
    "sorted_text",
]

CardsLike = str | Iterable[int]


def cards(text: CardsLike) -> list[Card]:
    """Cards from text (``"5H 6H 7H"``) or from card kinds."""
    if isinstance(text, str):
        return parse_cards(text)
    return [Card(c) for c in text]


def hand_text(deal: Deal, seat: int) -> list[str]:
    """A seat's hand as sorted card texts (compare with :func:`sorted_text`)."""
    return sorted(str(c) for c in deal.hand(seat))


def sorted_text(text: CardsLike) -> list[str]:
    return sorted(str(c) for c in cards(text))


def snapshot(deal: Deal) -> list[object]:
    """Every seat's view of the deal: equal snapshots mean an unchanged state."""
    return [deal.view(s) for s in range(deal.players)]


def pile_value(card: Card) -> int:
    """How many cards canasta buries under a turned card (A = 14, K = 13, ... 4 = 4)."""
    return 14 if card.rank == 1 else card.rank


def assert_holds(deal: Deal, seat: int, text: CardsLike) -> None:
    """The seat's hand holds these cards (as a multiset)."""
    missing = Counter(cards(text)) - Counter(deal.hand(seat))
    assert not missing, f"seat {seat} lacks {[str(c) for c in missing.elements()]}"


def legal(deal: Deal, text: str) -> None:
    """The action is listed, is legal, and is applied."""
    action = Action.parse(text)
    listed = deal.legal_actions()
    assert action in listed, f"{text!r} is not among the legal actions {[str(a) for a in listed]}"
    assert deal.is_legal(action)
    deal.apply(text)


def illegal(deal: Deal, text: str, match: str) -> None:
    """The action is not listed, is not legal, raises IllegalMove naming the rule (``match``,
    a regular expression) and leaves every seat's view of the deal unchanged."""
    action = Action.parse(text)
    assert action not in deal.legal_actions(), f"{text!r} is listed as legal"
    assert not deal.is_legal(action)
    before = snapshot(deal)
    with pytest.raises(IllegalMove, match=match):
        deal.apply(text)
    assert snapshot(deal) == before


# --- quotes ---------------------------------------------------------------------------------

_QUOTE = re.compile(r"((?:seeds/[\w.]+\.txt)|RULES\.md): «(.*?)»", re.S)


def _shared() -> Path | None:
    here = Path(__file__).resolve()
    for base in (*here.parents, Path("/work")):
        candidate = base / "shared"
        if (candidate / "RULES.md").is_file():
            return candidate
    return None


def _flat(text: str) -> str:
    return " ".join(text.split())


def check_quotes(module: ModuleType) -> None:
    """Every test of ``module`` quotes a source in its docstring, and every quote (written
    ``FILE: «sentence»``) is found verbatim in that file (white space aside)."""
    shared = _shared()
    if shared is None:
        pytest.skip("the source documents (shared/RULES.md, shared/seeds) are not here")
    texts: dict[str, str] = {}
    tests = [
        (name, obj)
        for name, obj in vars(module).items()
        if name.startswith("test_") and inspect.isfunction(obj)
    ]
    assert tests
    for name, fn in tests:
        doc = inspect.getdoc(fn) or ""
        quotes = _QUOTE.findall(doc)
        assert quotes, f"{name} quotes no source"
        for path, sentence in quotes:
            if path not in texts:
                texts[path] = _flat((shared / path).read_text(encoding="utf-8"))
            assert _flat(sentence) in texts[path], f"{name}: not verbatim in {path}: {sentence!r}"


def _quiet_key(c: Card) -> tuple[int, int, int]:
    # Filler order: natural cards first, spread over ranks and suits; then wildcards and
    # 3s; the red 3s last of all (so that a canasta stock does not meet one by chance).
    wild = c.is_joker or c.rank == 2
    three = c.rank == 3
    red_three = three and c.suit in (1, 2)
    group = 3 if red_three else 2 if three else 1 if wild else 0
    return (group, c.rank, c.suit)


def _filler(v: Variant, used: Counter[int]) -> list[Card]:
    left = Counter(deck(v.decks, v.jokers))
    left.subtract(used)
    bad = {str(Card(k)): n for k, n in left.items() if n < 0}
    if bad:
        raise ValueError(f"more cards asked for than the {v.name} deck holds: {bad}")
    rest = [Card(k) for k, n in left.items() for _ in range(n)]
    rest.sort(key=_quiet_key)
    # Spread the quiet cards so that consecutive fillers rarely share a rank or a suit.
    quiet = [c for c in rest if _quiet_key(c)[0] == 0]
    loud = [c for c in rest if _quiet_key(c)[0] != 0]
    by_rank: dict[int, list[Card]] = {}
    for c in quiet:
        by_rank.setdefault(c.rank, []).append(c)
    spread: list[Card] = []
    while any(by_rank.values()):
        for rank in sorted(by_rank):
            if by_rank[rank]:
                spread.append(by_rank[rank].pop(0))
    return spread + loud


def _hands_list(
    v: Variant, hands: Sequence[CardsLike] | Mapping[int, CardsLike]
) -> list[list[Card]]:
    if isinstance(hands, Mapping):
        out = [cards(hands.get(seat, "")) for seat in range(v.players)]
    else:
        if len(hands) > v.players:
            raise ValueError(f"{len(hands)} hands for {v.players} players")
        out = [cards(h) for h in hands] + [[] for _ in range(v.players - len(hands))]
    for seat, hand in enumerate(out):
        if len(hand) > v.hand_size:
            raise ValueError(f"seat {seat}: {len(hand)} cards, a hand holds {v.hand_size}")
    return out


def deal_order(
    v: Variant,
    hands: Sequence[CardsLike] | Mapping[int, CardsLike],
    after: CardsLike = "",
    *,
    dealer: int = 0,
) -> list[Card]:
    """A whole deck order: the hands (by seat) dealt first, then ``after`` (top first).

    A hand given short is completed with filler cards; the cards after ``after`` are filler.
    """
    wanted = _hands_list(v, hands)
    tail = cards(after)
    used: Counter[int] = Counter()
    for hand in wanted:
        used.update(hand)
    used.update(tail)
    filler = _filler(v, used)
    for hand in wanted:
        while len(hand) < v.hand_size:
            hand.append(filler.pop(0))
    order: list[Card] = []
    first = (dealer + 1) % v.players
    for r in range(v.hand_size):
        for k in range(v.players):
            order.append(wanted[(first + k) % v.players][r])
    order += tail + filler
    assert sorted(order) == sorted(deck(v.decks, v.jokers))
    return order


def buraco_order(
    v: Variant,
    hands: Sequence[CardsLike] | Mapping[int, CardsLike],
    stock: CardsLike = "",
    *,
    dealer: int = 0,
) -> list[Card]:
    """A buraco deck order: the hands, then the stock from its top (the dealer's first draw)."""
    return deal_order(v, hands, stock, dealer=dealer)


def canasta_order(
    v: Variant,
    hands: Sequence[CardsLike] | Mapping[int, CardsLike],
    *,
    dealer: int = 0,
    replacements: CardsLike = "",
    skipped: CardsLike = "",
    turned: str = "4C",
    buried: CardsLike = "",
    stock: CardsLike = "",
) -> list[Card]:
    """A canasta deck order.

    After the hands come: the ``replacements`` for the red 3s dealt (seat by seat in dealing
    order), the ``skipped`` cards turned first and sent back (wildcards, 3s), the ``turned``
    card that starts the pile, the cards ``buried`` under it (completed with filler up to the
    turned card's value), then the ``stock`` from its top.
    """
    top = cards(turned)[0]
    under = cards(buried)
    need = pile_value(top)
    if len(under) > need:
        raise ValueError(f"{turned} buries {need} cards, not {len(under)}")
    head = [*cards(replacements), *cards(skipped), top]
    tail = cards(stock)
    # Complete the buried cards with filler taken from the deck's leftovers.
    used: Counter[int] = Counter()
    for hand in _hands_list(v, hands):
        used.update(hand)
    used.update(head)
    used.update(under)
    used.update(tail)
    spare = _filler(v, used)
    # A short hand is completed from the front of the filler (as deal_order does), so the
    # buried cards come from its back, which holds wildcards and 3s; use quiet cards instead.
    short = sum(v.hand_size - len(h) for h in _hands_list(v, hands))
    quiet = [c for c in spare[short:] if _quiet_key(c)[0] == 0]
    under += quiet[: need - len(under)]
    return deal_order(v, hands, [*head, *under, *tail], dealer=dealer)
