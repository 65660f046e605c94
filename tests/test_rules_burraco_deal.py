"""Rule tests for the Burraco deal (``italian``, ``online``): dealing, drawing and taking, the
discard-back rule, pozzetti, closing, no dead ends, the 3-, 5- and 6-player games, the end of
the stock, the stall, the time-out, scoring, views, and matches.

Every test quotes its source verbatim, as ``FILE: «...»``: ``RULES.md`` (our decisions) and the
documents it cites, ``seeds/000_3e163a1ed44a6924.txt`` (Italian guide),
``seeds/002_29754259bb50d367.txt`` (the online room's rules) and
``seeds/003_0008042f6f6a3b44.txt`` ("Regole burraco"). ``test_quotes_are_verbatim`` checks
the quotes against the files.

Positions are dealt from hand-built deck orders (``positions.stacked``); seat 0 deals unless
said otherwise, so seat 1 plays first.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections import Counter

import pytest
from positions import (
    assert_illegal,
    assert_legal,
    check_quotes,
    counter,
    dealt,
    drawn_card,
    idle_turn,
    play,
    pozzetto_sizes,
    snapshot,
    stacked,
    value,
)

from burraco import Action, Card, Deal, IllegalMove, deck, variant
from burraco.match import Match

IT = variant("italian")
ONLINE = variant("online")
IT4 = variant("italian", players=4)
ON4 = variant("online", players=4)
IT3 = variant("italian", players=3)
IT5 = variant("italian", players=5)
IT6 = variant("italian", players=6)
IT6_TRIOS = variant("italian", players=6, lines=2)
TWO = pytest.mark.parametrize("v", [IT, ONLINE], ids=["italian", "online"])
FOUR = pytest.mark.parametrize("v", [IT4, ON4], ids=["italian", "online"])

#: With the AS drawn: 3H..9H (a clean burraco) and 10S..AS, and the hand is empty.
RUN = "3H 4H 5H 6H 7H 8H 9H 10S JS QS KS"
RUN_MELDS = ("meld 3H 4H 5H 6H 7H 8H 9H", "meld 10S JS QS KS AS")
#: A pozzetto that makes a second clean burraco and a close with JD QD JK, discarding the KD.
POZ = "4C 5C 6C 7C 8C 9C 10C JD QD KD JK"
#: A hand with no meld in it, 90 points.
IDLE = "3D 4S 6H 8D 9D JH QC KC AD 5S 7C"


def texts(cards) -> list[str]:
    return sorted(str(Card(c)) for c in cards)


def hand(deal: Deal, seat: int) -> Counter[str]:
    return counter(deal.hand(seat))


def test_quotes_are_verbatim() -> None:
    """Every quote in this file is verbatim in its source (whitespace aside)."""
    assert check_quotes(sys.modules[__name__]) > 60


# --- dealing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
@TWO
def test_dealing_procedure(v, dealer) -> None:
    """RULES.md: «Deal: the dealer's opponent cuts; two pozzetti of 11 are built card by card,
    alternately, from the bottom of the deck; 11 cards to each player; one card turned up starts
    the discard pile; the rest is the stock (tallone).» RULES.md: «The player after the dealer
    plays first.» seeds/002_29754259bb50d367.txt: «da 11 ad ogni giocatore distribuendole una alla
    volta, in senso antiorario, partendo dal giocatore alla destra del mazziere; scopre una carta
    in mezzo al tavolo (il monte scarti iniziale);» seeds/000_3e163a1ed44a6924.txt: «il quale
    comporrà, dalla tagliata superiore, 2 mazzetti di 11 carte ciascuno, detti pozzetti, formati
    alternativamente da una carta per volta estratta dal fondo del mazzo»
    seeds/003_0008042f6f6a3b44.txt: «I mazzetti devono essere composti aggiungendo una carta a
    turno in ciascun mazzo.»
    """
    order = deck(v.decks, v.jokers)
    random.Random(11).shuffle(order)
    deal = Deal.from_deck(v, order, dealer=dealer)
    first = 1 - dealer
    assert deal.turn == first and deal.phase == "draw"
    assert texts(deal.hand(first)) == texts(order[0:22:2])
    assert texts(deal.hand(dealer)) == texts(order[1:22:2])
    assert [str(c) for c in deal.pile] == [str(order[22])]
    assert texts(deal.pozzetti[0]) == texts(order[-1:-23:-2])
    assert texts(deal.pozzetti[1]) == texts(order[-2:-23:-2])
    assert len(deal.stock) == 108 - 22 - 22 - 1 == 63
    # the stock's top is the card after the up-card; its bottom the card above the pozzetti
    before = deal.hand(first)
    deal.apply("draw")
    assert str(drawn_card(before, deal.hand(first))) == str(order[23])


SIZES = [
    # variant, decks, pozzetti, stock, lines of the seats
    ("italian 2", IT, 2, [11, 11], 63, (0, 1)),
    ("italian 3", IT3, 2, [18, 11], 108 - 33 - 29 - 1, (0, 1, 2)),
    ("italian 4", IT4, 2, [11, 11], 108 - 44 - 22 - 1, (0, 1, 0, 1)),
    ("italian 5", IT5, 3, [18, 11, 11], 162 - 55 - 40 - 1, (0, 1, 2, 3, 4)),
    ("italian 6 pairs", IT6, 3, [11, 11, 11], 162 - 66 - 33 - 1, (0, 1, 2, 0, 1, 2)),
    ("italian 6 trios", IT6_TRIOS, 3, [11, 11], 162 - 66 - 22 - 1, (0, 1, 0, 1, 0, 1)),
    ("online 2", ONLINE, 2, [11, 11], 63, (0, 1)),
    ("online 4", ON4, 2, [11, 11], 41, (0, 1, 0, 1)),
]


@pytest.mark.parametrize(("name", "v", "decks", "pozzetti", "stock", "lines"), SIZES)
def test_table_sizes(name, v, decks, pozzetti, stock, lines) -> None:
    """RULES.md: «Player counts for `italian` (000): 2 alone; 3 (pozzetti of 18 and 11, see
    below); 4 in pairs; 5 with 3 decks; 6 with 3 decks in three pairs or two teams of three.
    `online` is 4 in pairs, and 2 alone.» RULES.md: «Partners sit apart: pairs opposite (seats s
    and s+2 with 4 players, s and s+3 with 6), trios alternately.»
    RULES.md: «5 players, 3 decks: pozzetti of 18, 11 and 11.»
    RULES.md: «6 players, 3 decks: three pairs or two teams of three, one pozzetto of 11 per
    line; a line must have a burraco before it may take its pozzetto.»
    seeds/000_3e163a1ed44a6924.txt: «si compone un mazzetto da 18 carte e uno da 11;»
    seeds/000_3e163a1ed44a6924.txt: «Nel Burraco a cinque si gioca con 3 mazzi di carte e i
    pozzetti seguono la logica del Burraco a tre: un pozzetto da 18 carte e due da 11.»
    """
    assert v.decks == decks and v.deck_size == 52 * decks + 2 * decks
    for dealer in range(v.players):
        order = deck(v.decks, v.jokers)
        random.Random(dealer).shuffle(order)
        deal = Deal.from_deck(v, order, dealer=dealer)
        assert deal.turn == (dealer + 1) % v.players
        assert [len(p) for p in deal.pozzetti] == pozzetti
        # the pozzetti are the bottom of the deck
        bottom = order[len(order) - sum(pozzetti) :]
        assert texts(c for p in deal.pozzetti for c in p) == texts(bottom)
        # the hands, one card at a time from the top, starting after the dealer
        for k in range(v.players):
            seat = (dealer + 1 + k) % v.players
            assert texts(deal.hand(seat)) == texts(order[k : 11 * v.players : v.players])
        view = deal.view(0)
        assert view.hand_sizes == (11,) * v.players
        assert len(view.pile) == 1 and view.stock_size == stock
        assert view.line_of == lines


@pytest.mark.parametrize(("v", "stock"), [(IT3, 108 - 33 - 33 - 1), (IT5, 162 - 55 - 55 - 1)])
def test_second_phase_of_3_and_5_players_has_pozzetti_of_11(v, stock) -> None:
    """RULES.md: «Once all three have 1000 points, deals go back to three players alone with three
    pozzetti of 11.» RULES.md: «Once a player reaches 1005, play is individual with five pozzetti
    of 11 until someone reaches 2005, who wins.» seeds/000_3e163a1ed44a6924.txt: «Quando i tre
    giocatori raggiungeranno i 1000 punti ciascuno, torneranno a giocare singolarmente con 3
    pozzetti da 11 carte.»
    """
    deal = Deal.new(v, seed=3, phase=2)
    assert [len(p) for p in deal.pozzetti] == [11] * v.players
    assert len(deal.stock) == stock
    assert pozzetto_sizes(v, phase=2) == [11] * v.players


def test_second_phase_of_3_players_no_partnership() -> None:
    """RULES.md: «Once all three have 1000 points, deals go back to three players alone with three
    pozzetti of 11.»
    """
    deal = dealt(IT3, {1: RUN}, up="8H", stock="AS", phase=2)
    play(deal, "draw", *RUN_MELDS)
    assert deal.view(1).hand_sizes[1] == 11
    assert deal.view(0).line_of == (0, 1, 2)
    assert [len(p) for p in deal.pozzetti] == [11, 11]


@pytest.mark.parametrize(
    ("v", "dealer"), [(IT, 0), (IT, 1), (IT4, 2), (IT3, 1), (IT5, 4), (IT6, 3), (IT6_TRIOS, 5)]
)
def test_the_position_helper_deals_what_is_asked(v, dealer) -> None:
    """RULES.md: «Deal: the dealer's opponent cuts; two pozzetti of 11 are built card by card,
    alternately, from the bottom of the deck; 11 cards to each player; one card turned up starts
    the discard pile; the rest is the stock (tallone).»
    """
    seats = [(dealer + 1 + k) % v.players for k in range(v.players)]
    wanted = {seats[0]: RUN, seats[-1]: IDLE}
    sizes = pozzetto_sizes(v)
    deal = dealt(
        v,
        wanted,
        up="2D",
        stock="AS KD",
        stock_bottom="9S 3D 4D",
        pozzetti=[POZ, "JK 2C"],
        dealer=dealer,
    )
    for seat, text in wanted.items():
        assert hand(deal, seat) == counter(text)
    assert [str(Card(c)) for c in deal.pile] == ["2D"]
    if sizes[0] == 11:
        assert counter(deal.pozzetti[0]) == counter(POZ)
    assert not counter(POZ) - counter(deal.pozzetti[0])
    assert not counter("JK 2C") - counter(deal.pozzetti[1])
    assert [len(p) for p in deal.pozzetti] == sizes
    first = seats[0]
    play(deal, "draw")
    assert hand(deal, first) - counter(RUN) == counter("AS")


# --- drawing and taking -------------------------------------------------------------------------


@TWO
def test_draw_or_take_the_whole_pile(v) -> None:
    """RULES.md: «A turn: draw the top card of the stock, or take the whole discard pile; then open
    new melds and extend melds of one's own line, in any number; then discard one card.»
    seeds/002_29754259bb50d367.txt: «**raccogliere**, cioè prelevare tutte le carte del monte
    scarti (non si può raccogliere solo l'ultima carta del monte scarti, bisogna raccoglierle
    tutte).» seeds/002_29754259bb50d367.txt: «**pescare**, cioè prelevare la prima carta del
    tallone, o»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="7D 6S")
    assert deal.legal_actions() == [Action.parse("draw"), Action.parse("take")]
    assert_illegal(deal, "discard KS", "first draw")
    assert_illegal(deal, "meld 3H 4H 5H", "first draw")
    assert_illegal(deal, "take 9C", "whole pile")
    stock = len(deal.stock)
    assert_legal(deal, "draw")
    assert hand(deal, 1) == counter(RUN + " 7D")
    assert len(deal.stock) == stock - 1 and texts(deal.pile) == ["9C"]
    assert_illegal(deal, "draw", "already drawn")
    assert_illegal(deal, "take", "already drawn")
    play(deal, "discard KS")
    assert [str(Card(c)) for c in deal.pile] == ["9C", "KS"]
    # seat 0 takes the whole pile of two
    assert_illegal(deal, "take KS", "whole pile")
    assert_legal(deal, "take")
    assert hand(deal, 0) == counter(IDLE + " 9C KS")
    assert deal.pile == [] and len(deal.stock) == stock - 1
    play(deal, "discard 9C")
    assert deal.turn == 1


