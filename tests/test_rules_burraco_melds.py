"""Rule tests for Burraco melds (``italian``, ``online``): reading, wildcards, aces, sets,
extension and wildcard displacement, burraco grades, card points.

Every test quotes its source verbatim, as ``FILE: «...»``: ``RULES.md`` (our decisions) and the
documents it cites, ``seeds/000_3e163a1ed44a6924.txt`` (Italian guide),
``seeds/002_29754259bb50d367.txt`` (the online room's rules) and
``seeds/003_0008042f6f6a3b44.txt`` ("Regole burraco"). ``test_quotes_are_verbatim`` checks
the quotes against the files.
"""

from __future__ import annotations

import sys
from itertools import permutations

import pytest
from positions import assert_illegal, assert_legal, check_quotes, counter, dealt, play, value

from burraco import (
    Card,
    IllegalMove,
    Meld,
    card_points,
    check_meld,
    deck,
    extend_meld,
    parse_card,
    parse_cards,
    read_meld,
    variant,
)

IT = variant("italian")
ONLINE = variant("online")
BOTH = pytest.mark.parametrize("v", [IT, ONLINE], ids=["italian", "online"])


def meld(text: str, v=IT) -> Meld:
    return read_meld(parse_cards(text), v)


def grow(m: Meld, *texts: str, v=IT) -> Meld:
    for text in texts:
        m = extend_meld(m, parse_card(text), v)
    return m


def illegal_meld(text: str, rule: str, v=IT) -> None:
    with pytest.raises(IllegalMove, match=rule):
        check_meld(text, v)


def illegal_extension(m: Meld, card: str, rule: str, v=IT) -> None:
    before = tuple(m)
    with pytest.raises(IllegalMove, match=rule):
        extend_meld(m, parse_card(card), v)
    assert tuple(m) == before


def wilds(m: Meld) -> list[str]:
    return [str(Card(c)) for c in m.wilds]


def test_quotes_are_verbatim() -> None:
    """Every quote in this file is verbatim in its source (whitespace aside)."""
    assert check_quotes(sys.modules[__name__]) > 50


# --- cards and shapes ------------------------------------------------------------------------


def test_card_notation_and_multiset() -> None:
    """RULES.md: «Ranks `A 2 3 4 5 6 7 8 9 10 J Q K`, suits `S H D C`, joker `JK`. Text form: rank
    then suit, `10H` (accept `TH` on input), `AS`, `2C`, `JK`. Accept the suit symbols on input
    too.» RULES.md: «Several decks are shuffled together, so a hand is a multiset: two `7H` are
    the same card for every rule.»
    seeds/000_3e163a1ed44a6924.txt: «Per giocare si utilizzano due mazzi di 54 carte francesi
    completi dei 4 jolly; il due di ogni seme viene detto pinella e funge anche da jolly.»
    """
    assert parse_card("TH") == parse_card("10H") == parse_card("10♥")
    assert [str(c) for c in parse_cards("AS 2C JK 10H")] == ["AS", "2C", "JK", "10H"]
    assert parse_card("7♣") == parse_card("7C")
    with pytest.raises(ValueError, match="not a card"):
        parse_card("11H")
    assert len(deck(IT.decks, IT.jokers)) == IT.deck_size == 108
    assert counter(deck(2, 4))["JK"] == 4
    # two 7H are the same card: a set may hold both
    assert check_meld("7H 7H 7C", IT).kind == "set"


def test_sequence_and_set() -> None:
    """RULES.md: «Melds: a sequence (scala) is 3 or more consecutive cards of one suit; a set
    (combinazione) is 3 or more cards of one rank, suits may repeat.»
    seeds/002_29754259bb50d367.txt: «I giochi aperti devono essere formati da almeno 3 carte in
    sequenza dello stesso seme (scale) o da 3 carte dello stesso valore anche dello stesso seme
    (combinazioni).» seeds/002_29754259bb50d367.txt: «Esempio di scala: 5♣, 6♣, 7♣, 8♣»
    seeds/002_29754259bb50d367.txt: «Esempio di combinazione: 7♥, 7♥, 7♣, 7♦»
    """
    assert check_meld("5♣ 6♣ 7♣ 8♣", IT).kind == "sequence"
    assert check_meld("7♥ 7♥ 7♣ 7♦", IT).kind == "set"
    assert check_meld("9S 10S JS", IT).kind == "sequence"
    assert check_meld("QD QD QD", IT).kind == "set"  # suits may repeat
    illegal_meld("5C 6C", "at least three cards|two natural")
    illegal_meld("7H 7C", "at least three cards|two natural")
    illegal_meld("5C 6C 8C", "consecutive")
    illegal_meld("5C 6D 7C", "one suit")
    illegal_meld("7H 7C 8C", "one suit|one rank|consecutive")
    illegal_meld("5C 5C 6C", "one card of each rank|one rank|consecutive")


