"""The engine's kept tables give what working it out from scratch gives.

The legal-move path keeps each variant's new melds by the counts of each suit and
rank (``MeldTables.parts``), each sequence's fitting cards (``MeldTables.fitting``) and
canasta's best opening lay-down by ranks' totals (``_best_set_lay``). Each is checked
here against the plain computation it replaces, on random hands of every variant.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burraco import Deal, variant
from burraco.cards import JOKER, KINDS
from burraco.deal import _best_set_lay
from burraco.melds import (
    SET,
    WILD,
    Meld,
    MeldTables,
    _enumerate,
    extended,
    merged,
    read_meld,
    tables_for,
)
from burraco.variants import SETUPS, Variant

VARIANTS = sorted({name for name, _, _ in SETUPS})


def random_hand(rng: random.Random, v: Variant, size: int) -> list[int]:
    """A hand drawn from the variant's deck, with extra copies of a few kinds so sets and
    sequences are common."""
    deck = [c for c in range(52) for _ in range(v.decks)] + [JOKER] * v.jokers
    rng.shuffle(deck)
    counts = [0] * KINDS
    for c in deck[:size]:
        counts[c] += 1
    if v.red_threes:
        counts[15] = counts[28] = 0  # red 3s never stay in a canasta hand
    return counts


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(0, 30))
def test_kept_new_melds_are_the_enumerated_ones(name: str, seed: int, size: int) -> None:
    v = variant(name)
    rng = random.Random(seed)
    tables = tables_for(v)
    for _ in range(3):  # the second and third look-ups come from the tables
        counts = random_hand(rng, v, size)
        found = _enumerate(counts, v)
        listed = tables.candidates(counts)
        assert [c[0] for c in listed] == sorted(found)
        assert all(found[cards] == rank for cards, rank, _ in listed)
        actions = [tables.actions[number] for _, _, number in listed]
        assert all(
            a.kind == "meld" and list(a.cards) == list(cards)
            for a, (cards, _, _) in zip(actions, listed, strict=True)
        )
        taken = {rng.choice(range(1, 14)), -1}
        without = merged([part[0] for part in tables.parts(counts, taken)])
        assert without == [c for c in listed if not (c[1] and c[1] in taken)]


@pytest.mark.parametrize("name", [name for name in VARIANTS if variant(name).sets])
def test_a_ranks_sets_moved_from_another_ranks_are_its_own(name: str) -> None:
    """The sets of a rank from 4 to K are taken from another rank's with the same counts
    (naturals and wildcards), their naturals moved: they are the enumerated ones, in
    order, each with the action that lays it down."""
    v = variant(name)
    tables = MeldTables(v)  # fresh: the first rank of each pair is found, the second moved
    rng = random.Random(35)
    moved = 0
    for _ in range(60):
        counts = random_hand(rng, v, rng.randrange(6, 16))
        first, second = rng.sample(range(4, 14), 2)
        for suit in range(4):
            counts[suit * 13 + second - 1] = counts[suit * 13 + first - 1]
        found = _enumerate(counts, v)
        listed = tables.candidates(counts)
        assert [c[0] for c in listed] == sorted(found)
        assert all(found[cards] == rank for cards, rank, _ in listed)
        assert all(list(tables.actions[n].cards) == list(cards) for cards, _, n in listed)
        moved += any(rank == second for _, rank, _ in listed)
    assert moved  # some hands had sets of the moved rank


@pytest.mark.parametrize("name", VARIANTS)
def test_fitting_cards_are_those_a_meld_takes(name: str) -> None:
    v = variant(name)
    tables = tables_for(v)
    rng = random.Random(name)
    every = [1] * KINDS
    checked = 0
    seen: set[Meld] = set()
    for seed in range(6):
        deal = Deal.new(v, seed=seed)
        while not deal.is_over:
            for line_melds in deal.melds:
                for m in line_melds:
                    if m in seen:
                        continue
                    seen.add(m)
                    fits = [c for c in range(KINDS) if isinstance(extended(m, c, v), Meld)]
                    assert tables.fitting(m, every) == fits, (str(m), fits)
                    hand = [rng.randint(0, 2) for _ in range(KINDS)]
                    assert tables.fitting(m, hand) == [c for c in fits if hand[c]]
                    checked += 1
            deal.apply(rng.choice(deal.legal_actions()))
    assert checked


def plain_best_set_lay(hand: Sequence[int], v: Variant, melds: Sequence[Meld]) -> int:
    """The most card points a canasta hand can lay down keeping one card: every card kept
    in turn, then every rank's naturals and the wildcards placed, as the rule reads."""
    totals = [0] * 14
    for kind in range(KINDS):
        totals[0 if kind == JOKER else kind % 13 + 1] += hand[kind]
    by_rank = {m.rank: (m.size - len(m.wilds), len(m.wilds)) for m in melds if m.kind == SET}
    wild_meld = any(m.kind == WILD for m in melds)
    values = v.values
    best = 0
    for kept in range(14):
        if not totals[kept]:
            continue
        t = list(totals)
        t[kept] -= 1
        wilds = [values[0]] * t[0] + [values[2]] * t[2]
        base = slots = 0
        pairs: list[int] = []
        for rank in range(1, 14):
            n = t[rank]
            if rank in (2, 3):
                continue
            if rank in by_rank:
                naturals, placed = by_rank[rank]
                base += n * values[rank]
                slots += max(0, (1 if naturals + n <= 2 else 2) - placed)
            elif n >= 3:
                base += n * values[rank]
                slots += 2
            elif n == 2:
                pairs.append(2 * values[rank])
        pairs.sort(reverse=True)
        for k in range(min(len(wilds), len(pairs)) + 1):
            left = len(wilds) - k
            used = len(wilds) if wild_meld or left >= 3 else k + min(left, slots)
            best = max(best, base + sum(pairs[:k]) + sum(wilds[:used]))
    return best


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_best_opening_lay_down_is_the_plain_one(seed: int) -> None:
    v = variant("canasta")
    rng = random.Random(seed)
    hand = random_hand(rng, v, rng.randint(1, 30))
    melds: list[Meld] = []
    for rank in rng.sample([1, *range(4, 14)], rng.randint(0, 3)):
        naturals = rng.randint(2, 5)
        wilds = rng.randint(1 if naturals == 2 else 0, 1 if naturals <= 2 else 2)
        melds.append(read_meld([rank - 1] * naturals + [1] * wilds, v))
    if rng.random() < 0.2:
        melds.append(read_meld([JOKER] * 3, v))
    assert _best_set_lay(hand, v, melds) == plain_best_set_lay(hand, v, melds)