@TWO
def test_discard_back_rule_for_a_one_card_pile(v) -> None:
    """RULES.md: «A player who took a pile of exactly one card may not discard that same card in
    the same turn, unless at the moment of the discard the hand holds at least two cards equal to
    it (002).» seeds/002_29754259bb50d367.txt: «oppure terminare il suo turno e passare la mano al
    giocatore alla sua sinistra deve **scartare una carta** (la carta scartata non può essere
    l'unica carta raccolta a meno di non averne l'altra uguale in mano).»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    play(deal, "take")
    assert_illegal(deal, "discard 9C", "one-card pile")
    assert_legal(deal, "discard KS")
    # the rule ends with the turn: the next player may discard what they like
    play(deal, "take")
    assert_illegal(deal, "discard KS", "one-card pile")
    assert_legal(deal, "discard 9D")


@TWO
def test_discard_back_allowed_with_two_equal_cards(v) -> None:
    """RULES.md: «A player who took a pile of exactly one card may not discard that same card in
    the same turn, unless at the moment of the discard the hand holds at least two cards equal to
    it (002).» seeds/002_29754259bb50d367.txt: «(la carta scartata non può essere l'unica carta
    raccolta a meno di non averne l'altra uguale in mano)»
    """
    deal = dealt(v, {1: "9C 9D 9S 4H 5H 6H 10S JS QS KD 3C", 0: IDLE}, up="9C")
    play(deal, "take")
    assert hand(deal, 1)["9C"] == 2
    assert Action.parse("discard 9C") in deal.legal_actions()
    snap = snapshot(deal)
    assert_legal(deal, "discard 9C")
    assert snap != snapshot(deal)

    # "at the moment of the discard": once one 9C is melded, the other may not go back
    deal = dealt(v, {1: "9C 9D 9S 4H 5H 6H 10S JS QS KD 3C", 0: IDLE}, up="9C")
    play(deal, "take", "meld 9C 9D 9S")
    assert hand(deal, 1)["9C"] == 1
    assert_illegal(deal, "discard 9C", "one-card pile")
    assert_legal(deal, "discard 3C")


@TWO
def test_discard_back_rule_is_only_for_a_pile_of_one_card(v) -> None:
    """RULES.md: «A player who took a pile of exactly one card may not discard that same card in
    the same turn, unless at the moment of the discard the hand holds at least two cards equal to
    it (002).»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="7D")
    play(deal, "draw", "discard KS")
    play(deal, "take")  # a pile of two: 9C KS
    assert_legal(deal, "discard KS")
    # a card drawn from the stock may be discarded at once
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="7D")
    play(deal, "draw")
    assert_legal(deal, "discard 7D")


# --- pozzetti -----------------------------------------------------------------------------------


@TWO
def test_pozzetto_in_diretta_the_turn_goes_on(v) -> None:
    """RULES.md: «Pozzetto: a player whose hand runs out for the first time, in a line that has not
    taken its pozzetto, takes it. If the last card went by melding (in diretta), the player picks
    it up and plays on in this turn;» seeds/000_3e163a1ed44a6924.txt: «se si decide per il
    pozzetto in diretta, invece, si gioca immediatamente, quindi, il giocatore ha la possibilità
    di continuare a legare carte e giochi aperti operando alla fine lo scarto, oppure, se ha
    realizzato anche il Burraco, chiude la smazzata.» seeds/002_29754259bb50d367.txt: «senza
    scartare (pozzetto in diretta). In questo caso il giocatore può giocare subito il pozzetto.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="AS", pozzetti=[POZ])
    play(deal, "draw", RUN_MELDS[0])
    assert deal.view(1).has_pozzetto == (False, False)
    assert_legal(deal, RUN_MELDS[1])
    assert hand(deal, 1) == counter(POZ)
    assert deal.turn == 1 and deal.phase == "play"
    view = deal.view(1)
    assert view.has_pozzetto == (False, True) and view.pozzetti == (11,)
    assert view.pozzetto_face_down == (0, 0)
    # plays on from the pozzetto in the same turn
    assert_legal(deal, "meld 4C 5C 6C 7C 8C 9C 10C")
    assert_legal(deal, "discard KD")
    assert deal.turn == 0


@TWO
def test_pozzetto_con_scarto_waits_for_the_next_turn_without_partner(v) -> None:
    """RULES.md: «if by a discard (con scarto; a wildcard may be discarded then), the turn ends,
    the pozzetto stays face down and unseen until the partner's discard (with no partner: until
    the player's next turn), and the player plays it from the next turn (000).»
    seeds/002_29754259bb50d367.txt: «scartando una carta (pozzetto con scarto). In questo caso il
    proprio turno termina e il pozzetto potrà essere giocato solo al giro successivo (si può anche
    scartare una matta);»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="JK 8S", pozzetti=[POZ])
    play(deal, "draw", RUN_MELDS[0], "meld 10S JS QS KS")
    assert hand(deal, 1) == counter("JK")
    assert_legal(deal, "discard JK")  # a wildcard may go: it is no close
    assert deal.turn == 0 and deal.phase == "draw"
    for seat in (0, 1):
        view = deal.view(seat)
        assert view.hand_sizes == (11, 0)
        assert view.pozzetto_face_down == (0, 11)
        assert view.has_pozzetto == (False, True)
        assert view.pozzetti == (11,)
    assert deal.view(1).hand == ()
    play(deal, "draw")
    assert deal.view(1).hand == ()  # still unseen during the opponent's turn
    play(deal, "discard 8S")
    # the player's next turn: now it is in hand
    assert deal.turn == 1
    assert hand(deal, 1) == counter(POZ)
    assert deal.view(1).pozzetto_face_down == (0, 0)
    assert_legal(deal, "draw")
    assert_legal(deal, "meld 4C 5C 6C 7C 8C 9C 10C")