def test_reading_does_not_depend_on_the_order_given() -> None:
    """RULES.md: «Reading a meld: when a meld is laid down the engine finds its reading itself
    (which 2 is natural, where the ace and the wildcard stand), preferring the reading with no
    wildcard, then the one with the wildcard at the low end.»
    """
    for text in ("3H 2H 5H", "KH AH 2H", "AH 2H 3H JK", "7C 7C JK 7D"):
        readings = {str(meld(" ".join(p))) for p in permutations(text.split())}
        assert len(readings) == 1, (text, readings)


# --- wildcards ---------------------------------------------------------------------------------


def test_jokers_and_twos_are_wildcards() -> None:
    """RULES.md: «Wildcards ("matte"): jokers and the 2s ("pinelle").»
    seeds/002_29754259bb50d367.txt: «I Jolly e i "2" sono dette "matte".»
    seeds/002_29754259bb50d367.txt: «Le matte possono assumere il valore di qualsiasi carta.»
    """
    for text, wild in [
        ("5H JK 7H", "JK"),
        ("5H 2S 7H", "2S"),
        ("5H 2H 7H", "2H"),  # a 2 of the suit out of its place is a wildcard too
        ("7H 7C JK", "JK"),
        ("7H 7C 2D", "2D"),
        ("9D 10D 2C", "2C"),
    ]:
        m = meld(text)
        assert wilds(m) == [wild], text
        assert len(m.cards) == 3


def test_a_two_in_its_natural_place_is_natural() -> None:
    """RULES.md: «A 2 standing in its natural place in a sequence of its own suit (`AH 2H 3H`,
    `2H 3H 4H`) is a natural card, not a wildcard.»
    seeds/002_29754259bb50d367.txt: «I "2" (che sono detti anche "pinelle") non sono però
    considerati matte se stanno nella loro posizione naturale (ad esempio nella sequenza A♥, 2♥,
    3♥, 4♥, il 2♥ non è considerato matta).»
    """
    for text in ("AH 2H 3H", "2H 3H 4H", "A♥ 2♥ 3♥ 4♥"):
        m = meld(text)
        assert m.wilds == (), text
        # being natural, the meld still takes its one wildcard
        assert len(grow(m, "JK").cards) == len(m.cards) + 1
        assert len(grow(m, "2C").cards) == len(m.cards) + 1
    # a natural 2H and a wildcard 2C in one meld (002's "2♥, 3♥, 2♣, 5♥" is such a meld)
    assert wilds(meld("2H 3H 2C 5H")) == ["2C"]
    assert wilds(meld("2H 3H 4H 2C")) == ["2C"]
    # two 2H: one natural, one wildcard
    assert wilds(meld("2H 2H 3H 4H")) == ["2H"]
    # a 2 of another suit is never natural
    assert wilds(meld("2S 3H 4H")) == ["2S"]
    # the natural 2 is one of the two natural cards a meld needs
    assert wilds(meld("2H 3H JK")) == ["JK"]


def test_reading_prefers_no_wildcard_then_the_low_end() -> None:
    """RULES.md: «Reading a meld: when a meld is laid down the engine finds its reading itself
    (which 2 is natural, where the ace and the wildcard stand), preferring the reading with no
    wildcard, then the one with the wildcard at the low end.» RULES.md: «From then on the meld
    keeps its reading: each wildcard stands for one card.»
    """
    m = meld("3H 4H 5H 6H 7H 8H 9H 2H")
    assert m.wilds == () and str(m) == "2H 3H 4H 5H 6H 7H 8H 9H"
    assert check_meld("3H 4H 5H 6H 7H 8H 9H 2H", IT).grade == "clean"
    assert str(meld("5H 6H JK")) == "JK 5H 6H"  # the joker stands for the 4H
    assert str(meld("2H 4H 5H")) == "2H 4H 5H"  # the 2H stands for the 3H
    assert str(meld("2H 3H 5H")) == "3H 2H 5H"  # a gap: the 2H stands for the 4H
    assert str(meld("AH 2H 3H JK")) == "AH 2H 3H JK"  # no room below the ace
    assert str(meld("KH AH 2H")) == "2H KH AH"  # Q-K-A
    assert str(meld("QH KH JK")) == "JK QH KH"  # the joker is the JH, not the AH
    assert str(meld("AH 2H JK")) == "AH 2H JK"  # the joker is the 3H


