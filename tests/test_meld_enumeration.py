"""The meld enumeration behind ``legal_actions()`` is complete and exact.

Every sub-multiset of a hand that reads as a legal meld must be listed by
``new_melds``, and nothing else; the hands are drawn with runs, sets and
wildcards so that long sequences, gaps, natural 2s and aces at both ends occur.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burraco import Meld, variant
from burraco.cards import JOKER, counts_of, format_cards
from burraco.melds import SEQUENCE, WILD, _read, meld_candidates, new_melds

VARIANTS = [
    variant("italian"),
    variant("italian", players=6),
    variant("buraco"),
    variant("buraco", canastra_real=True, jokers=2),
    variant("canasta"),
]


def _biased_hand(rng: random.Random, v_jokers: int) -> list[int]:
    suit = rng.randrange(4)
    lo = rng.randrange(1, 12)
    length = rng.randrange(2, 9)
    run = [suit * 13 + (p - 1 if p <= 13 else 0) for p in range(lo, min(lo + length, 15))]
    rank = rng.randrange(13)
    same = [s * 13 + rank for s in rng.sample(range(4), rng.randrange(1, 4))]
    wilds = rng.sample([1, 14, 27, 40] + [JOKER] * min(2, v_jokers), rng.randrange(0, 3))
    noise = [rng.randrange(52) for _ in range(rng.randrange(0, 3))]
    hand = run + same + wilds + noise
    rng.shuffle(hand)
    return hand[:12]


def _brute_force(counts: list[int], v: object) -> dict[tuple[int, ...], Meld]:
    kinds = [k for k in range(53) if counts[k]]
    found: dict[tuple[int, ...], Meld] = {}
    for choice in itertools.product(*[range(counts[k] + 1) for k in kinds]):
        if sum(choice) < 3:
            continue
        cards = tuple(k for k, m in zip(kinds, choice, strict=True) for _ in range(m))
        reading = _read(sorted(cards), v)  # type: ignore[arg-type]
        if isinstance(reading, Meld):
            found[cards] = reading
    return found


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: f"{v.name}-{v.players}")
@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_new_melds_is_exactly_the_legal_sub_multisets(v: object, seed: int) -> None:
    rng = random.Random(seed)
    hand = _biased_hand(rng, v.jokers)  # type: ignore[attr-defined]
    counts = counts_of(hand)
    brute = _brute_force(counts, v)
    listed = new_melds(counts, v)  # type: ignore[arg-type]
    assert set(listed) == set(brute), (
        format_cards(sorted(hand)),
        [format_cards(m) for m in set(brute) - set(listed)],
        [format_cards(m) for m in set(listed) - set(brute)],
    )
    assert len(listed) == len(set(listed))
    candidates = meld_candidates(counts, v)  # type: ignore[arg-type]
    for cards, rank in candidates.items():
        meld = brute[cards]
        expected = 0 if meld.kind == SEQUENCE else -1 if meld.kind == WILD else meld.rank
        assert rank == expected


def test_a_long_run_with_wildcards_lists_every_interval() -> None:
    """A run 3-9 of hearts with a joker: every interval of 3+, and of 2+ with the joker."""
    v = variant("italian")
    counts = counts_of([15, 16, 17, 18, 19, 20, 21, JOKER])  # 3H..9H JK
    melds = new_melds(counts, v)
    brute = _brute_force(counts, v)
    assert set(melds) == set(brute)
    # 7 naturals: intervals of 3+ without the joker, and with it any 2+ span with at most one hole.
    assert len([m for m in melds if JOKER not in m]) == 15


def test_canastra_real_needs_two_aces_in_the_hand() -> None:
    """001: «Canastra Real: ... A-2-3-4-5-6-7-8-9-10-J-Q-K-A»: both aces come from the hand."""
    v = variant("buraco", canastra_real=True)
    run = [26 + r for r in range(1, 13)]  # 2D..KD
    one_ace = counts_of([26, *run, 40])  # AD, 2D..KD, 2C
    two_aces = counts_of([26, 26, *run, 40])
    assert not [m for m in new_melds(one_ace, v) if m.count(26) == 2]
    assert [m for m in new_melds(two_aces, v) if m.count(26) == 2]
    assert set(new_melds(two_aces, v)) >= {m for m in _brute_force(two_aces, v) if len(m) >= 13}


MANY = variant("buraco", max_wildcards=12, jokers=2)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_buraco_without_a_wildcard_limit_lists_exactly_the_legal_melds(seed: int) -> None:
    """RULES.md: «2s are the only wildcards, one in a meld *(decision; option: no limit)*.»"""
    rng = random.Random(seed)
    hand = _biased_hand(rng, MANY.jokers)[:9] + rng.sample([1, 14, 27, 40], 2)
    counts = counts_of(hand)
    brute = _brute_force(counts, MANY)
    listed = new_melds(counts, MANY)
    assert set(listed) == set(brute), (
        format_cards(sorted(hand)),
        [format_cards(m) for m in set(brute) - set(listed)],
        [format_cards(m) for m in set(listed) - set(brute)],
    )


def test_buraco_without_a_wildcard_limit_keeps_each_wildcard_in_its_place() -> None:
    """001: «Um jogador não pode "rearrumar" as cartas depois de baixá-las»: with several
    2s in a sequence, each stands where it was read, the next ones at the low end."""
    from burraco import check_meld, extend_meld, parse_cards

    meld = check_meld("5H 2S 7H 2C", MANY).meld  # 2S fills the 6, 2C stands for the 4
    assert str(meld) == "2C 5H 2S 7H"
    grown = extend_meld(meld, parse_cards("2D")[0], MANY)
    assert str(grown) == "2D 2C 5H 2S 7H"
    grown = extend_meld(grown, parse_cards("8H")[0], MANY)
    assert str(grown) == "2D 2C 5H 2S 7H 8H"
    with pytest.raises(Exception, match="never moved"):
        extend_meld(grown, parse_cards("6H")[0], MANY)
    with pytest.raises(Exception, match="at most one wildcard"):
        check_meld("5H 2S 7H 2C", variant("buraco"))  # the preset: one wildcard a meld


def test_buraco_without_a_wildcard_limit_reads_a_meld_one_way_however_it_was_made() -> None:
    """A sequence holding one wildcard has one reading, whether laid down whole or grown by
    its own 2 going home: the same meld compares equal and a position writes and loads it
    (a property test found 2S 4C 5C + 2C read with the 2S "fixed" as with several 2s)."""
    from burraco import Deal, compose, extend_meld, parse_cards, read_meld

    laid = read_meld(parse_cards("2C 2S 4C 5C"), MANY)
    grown = extend_meld(read_meld(parse_cards("2S 4C 5C"), MANY), parse_cards("2C")[0], MANY)
    assert (str(grown), grown) == ("2C 2S 4C 5C", laid)
    deal = compose(MANY, ["2C 9D"], melds=[["2S 4C 5C"]], turn=0)
    deal.apply("draw")
    deal.apply("extend 0 2C")
    loaded = Deal.from_position(deal.position())
    assert loaded.position() == deal.position()
    assert loaded.view(0).melds == deal.view(0).melds
    # It grows by the rules of the meld laid down: the 2S between naturals never moves.
    for card in ("6C", "2D"):
        added = parse_cards(card)[0]
        assert extend_meld(grown, added, MANY) == extend_meld(laid, added, MANY)
    for meld in (laid, grown):
        with pytest.raises(Exception, match="never moved"):
            extend_meld(meld, parse_cards("3C")[0], MANY)