@FOUR
def test_pozzetto_con_scarto_released_by_the_partners_discard(v) -> None:
    """RULES.md: «if by a discard (con scarto; a wildcard may be discarded then), the turn ends,
    the pozzetto stays face down and unseen until the partner's discard (with no partner: until
    the player's next turn), and the player plays it from the next turn (000).»
    seeds/000_3e163a1ed44a6924.txt: «se si opta per il pozzetto con lo scarto, si può visionare e
    giocare dopo che il partner ha esaurito il suo turno di gioco con lo scarto;»
    """
    deal = dealt(v, {1: RUN}, up="9C", stock="JK 8S 8D 8H 8C", pozzetti=[POZ])
    play(deal, "draw", RUN_MELDS[0], "meld 10S JS QS KS", "discard JK")
    assert deal.turn == 2
    assert deal.view(1).hand == () and deal.view(1).pozzetto_face_down == (0, 11, 0, 0)
    idle_turn(deal)  # the opponent
    assert deal.view(1).hand == ()
    play(deal, "draw")  # the partner
    assert deal.view(1).hand == ()
    play(deal, "discard 8D")
    assert hand(deal, 1) == counter(POZ)
    assert deal.view(1).pozzetto_face_down == (0, 0, 0, 0)
    assert deal.view(1).hand_sizes[1] == 11
    idle_turn(deal)
    assert deal.turn == 1
    play(deal, "draw")
    assert_legal(deal, "meld 4C 5C 6C 7C 8C 9C 10C")


@FOUR
def test_one_pozzetto_per_line(v) -> None:
    """RULES.md: «Each line takes one pozzetto.» seeds/002_29754259bb50d367.txt: «Ogni Linea può
    prendere un solo pozzetto.» RULES.md: «A player of a line that has its pozzetto may empty the
    hand only by closing.»
    """
    deal = dealt(
        v,
        {1: RUN, 3: "4S 5S 6S 7S 8S 9S 10S JS 8C 8D 8H"},
        up="9C",
        stock="AS 5D 8S",
        pozzetti=[POZ],
    )
    play(deal, "draw", *RUN_MELDS, "discard 4C")
    assert deal.view(0).pozzetti == (11,)
    idle_turn(deal)
    play(deal, "draw", "meld 4S 5S 6S 7S 8S 9S 10S JS")
    assert hand(deal, 3) == counter("8C 8D 8H 8S")
    # the partner's hand may not run out into a second pozzetto
    assert_illegal(deal, "meld 8C 8D 8H 8S", "only by closing")
    assert_legal(deal, "meld 8C 8D 8H")
    assert_legal(deal, "discard 8S")
    assert deal.is_over and deal.end_reason == "closed" and deal.closer == 3
    view = deal.view(0)
    assert view.pozzetti == (11,)  # the other line's, never taken
    assert [view.has_pozzetto[view.line_of[s]] for s in range(4)] == [False, True, False, True]


# --- closing ------------------------------------------------------------------------------------


def closing_position(v=IT) -> Deal:
    """Seat 1 goes out in diretta with a clean burraco, takes POZ, melds 4C..10C (a second clean
    burraco) and holds JD QD KD JK."""
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock="AS", pozzetti=[POZ])
    play(deal, "draw", *RUN_MELDS, "meld 4C 5C 6C 7C 8C 9C 10C")
    assert hand(deal, 1) == counter("JD QD KD JK")
    return deal


@TWO
def test_closing_needs_pozzetto_burraco_and_a_discard(v) -> None:
    """RULES.md: «Closing (chiusura): any player whose line has taken its pozzetto and has at least
    one burraco may close by emptying the hand. The last card always leaves as a discard, and that
    discard may not be a wildcard (a joker or any 2) (002).» seeds/002_29754259bb50d367.txt: «Per
    chiudere la smazzata bisogna esaurire le proprie carte in mano una seconda volta. Non si può
    chiudere se non si è fatto almeno un burraco. Inoltre per chiudere bisogna sempre scartare una
    carta e questa carta non deve essere una matta.»
    """
    deal = closing_position(v)
    # melding the last cards is no close
    assert_illegal(deal, "meld JD QD KD JK", "only by closing")
    assert_legal(deal, "meld JD QD JK")
    assert hand(deal, 1) == counter("KD")
    assert_illegal(deal, "extend 3 KD", "only by closing")
    assert deal.legal_actions() == [Action.parse("discard KD")]
    assert_legal(deal, "discard KD")
    assert deal.is_over and deal.end_reason == "closed" and deal.closer == 1
    assert deal.legal_actions() == []
    assert_illegal(deal, "draw", "over")


@TWO
def test_closing_discard_may_not_be_a_wildcard(v) -> None:
    """RULES.md: «The last card always leaves as a discard, and that discard may not be a wildcard
    (a joker or any 2) (002).» RULES.md: «So a meld that leaves only the card just taken from a
    one-card pile, or only a wildcard when the next empty hand would have to be a close, is
    illegal.» seeds/002_29754259bb50d367.txt: «Inoltre per chiudere bisogna sempre scartare una
    carta e questa carta non deve essere una matta.»
    """
    deal = closing_position(v)
    assert_illegal(deal, "meld JD QD KD", "wildcard")
    # a 2 is a wildcard too
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock="AS", pozzetti=[POZ.replace("JK", "2C")])
    play(deal, "draw", *RUN_MELDS, "meld 4C 5C 6C 7C 8C 9C 10C")
    assert_illegal(deal, "meld JD QD KD", "wildcard")
    assert_legal(deal, "meld JD QD 2C")
    assert_legal(deal, "discard KD")
    assert deal.end_reason == "closed"


@TWO
def test_closing_needs_a_burraco(v) -> None:
    """RULES.md: «Closing (chiusura): any player whose line has taken its pozzetto and has at least
    one burraco may close by emptying the hand.» RULES.md: «No dead ends: an action is legal only
    if the player can still end the turn legally after it (a permitted discard that leaves a card,
    a legal pozzetto, or a legal close), possibly after more melds.»
    seeds/002_29754259bb50d367.txt: «Non si può chiudere se non si è fatto almeno un burraco.»
    seeds/003_0008042f6f6a3b44.txt: «La partita è conclusa quando il giocatore avrà messo a terra
    tutte le carte del pozzetto e realizzato almeno una combinazione di sette carte completa.»
    """
    deal = dealt(
        v,
        {1: "3H 4H 5H 10S JS QS 6D 7D 8D 9C 9S", 0: IDLE},
        up="8H",
        stock="9H",
        pozzetti=["4C 5C 6C 7C JD QD KD 8S 8H 8C KH"],
    )
    play(deal, "draw", "meld 3H 4H 5H", "meld 10S JS QS", "meld 6D 7D 8D", "meld 9C 9S 9H")
    assert deal.view(1).has_pozzetto == (False, True)  # in diretta, with no burraco
    play(deal, "meld 4C 5C 6C 7C", "meld JD QD KD")
    assert hand(deal, 1) == counter("8S 8H 8C KH")
    # the KH could only leave as a close, and the line has no burraco
    assert_illegal(deal, "meld 8S 8H 8C", "cannot end the turn|burraco")
    assert_legal(deal, "discard KH")
    assert not deal.is_over


@TWO
def test_emptying_the_hand_without_pozzetto_is_no_close(v) -> None:
    """RULES.md: «Pozzetto: a player whose hand runs out for the first time, in a line that has not
    taken its pozzetto, takes it.» seeds/002_29754259bb50d367.txt: «Per prendere il pozzetto
    bisogna esaurire una prima volta le carte in mano.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock="AS 7S", pozzetti=[POZ])
    play(deal, "draw", *RUN_MELDS)
    assert not deal.is_over and deal.closer == -1
    play(deal, "discard 4C")
    assert deal.turn == 0 and not deal.is_over


# --- no dead ends -------------------------------------------------------------------------------


@TWO
def test_no_dead_end_leaving_the_card_taken_from_a_one_card_pile(v) -> None:
    """RULES.md: «No dead ends: an action is legal only if the player can still end the turn
    legally after it (a permitted discard that leaves a card, a legal pozzetto, or a legal close),
    possibly after more melds. So a meld that leaves only the card just taken from a one-card
    pile, or only a wildcard when the next empty hand would have to be a close, is illegal. The
    same check holds in every variant.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="KD")
    play(deal, "take", "meld 3H 4H 5H 6H 7H 8H 9H")
    assert hand(deal, 1) == counter("10S JS QS KS KD")
    assert_illegal(deal, "meld 10S JS QS KS", "one-card pile")
    assert_legal(deal, "meld 10S JS QS")
    assert_illegal(deal, "extend 1 KS", "one-card pile")
    assert_illegal(deal, "discard KD", "one-card pile")
    assert_legal(deal, "discard KS")
    assert hand(deal, 1) == counter("KD") and deal.turn == 0