def test_at_most_one_wildcard() -> None:
    """RULES.md: «At most one wildcard in a meld, so a meld has at least two natural cards, and a
    meld of wildcards only is illegal.»
    seeds/002_29754259bb50d367.txt: «Un gioco può contenere al massimo una sola matta.»
    """
    assert check_meld("5H JK 7H", IT).kind == "sequence"
    assert check_meld("7H 7C 2D", IT).kind == "set"
    illegal_meld("5H JK 7H 2C", "at most one wildcard")
    illegal_meld("5H 6H JK JK", "at most one wildcard")
    illegal_meld("7H 7C JK 2D", "at most one wildcard")
    illegal_meld("7H 7C 7D 2S 2S", "at most one wildcard")
    illegal_meld("2S 3H 4H 2C", "at most one wildcard")
    illegal_extension(meld("5H JK 7H"), "2C", "at most one wildcard")
    illegal_extension(meld("7H 7C JK"), "JK", "at most one wildcard")
    illegal_extension(meld("7H 7C 7D 2S"), "2H", "at most one wildcard")
    # with a natural 2 the meld has no wildcard yet, so it takes one
    assert len(grow(meld("2H 3H 4H"), "2S").cards) == 4


def test_no_meld_of_wildcards_only() -> None:
    """RULES.md: «At most one wildcard in a meld, so a meld has at least two natural cards, and a
    meld of wildcards only is illegal.»
    seeds/002_29754259bb50d367.txt: «Non si possono quindi, in particolare, appoggiare giochi
    formati da sole matte.»
    """
    for text in ("JK JK JK", "JK JK 2C", "2C 2D 2S", "2S 2S 2S 2S", "2H 2H 2H"):
        illegal_meld(text, "wildcards only|two natural")
    illegal_meld("5H JK 2C", "two natural|at most one wildcard")
    # two naturals and a wildcard are enough
    assert check_meld("5H 6H JK", IT).kind == "sequence"
    assert check_meld("5H 5D 2C", IT).kind == "set"


# --- aces ---------------------------------------------------------------------------------------


def test_ace_low_or_high_never_round_the_corner() -> None:
    """RULES.md: «The ace goes below the 2 or above the K, never round the corner: `KH AH 3H` is
    illegal, while `KH AH 2H` is legal as Q-K-A with the 2 as wildcard.»
    seeds/002_29754259bb50d367.txt: «Nelle scale l'asso può essere posto prima del 2 o dopo il K
    ma non possono essere appoggiate scale K-A-2-3.»
    """
    assert meld("AH 2H 3H").wilds == ()
    assert meld("QH KH AH").wilds == ()
    m = meld("KH AH 2H")
    assert wilds(m) == ["2H"] and str(m) == "2H KH AH"
    illegal_meld("KH AH 3H", "never round the corner")
    illegal_meld("KH AH 2H 3H", "never round the corner|consecutive")
    illegal_meld("KS AS 2S 3S", "never round the corner|consecutive")
    illegal_meld("QH KH AH 2H 3H", "never round the corner|consecutive")
    # extending does not turn the corner either
    illegal_extension(meld("QH KH AH"), "3H", "does not fit")
    illegal_extension(meld("AH 2H 3H"), "KH", "does not fit")
    illegal_extension(meld("2H KH AH"), "3H", "does not fit")
    # legal ends: the ace above the K, the ace below the 2
    assert str(grow(meld("JH QH KH"), "AH")) == "JH QH KH AH"
    assert str(grow(meld("2H 3H 4H"), "AH")) == "AH 2H 3H 4H"


