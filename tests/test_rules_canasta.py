"""Rule tests for the ``canasta`` variant (Italian Canasta with three decks).

Sources: ``seeds/003_0008042f6f6a3b44.txt`` (Italian) and ``RULES.md`` ("Canasta (`canasta`,
003)"). Each test quotes the sentence it checks, written ``FILE: «sentence»``; the last test
checks that every quote is verbatim. Positions are dealt by hand from a whole deck order (see
``positions_bc.py``): two players unless said otherwise, seat 1 deals, so seat 0 plays first.
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest
from positions_bc import (
    assert_holds,
    canasta_order,
    check_quotes,
    hand_text,
    illegal,
    legal,
    pile_value,
    sorted_text,
)

from burraco import (
    Action,
    Deal,
    RuleError,
    SetupError,
    card_points,
    check_meld,
    deck,
    parse_card,
    parse_cards,
    variant,
)

C = variant("canasta")

#: A hand with a clean canasta of aces and a dirty one of kings ready to lay.
OUT_HAND = "AS AS AH AH AD AD AC AC KS KH KD KC KS 2C JK"


def new(hands, *, v=C, dealer=1, **pile) -> Deal:
    """A canasta deal with these hands (by seat); ``pile`` as for ``canasta_order``."""
    order = canasta_order(v, hands, dealer=dealer, **pile)
    deal = Deal.from_deck(v, order, dealer=dealer)
    items = hands.items() if isinstance(hands, dict) else enumerate(hands)
    for seat, hand in items:
        if "3H" not in hand and "3D" not in hand:
            assert_holds(deal, seat, hand)
    return deal


def texts(deal: Deal) -> list[str]:
    return [str(a) for a in deal.legal_actions()]


def line_score(deal: Deal, line: int):
    return next(ls for ls in deal.score().lines if ls.line == line)


def points(deal: Deal, cards) -> int:
    if isinstance(cards, str):
        cards = parse_cards(cards)
    return sum(card_points(c, deal.v) for c in cards)


# --- the cards and the deal ---------------------------------------------------------------


def test_deck_is_162_cards_three_decks_with_jokers():
    """seeds/003_0008042f6f6a3b44.txt: «Per poter giocare è necessario avere un mazzo da 162
    carte francesi: concretamente serviranno tre mazzi di carte, jolly inclusi.»

    RULES.md: «162 cards, 15 each.»
    """
    assert (C.decks, C.jokers, C.deck_size, C.hand_size) == (3, 6, 162, 15)
    cards = deck(C.decks, C.jokers)
    assert len(cards) == 162
    assert Counter(cards) == {c: 3 for c in range(52)} | {parse_card("JK"): 6}
    with pytest.raises(RuleError, match="162"):
        Deal.from_deck(C, deck(2, 4))


@pytest.mark.parametrize(("players", "dealer"), [(2, 0), (2, 1), (4, 0), (4, 1), (4, 3)])
def test_deal_is_15_each_and_the_player_after_the_dealer_starts(players, dealer):
    """seeds/003_0008042f6f6a3b44.txt: «Prima di cominciare il gioco è indispensabile
    individuare un mazziere, che avrà il compito di distribuire 15 carte a ciascun giocatore.
    Le carte non distribuite saranno poste al centro del tavolo.»

    seeds/003_0008042f6f6a3b44.txt: «Il primo a cominciare il gioco è lo sfidante a sinistra
    del mazziere.»

    RULES.md: «The player after the dealer plays first.»
    """
    v = variant("canasta", players=players)
    pool = sorted(c for c in deck(3, 0) if str(c) not in ("3H", "3D", "KC"))
    hands = [pool[15 * s : 15 * s + 15] for s in range(players)]
    deal = new(hands, v=v, dealer=dealer, turned="KC")
    for seat in range(players):
        assert hand_text(deal, seat) == sorted_text(hands[seat])
    view = deal.view(0)
    assert view.hand_sizes == (15,) * players
    assert (view.pile, view.pile_hidden) == ((parse_card("KC"),), 13)
    assert view.stock_size == 162 - 15 * players - 14
    assert view.pozzetti == ()
    assert (deal.turn, deal.phase) == ((dealer + 1) % players, "draw")


# --- red 3s -------------------------------------------------------------------------------


def test_red_threes_dealt_are_laid_aside_and_replaced_for_100_each():
    """seeds/003_0008042f6f6a3b44.txt: «C’è da svolgere un’altra operazione prima di far partire
    il gioco vero e proprio: tutti i giocatori devono scartare i 3 di quadri o di cuori, quindi
    rossi, per sostituirli con altre carte.»

    RULES.md: «A red 3 that enters a hand (deal, draw, pile) is laid aside and replaced from the
    stock; each scores +100 for its line *(decision, common practice; option 0)*.»
    """
    hands = {0: "3H 3D AS AH 5C 6C 7C 8C 9C 10C JC QC KC 4S 4D", 1: "3H 5S 6S 7S 8S 9S"}
    # Seat 0 (first in dealing order) gets KH QH; seat 1 gets a 3D, laid aside in its turn
    # and replaced by QS.
    deal = new(hands, replacements="KH QH 3D QS", turned="9D")
    assert_holds(deal, 0, "KH QH AS AH 5C 6C 7C 8C 9C 10C JC QC KC 4S 4D")
    assert_holds(deal, 1, "QS 5S 6S 7S 8S 9S")
    view = deal.view(0)
    assert view.hand_sizes == (15, 15)
    assert view.red_threes == (2, 2)
    for seat in (0, 1):
        assert not {"3H", "3D"} & set(hand_text(deal, seat))
    assert [ls.red_threes for ls in deal.score().lines] == [200, 200]
    # A red 3 is never in a hand, so it can be neither discarded nor melded.
    legal(deal, "draw")
    illegal(deal, "discard 3H", "does not hold")
    # Option 0.
    deal = new(hands, v=variant("canasta", red_three_bonus=0), replacements="KH QH 3D QS")
    assert deal.view(0).red_threes == (2, 2)
    assert [ls.red_threes for ls in deal.score().lines] == [0, 0]


def test_a_red_three_drawn_is_laid_aside_and_replaced():
    """RULES.md: «A red 3 that enters a hand (deal, draw, pile) is laid aside and replaced from
    the stock; each scores +100 for its line»
    """
    deal = new({0: "AS AH 5C 6C 7C 8C 9C 10C JC QC KC 4S 4D 5D 6D"}, stock="3H 7S 8C")
    before = Counter(deal.hand(0))
    legal(deal, "draw")
    assert Counter(deal.hand(0)) - before == Counter(parse_cards("7S 8C"))
    assert deal.view(0).red_threes == (1, 0)
    assert deal.view(0).hand_sizes == (17, 15)
    assert line_score(deal, 0).red_threes == 100


# --- the pile -----------------------------------------------------------------------------


@pytest.mark.parametrize("turned", ["AS", "KC", "QH", "JD", "10S", "7C", "4H"])
def test_the_pile_buries_as_many_cards_as_the_turned_card_is_worth(turned):
    """seeds/003_0008042f6f6a3b44.txt: «Quando questa procedura si è conclusa, il mazziere può
    scoprire la prima carta in cima al mazzo: a seconda del valore della carta il mazziere pone
    sotto la carta appena scoperta un numero di carte coperte pari al valore della carta stessa.
    Se la prima carta sul mazzo (quella scoperta) è un Asso, si dovranno porre 14 carte coperte
    sotto di esso.»

    RULES.md: «The dealer turns up the top card and puts under it as many face-down cards as its
    value (A = 14, K = 13, Q = 12, J = 11); this is the pile.»
    """
    card = parse_card(turned)
    count = {"A": 14, "K": 13, "Q": 12, "J": 11}.get(turned[:-1], card.rank)
    assert pile_value(card) == count
    deal = new({}, turned=turned)
    view = deal.view(0)
    assert view.pile == (card,)  # the buried cards are face down
    assert view.pile_hidden == count
    assert view.stock_size == 162 - 30 - 1 - count


def test_a_wildcard_or_three_turned_goes_back_and_the_next_is_turned():
    """RULES.md: «If the turned card is a wildcard or a 3, it is shuffled back into the stock
    and the next card is turned *(decision)*.»
    """
    deal = new({}, skipped="JK 2S 3C 3H", turned="9H")
    view = deal.view(0)
    assert (view.pile, view.pile_hidden) == ((parse_card("9H"),), 9)
    # The cards sent back are in the stock again, not in a hand or the pile.
    assert view.stock_size == 162 - 30 - 10
    assert view.red_threes == (0, 0)


def test_taking_the_pile_gives_the_buried_cards_to_the_hand():
    """seeds/003_0008042f6f6a3b44.txt: «il mazziere pone sotto la carta appena scoperta un
    numero di carte coperte pari al valore della carta stessa.»

    RULES.md: «the rest of the pile goes to the hand.»
    """
    buried = "QS QH JD 10C 9S 8H 7D 6C 5S 4H 9C 8D 3D"
    hand = "KS KH AS AH AD 5D 6D 7H 8C 9H 10D JC QD 4S 4C"
    deal = new({0: hand}, turned="KC", buried=buried, stock="7S")
    before = Counter(deal.hand(0))
    legal(deal, "take KH KS")
    gained = Counter(deal.hand(0)) - before
    # The buried 3D is laid aside and replaced by the stock's top card.
    assert gained == Counter(parse_cards(buried.replace("3D", "7S")))
    assert deal.view(0).red_threes == (1, 0)
    assert deal.view(0).pile == () and deal.view(0).pile_hidden == 0


# --- turns --------------------------------------------------------------------------------


def test_a_turn_draws_two_cards():
    """seeds/003_0008042f6f6a3b44.txt: «Il primo giocatore pesca 2 carte dalle carte coperte
    poste al centro del tavolo.»

    RULES.md: «A turn draws two cards from the stock (option `open_draws_one`: a player who
    opens in that turn draws one, as 003 may mean), or takes the pile; then melds; then one
    discard.»
    """
    deal = new({0: "AS AH 5C 6C 7C 8C 9C 10C JC QC KC 9S 10D 5D 6D"}, stock="7S 8D 9H")
    stock = deal.view(0).stock_size
    assert texts(deal) == ["draw"]
    before = Counter(deal.hand(0))
    legal(deal, "draw")
    assert Counter(deal.hand(0)) - before == Counter(parse_cards("7S 8D"))
    assert deal.view(0).stock_size == stock - 2
    illegal(deal, "draw", "already drawn")
    illegal(deal, "redraw", "no second draw")
    legal(deal, "discard 8D")
    assert deal.turn == 1
    legal(deal, "draw")
    assert_holds(deal, 1, "9H")


# --- melds --------------------------------------------------------------------------------


def test_melds_are_sets_one_per_rank_per_line():
    """seeds/003_0008042f6f6a3b44.txt: «Per aprire il gioco, è necessario posare sul tavolo una
    serie di carte. Le carte posate sul tavolo devono necessariamente avere lo stesso valore.»

    RULES.md: «Melds are sets of one rank, 3 cards or more, one meld per rank per line
    *(decision)*.»
    """
    deal = new({0: "AS AH AD AC AS 2C 5H 6H 7H KS KH KD QS QH 9C"}, stock="JD JC")
    legal(deal, "draw")
    illegal(deal, "meld 5H 6H 7H", "rank")
    illegal(deal, "meld AS AH", "three")
    legal(deal, "meld AS AH AD")
    illegal(deal, "meld AC AS 2C", "one meld of each rank")
    legal(deal, "extend 0 AC")
    legal(deal, "meld KS KH KD")
    assert [str(m) for m in deal.view(0).melds[0]] == ["AS AH AD AC", "KS KH KD"]


def test_wildcard_limits_two_naturals_one_three_naturals_two():
    """seeds/003_0008042f6f6a3b44.txt: «Nella serie di carte che si intende posare sul tavolo il
    numero di jolly e pinelle ammessi sono pari a 1 se la combinazione composta da 2 carte dello
    stesso valore, pari a 2 se la combinazione di carte si compone di 3 o più elementi.»

    RULES.md: «Two naturals take at most one wildcard; three or more naturals take at most
    two.»
    """
    deal = new({0: "AS AH AD KS KH QS QH QD 2C 2S JK JK 5C 6D 7H"}, stock="9C 10D")
    legal(deal, "draw")
    listed = texts(deal)
    for ok in ("meld AS AH 2C", "meld AS AH AD 2C JK", "meld KS KH JK", "meld QS QH QD 2S JK"):
        assert str(Action.parse(ok)) in listed
    illegal(deal, "meld KS KH 2C JK", "two naturals take at most one wildcard")
    illegal(deal, "meld AS AH AD 2C 2S JK", "three or more take two")
    legal(deal, "meld AS AH 2C")
    illegal(deal, "extend 0 JK", "two naturals take at most one wildcard")
    legal(deal, "extend 0 AD")
    legal(deal, "extend 0 JK")
    illegal(deal, "extend 0 2S", "three or more take two")


def test_melds_of_wildcards_only():
    """RULES.md: «A meld of wildcards only (3 or more, any number) is legal: it is the road to
    the special canastas.»

    seeds/003_0008042f6f6a3b44.txt: «di sole Pinelle (dette pinellate) sono attribuiti 3.000
    punti;»
    """
    deal = new({0: "2S 2H 2D 2C JK JK AS AH AD KS KH KD 5C 6D 7H"}, stock="9C 10D")
    legal(deal, "draw")
    illegal(deal, "meld 2S JK", "three")
    legal(deal, "meld 2S 2H JK")
    meld = deal.view(0).melds[0][0]
    assert (meld.kind, meld.size) == ("wild", 3)
    illegal(deal, "extend 0 AS", "wildcards")
    illegal(deal, "meld 2D 2C JK", "one meld of wildcards")
    for card in ("2D", "2C", "JK"):
        legal(deal, f"extend 0 {card}")
    assert deal.view(0).melds[0][0].size == 6


def test_black_threes_are_melded_only_when_going_out():
    """RULES.md: «Black 3s may be melded only when going out *(decision)*.»

    RULES.md: «Going out is a final discard that empties the hand, and the line needs two
    canastas, one of them clean (+300).»
    """
    hand = "AS AS AH AH AD AD AC KS KH KD KC KS 2C JK 3S"
    deal = new({0: hand}, turned="4C", stock="3S QD 4S 4H 3C QH")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC")
    legal(deal, "discard QD")
    legal(deal, "draw")
    legal(deal, "discard 4S")
    legal(deal, "draw")
    # Not going out: the black 3s stay in the hand.
    illegal(deal, "meld 3S 3S 3C", "black 3s")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    # Now the meld leaves one card and the line has two canastas, one clean: it goes out.
    legal(deal, "meld 3S 3S 3C")
    legal(deal, "discard QH")
    assert deal.is_over and deal.closer == 0


def test_the_first_melds_of_a_line_are_worth_50():
    """seeds/003_0008042f6f6a3b44.txt: «Per poter aprire il gioco è necessario posare sul
    tavolo carte che abbiano un valore minimo di 50 punti.»

    RULES.md: «To open, a line's first melds of the deal must be worth at least 50.»
    """
    deal = new({0: "9S 9H 9D KS KH KD 5S 5H 4C 6D 7H 8C 10D JC QH"}, stock="AC 4D 6S 7S 5D 8H")
    assert deal.view(0).minimum == (50, 50) and deal.view(0).opened == (False, False)
    legal(deal, "draw")
    legal(deal, "meld 9S 9H 9D")  # 30: more can follow
    illegal(deal, "discard AC", "50")
    legal(deal, "meld KS KH KD")  # 60 in all
    legal(deal, "discard AC")
    assert deal.view(0).opened == (True, False)
    legal(deal, "draw")
    legal(deal, "discard 6S")
    # Once open, a small meld is fine.
    legal(deal, "draw")
    legal(deal, "meld 5S 5H 5D")
    legal(deal, "discard 8H")
    assert [str(m) for m in deal.view(0).melds[0]][-1] == "5S 5H 5D"


def test_the_50_may_be_reached_by_filling_a_set_with_a_natural_then_a_wildcard():
    """seeds/003_0008042f6f6a3b44.txt: «Per poter aprire il gioco è necessario posare sul
    tavolo carte che abbiano un valore minimo di 50 punti.» and «Nella serie di carte che si
    intende posare sul tavolo il numero delle Pinelle non deve essere superiore a quello
    delle carte naturali»: two naturals take one wildcard, three take two.

    4H 4D 2D (30) opens the way: a fourth 4 (35) makes room for a second wildcard (55).
    The natural must stay legal although no 4 is left in the hand after it (a dead end the
    property tests found: canasta, four players, seed 440).
    """
    # Every rank but the 3s once in the hand, and two black 3s drawn: no pair to fill.
    deal = new({0: "4H 4D 2D 4S 2H 6H 7S 9D QD 5C 8C KC 10S AD JC"}, stock="3C 3S")
    legal(deal, "draw")
    legal(deal, "meld 4H 4D 2D")
    legal(deal, "extend 0 4S")
    assert texts(deal) == ["extend 0 2H"]
    legal(deal, "extend 0 2H")
    legal(deal, "discard 3C")
    assert deal.view(0).opened == (True, False)


def test_a_meld_that_cannot_reach_50_is_illegal():
    """seeds/003_0008042f6f6a3b44.txt: «Per poter aprire il gioco è necessario posare sul
    tavolo carte che abbiano un valore minimo di 50 punti.»

    RULES.md: «To open, a line's first melds of the deal must be worth at least 50.»
    """
    deal = new({0: "5S 5H 5D 4C 6D 7H 8C 9D 10S JC QH KD AC 4H 6S"}, stock="7C 8D")
    legal(deal, "draw")
    illegal(deal, "meld 5S 5H 5D", "50")
    assert not any(a.kind == "meld" for a in deal.legal_actions())


# --- taking the pile ----------------------------------------------------------------------


def test_the_pile_is_taken_with_two_naturals_equal_to_its_top():
    """seeds/003_0008042f6f6a3b44.txt: «Al giocatore di turno è consentito anche prendere il
    pozzo, ovvero il mazzo degli scarti presenti sul tavolo: condizione necessaria per farlo è
    possedere almeno due carte uguali all’ultima scartata.»

    RULES.md: «The pile can be taken only by a player holding two naturals equal to its top
    card, who melds them with it at once (that meld counts toward the 50); the rest of the pile
    goes to the hand.»
    """
    deal = new({0: "KS KH AS AH AD 2C 5D 6D 7H 8C 9H 10D JC QD 4S"}, turned="KC")
    assert texts(deal) == ["draw", "take KS KH"]
    illegal(deal, "take", "two naturals")
    illegal(deal, "take KS", "two naturals")
    illegal(deal, "take KS 2C", "two naturals")
    legal(deal, "take KH KS")
    view = deal.view(0)
    assert [str(m) for m in view.melds[0]] == ["KS KH KC"]
    assert view.pile == () and view.hand_sizes == (15 - 2 + 13, 15)
    # The take's meld (30) counts toward the 50: the aces complete the opening.
    illegal(deal, "discard 5D", "50")
    legal(deal, "meld AS AH AD")
    legal(deal, "discard 5D")
    assert deal.view(0).opened == (True, False)


def test_a_take_joins_the_line_meld_of_that_rank():
    """RULES.md: «Melds are sets of one rank, 3 cards or more, one meld per rank per line
    *(decision)*.»

    RULES.md: «The pile can be taken only by a player holding two naturals equal to its top
    card, who melds them with it at once (that meld counts toward the 50); the rest of the pile
    goes to the hand.»
    """
    hands = {0: "KS KH KD KS KH AS AH AD 5D 6D 7H 8C 9H 10D 2C", 1: "KC QC QS"}
    deal = new(hands, stock="7S 8S 9C 10H")
    legal(deal, "draw")
    legal(deal, "meld KS KH KD")
    legal(deal, "meld AS AH AD")
    illegal(deal, "meld KS KH 2C", "one meld of each rank")
    legal(deal, "discard 7S")
    legal(deal, "draw")
    legal(deal, "discard KC")
    assert "take KS KH" in texts(deal)
    legal(deal, "take KS KH")
    assert [str(m) for m in deal.view(0).melds[0]] == ["KS KS KH KH KD KC", "AS AH AD"]


def test_a_take_that_cannot_reach_50_is_illegal():
    """RULES.md: «The pile can be taken only by a player holding two naturals equal to its top
    card, who melds them with it at once (that meld counts toward the 50)»
    """
    hand = "4S 4H 5S 5H 6S 6H 7S 7H 8S 9S 10S JS QS KS AS"
    deal = new({0: hand}, turned="4C", buried="8H 9H 10H JH")
    assert texts(deal) == ["draw"]
    illegal(deal, "take 4S 4H", "50")
    # The same take is fine when its meld is worth 50 with the rest.
    deal = new({0: "AS AH 5S 5H 6S 6H 7S 7H 8S 9S 10S JS QS KS 4S"}, turned="AC")
    assert "take AS AH" in texts(deal)
    legal(deal, "take AS AH")
    legal(deal, "discard 4S")
    assert deal.view(0).opened == (True, False)


def test_a_take_reaches_50_with_the_top_card_and_the_hand_only():
    """RULES.md: «A line that opens by taking the pile reaches the 50 with the top card and
    cards from the hand only, never with the rest of the pile»
    """
    hand = "4S 4H KS KH KC 6S 7H 8D 9C 10S JH AS 5D 6C 7D"
    # 4C 4S 4H (15) and the kings (30) make 45: the queens buried under the pile would
    # make it, but they are not the hand's, and nobody has seen them.
    deal = new({0: hand}, turned="4C", buried="QD QH QC 8H")
    assert texts(deal) == ["draw"]
    illegal(deal, "take 4S 4H", "the rest of the pile")
    # Whatever lies under the pile, the same hand may or may not take: the same answer.
    other = new({0: hand}, turned="4C", buried="3S 9H 10H JD")
    assert texts(other) == texts(deal)
    # With fives the hand reaches 60 by itself: the take is legal, and the queens it brings
    # do not count toward the 50.
    hand = "4S 4H KS KH KC 5S 5H 5C 9C 10S JH AS 2C 6D 7H"
    deal = new({0: hand}, turned="4C", buried="QD QH QC 8H")
    legal(deal, "take 4S 4H")
    legal(deal, "meld KS KH KC")
    legal(deal, "meld QD QH QC")
    assert deal.view(0).pending_value[0] == 45
    illegal(deal, "discard 9C", "50")
    legal(deal, "meld 5S 5H 5C")
    legal(deal, "discard 9C")
    assert deal.view(0).opened == (True, False)


def test_the_pile_is_frozen_while_its_top_is_a_black_three():
    """seeds/003_0008042f6f6a3b44.txt: «- Pozzo congelato: non si può prendere il pozzo se
    l’ultima carta scartata è un 3 nero. Il pozzo ritorna ad essere prelevabile dopo che il
    giocatore successivo procede al suo scarto.»

    RULES.md: «Never while its top is a black 3; if its top is a wildcard, only with three
    wildcards equal to it.»
    """
    hands = {
        0: "3S KS KH AS AH AD 5D 6D 7H 8C 9H 10D JC QD 4S",
        1: "3S 3C KD AC 5C 6C 7C 8D 9D 10C JD QC 4D 5H 6H",
    }
    deal = new(hands, turned="4C", stock="7S 8S 9C 10H")
    legal(deal, "draw")
    legal(deal, "discard 3S")
    assert texts(deal) == ["draw"]
    illegal(deal, "take 3S 3C", "frozen")
    legal(deal, "draw")
    legal(deal, "discard KD")
    assert "take KS KH" in texts(deal)
    legal(deal, "take KS KH")
    assert_holds(deal, 0, "3S")  # the black 3 came with the rest of the pile


def test_a_pile_topped_by_a_wildcard_needs_three_equal_wildcards():
    """seeds/003_0008042f6f6a3b44.txt: «- Scarto equivalente a pinella o Jolly: il pozzo può
    essere preso se si hanno in mano 3 carte uguali a quella che è stata scartata per ultima.»

    RULES.md: «if its top is a wildcard, only with three wildcards equal to it.»
    """
    hands = {
        0: "JK 2D KS KH AS AH AD 5D 6D 7H 8C 9H 10D JC QD",
        1: "JK JK JK 2S 2H 2C 4D 5H 6H 7C 8D 9D 10C JD QC",
    }
    deal = new(hands, turned="4C", stock="7S 8S")
    legal(deal, "draw")
    legal(deal, "discard JK")
    assert "take JK JK JK" in texts(deal)
    illegal(deal, "take JK JK", "three")
    illegal(deal, "take 2S JK JK", "three")
    legal(deal, "take JK JK JK")
    meld = deal.view(1).melds[1][0]
    assert (meld.kind, meld.size) == ("wild", 4)
    # A pile topped by a 2 is taken with three 2s.
    deal = new(hands, turned="4C", stock="7S 8S")
    legal(deal, "draw")
    legal(deal, "discard 2D")
    assert "take 2S 2H 2C" in texts(deal)
    illegal(deal, "take 2S 2H JK", "three")
    illegal(deal, "take 2S 2H", "three")
    legal(deal, "take 2S 2H 2C")


# --- canastas -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meld", "grade", "bonus"),
    [
        ("AS AS AH AH AD AD AC", "clean", 500),
        ("AS AS AH AH AD AD AC AC", "clean", 500),
        ("KS KH KD KC KS 2C JK", "dirty", 300),
        ("KS KH KD KC KS KH 2C", "dirty", 300),
        ("KS KH KD KC KS KH", None, 0),
        ("JK JK JK JK JK JK 2C", "special", 5000),
        ("2S 2S 2S 2H 2H 2H 2D", "special", 3000),
        ("2S 2S 2S 2H 2H 2H 2D 2D", "special", 3000),
        ("JK 2S 2H 2D 2C 2S 2H", "special", 2000),
        ("JK JK JK JK JK 2C 2S", "special", 2000),
        ("JK JK JK JK JK JK 2C 2S", "special", 2000),
        ("JK JK 2S 2H 2D 2C", None, 0),
    ],
)
def test_canasta_grades_and_bonuses(meld, grade, bonus):
    """seeds/003_0008042f6f6a3b44.txt: «Conclusa la partita si passa al conteggio dei punti.
    Alle canaste:
    - pulite sono attribuiti 500 punti;
    - sporche sono attribuiti 300 punti;
    - di sole Pinelle (dette pinellate) sono attribuiti 3.000 punti;
    - di Pinelle e Jolly sono attribuiti 2.000 punti;
    - di soli Jolly più una pinella sono attribuiti 5.000 punti.»

    RULES.md: «Canasta: 7 or more cards. Clean 500, dirty 300; of wildcards only: six jokers
    and one 2 5000 (checked first), all 2s 3000, any other mix 2000.»
    """
    info = check_meld(meld, C)
    assert info.bonus == bonus
    if grade == "special":
        assert info.grade not in (None, "clean")
    else:
        assert info.grade == grade


# --- going out ----------------------------------------------------------------------------


def test_going_out_is_a_final_discard_with_two_canastas_one_clean():
    """seeds/003_0008042f6f6a3b44.txt: «Il gioco si conclude quando il giocatore di turno,
    scartando una carta, non ha più carte in mano.»

    seeds/003_0008042f6f6a3b44.txt: «Per chiudere una partita, comunque, il giocatore deve aver
    composto 2 canaste, di cui una pulita.»

    seeds/003_0008042f6f6a3b44.txt: «Il giocatore (o la coppia) che chiude la partita ottiene
    300 punti in più.»

    RULES.md: «Going out is a final discard that empties the hand, and the line needs two
    canastas, one of them clean (+300).»
    """
    deal = new({0: OUT_HAND}, stock="KH KH")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC AC")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    legal(deal, "extend 1 KH")
    # Emptying the hand by melding is not going out.
    illegal(deal, "extend 1 KH", "final discard")
    legal(deal, "discard KH")
    assert deal.is_over and deal.went_out and deal.closer == 0
    ls = line_score(deal, 0)
    assert ls.closing == 300
    assert sorted(b for _, b in ls.burracos) == [300, 500]
    assert ls.melded == 8 * 20 + 6 * 10 + 20 + 50
    assert ls.total == ls.melded + 800 + 300
    assert line_score(deal, 1).closing == 0


def test_going_out_needs_a_clean_canasta():
    """seeds/003_0008042f6f6a3b44.txt: «Per chiudere una partita, comunque, il giocatore deve
    aver composto 2 canaste, di cui una pulita.»

    RULES.md: «No dead ends: an action is legal only if the player can still end the turn
    legally after it (a permitted discard that leaves a card, a legal pozzetto, or a legal
    close), possibly after more melds.»
    """
    # Two dirty canastas.
    deal = new({0: "AS AS AH AH AD 2S JK KS KH KD KC KS 2C JK 5D"}, stock="KD AC")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD 2S JK")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    legal(deal, "extend 0 AC")
    illegal(deal, "extend 1 KD", "two canastas|cannot end the turn")
    legal(deal, "discard 5D")
    assert not deal.is_over


def test_going_out_needs_two_canastas():
    """seeds/003_0008042f6f6a3b44.txt: «Per chiudere una partita, comunque, il giocatore deve
    aver composto 2 canaste, di cui una pulita.»

    RULES.md: «Going out is a final discard that empties the hand, and the line needs two
    canastas, one of them clean (+300).»
    """
    deal = new({0: "AS AS AH AH AD AD AC KS KH KD KC 2C JK 9S 5D"}, stock="9H 9D")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC")  # a clean canasta
    legal(deal, "meld KS KH KD KC 2C JK")  # six cards: no canasta
    illegal(deal, "meld 9S 9H 9D", "two canastas|cannot end the turn")
    legal(deal, "discard 5D")
    assert not deal.is_over


def test_with_the_stock_empty_pass_ends_the_deal():
    """seeds/003_0008042f6f6a3b44.txt: «In alternativa può succedere che la partita si conclude
    quando le carte nel mazzo centrale terminano.»

    RULES.md: «With the stock empty, a player who cannot or does not take the pile ends the deal
    (no +300).»
    """
    deal = new({}, turned="AC")
    illegal(deal, "pass", "stock is empty")
    while deal.view(0).stock_size:
        seat = deal.turn
        deal.apply("draw")
        deal.apply(f"discard {deal.hand(seat)[0]}")
    assert not deal.is_over and deal.phase == "draw"
    assert "pass" in texts(deal)
    illegal(deal, "draw", "stock is empty")
    legal(deal, "pass")
    assert deal.is_over and deal.end_reason == "stock" and not deal.went_out
    assert [ls.closing for ls in deal.score().lines] == [0, 0]


# --- scoring ------------------------------------------------------------------------------


def test_hand_cards_count_minus_doubled_for_a_player_who_never_melded():
    """seeds/003_0008042f6f6a3b44.txt: «Al punteggio realizzato si sottraggono i punti
    costituiti dalle carte che si posseggono in mano. Se lo sfidante non è riuscito a posare sul
    tavolo nessuna carta il valore da sottrarre è raddoppiato.»

    RULES.md: «Hand cards count minus, doubled for a player who never melded; melded cards
    count plus.»
    """
    other = "4S 5H 6D 7C 8S 9H 10D JC QS KD AS 2D JK 3S 3C"
    # Seat 1 never melds: its hand counts double.
    deal = new({0: OUT_HAND, 1: other}, stock="KH KH")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC AC")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    legal(deal, "extend 1 KH")
    legal(deal, "discard KH")
    assert points(deal, other) == 20 + 60 + 20 + 20 + 50 + 10
    assert line_score(deal, 1).in_hand == -2 * points(deal, other)
    # Seat 1 melds first: its hand counts once.
    deal = new({0: OUT_HAND, 1: other}, stock="5C 6C AH AD KH KH")
    legal(deal, "draw")
    legal(deal, "discard 5C")
    legal(deal, "draw")
    legal(deal, "meld AS AH AD")
    legal(deal, "discard 3S")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC AC")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    legal(deal, "extend 1 KH")
    legal(deal, "extend 1 KH")
    legal(deal, "discard 6C")
    assert deal.is_over
    left = deal.hand(1)
    assert line_score(deal, 1).in_hand == -points(deal, left)
    assert line_score(deal, 1).melded == 60


def test_in_pairs_each_player_who_never_melded_counts_double():
    """seeds/003_0008042f6f6a3b44.txt: «Se lo sfidante non è riuscito a posare sul tavolo
    nessuna carta il valore da sottrarre è raddoppiato.»

    RULES.md: «Hand cards count minus, doubled for a player who never melded»
    """
    v = variant("canasta", players=4)
    hands = {
        0: "4S 5H 6D 7C 8S 9H 10D JC QS QD 5S 6H 7D 8C 9S",
        1: "AS AH AD 4H 5D 6C 7S 8H 9D 10C JS QH 4D 5C 6S",
        2: OUT_HAND,
        3: "4C 5C 6D 7H 8D 9C 10S JH QC QH 5D 6C 7S 8S 9H",
    }
    deal = new(hands, v=v, dealer=3, stock="JD 10H 10S JH KH KH")
    legal(deal, "draw")
    legal(deal, "discard JD")
    legal(deal, "draw")
    legal(deal, "meld AS AH AD")
    legal(deal, "discard 4H")
    legal(deal, "draw")
    legal(deal, "meld AS AS AH AH AD AD AC AC")
    legal(deal, "meld KS KH KD KC KS 2C JK")
    legal(deal, "extend 1 KH")
    legal(deal, "discard KH")
    assert deal.is_over and deal.closer == 2
    hand = {s: points(deal, deal.hand(s)) for s in range(4)}
    assert line_score(deal, 0).in_hand == -2 * hand[0]
    assert line_score(deal, 1).in_hand == -hand[1] - 2 * hand[3]


@pytest.mark.parametrize(
    ("cards", "value"),
    [
        ("JK", 50),
        ("2S 2H 2D 2C AS AH AD AC", 20),
        ("8S 9H 10D JC QS KH", 10),
        ("4S 5H 6D 7C", 5),
        ("3S 3C", 5),
    ],
)
def test_card_values(cards, value):
    """RULES.md: «Card values (003 gives none, these are the usual ones): joker 50; 2 and A 20;
    8-K 10; 4-7 5; black 3 5.»
    """
    for card in parse_cards(cards):
        assert card_points(card, C) == value


# --- tables -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "line_of"),
    [
        ({}, (0, 1)),
        ({"players": 2}, (0, 1)),
        ({"players": 4}, (0, 1, 0, 1)),
        ({"players": 4, "lines": 2}, (0, 1, 0, 1)),
    ],
)
def test_two_players_alone_or_four_in_pairs(options, line_of):
    """seeds/003_0008042f6f6a3b44.txt: «Il gioco prevede la sfida fra 2 o 4 giocatori. In
    quest’ultimo caso la sfida si svolge a coppie.»

    RULES.md: «`canasta` is 2 alone or 4 in pairs.»
    """
    v = variant("canasta", **options)
    assert v.line_of == line_of


@pytest.mark.parametrize(
    "options",
    [{"players": 3}, {"players": 4, "lines": 4}, {"players": 5}, {"players": 6}, {"players": 1}],
)
def test_other_tables_are_setup_errors(options):
    """seeds/003_0008042f6f6a3b44.txt: «Il gioco prevede la sfida fra 2 o 4 giocatori.»

    RULES.md: «`canasta` is 2 alone or 4 in pairs.»
    """
    with pytest.raises(SetupError):
        variant("canasta", **options)


def test_partners_share_melds_one_meld_per_rank_per_line():
    """seeds/003_0008042f6f6a3b44.txt: «Il gioco prevede la sfida fra 2 o 4 giocatori. In
    quest’ultimo caso la sfida si svolge a coppie.»

    RULES.md: «A "line" (linea) is one player, or the partners who share their melds and score
    together.»

    RULES.md: «Melds are sets of one rank, 3 cards or more, one meld per rank per line
    *(decision)*.»
    """
    v = variant("canasta", players=4)
    hands = {0: "AS AH AD 5C 6D", 1: "AC 5S 6S", 2: "AC AS AH 2C 5H", 3: "7H 8H"}
    deal = new(hands, v=v, dealer=3, stock="9C 9D 10C 10D 4S 4D")
    legal(deal, "draw")
    legal(deal, "meld AS AH AD")
    legal(deal, "discard 5C")
    legal(deal, "draw")
    illegal(deal, "extend 0 AC", "no meld 0")
    legal(deal, "discard 5S")
    legal(deal, "draw")
    illegal(deal, "meld AS AH 2C", "one meld of each rank")
    legal(deal, "extend 0 AC")
    legal(deal, "discard 5H")
    assert [str(m) for m in deal.view(1).melds[0]] == ["AS AH AD AC"]


def test_quotes_are_verbatim():
    """RULES.md: «The four rule documents in `seeds/` are the specification.»"""
    check_quotes(sys.modules[__name__])


def test_option_open_draws_one_opens_before_a_one_card_draw():
    """seeds/003_0008042f6f6a3b44.txt: «In alternativa può decidere di aprire subito il gioco.»
    and «Se il giocatore sceglie di aprire deve prendere una carta dal mazzo.»

    RULES.md: «A turn draws two cards from the stock (option `open_draws_one`: a player who
    opens in that turn draws one, as 003 may mean)»
    """
    v = variant("canasta", open_draws_one=True)
    hand = "9S 9H 9D KS KH KD 5S 5H 4C 6D 7H 8C 10D JC QH"
    deal = new({0: hand}, v=v, stock="AC 4D 6S 7S 5D 8H")
    assert "meld 9S 9H 9D" in texts(deal)  # opening before the draw is offered
    illegal(deal, "discard 4C", "first draw")
    legal(deal, "meld 9S 9H 9D")
    legal(deal, "meld KS KH KD")
    illegal(deal, "take", "draws one card")
    size = len(deal.hand(0))
    legal(deal, "draw")
    assert len(deal.hand(0)) == size + 1  # one card, not two
    legal(deal, "discard AC")
    assert deal.view(0).opened[0]


def test_option_open_draws_one_a_player_who_drew_two_does_not_open():
    """seeds/003_0008042f6f6a3b44.txt: «Il primo giocatore pesca 2 carte dalle carte coperte
    poste al centro del tavolo. In alternativa può decidere di aprire subito il gioco.»"""
    v = variant("canasta", open_draws_one=True)
    hand = "9S 9H 9D KS KH KD 5S 5H 4C 6D 7H 8C 10D JC QH"
    deal = new({0: hand}, v=v, stock="AC 4D 6S 7S 5D 8H")
    legal(deal, "draw")
    illegal(deal, "meld 9S 9H 9D", "before the draw")
    # Without the option, melding before drawing is not a move at all.
    plain = new({0: hand}, stock="AC 4D 6S 7S 5D 8H")
    illegal(plain, "meld 9S 9H 9D", "first draw")