@TWO
def test_no_dead_end_leaving_only_a_wildcard_before_a_close(v) -> None:
    """RULES.md: «So a meld that leaves only the card just taken from a one-card pile, or only a
    wildcard when the next empty hand would have to be a close, is illegal.»
    seeds/002_29754259bb50d367.txt: «scartando una carta (pozzetto con scarto). In questo caso il
    proprio turno termina e il pozzetto potrà essere giocato solo al giro successivo (si può anche
    scartare una matta);»
    """
    # the line has its pozzetto: the joker could leave only as a closing discard
    deal = closing_position(v)
    assert_illegal(deal, "meld JD QD KD", "only a wildcard")
    # no pozzetto yet: the joker may be the discard that takes it
    deal = dealt(v, {1: "4C 5C 6C 7C 8C 9C 10C JD QD KD JK", 0: IDLE}, up="8H", stock="AD")
    play(deal, "draw", "meld 4C 5C 6C 7C 8C 9C 10C")
    assert_legal(deal, "meld JD QD KD AD")
    assert hand(deal, 1) == counter("JK")
    assert_legal(deal, "discard JK")
    assert deal.view(0).pozzetto_face_down == (0, 11)


# --- six players --------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [IT6, IT6_TRIOS], ids=["pairs", "trios"])
def test_six_players_burraco_before_pozzetto(v) -> None:
    """RULES.md: «6 players, 3 decks: three pairs or two teams of three, one pozzetto of 11 per
    line; a line must have a burraco before it may take its pozzetto.»
    seeds/000_3e163a1ed44a6924.txt: «Si gioca con 3 mazzi di carte e, prima di prendere il
    pozzetto, è necessario aver realizzato un Burraco.»
    """
    deal = dealt(v, {1: "3H 4H 5H 10S JS QS 7D 7C 7S 9H 9C"}, up="8H", stock="9S")
    play(deal, "draw", "meld 3H 4H 5H", "meld 10S JS QS", "meld 7D 7C 7S")
    assert_illegal(deal, "meld 9H 9C 9S", "burraco before")
    assert_legal(deal, "discard 9S")
    # with a burraco the hand may run out into the pozzetto
    deal = dealt(v, {1: RUN}, up="8H", stock="AS", pozzetti=[POZ])
    play(deal, "draw", RUN_MELDS[0])
    assert_legal(deal, RUN_MELDS[1])
    assert hand(deal, 1) == counter(POZ)
    assert deal.view(1).has_pozzetto[v.line_of[1]]


@pytest.mark.parametrize("v", [IT6, IT6_TRIOS], ids=["pairs", "trios"])
def test_six_players_no_pozzetto_by_discard_without_burraco(v) -> None:
    """RULES.md: «6 players, 3 decks: three pairs or two teams of three, one pozzetto of 11 per
    line; a line must have a burraco before it may take its pozzetto.»
    seeds/000_3e163a1ed44a6924.txt: «Si gioca con 3 mazzi di carte e, prima di prendere il
    pozzetto, è necessario aver realizzato un Burraco.»
    """
    deal = dealt(v, {1: "3H 4H 5H 10S JS QS 7D 7C 7S 6H KC"}, up="8H", stock="9S")
    play(deal, "draw", "meld 3H 4H 5H", "meld 10S JS QS", "meld 7D 7C 7S", "extend 1 9S")
    assert hand(deal, 1) == counter("6H KC")
    # the KC could only leave as a discard that takes the pozzetto: not without burraco
    assert_illegal(deal, "extend 0 6H", "cannot end the turn|burraco")
    assert_legal(deal, "discard KC")


# --- three and five players ---------------------------------------------------------------------


def _runs_first(v, runner: int, dealer: int = 0, **extra) -> Deal:
    """Every seat before ``runner`` idles; ``runner`` goes out in diretta and takes the 18."""
    order = [(dealer + 1 + k) % v.players for k in range(v.players)]
    idle = order.index(runner)
    stock = " ".join([*["KD", "QH", "JC", "10D", "9H"][:idle], "AS"])
    deal = dealt(v, {runner: RUN, **extra}, up="8H", stock=stock, dealer=dealer)
    for _ in range(idle):
        idle_turn(deal)
    assert deal.turn == runner
    play(deal, "draw", *RUN_MELDS)
    return deal


@pytest.mark.parametrize("runner", [0, 1, 2])
def test_three_players_the_first_out_plays_alone(runner) -> None:
    """RULES.md: «3 players: pozzetti of 18 and 11. The first to run out takes the 18 and plays
    alone from then on; the other two become partners: from then on they extend each other's melds
    and share the 11 pozzetto (sets of one rank they already hold stay separate), and each scores
    half of their line's total, -100 included, rounded down to a multiple of 5.»
    seeds/000_3e163a1ed44a6924.txt: «chi tra i tre giocatori esaurisce per primo le carte prende
    il pozzetto da 18 carte e continuerà a giocare da solo. Gli altri 2 giocatori, da quel
    momento, diventeranno soci e, alla fine del gioco, cumuleranno i loro punteggi che verranno
    divisi a metà.»
    """
    deal = _runs_first(IT3, runner)
    assert deal.view(runner).hand_sizes[runner] == 18
    assert [len(p) for p in deal.pozzetti] == [11]
    lines = deal.view(0).line_of
    a, b = (runner + 1) % 3, (runner + 2) % 3
    assert lines[a] == lines[b] != lines[runner]
    assert deal.partners(a) == [b] and deal.partners(runner) == []


@pytest.mark.parametrize("runner", [0, 1, 2, 3, 4])
def test_five_players_the_others_pair_up(runner) -> None:
    """RULES.md: «5 players, 3 decks: pozzetti of 18, 11 and 11. The first to run out takes the 18
    and plays alone; with that player at seat s, the others pair as (s+1, s+3) and (s+2, s+4),
    each member scoring half the pair's total.» seeds/000_3e163a1ed44a6924.txt: «Il primo
    giocatore che prenderà il pozzetto giocherà da solo contro gli altri 4 che, a questo punto,
    formeranno due squadre.»
    """
    deal = _runs_first(IT5, runner)
    assert deal.view(runner).hand_sizes[runner] == 18
    assert [len(p) for p in deal.pozzetti] == [11, 11]
    lines = deal.view(0).line_of
    s = runner
    p1 = ((s + 1) % 5, (s + 3) % 5)
    p2 = ((s + 2) % 5, (s + 4) % 5)
    assert lines[p1[0]] == lines[p1[1]]
    assert lines[p2[0]] == lines[p2[1]]
    assert len({lines[s], lines[p1[0]], lines[p2[0]]}) == 3


def test_three_players_partners_extend_each_others_melds() -> None:
    """RULES.md: «The first to run out takes the 18 and plays alone from then on; the other two
    become partners: from then on they extend each other's melds and share the 11 pozzetto (sets
    of one rank they already hold stay separate), and each scores half of their line's total,
    -100 included, rounded down to a multiple of 5.»
    """
    deal = dealt(
        IT3,
        {
            1: RUN,
            2: "5C 6C 7C 9D 9S JK 3D 4D QH KH 10H",
            0: "8C 9C 9C 2S 9D 9S 9H 3S 5S 7D JC",
        },
        up="8H",
        stock="KD QS 4C AS 6D 10C AD",
        pozzetti=["5D 8C"],
    )
    idle_turn(deal)  # seat 1
    play(deal, "draw", "meld 5C 6C 7C", "meld 9D 9S JK", "discard QS")  # seat 2
    play(deal, "draw")  # seat 0: not yet a partner
    assert_illegal(deal, "extend 0 8C", "no meld 0")
    play(deal, "meld 9C 9C 2S", "discard 4C")
    play(deal, "draw", *RUN_MELDS, "discard 5D")  # seat 1 goes out
    assert deal.view(0).line_of[0] == deal.view(0).line_of[2]
    # the pair's sets of 9 stay separate; no third one
    assert [counter(m.cards) for m in deal.line_melds(0)] == [
        counter("5C 6C 7C"),
        counter("9D 9S JK"),
        counter("9C 9C 2S"),
    ]
    idle_turn(deal)  # seat 2
    play(deal, "draw")  # seat 0
    assert_legal(deal, "extend 0 8C")
    assert_illegal(deal, "meld 9D 9S 9H", "two separate sets")
    assert_legal(deal, "extend 1 9D")
    assert_legal(deal, "extend 2 9S")
    assert str(deal.line_melds(2)[0]) == "5C 6C 7C 8C"
    assert [len(m.cards) for m in deal.line_melds(2)] == [4, 4, 4]
    # the player alone extends only their own melds
    play(deal, "discard 10C")
    play(deal, "draw")
    assert [len(m.cards) for m in deal.line_melds(1)] == [7, 5]
    assert_illegal(deal, "extend 2 8C", "no meld 2")