def test_one_natural_ace_and_at_most_14_cards() -> None:
    """RULES.md: «A sequence holds one natural ace at most *(decision, as the federation plays)*,
    so at most 14 cards (A to K and a wildcard).»
    """
    illegal_meld("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "one natural ace")
    illegal_extension(meld("AH 2H 3H"), "AH", "one natural ace")
    illegal_extension(meld("QH KH AH"), "AH", "one natural ace")
    illegal_extension(meld("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"), "AH", "one natural ace")
    # A to K and a wildcard: 14 cards, the most a sequence holds
    full = meld("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK")
    assert len(full.cards) == 14
    for card in ["AH", "JK", "2C", "2H", "3H", "7H", "10H", "KH"]:
        with pytest.raises(IllegalMove):
            extend_meld(full, parse_card(card), IT)
    # the wildcard may stand for the other ace: 2 to A and a wildcard, 14 cards
    low = meld("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2S")
    assert len(low.cards) == 14
    illegal_extension(low, "AH", "one natural ace")
    # grown card by card to 14
    grown = grow(meld("2H 3H 4H"), "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "JK")
    assert len(grow(grown, "AH").cards) == 14
    with pytest.raises(IllegalMove):
        grow(grown, "AH", "AH")


# --- sets ---------------------------------------------------------------------------------------


def test_set_holds_every_natural_and_one_wildcard() -> None:
    """RULES.md: «A set holds every natural of its rank in play and one wildcard.»
    seeds/002_29754259bb50d367.txt: «Un gioco può contenere al massimo una sola matta.»
    """
    full = check_meld("7H 7H 7S 7S 7D 7D 7C 7C JK", IT)
    assert full.kind == "set" and len(full.meld.cards) == 9
    assert len(grow(meld("7H 7S 7D"), "7H", "7S", "7D", "7C", "7C", "2C").cards) == 9
    illegal_extension(full.meld, "2C", "at most one wildcard")
    illegal_extension(full.meld, "8C", "only cards of its rank")
    # with three decks (5 and 6 players) twelve naturals and a wildcard
    six = variant("italian", players=6)
    big = check_meld(" ".join(["QS", "QH", "QD", "QC"] * 3 + ["2D"]), six)
    assert big.kind == "set" and len(big.meld.cards) == 13


def test_two_sets_of_one_rank_per_line_forbidden(v=IT) -> None:
    """RULES.md: «A line may not hold two separate sets of the same rank (002); it may hold two
    sequences of the same suit.»
    seeds/002_29754259bb50d367.txt: «Non si possono appoggiare, separatamente, combinazioni della
    stessa carta.»
    """
    deal = dealt(
        v,
        {
            1: "7H 7S 7D 7C 7C JK 3H 4H 5H 9H 10H",
            0: "7H 7S 7D 3C 5D 8S 9S KD QC AD 4S",
        },
        up="KS",
        stock="JH 6C",
    )
    play(deal, "draw", "meld 7H 7S 7D")
    assert_illegal(deal, "meld 7C 7C JK", "two separate sets of the same rank")
    assert not any(
        a.kind == "meld" and all(str(c) in ("7C", "JK") for c in a.cards)
        for a in deal.legal_actions()
    )
    # extending the set is the way
    assert_legal(deal, "extend 0 7C")
    # two sequences of hearts are fine
    assert_legal(deal, "meld 3H 4H 5H")
    assert_legal(deal, "meld 9H 10H JH")
    assert [counter(m.cards) for m in deal.line_melds(1)] == [
        counter("7H 7S 7D 7C"),
        counter("3H 4H 5H"),
        counter("9H 10H JH"),
    ]
    play(deal, "discard 7C")
    # the other line may hold its own set of 7s
    play(deal, "draw")
    assert_legal(deal, "meld 7H 7S 7D")


def test_two_sets_of_one_rank_online() -> None:
    """RULES.md: «A line may not hold two separate sets of the same rank (002); it may hold two
    sequences of the same suit.»
    seeds/002_29754259bb50d367.txt: «Non si possono appoggiare, separatamente, combinazioni della
    stessa carta.»
    """
    test_two_sets_of_one_rank_per_line_forbidden(variant("online", players=2))


# --- extending ----------------------------------------------------------------------------------


def test_extend_only_melds_of_the_own_line() -> None:
    """RULES.md: «Extending: only melds of one's own line (002; partners extend each other's).»
    seeds/002_29754259bb50d367.txt: «Si possono allungare solamente i giochi aperti dalla propria
    Linea. Non si possono allungare i giochi aperti dalla Linea avversaria.»
    seeds/000_3e163a1ed44a6924.txt: «I giocatori giocano divisi a coppie. Le modalità di gioco
    restano invariate, ma ogni socio può legare le sue carte a quelle del compagno aperte sul
    tavolo.»
    """
    v = variant("online", players=4)
    deal = dealt(
        v,
        {
            1: "5C 6C 7C QH QS 3D 4S 9H 10D JS KH",
            2: "8C 4H 6S 9D JD KS 3S 5D 7S AH 10C",
            3: "8C 4C 6H 9S JH KD 3H 5S 7D AD 10S",
        },
        up="AC",
        stock="QD KC 9C",
    )
    play(deal, "draw", "meld 5C 6C 7C", "discard QD")
    # seat 2 is of the other line: meld 0 is not its line's, it has none
    play(deal, "draw")
    assert_illegal(deal, "extend 0 8C", "no meld 0")
    play(deal, "discard KC")
    # seat 3, the partner, extends seat 1's meld
    play(deal, "draw")
    assert_legal(deal, "extend 0 8C")
    assert_legal(deal, "extend 0 4C")
    assert [str(m) for m in deal.line_melds(1)] == ["4C 5C 6C 7C 8C"]
    assert deal.line_melds(2) == []


def test_extension_must_be_a_legal_meld_under_its_kept_reading() -> None:
    """RULES.md: «The result must be a legal meld under its kept reading.»
    seeds/002_29754259bb50d367.txt: «Si possono aggiungere delle carte ai giochi della propria
    Linea ("allungare un gioco") se il gioco risultante rispetta le regole previste per l'apertura
    di nuovi giochi tenendo presente che, nelle sequenze, le matte possono essere sostituite solo
    dalla carta della quale fanno le veci.»
    """
    assert str(grow(meld("5H 6H 7H"), "8H", "4H")) == "4H 5H 6H 7H 8H"
    illegal_extension(meld("5H 6H 7H"), "9H", "does not fit")
    illegal_extension(meld("5H 6H 7H"), "5H", "already holds")
    illegal_extension(meld("5H 6H 7H"), "8D", "of its suit")
    illegal_extension(meld("7H 7C 7D"), "8H", "only cards of its rank")
    # the joker in the gap of 5H JK 7H stands for the 6H: the meld is 5-6-7, not 5-?-7
    fixed = meld("5H JK 7H")
    assert str(grow(fixed, "8H")) == "5H JK 7H 8H"
    assert str(grow(fixed, "4H")) == "4H 5H JK 7H"
    illegal_extension(fixed, "9H", "does not fit")
    illegal_extension(fixed, "3H", "does not fit")


def test_002_example_2C_onto_3H_2H_5H_is_illegal() -> None:
    """RULES.md: «A wildcard standing between two natural cards can be displaced only by the card
    it stands for: adding `2C` to `3H 2H 5H` is illegal, because the `2H` there can be replaced
    only by `4H` (002's own example; a required test).»
    seeds/002_29754259bb50d367.txt: «Ad esempio non si può aggiungere il 2♣ alla sequenza 3♥, 2♥,
    5♥, anche se la sequenza risultante 2♥, 3♥, 2♣, 5♥ sarebbe valida, perché il 2♥ può essere
    sostituito solo dal 4♥.»
    """
    m = meld("3H 2H 5H")
    assert str(m) == "3H 2H 5H" and wilds(m) == ["2H"]
    illegal_extension(m, "2C", "wildcard")
    illegal_extension(m, "JK", "wildcard")
    # "la sequenza risultante 2♥, 3♥, 2♣, 5♥ sarebbe valida" as a new meld
    assert wilds(meld("2H 3H 2C 5H")) == ["2C"]
    # the 4H replaces the 2H, which goes to its natural place
    replaced = grow(m, "4H")
    assert str(replaced) == "2H 3H 4H 5H" and replaced.wilds == ()

    # the same at the table
    deal = dealt(
        IT,
        {1: "3H 2H 5H 2C 4H 9S 10D JC QS KD 6C", 0: "3C 5C 7C 9C JD KS 4D 6D 8D 10S QH"},
        up="AS",
        stock="8H",
    )
    play(deal, "draw", "meld 3H 2H 5H")
    assert [str(m) for m in deal.line_melds(1)] == ["3H 2H 5H"]
    assert_illegal(deal, "extend 0 2C", "2C.*wildcard|wildcard.*2C|at most one wildcard")
    assert_legal(deal, "extend 0 4H")
    assert [str(m) for m in deal.line_melds(1)] == ["2H 3H 4H 5H"]
    assert deal.line_melds(1)[0].wilds == ()
    # now the meld is clean, so the 2C may join it as its one wildcard
    assert_legal(deal, "extend 0 2C")
    assert len(deal.line_melds(1)[0].cards) == 5


def test_displaced_wildcard_stays_in_the_meld_at_an_end() -> None:
    """RULES.md: «The displaced wildcard stays in the meld and moves to an end; it never goes back
    to a hand.» seeds/003_0008042f6f6a3b44.txt: «Le pinelle possono essere sostituite dalla carte
    che rappresentano ma non possono essere riprese in mano: una volta sostituite con la carta che
    rappresentano diventano “libere” e quindi sostituire un’altra carta all’interno della scala.»
    seeds/000_3e163a1ed44a6924.txt: «Per fare ciò, si può servire del jolly o della pinella in suo
    possesso, che, una volta calati, devono restare sul tavolo.»
    """
    for text, card in [("5H JK 7H", "6H"), ("5H 2C 7H", "6H"), ("9S 10S 2D QS", "JS")]:
        m = grow(meld(text), card)
        assert len(m.cards) == len(text.split()) + 1
        wild = str(Card(m.wilds[0]))
        assert wild in (str(m.cards[0]), str(m.cards[-1])), str(m)
        assert m.gap == 0  # it stands at an end now
    # at the table: the joker stays on the table, the hand only loses the 6H
    deal = dealt(
        IT,
        {1: "5H JK 7H 6H 9S 10D JC QS KD 3C 4D", 0: "3S 5C 7C 9C JD KS 4S 6D 8D 10S QH"},
        up="AS",
        stock="8C",
    )
    play(deal, "draw", "meld 5H JK 7H")
    hand_before = counter(deal.hand(1))
    assert_legal(deal, "extend 0 6H")
    assert hand_before - counter(deal.hand(1)) == counter("6H")
    assert "JK" not in counter(deal.hand(1))
    (m,) = deal.line_melds(1)
    assert counter(m.cards) == counter("5H 6H 7H JK")
    assert str(m) in ("JK 5H 6H 7H", "5H 6H 7H JK")


def test_wildcard_at_an_end_moves_into_a_gap_or_to_the_other_end() -> None:
    """RULES.md: «A wildcard at an end may move to the other end, or into a gap, when cards are
    added.»
    """
    end = meld("5H 6H 7H JK")
    assert str(end) == "JK 5H 6H 7H"
    # into the gap left by a card two above the top or two below the bottom
    assert str(grow(end, "9H")) == "5H 6H 7H JK 9H"
    assert str(grow(end, "3H")) == "3H JK 5H 6H 7H"
    # once in a gap it stands for that card: only that card displaces it again
    gapped = grow(end, "9H")
    assert str(grow(gapped, "8H")) in ("JK 5H 6H 7H 8H 9H", "5H 6H 7H 8H 9H JK")
    illegal_extension(gapped, "JH", "does not fit")
    # to the other end: the joker below the 2H stands for the ace; the ace comes, the joker
    # goes above the 4H
    low = meld("2H 3H 4H JK")
    assert str(low) == "JK 2H 3H 4H"
    assert str(grow(low, "AH")) == "AH 2H 3H 4H JK"
    # a wildcard at an end also lets the meld grow at either end
    assert str(grow(end, "8H")) in ("JK 5H 6H 7H 8H", "5H 6H 7H 8H JK")
    assert str(grow(end, "4H")) in ("JK 4H 5H 6H 7H", "4H 5H 6H 7H JK")


def test_own_two_added_below_a_wildcard_at_the_low_end() -> None:
    """RULES.md: «A wildcard at an end may move to the other end, or into a gap, when cards are
    added.» RULES.md: «A 2 standing in its natural place in a sequence of its own suit (`AH 2H 3H`,
    `2H 3H 4H`) is a natural card, not a wildcard.» RULES.md: «The result must be a legal meld under
    its kept reading.»
    """
    # any natural card two below the bottom puts the end wildcard between two naturals
    assert str(grow(meld("JK 6H 7H"), "4H")) == "4H JK 6H 7H"
    assert str(grow(meld("JK 3H 4H"), "AH")) == "AH JK 3H 4H"
    # the same for the 2 of the suit, which stands in its natural place: laid at once these
    # cards are a legal meld with the 2H natural ...
    for low, result in [
        ("JK 4H 5H", "2H JK 4H 5H"),
        ("2S 4H 5H", "2H 2S 4H 5H"),
        ("2H 4H 5H", "2H 2H 4H 5H"),
    ]:
        m = meld(low)
        assert len(m.wilds) == 1 and m.gap == 0  # the wildcard stands for the 3H, at an end
        laid = meld(result)
        assert str(laid) == result and len(laid.wilds) == 1
        # ... and so is the extension under the kept reading
        grown = grow(m, "2H")
        assert str(grown) == result, low
        assert wilds(grown) == wilds(m)


def test_own_two_added_below_a_wildcard_at_the_low_end_at_the_table() -> None:
    """RULES.md: «A wildcard at an end may move to the other end, or into a gap, when cards are
    added.» RULES.md: «A 2 standing in its natural place in a sequence of its own suit (`AH 2H 3H`,
    `2H 3H 4H`) is a natural card, not a wildcard.»
    """
    deal = dealt(
        IT,
        {1: "JK 4H 5H 2H 9S 10D JC QS KD 3C 6D", 0: "3S 5C 7C 9C JD KS 4S 6S 8D 10S QH"},
        up="AS",
        stock="8C",
    )
    play(deal, "draw", "meld JK 4H 5H")
    assert_legal(deal, "extend 0 2H")
    assert str(deal.line_melds(1)[0]) == "2H JK 4H 5H"


def test_own_two_returns_to_its_natural_place() -> None:
    """RULES.md: «A 2 of the meld's suit used as a wildcard moves to its natural place when that
    place becomes free, and then it is natural.»
    seeds/003_0008042f6f6a3b44.txt: «Le pinelle possono essere sostituite dalla carte che
    rappresentano ma non possono essere riprese in mano: una volta sostituite con la carta che
    rappresentano diventano “libere” e quindi sostituire un’altra carta all’interno della scala.»
    """
    # from a gap
    m = grow(meld("3H 2H 5H"), "4H")
    assert str(m) == "2H 3H 4H 5H" and m.wilds == ()
    # from an end: 2H 5H 6H (2H for the 4H), then 4H (2H now for the 3H), then 3H
    m = meld("2H 5H 6H")
    assert wilds(m) == ["2H"]
    m = grow(m, "4H")
    assert wilds(m) == ["2H"] and counter(m.cards) == counter("2H 4H 5H 6H")
    m = grow(m, "3H")
    assert str(m) == "2H 3H 4H 5H 6H" and m.wilds == ()
    # natural again, so it takes a wildcard
    assert wilds(grow(m, "JK")) == ["JK"]
    # an own 2 added to a sequence that starts at 3 goes to its place
    m = grow(meld("3H 4H 5H"), "2H")
    assert str(m) == "2H 3H 4H 5H" and m.wilds == ()
    # and the burraco becomes clean: dirty, then semi-clean, then clean
    m = meld("2H 5H 6H 7H 8H 9H 10H")
    assert check_meld("2H 5H 6H 7H 8H 9H 10H", IT).grade == "dirty"
    m = grow(m, "4H")
    assert wilds(m) == ["2H"]
    m = grow(m, "3H")
    assert m.wilds == () and len(m.cards) == 9


# --- burraco grades -----------------------------------------------------------------------------


def _grade(m: Meld, v=IT) -> tuple[str | None, int]:
    info = check_meld([parse_card(str(c)) for c in m.cards], v)
    return info.grade, info.bonus


@BOTH
def test_burraco_is_seven_cards_or_more(v) -> None:
    """RULES.md: «Burraco: a meld of 7 or more cards.»
    seeds/002_29754259bb50d367.txt: «Viene detto Burraco un gioco composto da almeno 7 carte.»
    seeds/000_3e163a1ed44a6924.txt: «Ogni giocatore deve perseguire l’obiettivo di creare il
    Burraco, che è costituito da almeno 7 carte o in sequenza o 7 carte uguali e che può essere:
    pulito, semipulito e sporco.»
    """
    assert check_meld("5S 6S 7S 8S 9S 10S", v).grade is None
    assert check_meld("5S 6S 7S 8S 9S 10S", v).bonus == 0
    assert check_meld("5S 6S 7S 8S 9S 10S JS", v).grade == "clean"
    assert check_meld("9D 9D 9S 9S 9H 9C", v).grade is None
    assert check_meld("9D 9D 9S 9S 9H 9C 9C", v).grade == "clean"


@BOTH
def test_burraco_grades(v) -> None:
    """RULES.md: «Clean (pulito, 200): no wildcard. Semi-clean (semipulito, 150): a sequence with 7
    or more consecutive natural cards and its wildcard at an end *(decision; option `semi_inner`:
    the wildcard may also stand inside when 7 or more consecutive naturals lie on one side of
    it)*, or a set of 8 or more cards with one wildcard (002). Dirty (sporco, 100): any other
    burraco.» seeds/002_29754259bb50d367.txt: «burraco pulito: non contiene matte;»
    seeds/002_29754259bb50d367.txt: «burraco semi pulito: contiene una matta ma è composto da una
    sequenza di almeno sette carte pulite senza matte o da una combinazione di almeno 8 carte
    inclusa la matta;» seeds/002_29754259bb50d367.txt: «burraco sporco: contiene una matta e non è
    un burraco semipulito.» seeds/000_3e163a1ed44a6924.txt: «Il Burraco è pulito se non contiene né
    jolly né pinelle e vale 200 punti; semipulito se contiene il jolly agli estremi delle 7 carte
    e vale 150 punti; sporco se contiene o un jolly o una pinella e vale 100 punti.»
    """
    cases = [
        ("5S 6S 7S 8S 9S 10S JS", "clean", 200),
        ("AH 2H 3H 4H 5H 6H 7H", "clean", 200),  # the 2H is natural
        ("9D 9D 9S 9S 9H 9C 9C", "clean", 200),
        ("JK 5S 6S 7S 8S 9S 10S JS", "semi-clean", 150),
        ("5S 6S 7S 8S 9S 10S JS 2D", "semi-clean", 150),
        ("5S 6S 7S 8S 9S 10S JS 2S", "semi-clean", 150),  # the 2S stands at an end
        ("AS 2S 3S 4S 5S 6S 7S JK", "semi-clean", 150),
        ("9D 9D 9S 9S 9H 9C 9C JK", "semi-clean", 150),  # a set of 8 with the wildcard
        ("9D 9D 9S 9S 9H 9C 2C", "dirty", 100),  # a set of 7 with the wildcard
        ("JK 5S 6S 7S 8S 9S 10S", "dirty", 100),  # six naturals
        ("5S 6S 7S JK 9S 10S JS", "dirty", 100),  # wildcard inside
        ("5S 6S 7S JK 9S 10S JS QS", "dirty", 100),  # 7 naturals, not consecutive
        ("3S 2C 5S 6S 7S 8S 9S 10S JS", "dirty", 100),  # 7 in a row, but the 2C is inside
    ]
    for text, grade, bonus in cases:
        info = check_meld(text, v)
        assert (info.grade, info.bonus) == (grade, bonus), text


def test_semi_clean_false_scores_semi_clean_as_dirty() -> None:
    """RULES.md: «Option `semi_clean=False`: semi-clean scores as dirty, as in 003.»
    seeds/003_0008042f6f6a3b44.txt: «La presenza della Pinella o del Jolly all’interno di una
    sequenza rende il Burraco “sporco”.»
    """
    plain = variant("italian", semi_clean=False)
    for text in ("JK 5S 6S 7S 8S 9S 10S JS", "9D 9D 9S 9S 9H 9C 9C JK"):
        assert check_meld(text, IT).bonus == 150
        assert check_meld(text, plain).bonus == 100
        assert check_meld(text, plain).grade == "dirty"
    assert check_meld("5S 6S 7S 8S 9S 10S JS", plain).bonus == 200
    assert check_meld("JK 5S 6S 7S 8S 9S 10S", plain).bonus == 100
    online = variant("online", semi_clean=False)
    assert check_meld("JK 5S 6S 7S 8S 9S 10S JS", online).bonus == 100


def test_semi_inner_option() -> None:
    """RULES.md: «Semi-clean (semipulito, 150): a sequence with 7 or more consecutive natural cards
    and its wildcard at an end *(decision; option `semi_inner`: the wildcard may also stand inside
    when 7 or more consecutive naturals lie on one side of it)*, or a set of 8 or more cards with
    one wildcard (002).»
    """
    inner = variant("italian", semi_inner=True)
    above = "3S 2C 5S 6S 7S 8S 9S 10S JS"  # the 2C for the 4S, 5..J above it
    below = "3S 4S 5S 6S 7S 8S 9S JK JS"  # the joker for the 10S, 3..9 below it
    for text in (above, below):
        assert check_meld(text, IT).grade == "dirty"
        assert (check_meld(text, inner).grade, check_meld(text, inner).bonus) == (
            "semi-clean",
            150,
        )
    # fewer than 7 on each side: dirty even with the option
    assert check_meld("3S 4S 5S 6S JK 8S 9S 10S JS", inner).grade == "dirty"
    assert check_meld("5S 6S 7S JK 9S 10S JS QS", inner).grade == "dirty"
    # at an end it is semi-clean with or without the option
    assert check_meld("JK 5S 6S 7S 8S 9S 10S JS", inner).grade == "semi-clean"
    # the kept reading decides: the joker stays for the 6H while the meld grows
    m = meld("5H JK 7H 8H 9H 10H JH", inner)
    m = grow(m, "QH", "KH", v=inner)
    assert str(m) == "5H JK 7H 8H 9H 10H JH QH KH"
    assert _grade(m, inner) == ("semi-clean", 150)
    assert _grade(m, IT) == ("dirty", 100)


def test_grades_follow_the_meld_as_it_grows() -> None:
    """RULES.md: «A 2 of the meld's suit used as a wildcard moves to its natural place when that
    place becomes free, and then it is natural.» RULES.md: «Dirty (sporco, 100): any other
    burraco.»
    """
    from burraco.melds import grade_of, meld_bonus

    m = meld("2H 5H 6H 7H 8H 9H 10H")  # the 2H for the 4H: six naturals
    assert (grade_of(m, IT), meld_bonus(m, IT)) == ("dirty", 100)
    m = grow(m, "4H")  # the 2H moves to the end: seven naturals in a row
    assert (grade_of(m, IT), meld_bonus(m, IT)) == ("semi-clean", 150)
    m = grow(m, "3H")  # the 2H is natural
    assert (grade_of(m, IT), meld_bonus(m, IT)) == ("clean", 200)


# --- card points --------------------------------------------------------------------------------


@BOTH
def test_card_points(v) -> None:
    """RULES.md: «Card values: 3-7 = 5; 8-K = 10; A = 15; 2 = 20; joker = 30.»
    seeds/000_3e163a1ed44a6924.txt: «le carte 3, 4, 5, 6 e 7 valgono 5 punti; l’8, il 9, 10, J, Q
    e K valgono 10 punti; l’asso ne vale 15; il 2 equivale a 20 punti e il Jolly, infine, ne vale
    30.» seeds/002_29754259bb50d367.txt: «Pinelle (i "2"): punti 20»
    """
    expected = {"A": 15, "2": 20, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5}
    expected |= {r: 10 for r in ("8", "9", "10", "J", "Q", "K")}
    for rank, points in expected.items():
        for suit in "SHDC":
            assert card_points(parse_card(rank + suit), v) == points
    assert card_points(parse_card("JK"), v) == 30
    # a meld is worth its cards; a 2 is 20 whether natural or wildcard
    assert check_meld("AH 2H 3H", v).points == 40 == value("AH 2H 3H")
    assert check_meld("KH AH 2H", v).points == 45
    assert check_meld("7C 7C JK", v).points == 40
    assert check_meld("9D 10D JD QD KD AD 2S", v).points == value("9D 10D JD QD KD AD 2S")