def test_equal_variants_share_their_tables() -> None:
    # Every table of the room and every board of an arena builds its own variant object:
    # equal rules must find the tables already filled, not fill a copy of their own.
    first, second = variant("italian", players=4), variant("italian", players=4)
    assert first is not second and first == second
    assert tables_for(first) is tables_for(second)
    assert tables_for(variant("italian")) is not tables_for(first)
    assert tables_for(variant("italian", players=4, target=1505)) is not tables_for(first)


@pytest.mark.parametrize("name", ["italian", "canasta"])
def test_a_pickled_or_copied_deal_shares_its_variants_tables(name: str) -> None:
    """A deal keeps its variant's meld tables and rules: pickled or deep-copied, it comes back
    with the variant's own, not with a copy of all the tables hold (up to about 100 MB)."""
    v = variant(name)
    rng = random.Random(name)
    for seed in range(5):  # tables with something in them
        deal = Deal.new(v, seed=seed)
        while not deal.is_over:
            deal.apply(rng.choice(deal.legal_actions()))
    deal = Deal.new(v, seed=99)
    for _ in range(12):
        deal.apply(rng.choice(deal.legal_actions()))
    for copied in (pickle.loads(pickle.dumps(deal)), copy.deepcopy(deal)):
        assert copied._tables is tables_for(v)
        assert copied.position() == deal.position()
        assert copied.legal_actions() == deal.legal_actions()