def _finish_by_time_out(deal: Deal) -> None:
    deal.call_time_out()
    while not deal.is_over:
        idle_turn(deal)


def _pair_total(deal: Deal, seats: tuple[int, ...], pozzetto: bool) -> int:
    melds = [c for m in deal.line_melds(seats[0]) for c in m.cards]
    in_hand = [c for s in seats for c in deal.hand(s)]
    return value(melds) - value(in_hand) - (0 if pozzetto else 100)


@pytest.mark.parametrize("drawn", ["KD", "2C"])
def test_three_players_each_partner_scores_half_rounded_down(drawn) -> None:
    """RULES.md: «the other two become partners: from then on they extend each other's melds and
    share the 11 pozzetto (sets of one rank they already hold stay separate), and each scores half
    of their line's total, -100 included, rounded down to a multiple of 5.»
    seeds/000_3e163a1ed44a6924.txt: «Gli altri 2 giocatori, da quel momento, diventeranno soci e,
    alla fine del gioco, cumuleranno i loro punteggi che verranno divisi a metà.»
    """
    deal = dealt(
        IT3,
        {
            1: RUN,
            2: "5C 6C 7C 9D 9S 9H 3D 4D QH KH 10H",
            0: "8C 9C 9C 9D 3S 5S 7D JC 4S 6S KS",
        },
        up="8H",
        stock=f"AS 3H {drawn}",
        pozzetti=["4C 5C 6C 7C 8C 10C JD QD KD JK 8S 8D 3C 3C AH AH AD 6H"],
    )
    play(deal, "draw", *RUN_MELDS, "discard 4C")
    play(deal, "draw", "meld 5C 6C 7C", "meld 9D 9S 9H")
    play(deal, "discard 10H")
    play(deal, "draw", "extend 0 8C", "discard JC")
    _finish_by_time_out(deal)
    score = deal.score()
    pair = _pair_total(deal, (2, 0), pozzetto=False)
    alone = _pair_total(deal, (1,), pozzetto=True) + 200  # its clean burraco 3H..9H
    assert pair % 10 == 5, "the position should make the halving round"
    assert score.points[1] == alone
    assert score.points[2] == score.points[0] == pair // 10 * 5
    assert score.points[0] < pair / 2
    # half of -155 is -77.5, down to -80; half of -165 is -82.5, down to -85
    assert (pair, score.points[0]) == {"KD": (-155, -80), "2C": (-165, -85)}[drawn]
    lines = {ls.seats: ls for ls in score.lines}
    assert lines[(0, 2)].total == pair and lines[(0, 2)].pozzetto_penalty == -100
    assert lines[(1,)].total == alone and lines[(1,)].pozzetto_penalty == 0


def test_three_players_the_pair_shares_the_11() -> None:
    """RULES.md: «The first to run out takes the 18 and plays alone from then on; the other two
    become partners: from then on they extend each other's melds and share the 11 pozzetto (sets
    of one rank they already hold stay separate), and each scores half of their line's total, -100
    included, rounded down to a multiple of 5.» RULES.md: «Each line takes one pozzetto.»
    """
    deal = dealt(
        IT3,
        {
            1: RUN,
            2: "4S 5S 6S 7S 8S 9S 10S 10D JD QD KD",
            0: "3C 4C 5C 6C 7C 8C 9C 10C JH QH KH",
        },
        up="8H",
        stock="AS AD AH",
        pozzetti=["5D"],
    )
    play(deal, "draw", *RUN_MELDS, "discard 5D")  # seat 1: the 18
    play(deal, "draw", "meld 4S 5S 6S 7S 8S 9S 10S")
    assert_legal(deal, "meld 10D JD QD KD AD")  # seat 2: the 11, in diretta
    assert deal.view(2).hand_sizes[2] == 11 and deal.view(0).pozzetti == ()
    play(deal, f"discard {deal.hand(2)[0]}")
    play(deal, "draw", "meld 3C 4C 5C 6C 7C 8C 9C 10C")  # seat 0, the partner
    assert_illegal(deal, "meld JH QH KH AH", "only by closing")
    assert_legal(deal, "meld JH QH KH")
    assert_legal(deal, "discard AH")
    assert deal.is_over and deal.end_reason == "closed" and deal.closer == 0
    score = deal.score()
    pair = _pair_total(deal, (0, 2), pozzetto=True) + 200 + 200 + 100
    assert score.points[0] == score.points[2] == pair // 10 * 5
    assert score.points[1] == _pair_total(deal, (1,), pozzetto=True) + 200


def test_five_players_each_partner_scores_half() -> None:
    """RULES.md: «5 players, 3 decks: pozzetti of 18, 11 and 11. The first to run out takes the 18
    and plays alone; with that player at seat s, the others pair as (s+1, s+3) and (s+2, s+4),
    each member scoring half the pair's total.»
    """
    deal = _runs_first(IT5, 1)
    play(deal, f"discard {deal.hand(1)[0]}")
    _finish_by_time_out(deal)
    score = deal.score()
    for a, b in ((2, 4), (3, 0)):
        total = _pair_total(deal, (a, b), pozzetto=False)
        assert score.points[a] == score.points[b] == total // 10 * 5
    assert score.points[1] == _pair_total(deal, (1,), pozzetto=True) + 200


# --- the end of the stock, the stall, the time-out ----------------------------------------------


def _idle_until_stock(deal: Deal, left: int) -> None:
    while len(deal.stock) > left:
        idle_turn(deal)


@TWO
def test_stock_ends_at_two_cards(v) -> None:
    """RULES.md: «The stock: the deal also ends when only two cards are left in the stock; the
    player who drew the third-last card is the last to play (002). If that player closes, it is a
    normal close; otherwise the deal ends after the discard, with no closing bonus. No one draws
    the last two cards, and a pozzetto nobody took is never used as stock: it stays unseen and its
    line gets -100.» seeds/002_29754259bb50d367.txt: «Una smazzata ha termine anche quando nel
    tallone rimangono solo due carte. Il giocatore che scarta quando rimangono due carte è
    l'ultimo a giocare.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock_bottom="9S 3D 4D")
    _idle_until_stock(deal, 3)
    last = deal.turn
    assert deal.phase == "draw" and not deal.view(0).final_turn
    play(deal, "draw")
    assert len(deal.stock) == 2 and deal.view(0).final_turn
    assert not deal.is_over
    assert_legal(deal, "meld 3H 4H 5H 6H 7H 8H 9H")  # the last turn is a whole turn
    assert_legal(deal, "discard 9S")
    assert deal.is_over and deal.end_reason == "stock" and deal.turn == last
    assert texts(deal.stock) == ["3D", "4D"]
    assert_illegal(deal, "draw", "over")
    score = deal.score()
    assert [ls.closing for ls in score.lines] == [0, 0]
    assert [ls.pozzetto_penalty for ls in score.lines] == [-100, -100]
    assert len(deal.pozzetti) == 2


@TWO
def test_stock_end_close_is_a_normal_close(v) -> None:
    """RULES.md: «The stock: the deal also ends when only two cards are left in the stock; the
    player who drew the third-last card is the last to play (002). If that player closes, it is a
    normal close; otherwise the deal ends after the discard, with no closing bonus.»
    """
    deal = dealt(
        v,
        {1: RUN, 0: IDLE},
        up="8H",
        stock="AS",
        stock_bottom="9S 3D 4D",
        pozzetti=["4C 5C 6C 7C 8C 9C 10C JD QD KD 5S"],
    )
    play(deal, "draw", *RUN_MELDS, "discard 5S")
    _idle_until_stock(deal, 3)
    assert deal.turn == 1 and deal.phase == "draw"
    play(deal, "draw", "meld 4C 5C 6C 7C 8C 9C 10C", "meld JD QD KD")
    assert hand(deal, 1) == counter("9S")
    play(deal, "discard 9S")
    assert deal.is_over and deal.end_reason == "closed" and deal.closer == 1
    line = deal.score().lines[1]
    assert line.closing == 100 and line.pozzetto_penalty == 0


@TWO
def test_stock_end_with_a_pozzetto_taken_by_the_last_discard(v) -> None:
    """RULES.md: «Scoring of a line: card values of all its melded cards, minus the values of the
    cards left in its players' hands (a pozzetto taken and not yet played counts as hand), plus 200
    / 150 / 100 for each clean / semi-clean / dirty burraco, plus 100 for closing, minus 100 if it
    never took its pozzetto.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock_bottom="JK 3D 4D", pozzetti=[POZ])
    _idle_until_stock(deal, 3)
    assert deal.turn == 1
    play(deal, "draw", RUN_MELDS[0], "meld 10S JS QS KS", "discard JK")
    assert deal.is_over and deal.end_reason == "stock"
    line = deal.score().lines[1]
    assert line.in_hand == -value(POZ)
    assert line.pozzetto_penalty == 0 and line.closing == 0
    assert line.melded == value("3H 4H 5H 6H 7H 8H 9H 10S JS QS KS")


def _take_and_discard(deal: Deal, card: str) -> None:
    play(deal, "take", f"discard {card}")


STALL = """RULES.md: «Stall *(decision, the federation's "stallo")*: if three whole rounds of turns
    pass in a row in which nobody draws from the stock and nobody lays down or extends a meld, the
    deal ends as at the stock's end (option `stall_rounds`, default 3; 0 turns the rule off).»"""


def _quiet_turns(deal: Deal, discards: str) -> None:
    """Each player on turn takes the pile and discards the next card of ``discards``."""
    for card in discards.split():
        assert not deal.is_over
        _take_and_discard(deal, card)


@TWO
def test_stall_ends_the_deal(v) -> None:
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    _quiet_turns(deal, "KS QC JS KC")
    # Two quiet rounds are normal play: the deal goes on.
    assert not deal.is_over
    _quiet_turns(deal, "10S AD")
    assert deal.is_over and deal.end_reason == "stall"
    score = deal.score()
    assert [ls.closing for ls in score.lines] == [0, 0]
    assert [ls.pozzetto_penalty for ls in score.lines] == [-100, -100]
    # a meld starts the count again
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    play(deal, "take", "meld 3H 4H 5H", "discard KS")
    _quiet_turns(deal, "QC JS KC 10S AD")
    assert not deal.is_over
    _take_and_discard(deal, "9C")
    assert deal.is_over and deal.end_reason == "stall"
    # so does a draw from the stock
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    idle_turn(deal)
    _quiet_turns(deal, "QC KS KC JS AD")
    assert not deal.is_over


test_stall_ends_the_deal.__doc__ = STALL


@TWO
def test_stall_rounds_is_an_option(v) -> None:
    one = dataclasses.replace(v, stall_rounds=1)
    deal = dealt(one, {1: RUN, 0: IDLE}, up="9C")
    _quiet_turns(deal, "KS")
    assert not deal.is_over
    _quiet_turns(deal, "QC")
    assert deal.is_over and deal.end_reason == "stall"
    never = dataclasses.replace(v, stall_rounds=0)
    deal = dealt(never, {1: RUN, 0: IDLE}, up="9C")
    _quiet_turns(deal, "KS QC JS KC 10S AD QS 3D")
    assert not deal.is_over


test_stall_rounds_is_an_option.__doc__ = STALL


@FOUR
def test_stall_needs_whole_rounds(v) -> None:
    one = dataclasses.replace(v, stall_rounds=1)
    deal = dealt(one, {1: RUN, 2: IDLE, 3: "3S 4S 5S 6S 7S 8S 9S 10H JH QH KH", 0: "2D"}, up="9C")
    _quiet_turns(deal, "KS QC KH")
    assert not deal.is_over
    _take_and_discard(deal, "2D")
    assert deal.is_over and deal.end_reason == "stall"


test_stall_needs_whole_rounds.__doc__ = STALL


@TWO
def test_time_out_before_drawing(v) -> None:
    """RULES.md: «At the time-out *(decision, how we read 000's "il giro parte dal compagno del
    giocatore che deve pescare")*: if the player on turn has already drawn, that player finishes
    the turn and then every other player plays exactly one more turn; if not, every player,
    starting with the one on turn, plays exactly one more turn.» RULES.md: «If nobody closes, the
    deal ends with no closing bonus and -100 to lines without their pozzetto.»
    seeds/000_3e163a1ed44a6924.txt: «All’annuncio del time-out, il giro parte dal compagno del
    giocatore che deve pescare e, se il giro è stato effettuato senza che sia avvenuta la
    chiusura, nessuno si accrediterà i 100 punti e verranno detratti 100 punti alle coppie che non
    sono andate al pozzetto.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    deal.call_time_out()
    idle_turn(deal)
    assert not deal.is_over
    idle_turn(deal)
    assert deal.is_over and deal.end_reason == "time-out"
    score = deal.score()
    assert [ls.closing for ls in score.lines] == [0, 0]
    assert [ls.pozzetto_penalty for ls in score.lines] == [-100, -100]
    assert score.lines[0].total == -value(IDLE) - 100
    assert score.lines[1].total == -value(RUN) - 100


@TWO
def test_time_out_after_drawing(v) -> None:
    """RULES.md: «At the time-out *(decision, how we read 000's "il giro parte dal compagno del
    giocatore che deve pescare")*: if the player on turn has already drawn, that player finishes
    the turn and then every other player plays exactly one more turn; if not, every player,
    starting with the one on turn, plays exactly one more turn.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="5D")
    play(deal, "draw")
    deal.call_time_out()
    play(deal, "discard 5D")
    assert not deal.is_over
    idle_turn(deal)
    assert deal.is_over and deal.end_reason == "time-out"


@FOUR
@pytest.mark.parametrize("drawn", [False, True])
def test_time_out_four_players(v, drawn) -> None:
    """RULES.md: «if the player on turn has already drawn, that player finishes the turn and then
    every other player plays exactly one more turn; if not, every player, starting with the one on
    turn, plays exactly one more turn.»
    """
    deal = dealt(v, {1: RUN, 3: IDLE}, up="9C")
    idle_turn(deal)
    idle_turn(deal)
    assert deal.turn == 3
    if drawn:
        before = deal.hand(3)
        play(deal, "draw")
        deal.call_time_out()
        play(deal, f"discard {drawn_card(before, deal.hand(3))}")
    else:
        deal.call_time_out()
        idle_turn(deal)
    for seat in (0, 1):
        assert deal.turn == seat and not deal.is_over
        idle_turn(deal)
    assert deal.turn == 2 and not deal.is_over
    idle_turn(deal)
    assert deal.is_over and deal.end_reason == "time-out" and deal.turn == 2


@TWO
def test_time_out_close_scores_normally(v) -> None:
    """RULES.md: «A close in those turns scores normally. If nobody closes, the deal ends with no
    closing bonus and -100 to lines without their pozzetto.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock="AS", pozzetti=[POZ])
    deal.call_time_out()
    play(deal, "draw", *RUN_MELDS, "meld 4C 5C 6C 7C 8C 9C 10C", "meld JD QD JK", "discard KD")
    assert deal.is_over and deal.end_reason == "closed"
    assert deal.score().lines[1].closing == 100
    # without a close, the line that took its pozzetto is not charged
    deal = dealt(v, {1: RUN, 0: IDLE}, up="8H", stock="AS", pozzetti=[POZ])
    play(deal, "draw", *RUN_MELDS, "discard KD")
    deal.call_time_out()
    idle_turn(deal)
    idle_turn(deal)
    assert deal.is_over and deal.end_reason == "time-out"
    lines = deal.score().lines
    assert [ls.pozzetto_penalty for ls in lines] == [-100, 0]
    assert [ls.closing for ls in lines] == [0, 0]


@TWO
def test_time_out_called_once(v) -> None:
    """RULES.md: «Tournament deals have a time limit (15 minutes).» seeds/000_3e163a1ed44a6924.txt:
    «questo tempo viene fissato in 15 minuti per ciascuna smazzata.»
    """
    assert v.deal_minutes == 15
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C")
    deal.call_time_out()
    before = snapshot(deal)
    with pytest.raises(IllegalMove, match="already"):
        deal.call_time_out()
    assert snapshot(deal) == before
    idle_turn(deal)
    idle_turn(deal)
    with pytest.raises(IllegalMove, match="over"):
        deal.call_time_out()


# --- scoring ------------------------------------------------------------------------------------


@TWO
def test_score_breakdown_of_a_close(v) -> None:
    """RULES.md: «Scoring of a line: card values of all its melded cards, minus the values of the
    cards left in its players' hands (a pozzetto taken and not yet played counts as hand), plus 200
    / 150 / 100 for each clean / semi-clean / dirty burraco, plus 100 for closing, minus 100 if it
    never took its pozzetto.» seeds/002_29754259bb50d367.txt: «Si sommano tutti i punti delle
    carte appoggiate dalla linea e si detrae la somma di tutti i punti delle carte rimaste in mano
    ai componenti della linea.» seeds/000_3e163a1ed44a6924.txt: «Il giocatore avversario di chi ha
    chiuso la smazzata dovrà inoltre conteggiare negativamente le carte rimaste in mano, non
    giocate.»
    """
    deal = closing_position(v)
    play(deal, "meld JD QD JK", "discard KD")
    score = deal.score()
    closer, other = score.lines[1], score.lines[0]
    melded = "3H 4H 5H 6H 7H 8H 9H 10S JS QS KS AS 4C 5C 6C 7C 8C 9C 10C JD QD JK"
    assert closer.seats == (1,) and other.seats == (0,)
    assert closer.melded == value(melded) == 200
    assert closer.in_hand == 0
    assert sorted(closer.burracos) == [("clean", 200), ("clean", 200)]
    assert closer.closing == 100 and closer.pozzetto_penalty == 0
    assert closer.total == 200 + 400 + 100 == 700
    assert other.melded == 0 and other.in_hand == -value(IDLE) == -90
    assert other.burracos == () and other.closing == 0 and other.pozzetto_penalty == -100
    assert other.total == -190
    assert score.points == (-190, 700)
    assert score.end_reason == "closed" and score.closer == 1


@TWO
def test_score_of_semi_clean_and_dirty_burracos(v) -> None:
    """RULES.md: «Scoring of a line: card values of all its melded cards, minus the values of the
    cards left in its players' hands (a pozzetto taken and not yet played counts as hand), plus 200
    / 150 / 100 for each clean / semi-clean / dirty burraco, plus 100 for closing, minus 100 if it
    never took its pozzetto.» seeds/002_29754259bb50d367.txt: «si sommano 150 punti per ogni
    Burraco semi pulito;» seeds/002_29754259bb50d367.txt: «si sommano 100 punti per ogni Burraco
    sporco;»
    """
    semi = "JK 4H 5H 6H 7H 8H 9H 10H"
    deal = dealt(v, {1: semi + " 5S 6S KC", 0: IDLE}, up="9C", stock="8S")
    play(deal, "draw", f"meld {semi}")
    line = deal.score().lines[1]
    assert line.burracos == (("semi-clean", 150),)
    assert line.melded == value(semi) and line.in_hand == -value("5S 6S KC 8S")
    assert line.total == value(semi) - value("5S 6S KC 8S") + 150 - 100
    dirty = "4H 5H 6H JK 8H 9H 10H"
    deal = dealt(v, {1: dirty + " 3S 4S 5S 9C", 0: IDLE}, up="9D", stock="KC")
    play(deal, "draw", f"meld {dirty}")
    line = deal.score().lines[1]
    assert line.burracos == (("dirty", 100),)
    assert line.total == value(dirty) - value("3S 4S 5S 9C KC") + 100 - 100


@TWO
def test_score_counts_a_face_down_pozzetto_as_hand(v) -> None:
    """RULES.md: «Scoring of a line: card values of all its melded cards, minus the values of the
    cards left in its players' hands (a pozzetto taken and not yet played counts as hand), plus 200
    / 150 / 100 for each clean / semi-clean / dirty burraco, plus 100 for closing, minus 100 if it
    never took its pozzetto.» seeds/003_0008042f6f6a3b44.txt: «Al giocatore che non ha ancora preso
    il pozzetto al momento della fine della partita vengono sottratti ulteriori 100 punti.»
    """
    deal = dealt(v, {1: RUN, 0: IDLE}, up="9C", stock="JK", pozzetti=[POZ])
    play(deal, "draw", RUN_MELDS[0], "meld 10S JS QS KS", "discard JK")
    line = deal.score().lines[1]
    assert line.in_hand == -value(POZ)
    assert line.pozzetto_penalty == 0
    assert deal.score().lines[0].pozzetto_penalty == -100


# --- views --------------------------------------------------------------------------------------


@TWO
def test_view_hides_other_hands_and_the_stock(v) -> None:
    """RULES.md: «Optional rule (002): pairs playing with open hands, each partner seeing the other's
    cards.» seeds/002_29754259bb50d367.txt: «Saranno proposte partite a coppie nelle quali i
    compagni, senza essere visti dagli avversari, giocano a carte scoperte.»
    seeds/002_29754259bb50d367.txt: «forma i pozzetti (ovvero due mazzetti da 11 carte ciascuno)
    prelevando una carta alla volta da fondo mazzo; posiziona le rimanenti carte coperte a centro
    tavolo (il tallone).» seeds/003_0008042f6f6a3b44.txt: «Si sistemano sul tavolo uno sull’altro,
    coperti, a formare una croce.»

    Without the option a seat sees its own hand only: not the other hands, not the stock, not
    the pozzetti (two deals that differ only there look the same to it).
    """
    a = dealt(v, {0: IDLE, 1: RUN}, up="9C", stock="AS 5D")
    b = dealt(v, {0: IDLE, 1: "3D 4D 5D 6D 7D 8D 9D 10C JC QC KS"}, up="9C", stock="AD 5D")
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)
    assert tuple(a.view(0).hand) == tuple(a.hand(0))
    for deal in (a, b):
        play(deal, "draw", "discard KS")
    assert a.view(0) == b.view(0)
    view = a.view(0)
    assert view.hand_sizes == (11, 11) and view.stock_size == 62
    assert view.pozzetti == (11, 11) and view.partner_hands == ()


@TWO
def test_view_hides_a_face_down_pozzetto(v) -> None:
    """RULES.md: «if by a discard (con scarto; a wildcard may be discarded then), the turn ends,
    the pozzetto stays face down and unseen until the partner's discard (with no partner: until
    the player's next turn), and the player plays it from the next turn (000).»
    """
    other = "4D 5D 6D 7D 8D 9D 10D JC QC KC 5S"
    decks = [
        dealt(v, {0: IDLE, 1: RUN}, up="9C", stock="JK 5H", pozzetti=[poz, "AH"])
        for poz in (POZ, other)
    ]
    for deal in decks:
        play(deal, "draw", RUN_MELDS[0], "meld 10S JS QS KS", "discard JK")
    a, b = decks
    assert [a.view(s) for s in (0, 1)] == [b.view(s) for s in (0, 1)]
    for deal in decks:
        play(deal, "draw")
    assert [a.view(s) for s in (0, 1)] == [b.view(s) for s in (0, 1)]
    for deal in decks:
        play(deal, "discard 5H")
    assert a.view(0) == b.view(0)
    assert counter(a.view(1).hand) == counter(POZ)
    assert counter(b.view(1).hand) == counter(other)


def test_open_hands_show_the_partners_hand() -> None:
    """RULES.md: «Optional rule (002): pairs playing with open hands, each partner seeing the other's
    cards.» seeds/002_29754259bb50d367.txt: «Saranno proposte partite a coppie nelle quali i
    compagni, senza essere visti dagli avversari, giocano a carte scoperte.»
    """
    opened = variant("online", players=4, open_hands=True)
    two = "3C 4C 6C 8C 10C QC AC 3S 5S 7S 9S"

    def seats(v, one: str, partner: str) -> Deal:
        return dealt(v, {0: IDLE, 1: one, 2: partner, 3: "JD"}, up="9C", stock="5D")

    deal = seats(opened, RUN, two)
    view = deal.view(0)
    assert [(s, counter(h)) for s, h in view.partner_hands] == [(2, counter(two))]
    assert [s for s, _ in deal.view(1).partner_hands] == [3]
    # opponents' hands stay hidden, the partner's shows
    changed_opponent = seats(opened, "3D 4D 5D 6D 7D 8D 9D 10D JS QS KS", two)
    assert changed_opponent.view(0) == view
    changed_partner = seats(opened, RUN, "3C 4C 6C 8C 10C QC AC 3S 5S 7S 10S")
    assert changed_partner.view(0) != view
    # without the option the partner's hand is hidden too
    closed = seats(ON4, RUN, two)
    assert closed.view(0).partner_hands == ()
    assert seats(ON4, RUN, "3C 4C 6C 8C 10C QC AC 3S 5S 7S 10S").view(0) == closed.view(0)


# --- matches ------------------------------------------------------------------------------------


def _match_idle_turn(match: Match) -> None:
    seat = match.turn
    before = match.deal.hand(seat)
    match.apply("draw")
    match.apply(f"discard {drawn_card(before, match.deal.hand(seat))}")


def _finish_deal(match: Match) -> None:
    """Time-out, then every player draws and discards once."""
    count = len(match.scores)
    match.call_time_out()
    while len(match.scores) == count:
        _match_idle_turn(match)


#: Two hands of 85 points each, with no meld in them.
EVEN_A = "3H 5H 7H 9H JH KH 4D 6D 8D 10D QD"
EVEN_B = "3S 5S 7S 9S JS KS 4C 6C 8C 10C QC"
#: 150 points, no sequence.
HEAVY = "AH AH AD AD AS AS AC AC KH QH JD"


def _order(v, dealer: int, seat_hands: dict[int, str]) -> list[Card]:
    return stacked(v, seat_hands, up="9D", stock="5H 7C 3C 9C 6S 8S", dealer=dealer)


def test_dealer_rotation() -> None:
    """RULES.md: «The first dealer is drawn at random; the deal then passes to the next player in
    turn order *(decision: the sources turn the table in different directions; turn order is the
    seat order, and which way it turns on screen is only drawing)*.»
    seeds/002_29754259bb50d367.txt: «Quando il gioco ha inizio, il mazziere viene stabilito
    casualmente dal sistema.»
    """
    v = variant("italian", players=4, deals=5)
    match = Match(v, seed=1, first_dealer=2)
    dealers = []
    for _ in range(5):
        dealers.append(match.deal.dealer)
        assert match.deal.turn == (match.deal.dealer + 1) % 4
        _finish_deal(match)
    assert dealers == [2, 3, 0, 1, 2]
    assert match.is_over
    firsts = {Match(v, seed=s).first_dealer for s in range(40)}
    assert firsts == {0, 1, 2, 3}


def test_a_match_of_a_number_of_deals() -> None:
    """RULES.md: «A match is a number of deals (highest total wins; a level end is a draw) or a
    points target (2005 for `italian`): reaching or passing it ends the match after that deal, and
    the highest total wins; level at the top, another deal.» seeds/002_29754259bb50d367.txt: «Vince
    la partita chi fa più punti al termine delle smazzate previste.»
    """
    v = variant("online", deals=3)
    assert ONLINE.deals == 3 and ONLINE.target is None
    orders = [
        _order(v, 0, {1: EVEN_A, 0: EVEN_B}),
        _order(v, 1, {0: EVEN_A, 1: EVEN_B}),
        _order(v, 0, {1: HEAVY, 0: EVEN_B}),
    ]
    match = Match(v, first_dealer=0, deck_orders=orders)
    for k in range(3):
        assert not match.is_over and len(match.deals) == k + 1
        _finish_deal(match)
    assert match.is_over and len(match.deals) == 3
    assert match.score() == (-555, -185 - 185 - 250)
    assert match.winner() == 0
    with pytest.raises(IllegalMove, match="over"):
        match.apply("draw")
    # level at the end: a draw
    level = Match(v, first_dealer=0, deck_orders=orders[:2] + orders[:1])
    for _ in range(3):
        _finish_deal(level)
    assert level.is_over and level.score() == (-555, -555) and level.winner() is None


def test_target_2005_and_a_tie_at_the_top() -> None:
    """RULES.md: «A match is a number of deals (highest total wins; a level end is a draw) or a
    points target (2005 for `italian`): reaching or passing it ends the match after that deal, and
    the highest total wins; level at the top, another deal.» seeds/003_0008042f6f6a3b44.txt: «A
    vincere è il giocatore che ottiene per primo 2005 punti: pertanto solitamente la partita si
    compone di più mani da giocare.»
    """
    assert IT.target == 2005 and IT.deals is None
    even = [_order(IT, d, {(d + 1) % 2: EVEN_A, d: EVEN_B}) for d in (0, 1, 0)]
    # totals carried from earlier deals; each even deal costs both lines 185
    orders = [even[0], _order(IT, 1, {0: EVEN_A, 1: HEAVY})]
    match = Match(IT, first_dealer=0, deck_orders=orders)
    match.totals = [2400, 2400]
    _finish_deal(match)
    assert match.score() == (2215, 2215)
    assert not match.is_over and len(match.deals) == 2  # level at the top: another deal
    _finish_deal(match)
    assert match.score() == (2030, 1965)
    assert match.is_over and match.winner() == 0
    # reaching 2005 exactly ends it; 2000 does not
    match = Match(IT, first_dealer=0, deck_orders=even)
    match.totals = [2190, 1000]
    _finish_deal(match)
    assert match.score() == (2005, 815) and match.is_over and match.winner() == 0
    match = Match(IT, first_dealer=0, deck_orders=even)
    match.totals = [2185, 1000]
    _finish_deal(match)
    assert match.score() == (2000, 815) and not match.is_over


@pytest.mark.parametrize("dealer", [0, 1])
def test_knock_out_tie_is_lost_by_the_last_mover(dealer) -> None:
    """RULES.md: «In knock-out matches a tie is lost by the line that made the last move of the last
    deal (002).» seeds/002_29754259bb50d367.txt: «Solo nei tornei a eliminazione diretta (KO), in
    caso di parità di punti, **perde** chi ha fatto l'ultima mossa dell'ultima smazzata.»
    """
    v = variant("online", deals=1)
    order = _order(v, dealer, {(dealer + 1) % 2: EVEN_A, dealer: EVEN_B})
    ko = Match(v, first_dealer=dealer, deck_orders=[order], knockout=True)
    _finish_deal(ko)
    last_mover = ko.deal.turn
    assert last_mover == dealer  # the dealer plays last in the time-out round
    assert ko.is_over and ko.score()[0] == ko.score()[1]
    assert ko.winner() == 1 - v.line_of[last_mover]
    plain = Match(v, first_dealer=dealer, deck_orders=[order])
    _finish_deal(plain)
    assert plain.is_over and plain.winner() is None
    # a points match in knock-out: the tie at the top ends it, lost by the last mover
    target = Match(IT, first_dealer=dealer, deck_orders=[order, order], knockout=True)
    target.totals = [2400, 2400]
    _finish_deal(target)
    assert target.is_over and target.winner() == 1 - dealer


def _vp(difference: int) -> int:
    """The winner's VP for an MP difference, from 000's table as RULES.md gives it."""
    for end, vp in [(50, 10), (150, 11), (250, 12), (350, 13), (500, 14), (650, 15)]:
        if difference <= end:
            return vp
    return 16


def test_abandonment() -> None:
    """RULES.md: «A player whose clock runs out, or who abandons, loses (002): the base score is
    the totals of the completed deals; d = (other line + 350) - leaver, at least 0. One-off games:
    VP 20 / 0. With a VP table: the other line gets the higher of 14 and the VP for d, the leaver
    0; the other line's MP is the lower end of its VP band (355 for 14), the leaver's minus that.»
    seeds/002_29754259bb50d367.txt: «Se un giocatore fa scadere il tempo massimo o il timeout o
    clicca sul tasto “abbandona” la partita ha termine e il giocatore **perde la partita** e la
    differenza punti è così stabilita:» seeds/002_29754259bb50d367.txt: «Al fine del calcolo dei MP
    e VP, la linea che fa scadere il timeout o abbandona farà 0 VP e la linea avversaria farà
    minimo 14 VP.»
    """
    v = variant("online", deals=3)
    orders = [_order(v, 0, {1: HEAVY, 0: EVEN_B}), _order(v, 1, {0: EVEN_A, 1: EVEN_B})]
    match = Match(v, first_dealer=0, deck_orders=orders)
    _finish_deal(match)
    assert match.score() == (-185, -250)
    # seat 1's line abandons mid-deal: the deal in play does not count
    _match_idle_turn(match)
    result = match.abandon(1)
    d = max(0, (-185 + 350) - (-250))
    assert result.difference == d == 415
    assert result.other_vp == max(14, _vp(d)) == 14 and result.leaver_vp == 0
    assert result.other_mp == 355 and result.leaver_mp == -355
    assert match.is_over and match.winner() == 0
    assert match.victory_points() == (14, 0)
    with pytest.raises(IllegalMove, match="over"):
        match.abandon(0)
    with pytest.raises(IllegalMove, match="over"):
        match.apply("draw")
    # the leader may abandon too, and still loses
    match = Match(v, first_dealer=0, deck_orders=orders)
    _finish_deal(match)
    result = match.abandon(0)
    assert result.difference == max(0, (-250 + 350) - (-185)) == 285
    assert match.winner() == 1 and match.victory_points() == (0, 14)


#: A third hand of 85 points with no meld in it.
EVEN_C = "3D 5D 7D 9D JD KD 4H 6H 8H 10H QH"


@pytest.mark.parametrize(("totals", "second"), [((1200, 1200, 1200), 2), ((1200, 1200, 1180), 1)])
def test_three_player_match_goes_to_three_pozzetti_of_11(totals, second) -> None:
    """RULES.md: «Once all three have 1000 points, deals go back to three players alone with three
    pozzetti of 11.» seeds/000_3e163a1ed44a6924.txt: «Quando i tre giocatori raggiungeranno i 1000
    punti ciascuno, torneranno a giocare singolarmente con 3 pozzetti da 11 carte.»
    """
    orders = [
        _order(IT3, 0, {1: EVEN_A, 2: EVEN_B, 0: EVEN_C}),
        _order(IT3, 1, {2: EVEN_A, 0: EVEN_B, 1: EVEN_C}),
    ]
    match = Match(IT3, first_dealer=0, deck_orders=orders)
    assert [len(p) for p in match.deal.pozzetti] == [18, 11]
    match.totals = list(totals)  # carried from earlier deals
    _finish_deal(match)
    assert match.score() == tuple(t - 185 for t in totals)
    sizes = [11, 11, 11] if second == 2 else [18, 11]
    assert [len(p) for p in match.deal.pozzetti] == sizes


@pytest.mark.parametrize(("leader", "second"), [(1190, 2), (1185, 1)])
def test_five_player_match_goes_individual_at_1005(leader, second) -> None:
    """RULES.md: «Once a player reaches 1005, play is individual with five pozzetti of 11 until
    someone reaches 2005, who wins.» seeds/000_3e163a1ed44a6924.txt: «Quando uno dei giocatori
    raggiungerà il punteggio di 1005, il gioco tornerà ad essere individuale, quindi, uno contro
    l’altro fino al raggiungimento di 2005 punti, che determina la fine della partita e la
    proclamazione del vincitore.»
    """
    assert IT5.target == 2005
    order = _order(IT5, 0, {0: EVEN_A})
    match = Match(IT5, first_dealer=0, deck_orders=[order, order])
    match.totals = [leader, 0, 0, 0, 0]  # carried from earlier deals
    _finish_deal(match)
    assert match.score()[0] == leader - 185
    sizes = [11] * 5 if second == 2 else [18, 11, 11]
    assert [len(p) for p in match.deal.pozzetti] == sizes
