"""Rule tests for the ``buraco`` variant (Brazilian Buraco).

Sources: ``seeds/001_a04018f778fd3b05.txt`` (Portuguese) and ``RULES.md`` ("Buraco (`buraco`,
001)"). Each test quotes the sentence it checks, written ``FILE: «sentence»``; the last test
checks that every quote is verbatim. Positions are dealt by hand from a whole deck order (see
``positions_bc.py``): two players unless said otherwise, seat 0 deals and plays first.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

import pytest
from positions_bc import (
    assert_holds,
    buraco_order,
    check_quotes,
    hand_text,
    illegal,
    legal,
    snapshot,
    sorted_text,
)

from burraco import (
    Action,
    Deal,
    IllegalMove,
    RuleError,
    SetupError,
    card_points,
    check_meld,
    deck,
    extend_meld,
    parse_card,
    parse_cards,
    read_meld,
    variant,
)
from burraco.match import Match

V = variant("buraco")


def new(hands, stock="", *, v=V, dealer=0, minimum=None) -> Deal:
    """A buraco deal with these hands (by seat) and this stock (top first)."""
    order = buraco_order(v, hands, stock, dealer=dealer)
    deal = Deal.from_deck(v, order, dealer=dealer, minimum=minimum)
    items = hands.items() if isinstance(hands, dict) else enumerate(hands)
    for seat, hand in items:
        assert_holds(deal, seat, hand)
    return deal


def texts(deal: Deal) -> list[str]:
    return [str(a) for a in deal.legal_actions()]


def meld_text(deal: Deal, line: int, index: int) -> str:
    return str(deal.view(0).melds[line][index])


def line_score(deal: Deal, line: int):
    return next(ls for ls in deal.score().lines if ls.line == line)


def hand_points(deal: Deal, seat: int) -> int:
    return sum(card_points(c, deal.v) for c in deal.hand(seat))


# --- the cards and the deal ---------------------------------------------------------------


def test_deck_is_104_cards_without_jokers():
    """seeds/001_a04018f778fd3b05.txt: «Baralho: São utilizados dois baralhos franceses de 52
    cartas cada, sem os curingas, e embaralhados juntos, totalizando 104 cartas.»

    RULES.md: «104 cards, 11 each, no pozzetto, no up-card: the pile starts with the dealer's
    first discard.»
    """
    assert (V.decks, V.jokers, V.deck_size) == (2, 0, 104)
    cards = deck(V.decks, V.jokers)
    assert len(cards) == 104
    assert Counter(cards) == {c: 2 for c in range(52)}
    # Illegal side: a deck order with jokers is not a buraco deck.
    with pytest.raises(RuleError, match="104"):
        Deal.from_deck(V, deck(2, 4))


SETUPS = [(2, 2), (3, 3), (4, 4), (4, 2), (6, 2)]


@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.parametrize(("players", "lines"), SETUPS)
def test_deal_is_11_each_no_pozzetto_no_up_card(players, lines, dealer):
    """seeds/001_a04018f778fd3b05.txt: «Após o corte, as cartas são distribuídas em sentido
    horário, uma a uma ou duas a duas, começando pelo jogador à esquerda do carteador, até que
    cada jogador tenha 11 cartas em sua mão. As demais cartas formarão o Maço, que ficará no
    centro da mesa.»

    RULES.md: «104 cards, 11 each, no pozzetto, no up-card: the pile starts with the dealer's
    first discard.»
    """
    v = variant("buraco", players=players, lines=lines)
    pool = sorted(deck(2, 0))
    hands = [pool[11 * s : 11 * s + 11] for s in range(players)]
    order = buraco_order(v, hands, "KC", dealer=dealer)
    deal = Deal.from_deck(v, order, dealer=dealer)
    # The helper: every seat holds exactly the hand asked for.
    for seat in range(players):
        assert hand_text(deal, seat) == sorted_text(hands[seat])
    view = deal.view(dealer)
    assert view.hand_sizes == (11,) * players
    assert view.pozzetti == ()
    assert view.pile == ()
    assert view.stock_size == 104 - 11 * players
    # The first card of the stock is the one after the dealt cards.
    legal(deal, "draw")
    assert Counter(deal.hand(dealer)) - Counter(hands[dealer]) == Counter([parse_card("KC")])


def test_the_dealer_plays_first_and_must_draw_first():
    """seeds/001_a04018f778fd3b05.txt: «O Jogo: O primeiro a jogar é o carteador.»

    seeds/001_a04018f778fd3b05.txt: «Um jogador não pode iniciar sua vez de jogar sem
    comprar.»

    seeds/001_a04018f778fd3b05.txt: «Após o carteador descartar para o Bagaço, será a vez do
    jogador à sua esquerda jogar.»

    RULES.md: «The dealer plays first and, on that first turn only, may put the card just drawn
    face up as the first pile card and draw again; then plays on and discards normally.»
    """
    v = variant("buraco", players=3)
    deal = new({1: "3S 4S 5S 9H 9C"}, "KD", v=v, dealer=1)
    assert (deal.turn, deal.phase) == (1, "draw")
    assert texts(deal) == ["draw"]
    illegal(deal, "take", "pile is empty")
    illegal(deal, "meld 3S 4S 5S", "draw")
    illegal(deal, "discard 9H", "draw")
    legal(deal, "draw")
    assert deal.turn == 1
    legal(deal, "discard KD")
    assert deal.view(0).pile == (parse_card("KD"),)
    assert (deal.turn, deal.phase) == (2, "draw")


def test_the_dealer_may_redraw_once_right_after_the_first_draw():
    """seeds/001_a04018f778fd3b05.txt: «Nesta sua primeira jogada, se desejar, o carteador
    poderá colocar no Bagaço a carta que acabou de comprar e comprar uma segunda carta. Mas
    atenção: Somente o carteador pode fazer isto, somente nesta sua primeira jogada, e somente
    uma vez.»

    RULES.md: «The dealer plays first and, on that first turn only, may put the card just drawn
    face up as the first pile card and draw again; then plays on and discards normally.»
    """
    hand = "3S 4S 5S 6S 7S 9H 9C 10D JD QC KH"
    deal = new([hand], "KD 5C QH")
    legal(deal, "draw")
    assert "redraw" in texts(deal)
    legal(deal, "redraw")
    view = deal.view(0)
    assert view.pile == (parse_card("KD"),)
    assert hand_text(deal, 0) == sorted_text(hand + " 5C")
    assert view.phase == "play" and view.turn == 0
    # Only once.
    illegal(deal, "redraw", "once")
    # Then the turn goes on as usual: melds, and a discard on top of the first pile card.
    legal(deal, "meld 3S 4S 5S")
    legal(deal, "discard 5C")
    assert deal.view(1).pile == (parse_card("KD"), parse_card("5C"))
    assert deal.turn == 1


def test_the_redraw_comes_right_after_the_draw():
    """seeds/001_a04018f778fd3b05.txt: «Nesta sua primeira jogada, se desejar, o carteador
    poderá colocar no Bagaço a carta que acabou de comprar e comprar uma segunda carta.»

    RULES.md: «on that first turn only, may put the card just drawn face up as the first pile
    card and draw again»
    """
    deal = new(["3S 4S 5S 6S 7S 9H 9C 10D JD QC KH"], "KD 5C")
    illegal(deal, "redraw", "draw")  # nothing drawn yet
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S")
    illegal(deal, "redraw", "right after the first draw")


def test_only_the_dealer_on_the_first_turn_may_redraw():
    """seeds/001_a04018f778fd3b05.txt: «Mas atenção: Somente o carteador pode fazer isto,
    somente nesta sua primeira jogada, e somente uma vez.»

    RULES.md: «The dealer plays first and, on that first turn only, may put the card just drawn
    face up as the first pile card and draw again»
    """
    deal = new(
        ["3S 4S 5S 6S 7S 9H 9C 10D JD QC KH", "3H 4H 5H 6H 7H 9S 9D 10C JC QD KS"], "KD 5C QH 8C"
    )
    legal(deal, "draw")
    legal(deal, "discard KD")
    legal(deal, "draw")  # seat 1, not the dealer
    illegal(deal, "redraw", "only the dealer")
    legal(deal, "discard 5C")
    legal(deal, "draw")  # the dealer again, on a later turn
    illegal(deal, "redraw", "only the dealer")


# --- melds --------------------------------------------------------------------------------


def test_twos_are_the_only_wildcards_one_in_a_meld():
    """seeds/001_a04018f778fd3b05.txt: «Além de ser menor que o 3, o 2 também serve como
    curinga, substituindo qualquer carta em uma Combinação.»

    RULES.md: «2s are the only wildcards, one in a meld *(decision; option: no limit)*.»
    """
    deal = new(["5H 6H 7H 2C 2S 9S 9H QS QH QD 4D"], "KC")
    legal(deal, "draw")
    listed = texts(deal)
    for ok in ("meld 5H 6H 2C", "meld 5H 7H 2C", "meld 9S 9H 2C", "meld QS QH QD 2S"):
        assert str(Action.parse(ok)) in listed
    assert check_meld("9S 9H 2C", V).meld.wilds == (parse_card("2C"),)
    illegal(deal, "meld 5H 6H 7H 2C 2S", "one wildcard")
    illegal(deal, "meld 9S 9H 2C 2S", "one wildcard")
    illegal(deal, "meld QS QH QD 2C 2S", "one wildcard")
    legal(deal, "meld 5H 6H 7H 2C")
    assert meld_text(deal, 0, 0) == "2C 5H 6H 7H"
    illegal(deal, "extend 0 2S", "one wildcard")


def test_a_two_in_its_natural_place_is_no_wildcard():
    """RULES.md: «A 2 standing in its natural place in a sequence of its own suit (`AH 2H 3H`,
    `2H 3H 4H`) is a natural card, not a wildcard.»

    seeds/001_a04018f778fd3b05.txt: «Além de ser menor que o 3, o 2 também serve como curinga,
    substituindo qualquer carta em uma Combinação.»
    """
    deal = new(["3H 4H 5H 2H 2C AH 6H 9D JC QC KS"], "8D")
    legal(deal, "draw")
    legal(deal, "meld 3H 4H 5H")
    legal(deal, "extend 0 2H")
    meld = deal.view(0).melds[0][0]
    assert (str(meld), meld.wilds) == ("2H 3H 4H 5H", ())
    # The meld holds no wildcard yet, so it takes one.
    legal(deal, "extend 0 2C")
    assert deal.view(0).melds[0][0].wilds == (parse_card("2C"),)
    illegal(deal, "extend 0 AH", "never moved")  # the 2C stands for the AH
    legal(deal, "extend 0 6H")


def test_a_set_of_twos_is_legal_and_its_twos_are_not_wildcards():
    """RULES.md: «A set of 2s (3 to 8 cards) is legal: in it the 2s are its rank, not
    wildcards.»

    seeds/001_a04018f778fd3b05.txt: «Uma Canastra feita totalmente de 2 (sete ou oito 2 juntos)
    vale 1000 pontos.»
    """
    deal = new(["2S 2H 2D 2C 2S 2H 2D KS KH KD 5C"], "8H")
    legal(deal, "draw")
    illegal(deal, "meld 2S 2H", "three")
    legal(deal, "meld 2S 2H 2D")
    meld = deal.view(0).melds[0][0]
    assert (meld.kind, meld.rank, meld.wilds) == ("set", 2, ())
    for card in ("2C", "2S", "2H", "2D"):
        legal(deal, f"extend 0 {card}")
    meld = deal.view(0).melds[0][0]
    assert (meld.size, meld.wilds) == (7, ())
    assert [b for _, b in line_score(deal, 0).burracos] == [1000]
    # Eight 2s (every 2 of the two decks) are a set too, and a canastra of 2s.
    assert check_meld("2S 2S 2H 2H 2D 2D 2C 2C", V).bonus == 1000
    # In Burraco proper the same cards are wildcards only, which is no meld.
    with pytest.raises(IllegalMove):
        check_meld("2S 2H 2D", variant("italian"))


def test_sets_hold_three_to_eight_cards():
    """seeds/001_a04018f778fd3b05.txt: «– Trinca: Apesar do nome, trata-se de um grupo de 3 a 8
    cartas, todas do mesmo valor (por exemplo, três 4, cinco 8 ou sete K). O número mínimo de
    cartas para serem baixadas é três.»

    RULES.md: «Sets (trinca) are 3 to 8 cards of one rank.»
    """
    deal = new(["9S 9S 9H 9H 9D 9D 9C 9C 2C 5H 6D"], "KC")
    legal(deal, "draw")
    illegal(deal, "meld 9S 9H", "three")
    illegal(deal, "meld 9S 9S 9H 9H 9D 9D 9C 9C 2C", "8 cards")
    assert deal.is_legal(Action.parse("meld 9S 9H 9D"))
    assert deal.is_legal(Action.parse("meld 9S 9S 9H 9H 9D 9D 9C 2C"))
    legal(deal, "meld 9S 9S 9H 9H 9D 9D 9C 9C")
    illegal(deal, "extend 0 2C", "8 cards")


def test_the_ace_goes_below_the_two_or_above_the_king_never_round_the_corner():
    """seeds/001_a04018f778fd3b05.txt: «Note, também, que o Ás (A) pode ser tanto maior que o
    Rei (K) ou menor que o 2.»

    seeds/001_a04018f778fd3b05.txt: «O A pode vir antes do 2 ou depois do K, mas a combinação
    não pode “voltar” (ou seja, Q-K-A-2-3-4 não é uma Seqüência válida).»

    RULES.md: «Ace below 2 or above K, no corner; one ace per sequence unless Canastra Real is
    on.»
    """
    hand = "AH 2H 3H 4H KH QH 5D 6D 7D 9C 9S"
    deal = new([hand], "10C")
    legal(deal, "draw")
    listed = texts(deal)
    for ok in ("meld AH 2H 3H", "meld QH KH AH", "meld KH AH 2H"):
        assert str(Action.parse(ok)) in listed
    # AH 2H 3H: the 2 in its natural place; K A 2: Q-K-A with the 2 as wildcard.
    assert check_meld("AH 2H 3H", V).meld.wilds == ()
    assert check_meld("KH AH 2H", V).meld.wilds == (parse_card("2H"),)
    illegal(deal, "meld KH AH 3H", "corner")
    illegal(deal, "meld QH KH AH 2H 3H", "corner")
    legal(deal, "meld AH 2H 3H")
    illegal(deal, "extend 0 KH", "fit|corner")
    legal(deal, "extend 0 4H")
    assert meld_text(deal, 0, 0) == "AH 2H 3H 4H"


def test_a_wildcard_between_naturals_is_never_displaced():
    """seeds/001_a04018f778fd3b05.txt: «Um jogador não pode “rearrumar” as cartas depois de
    baixá-las (por exemplo tirar cartas de uma Trinca e usá-las para completar uma
    Seqüência).»

    RULES.md: «Melds are never rearranged (001): a 2 used as a wildcard moves only to clean a
    canastra, as below.»
    """
    hand = "3H 5H 2C 4H 6H 7H 3D 4D 5D 8C 9C"
    deal = new([hand], "KS")
    legal(deal, "draw")
    legal(deal, "meld 3H 5H 2C")
    assert meld_text(deal, 0, 0) == "3H 2C 5H"
    illegal(deal, "extend 0 4H", "never moved")
    legal(deal, "extend 0 6H")
    assert meld_text(deal, 0, 0) == "3H 2C 5H 6H"
    # In Burraco proper the 4H would displace the 2C (002's rule); not in buraco.
    it = variant("italian")
    moved = extend_meld(read_meld(parse_cards("3H 2C 5H"), it), parse_card("4H"), it)
    assert sorted_text(moved.cards) == sorted_text("2C 3H 4H 5H")


def test_a_wildcard_at_an_end_keeps_its_place():
    """seeds/001_a04018f778fd3b05.txt: «Um jogador não pode “rearrumar” as cartas depois de
    baixá-las (por exemplo tirar cartas de uma Trinca e usá-las para completar uma
    Seqüência).»

    RULES.md: «Melds are never rearranged (001): a 2 used as a wildcard moves only to clean a
    canastra, as below.»
    """
    deal = new(["5H 6H 2C 7H 4H 3H 9D 10D JC QC KS"], "8S")
    legal(deal, "draw")
    legal(deal, "meld 5H 6H 2C")
    assert meld_text(deal, 0, 0) == "2C 5H 6H"  # read with the wildcard at the low end
    legal(deal, "extend 0 7H")
    assert meld_text(deal, 0, 0) == "2C 5H 6H 7H"
    illegal(deal, "extend 0 4H", "never moved")
    legal(deal, "extend 0 3H")
    assert meld_text(deal, 0, 0) == "3H 2C 5H 6H 7H"


def test_a_two_of_the_suit_returns_to_its_place_to_clean_a_canastra():
    """seeds/001_a04018f778fd3b05.txt: «É possível “limpar” uma Canastra, se ela tiver apenas
    um 2, este 2 for do mesmo naipe das demais cartas, e, no decorrer do jogo, for substituído
    pela carta que verdadeiramente seria naquela posição e colocado em sua posição original.»

    RULES.md: «A dirty canastra whose only wildcard is a 2 of its suit becomes clean when that 2
    goes back to its natural place.»
    """
    deal = new(["4H 5H 6H 7H 8H 9H 2H 3H KC QD JS"], "10C")
    legal(deal, "draw")
    legal(deal, "meld 2H 4H 5H 6H 7H 8H 9H")
    assert meld_text(deal, 0, 0) == "2H 4H 5H 6H 7H 8H 9H"
    assert line_score(deal, 0).burracos == (("dirty", 100),)
    legal(deal, "extend 0 3H")
    meld = deal.view(0).melds[0][0]
    assert (str(meld), meld.wilds) == ("2H 3H 4H 5H 6H 7H 8H 9H", ())
    assert line_score(deal, 0).burracos == (("clean", 200),)


def test_only_a_two_of_the_suit_in_a_canastra_goes_back():
    """seeds/001_a04018f778fd3b05.txt: «É possível “limpar” uma Canastra, se ela tiver apenas
    um 2, este 2 for do mesmo naipe das demais cartas, e, no decorrer do jogo, for substituído
    pela carta que verdadeiramente seria naquela posição e colocado em sua posição original.»

    RULES.md: «a 2 used as a wildcard moves only to clean a canastra»
    """
    # A 2 of another suit stays where it is.
    deal = new(["4H 5H 6H 7H 8H 9H 2C 3H KC QD JS"], "10C")
    legal(deal, "draw")
    legal(deal, "meld 2C 4H 5H 6H 7H 8H 9H")
    illegal(deal, "extend 0 3H", "never moved")
    # A 2 of the suit in a meld that is no canastra stays too.
    deal = new(["4H 5H 2H 3H 8C 9C 10D JS QD KC KS"], "10C")
    legal(deal, "draw")
    legal(deal, "meld 4H 5H 2H")
    assert meld_text(deal, 0, 0) == "2H 4H 5H"
    illegal(deal, "extend 0 3H", "never moved")


def test_a_line_holds_one_set_of_a_rank():
    """RULES.md: «The two-sets rule and the reading rules of Burraco apply.»

    RULES.md: «A line may not hold two separate sets of the same rank (002); it may hold two
    sequences of the same suit.»
    """
    deal = new(["9S 9H 9D 9C 9S 9H 3D 4D 5D JD QD"], "KD")
    legal(deal, "draw")
    legal(deal, "meld 9S 9H 9D")
    illegal(deal, "meld 9C 9S 9H", "two separate sets")
    legal(deal, "extend 0 9C")
    legal(deal, "meld 3D 4D 5D")
    legal(deal, "meld JD QD KD")  # a second sequence of the suit is fine
    legal(deal, "discard 9S")


# --- canastras and their bonuses ----------------------------------------------------------


@pytest.mark.parametrize(
    ("meld", "grade", "bonus"),
    [
        ("3S 4S 5S 6S 7S 8S 9S", "clean", 200),
        ("AS 2S 3S 4S 5S 6S 7S", "clean", 200),
        ("KS KS KH KH KD KD KC", "clean", 200),
        ("2C 4S 5S 6S 7S 8S 9S", "dirty", 100),
        ("2C 3S 4S 5S 6S 7S 8S 9S", "dirty", 100),
        ("KS KS KH KH KD KD KC 2C", "dirty", 100),
        ("3S 4S 5S 6S 7S 8S", None, 0),
        ("2S 2S 2H 2H 2D 2D 2C", None, 1000),
        ("2S 2S 2H 2H 2D 2D 2C 2C", None, 1000),
    ],
)
def test_canastra_clean_200_dirty_100_of_twos_1000(meld, grade, bonus):
    """seeds/001_a04018f778fd3b05.txt: «– Canastra: Uma Canastra é uma combinação de sete ou
    mais cartas do mesmo valor (ou seja, uma Trinca de sete) ou de sete ou mais cartas do mesmo
    naipe em ordem (ou seja, uma Seqüência de sete). Uma Canastra pode ser “Limpa” (se não tiver
    nenhum curinga substituindo cartas) ou “Suja” (se tiver pelo menos um curinga).»

    seeds/001_a04018f778fd3b05.txt: «Canastra Limpa
    200 pontos
    Canastra Suja
    100 pontos»

    seeds/001_a04018f778fd3b05.txt: «Uma Canastra feita totalmente de 2 (sete ou oito 2 juntos)
    vale 1000 pontos.»

    RULES.md: «Canastra: 7 or more cards; clean (limpa, 200) or dirty (suja, 100).»
    """
    info = check_meld(meld, V)
    assert info.bonus == bonus
    if grade is not None or bonus == 0:
        assert info.grade == grade


def test_relancinho_eleven_cards_laid_at_once_as_one_canastra():
    """seeds/001_a04018f778fd3b05.txt: «– Relancinho: Um Relancinho é uma Canastra de 11
    cartas, feita totalmente na mão (ou seja, baixada já com 11 cartas). Assim que um jogador
    baixa um Relancinho, os pontos são imediatamente anotados, e não se espera o final da
    rodada.»

    RULES.md: «Relancinho: exactly 11 cards laid down at once from the hand as one canastra:
    +100, credited at once (the cards count at the end as usual; a win is checked only at the
    end of the hand).»
    """
    deal = new(["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "3H 4H 5H 6H 7H 9C 9D 10C JC QD KH"], "2D")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    assert deal.phase == "play"
    assert line_score(deal, 0).relancinho == 100  # credited at once
    legal(deal, "discard 2D")
    assert deal.is_over
    ls = line_score(deal, 0)
    assert (ls.melded, ls.bonus, ls.relancinho, ls.closing) == (145, 200, 100, 50)
    assert ls.total == 495
    assert line_score(deal, 1).in_hand == -hand_points(deal, 1)


@pytest.mark.parametrize(
    ("stock", "moves"),
    [
        # Twelve cards at once (the dealer's hand after the draw): not exactly 11.
        ("AS", ["meld 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"]),
        # Ten cards, then the eleventh by extension: not laid at once.
        ("2D", ["meld 3S 4S 5S 6S 7S 8S 9S 10S JS QS", "extend 0 KS", "discard 2D"]),
    ],
)
def test_no_relancinho_unless_eleven_at_once(stock, moves):
    """seeds/001_a04018f778fd3b05.txt: «– Relancinho: Um Relancinho é uma Canastra de 11
    cartas, feita totalmente na mão (ou seja, baixada já com 11 cartas).»

    RULES.md: «Relancinho: exactly 11 cards laid down at once from the hand as one canastra»
    """
    deal = new(["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"], stock)
    legal(deal, "draw")
    for move in moves:
        legal(deal, move)
    assert deal.is_over
    assert line_score(deal, 0).relancinho == 0
    assert line_score(deal, 0).closing == 50


def test_no_relancinho_for_eleven_cards_in_two_melds():
    """RULES.md: «Relancinho: exactly 11 cards laid down at once from the hand as one canastra:
    +100, credited at once»
    """
    deal = new(["3S 4S 5S 6S 7S 8S 9S 9H 10H JH QH"], "KC")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S")
    legal(deal, "meld 9H 10H JH QH")
    assert line_score(deal, 0).relancinho == 0


# --- going out ----------------------------------------------------------------------------


def test_going_out_by_melding_the_last_cards():
    """seeds/001_a04018f778fd3b05.txt: «– Batida: Quando um jogador coloca todas as cartas de
    sua mão na mesa (formando Combinações, evidentemente), ficando sem nenhuma, deve dizer
    “bati”. Assim que um jogador bate, aquela mão termina, e são contados os pontos.»

    seeds/001_a04018f778fd3b05.txt: «Batida
    50 pontos»

    RULES.md: «Going out (batida, +50): emptying the hand, by melding the last cards or by
    discarding the last one; it ends the hand.»
    """
    deal = new(["3S 4S 5S 6S 7S 8S 9S 9H 10H JH QH"], "KH")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S")
    legal(deal, "meld 9H 10H JH QH KH")
    assert deal.is_over and deal.went_out and deal.closer == 0
    assert line_score(deal, 0).closing == 50
    assert line_score(deal, 1).closing == 0
    assert deal.legal_actions() == []


def test_going_out_by_discarding_the_last_card_even_a_two():
    """seeds/001_a04018f778fd3b05.txt: «Assim que um jogador bate, aquela mão termina, e são
    contados os pontos.»

    RULES.md: «Going out (batida, +50): emptying the hand, by melding the last cards or by
    discarding the last one; it ends the hand.»

    RULES.md: «Any card may be discarded, including one just taken.»
    """
    deal = new(["3S 4S 5S 6S 7S 8S 9S 9H 10H JH QH"], "2D")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S")
    legal(deal, "meld 9H 10H JH QH")
    assert texts(deal)[-1:] == ["discard 2D"]
    legal(deal, "discard 2D")
    assert deal.is_over and deal.closer == 0
    ls = line_score(deal, 0)
    assert (ls.melded, ls.in_hand, ls.bonus, ls.closing) == (25 + 2 * 20 + 80, 0, 200, 50)


def test_going_out_needs_a_canastra():
    """RULES.md: «Option, on by default as players commonly require it: the line must have a
    canastra to go out (then emptying the hand without one is illegal).»

    RULES.md: «No dead ends: an action is legal only if the player can still end the turn
    legally after it (a permitted discard that leaves a card, a legal pozzetto, or a legal
    close), possibly after more melds.»
    """
    hand = "3S 4S 5S 6S 7S 8S 9H 10H JH QH KH"
    deal = new([hand], "AH")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S")  # six cards: no canastra
    illegal(deal, "meld 9H 10H JH QH KH AH", "canastra")
    # Leaving one card that could only go out by a discard is a dead end.
    illegal(deal, "meld 9H 10H JH QH KH", "cannot end the turn|canastra")
    # With the option off the same moves go out.
    v = variant("buraco", go_out_needs_canastra=False)
    deal = new([hand], "AH", v=v)
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S")
    legal(deal, "meld 9H 10H JH QH KH AH")
    assert deal.is_over and line_score(deal, 0).closing == 50


# --- the pile and the stock ---------------------------------------------------------------


def test_taking_the_pile_takes_all_of_it():
    """seeds/001_a04018f778fd3b05.txt: «– Se um jogador desejar comprar do Bagaço, deverá pegar
    todas as cartas do Bagaço (não apenas uma) e colocá-las em sua mão.»

    RULES.md: «Taking the pile takes all of it, except that a player holding one card may not
    take a pile of one card.»
    """
    deal = new(
        ["KD 3S 4S 5S 9H 9C 10D JD QC 7H 8C", "QC 3H 4H 5H 9S 9D 10C JC QD 7S 8D"], "5C 6C 7C"
    )
    legal(deal, "draw")
    legal(deal, "discard KD")
    legal(deal, "draw")
    legal(deal, "discard QC")
    assert texts(deal) == ["draw", "take"]
    illegal(deal, "take QC", "whole pile")
    before = Counter(deal.hand(0))
    legal(deal, "take")
    assert Counter(deal.hand(0)) - before == Counter(parse_cards("KD QC"))
    assert deal.view(0).pile == ()
    assert deal.view(1).hand_sizes == (13, 11)


def _down_to_one_card() -> Deal:
    # The dealer lays ten cards (no canastra) and discards down to one card, the KC.
    deal = new(["3S 4S 5S 6S 7S 8H 9H 10H JH QH KC", "3C 4C 5C 9S 9D 10C JC QD 7S 8D KS"], "4D 9C")
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S")
    legal(deal, "meld 8H 9H 10H JH QH")
    legal(deal, "discard 4D")
    assert deal.view(0).hand_sizes == (1, 11)
    return deal


def test_a_player_holding_one_card_may_not_take_a_one_card_pile():
    """seeds/001_a04018f778fd3b05.txt: «Existe uma exceção a esta compra: caso algum jogador só
    tenha uma carta na mão, e o Bagaço só tenha uma única carta, este jogador não poderá
    comprar do Bagaço.»

    RULES.md: «Taking the pile takes all of it, except that a player holding one card may not
    take a pile of one card.»
    """
    deal = _down_to_one_card()
    legal(deal, "take")  # seat 1 holds 11 cards: a one-card pile is fine
    legal(deal, "discard 4D")
    assert deal.view(0).pile == (parse_card("4D"),)
    assert texts(deal) == ["draw"]
    illegal(deal, "take", "one card")
    # With two cards in the pile the one-card hand may take it.
    deal = _down_to_one_card()
    legal(deal, "draw")
    legal(deal, "discard 9C")
    assert texts(deal) == ["draw", "take"]
    legal(deal, "take")
    assert hand_text(deal, 0) == sorted_text("KC 4D 9C")


def test_any_card_may_be_discarded_even_the_one_just_taken():
    """seeds/001_a04018f778fd3b05.txt: «Não é proibido descartar uma das cartas que o jogador
    acabou de comprar do Maço ou do Bagaço.»

    RULES.md: «Any card may be discarded, including one just taken.»
    """
    hands = ["KD 3S 4S 5S 9H 9C 10D JD QC 7H 8C", "3H 4H 5H 9S 9D 10C JC QD 7S 8D 6S"]
    deal = new(hands, "5C 6C")
    legal(deal, "draw")
    legal(deal, "discard KD")
    legal(deal, "take")  # a one-card pile
    illegal(deal, "discard AH", "does not hold")
    legal(deal, "discard KD")  # the card just taken goes straight back
    legal(deal, "draw")
    legal(deal, "discard 6C")  # the card just drawn
    # Burraco proper forbids the first of these (002); buraco does not.
    it = variant("italian")
    assert it.discard_back_rule and not V.discard_back_rule


def test_with_the_stock_empty_a_player_takes_the_pile_or_else_passes():
    """seeds/001_a04018f778fd3b05.txt: «Quando o Maço acabar, os jogadores só poderão comprar
    do Bagaço.»

    seeds/001_a04018f778fd3b05.txt: «Neste caso, se não existir mais Maço, o jogador deverá
    passar a sua vez.»

    RULES.md: «With the stock empty a player must take the pile if allowed, otherwise passes.
    The stall rule of Burraco ends the hand (no batida).»
    """
    # One quiet round is enough to end this deal (the default waits for three).
    deal = new(
        ["3S 4S 5S 6S 7S 8H 9H 10H JH QH KC"], "4D 5D", v=dataclasses.replace(V, stall_rounds=1)
    )
    legal(deal, "draw")
    legal(deal, "redraw")
    legal(deal, "meld 3S 4S 5S 6S 7S")
    legal(deal, "meld 8H 9H 10H JH QH")
    legal(deal, "discard 5D")
    # Everyone draws and throws the drawn card back until the stock runs out.
    while deal.view(0).stock_size:
        seat = deal.turn
        assert deal.view(seat).phase == "draw"
        before = Counter(deal.hand(seat))
        deal.apply("draw")
        (drawn,) = (Counter(deal.hand(seat)) - before).elements()
        deal.apply(f"discard {drawn}")
    assert deal.turn == 1 and deal.view(0).hand_sizes == (1, 11)
    assert texts(deal) == ["take"]
    illegal(deal, "pass", "must take")
    illegal(deal, "draw", "stock is empty")
    legal(deal, "take")
    legal(deal, f"discard {deal.hand(1)[0]}")
    # Seat 0 holds one card and the pile holds one card: it passes.
    assert len(deal.view(0).pile) == 1
    assert texts(deal) == ["pass"]
    illegal(deal, "take", "one card")
    illegal(deal, "draw", "stock is empty")
    legal(deal, "pass")
    # A whole round with no draw and no lay-down: the stall rule ends the hand, no batida.
    assert deal.is_over and deal.end_reason == "stall"
    assert [ls.closing for ls in deal.score().lines] == [0, 0]


#: A deal of four alone, the stock empty, found by the property tests: line 0 (vulnerable,
#: needing 90) takes the one-card pile, lays down short, and discards; the others pass.
ENDLESS = (
    "bp1 buraco/4/4;target=None;deals=2 1/0/play 5S5S7SAH2H3H5D6D3C5C6C8C/7H/6H/10H - - - "
    "-/-/-/- -/10DJD2CKD,3S3S3H3D3D3C,8C9C10CJCQCKC,6S6S6H6D6C,ASASAHADAC,10SJSQSKS,JSJHJHJDJC,"
    "8S8S8H8H8D8D,9H9H9D9D,4S4H4H4C,QDKDAD,5H5H5D5C,10S10H10D10C/AC2C2S,7S7H7D7D7C7C2D/"
    "QSQHQHQDQC2D,9S9S9C2S,KSKHKHKC2H,4S4D4D4C rm90/o/o/o 0m/1m/2m/3m "
    "5S5S7SAH2H3H5D6D3C5C6C8C/7H/-/10H turns=5319,single=6D,quiet=3"
)


def test_a_short_lay_down_that_goes_back_is_no_lay_down_for_the_stall_rule():
    """RULES.md: «if three whole rounds of turns pass in a row in which nobody draws from the
    stock and nobody lays down or extends a meld, the deal ends as at the stock's end»

    RULES.md: «A lay-down under that goes back to the hand and from then on, for the rest of
    the game, that line needs 90 (001).»
    """
    deal = Deal.from_position(ENDLESS)
    assert (deal.turn, deal.view(0).phase, deal.quiet_turns) == (0, "play", 3)
    # The cards go back at the discard: nothing was laid down, nothing drawn from the stock.
    legal(deal, "meld 5S 5S 2H 5D")
    legal(deal, "discard 6C")
    assert deal.view(0).melds[0] == () and deal.quiet_turns == 4
    # Round after round the same: the deal ends by the stall rule, after three quiet rounds.
    while not deal.is_over:
        assert deal.quiet_turns < 3 * 4, "the deal went on past three quiet rounds"
        seat = deal.turn
        if deal.view(seat).phase == "draw":
            deal.apply("take" if "take" in texts(deal) else "pass")
        elif seat == 0 and "meld 5S 5S 2H 5D" in texts(deal):
            deal.apply("meld 5S 5S 2H 5D")
        else:
            deal.apply(f"discard {sorted(deal.hand(seat))[-1]}")
    assert deal.end_reason == "stall" and deal.quiet_turns == 3 * 4


# --- vulnerability ------------------------------------------------------------------------

VULNERABLE_HAND = "8S 9S 10S JH QH KH 3D 4D 5D 6D 7C"


def test_a_vulnerable_line_must_lay_down_75_or_the_cards_go_back_and_it_needs_90():
    """seeds/001_a04018f778fd3b05.txt: «Quando um jogador chega aos 750 pontos, porém (a metade
    do necessário para se ganhar o jogo), ficará vulnerável, e só poderá baixar Combinações se
    estas somarem 75 pontos ou mais.»

    seeds/001_a04018f778fd3b05.txt: «Se um jogador vulnerável baixar uma combinação que valha
    menos de 75 pontos (por engano ou de propósito, achando que vai enganar os demais), terá que
    recolher as cartas que baixou, e, a partir daí, só poderá baixar Combinações que valham 90
    pontos ou mais.»

    RULES.md: «Vulnerable: a line with at least half of the target (750) must make its first
    lay-down of each hand worth 75 points or more (new melds of one turn, card values only). A
    lay-down under that goes back to the hand and from then on, for the rest of the game, that
    line needs 90 (001).»
    """
    hands = [VULNERABLE_HAND, "3C 4C 5C 9D 9H 10C JC QD 7S 8D KS"]
    deal = new(hands, "9C AC 4S 2D 5S", minimum=[75, 0])
    view = deal.view(0)
    assert (view.minimum, view.opened) == ((75, 0), (False, True))
    # A short first lay-down (15) goes back to the hand at the discard; the line then needs 90.
    legal(deal, "draw")
    legal(deal, "meld 3D 4D 5D")
    legal(deal, "discard 9C")
    view = deal.view(0)
    assert view.melds[0] == ()
    assert hand_text(deal, 0) == sorted_text(VULNERABLE_HAND)
    assert view.minimum == (90, 0) and view.opened == (False, True)
    # The other line is not vulnerable: its small lay-down stays.
    legal(deal, "draw")
    legal(deal, "meld 3C 4C 5C")
    legal(deal, "discard AC")
    assert str(deal.view(1).melds[1][0]) == "3C 4C 5C"
    # 80 is enough for 75, not for 90: back again.
    legal(deal, "draw")
    legal(deal, "meld JH QH KH")
    legal(deal, "meld 3D 4D 5D 6D")
    legal(deal, "discard 4S")
    assert deal.view(0).melds[0] == () and deal.view(0).minimum[0] == 90
    legal(deal, "draw")
    legal(deal, "discard 2D")
    # 120 is enough: the melds stay and the line has opened.
    legal(deal, "draw")
    legal(deal, "meld 8S 9S 10S")
    legal(deal, "meld JH QH KH")
    legal(deal, "discard 5S")
    view = deal.view(0)
    assert [str(m) for m in view.melds[0]] == ["8S 9S 10S", "JH QH KH"]
    assert view.opened == (True, True)


def test_a_vulnerable_lay_down_counts_the_new_melds_of_the_turn():
    """RULES.md: «Vulnerable: a line with at least half of the target (750) must make its first
    lay-down of each hand worth 75 points or more (new melds of one turn, card values only).»
    """
    deal = new([VULNERABLE_HAND], "9C", minimum=[75, 0])
    legal(deal, "draw")
    legal(deal, "meld 8S 9S 10S")  # 60
    legal(deal, "meld 3D 4D 5D")  # 15: 75 in all
    legal(deal, "discard 9C")
    assert [str(m) for m in deal.view(0).melds[0]] == ["8S 9S 10S", "3D 4D 5D"]
    assert deal.view(0).minimum[0] == 75 and deal.view(0).opened[0]


def test_option_vulnerable_refuse_refuses_the_short_lay_down():
    """RULES.md: «A lay-down under that goes back to the hand and from then on, for the rest of
    the game, that line needs 90 (001). Option: the engine simply refuses the short lay-down.»
    """
    v = variant("buraco", vulnerable_refuse=True)
    deal = new([VULNERABLE_HAND], "9C", v=v, minimum=[75, 0])
    legal(deal, "draw")
    # The short lay-down is refused: either the meld itself or the discard that would end
    # the turn with it on the table.
    before = snapshot(deal)
    try:
        deal.apply("meld 3D 4D 5D")
    except IllegalMove as error:
        assert "75" in str(error)
        assert snapshot(deal) == before
    else:
        illegal(deal, "discard 9C", "75")
    # Never the penalty of the default rule.
    assert deal.view(0).minimum[0] == 75


def test_vulnerability_through_a_match():
    """seeds/001_a04018f778fd3b05.txt: «Quando um jogador chega aos 750 pontos, porém (a metade
    do necessário para se ganhar o jogo), ficará vulnerável, e só poderá baixar Combinações se
    estas somarem 75 pontos ou mais.»

    RULES.md: «A lay-down under that goes back to the hand and from then on, for the rest of the
    game, that line needs 90 (001).»
    """
    first = buraco_order(V, ["2S 2S 2H 2H 2D 2D 2C 8S 9S 10S JS"], "KD", dealer=0)
    second = buraco_order(
        V, {0: "3S 4S 5S", 1: "3H 4H 5H 6H 7H 8H 9H JC QC KC AC"}, "5D 6D 7D", dealer=1
    )
    third = buraco_order(V, {}, dealer=0)
    match = Match(V, first_dealer=0, deck_orders=[first, second, third])
    # Deal 1: a canastra of 2s and the batida, 1200 points: line 0 is vulnerable.
    match.apply("draw")
    match.apply("meld 2S 2S 2H 2H 2D 2D 2C")
    match.apply("meld 8S 9S 10S JS")
    match.apply("discard KD")
    assert len(match.deals) == 2
    assert match.totals[0] == 70 + 80 + 1000 + 50 and match.totals[1] < 0
    view = match.view(0)
    assert (view.dealer, view.minimum, view.opened) == (1, (75, 0), (False, True))
    # Deal 2: line 0 lays down 15; the cards go back and it needs 90 from now on.
    match.apply("draw")
    match.apply("discard 5D")
    match.apply("draw")
    match.apply("meld 3S 4S 5S")
    match.apply("discard 6D")
    assert match.view(0).melds[0] == () and match.view(0).minimum == (90, 0)
    match.apply("draw")
    match.apply("meld 3H 4H 5H 6H 7H 8H 9H")
    match.apply("meld JC QC KC AC")
    match.apply("discard 7D")
    # Deal 3: still 90, though line 0's total did not change its state.
    assert len(match.deals) == 3 and not match.is_over
    assert 750 <= match.totals[0] < 1500 and match.totals[1] < 750
    view = match.view(0)
    assert (view.dealer, view.minimum, view.opened) == (0, (90, 0), (False, True))


# --- card values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "points", "classic"),
    [
        ("3 4 5 6 7", 5, 5),
        ("8 9 10 J Q K", 20, 10),
        ("A", 15, 15),
        ("2", 10, 10),
    ],
)
def test_card_values_as_written_and_classic(ranks, points, classic):
    """seeds/001_a04018f778fd3b05.txt: «8, 9, 10, J, Q, K
    20 pontos cada
    A
    15 pontos cada
    2
    10 pontos cada
    3, 4, 5, 6, 7
    5 pontos cada»

    RULES.md: «Card values as written in 001: 3-7 = 5; 8-K = 20; A = 15; 2 = 10. Option
    `classic_values`: 8-K = 10, as most Brazilian tables count.»
    """
    cv = variant("buraco", classic_values=True)
    for rank in ranks.split():
        for suit in "SHDC":
            card = parse_card(rank + suit)
            assert card_points(card, V) == points
            assert card_points(card, cv) == classic


def test_cards_on_the_table_count_plus_cards_in_hand_minus():
    """seeds/001_a04018f778fd3b05.txt: «As Combinações que estiverem sobre a mesa valem pontos
    positivos. As cartas que os demais jogadores ainda tiverem na mão valem pontos negativos.»

    RULES.md: «Cards on the table count plus, cards in hand minus.»
    """
    hands = ["3S 4S 5S 6S 7S 8S 9S 9H 10H JH QH", "KC KD QS AS 2C 3C 4C 5D 6D 7D 8D"]
    for v, high in ((V, 20), (variant("buraco", classic_values=True), 10)):
        deal = new(hands, "KH", v=v)
        legal(deal, "draw")
        legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S")
        legal(deal, "meld 9H 10H JH QH KH")
        assert line_score(deal, 0).melded == 5 * 5 + 2 * high + 5 * high
        assert line_score(deal, 1).in_hand == -(4 * high + 15 + 10 + 5 * 5)


# --- options ------------------------------------------------------------------------------


@pytest.mark.parametrize("jokers", [2, 4])
def test_option_jokers_are_wild_dirty_and_worth_10(jokers):
    """seeds/001_a04018f778fd3b05.txt: «– Curingas: Alguns jogadores adicionam dois ou quatro
    Curingas aos dois baralhos. Um Curinga pode substituir qualquer carta, mas “suja” as
    Canastras, exatamente como os 2. Na hora de se contar os pontos, cada Curinga vale 10
    pontos.»

    RULES.md: «Options from 001's variations: 2 or 4 jokers (wild, 10 points)»
    """
    v = variant("buraco", jokers=jokers)
    assert v.deck_size == 104 + jokers
    assert Counter(deck(v.decks, v.jokers))[parse_card("JK")] == jokers
    deal = new(["5H 6H JK 2C 9S 9H QS QH QD 4D 7C"], "KC", v=v)
    legal(deal, "draw")
    listed = texts(deal)
    for ok in ("meld 5H 6H JK", "meld 9S 9H JK", "meld QS QH QD JK"):
        assert str(Action.parse(ok)) in listed
    illegal(deal, "meld 5H 6H JK 2C", "one wildcard")
    illegal(deal, "meld 9S 9H JK 2C", "one wildcard")
    assert card_points(parse_card("JK"), v) == 10
    info = check_meld("JK 3S 4S 5S 6S 7S 8S 9S", v)
    assert (info.grade, info.bonus) == ("dirty", 100)


@pytest.mark.parametrize("jokers", [1, 3])
def test_option_jokers_only_two_or_four(jokers):
    """seeds/001_a04018f778fd3b05.txt: «– Curingas: Alguns jogadores adicionam dois ou quatro
    Curingas aos dois baralhos.»

    RULES.md: «Options from 001's variations: 2 or 4 jokers (wild, 10 points)»
    """
    with pytest.raises(SetupError):
        variant("buraco", jokers=jokers)


REAL = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
REAL_DIRTY = "AH 2H 3H 4H 2C 6H 7H 8H 9H 10H JH QH KH AH"


def test_option_canastra_real_ace_to_ace():
    """seeds/001_a04018f778fd3b05.txt: «– Canastra Real: Alguns jogadores consideram uma
    Canastra de um Ás ao outro (ou seja, A-2-3-4-5-6-7-8-9-10-J-Q-K-A, todos do mesmo naipe)
    como uma “Canastra Real’’. Uma Canastra Real Limpa vale 1000 pontos, e uma Canastra Real
    Suja vale 500 pontos.»

    RULES.md: «Canastra Real A to A (1000 clean, 500 dirty)»

    RULES.md: «one ace per sequence unless Canastra Real is on»
    """
    real = variant("buraco", canastra_real=True)
    assert check_meld(REAL, real).bonus == 1000
    assert check_meld(REAL_DIRTY, real).bonus == 500
    # A to K is an ordinary canastra.
    assert check_meld(REAL.rsplit(" ", 1)[0], real).bonus == 200
    # Growing A-K into A-A.
    grown = extend_meld(
        read_meld(parse_cards(REAL.rsplit(" ", 1)[0]), real), parse_card("AH"), real
    )
    assert len(grown.cards) == 14
    # Without the option a sequence holds one ace.
    with pytest.raises(IllegalMove, match="one natural ace"):
        check_meld(REAL, V)
    with pytest.raises(IllegalMove, match=r"ace|wildcard"):
        check_meld(REAL_DIRTY, V)
    with pytest.raises(IllegalMove, match="one natural ace"):
        extend_meld(read_meld(parse_cards(REAL.rsplit(" ", 1)[0]), V), parse_card("AH"), V)


def test_option_scoring_500():
    """seeds/001_a04018f778fd3b05.txt: «– Pontuação: Alguns jogadores atribuem 500 pontos a cada
    Canastra Limpa, 250 a cada Canastra Suja, 200 ao Relancinho e 100 à batida.»

    RULES.md: «the 500/250/200/100 scoring»
    """
    v = variant("buraco", scoring_500=True)
    assert check_meld("3S 4S 5S 6S 7S 8S 9S", v).bonus == 500
    assert check_meld("2C 4S 5S 6S 7S 8S 9S", v).bonus == 250
    deal = new(["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"], "2D", v=v)
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    legal(deal, "discard 2D")
    ls = line_score(deal, 0)
    assert (ls.bonus, ls.relancinho, ls.closing) == (500, 200, 100)


@pytest.mark.parametrize(("options", "bonus"), [({}, 200), ({"set_bonus_1000": True}, 1000)])
def test_option_set_bonus_1000_for_a_set_grown_into_a_canastra(options, bonus):
    """seeds/001_a04018f778fd3b05.txt: «Uma Trinca que for “crescendo” (ou seja, à qual forem
    se adicionando mais cartas) até se tornar uma Canastra vale um bônus de 1000 pontos.»

    RULES.md: «option `set_bonus_1000`: every set that grows into a canastra gets +1000»
    """
    v = variant("buraco", **options)
    deal = new(["9S 9H 9D 9C 9S 9H 9D 3C 4C 5C 6C"], "KD", v=v)
    legal(deal, "draw")
    legal(deal, "meld 9S 9H 9D")
    for card in ("9C", "9S", "9H", "9D"):
        legal(deal, f"extend 0 {card}")
    assert [b for _, b in line_score(deal, 0).burracos] == [bonus]
    # A sequence is no set: its canastra keeps 200.
    assert check_meld("3S 4S 5S 6S 7S 8S 9S", v).bonus == 200


@pytest.mark.parametrize(("target", "vulnerable"), [(1500, 750), (2000, 1000), (3000, 1500)])
def test_targets_with_vulnerability_at_half(target, vulnerable):
    """seeds/001_a04018f778fd3b05.txt: «Outros jogam até os 2000 ou 3000 pontos. De qualquer
    forma, um jogador estará vulnerável quando alcançar a metade dos pontos necessários para se
    ganhar o jogo.»

    RULES.md: «targets 2000/3000 with vulnerability at half»
    """
    options = {} if target == 1500 else {"target": target}
    v = variant("buraco", **options)
    assert (v.target, v.vulnerable_at) == (target, vulnerable)


# --- tables -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "lines", "line_of"),
    [
        (2, None, (0, 1)),
        (3, None, (0, 1, 2)),
        (4, 4, (0, 1, 2, 3)),
        (4, None, (0, 1, 0, 1)),
        (4, 2, (0, 1, 0, 1)),
        (6, None, (0, 1, 0, 1, 0, 1)),
        (6, 2, (0, 1, 0, 1, 0, 1)),
    ],
)
def test_tables_two_three_four_alone_four_in_pairs_six_in_trios(players, lines, line_of):
    """seeds/001_a04018f778fd3b05.txt: «Os parceiros deverão sentar-se de frente um com o outro
    (para que joguem alternados).»

    seeds/001_a04018f778fd3b05.txt: «Com 6 jogadores, o sistema adotado é o de dois trios ou
    triângulos. Os triângulos devem se sentar alternados (ou seja, primeiro o jogado 1a, e
    então, em sentido horário, os jogadores 1b, 2a, 2b, 3a e 3b).»

    RULES.md: «`buraco` is 2, 3 or 4 alone, 4 in pairs, 6 in two trios.»
    """
    options = {"players": players} | ({} if lines is None else {"lines": lines})
    v = variant("buraco", **options)
    assert v.line_of == line_of and v.lines == len(set(line_of))
    deal = new({}, v=v, dealer=players - 1)
    assert deal.turn == players - 1
    assert deal.view(0).hand_sizes == (11,) * players


@pytest.mark.parametrize(
    "options",
    [
        {"players": 1},
        {"players": 5},
        {"players": 7},
        {"players": 3, "lines": 1},
        {"players": 4, "lines": 3},
        {"players": 6, "lines": 3},
        {"players": 6, "lines": 6},
    ],
)
def test_an_impossible_table_is_a_setup_error(options):
    """RULES.md: «`buraco` is 2, 3 or 4 alone, 4 in pairs, 6 in two trios.»"""
    with pytest.raises(SetupError):
        variant("buraco", **options)


@pytest.mark.parametrize(("players", "partners"), [(4, (2,)), (6, (2, 4))])
def test_partners_share_their_melds(players, partners):
    """seeds/001_a04018f778fd3b05.txt: «É permitido a um dos parceiros adicionar cartas a uma
    Combinação baixada pelo outro parceiro.»

    RULES.md: «Pairs and trios share melds.»
    """
    v = variant("buraco", players=players)
    runs = ["6S", "7S", "8S"]
    hands = {0: "3S 4S 5S 9H 9C"}
    for k, seat in enumerate(partners):
        hands[seat] = runs[k]
    hands[1] = runs[-1]
    deal = new(hands, v=v)
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S")
    legal(deal, "discard 9H")
    while deal.turn != 0:
        seat = deal.turn
        legal(deal, "draw")
        if seat in partners:
            legal(deal, f"extend 0 {runs[partners.index(seat)]}")
        elif seat == 1:
            illegal(deal, "extend 0 8S", "no meld 0")
        legal(deal, f"discard {deal.hand(seat)[-1]}")
    assert [str(m) for m in deal.view(0).melds[0]] == [
        "3S 4S 5S " + " ".join(runs[: len(partners)])
    ]
    assert deal.view(1).melds[1] == ()


def test_quotes_are_verbatim():
    """RULES.md: «The four rule documents in `seeds/` are the specification.»"""
    check_quotes(sys.modules[__name__])


def test_option_vulnerable_refuse_lays_down_only_what_can_reach_the_minimum():
    """RULES.md: «Option: the engine simply refuses the short lay-down.» The turn may not end
    on a short lay-down, and a meld is allowed only while the hand can still reach 75."""
    v = variant("buraco", vulnerable_refuse=True)
    deal = new([VULNERABLE_HAND], "9C", v=v, minimum=[75, 0])
    legal(deal, "draw")
    legal(deal, "meld 3D 4D 5D")  # 15 points; 8S 9S 10S and JH QH KH can still follow
    illegal(deal, "discard 7C", "75")
    legal(deal, "meld 8S 9S 10S")  # 15 + 60 = 75: the lay-down stands
    legal(deal, "discard 7C")
    assert deal.view(0).opened[0] and deal.view(0).minimum[0] == 75


def test_option_vulnerable_refuse_forbids_a_meld_that_cannot_reach_the_minimum():
    """RULES.md: «Option: the engine simply refuses the short lay-down.» With nothing else
    to lay down, a 15-point meld would leave a short lay-down: it is not allowed at all."""
    v = variant("buraco", vulnerable_refuse=True)
    deal = new(["3S 4S 5S 7H 8D 9C JC QD KS 6H 6C"], "10D", v=v, minimum=[75, 0])
    legal(deal, "draw")
    illegal(deal, "meld 3S 4S 5S", "75")
    legal(deal, "discard 7H")


def test_option_vulnerable_refuse_forbids_a_lay_down_that_reaches_75_only_by_a_dead_end():
    """RULES.md: «Option: the engine simply refuses the short lay-down.» and RULES.md: «the
    line must have a canastra to go out (then emptying the hand without one is illegal).» Here
    75 is reached only by laying 11 of the 12 cards (4S-8S, 3H 4H 2C, 5D 6D 7D): the last
    card could then leave only by going out, which needs a canastra. So no meld may start
    the lay-down, or the turn would have no legal end (found by the property tests: a
    resampled deal stuck with no action legal).
    """
    v = variant("buraco", vulnerable_refuse=True)
    deal = new(["3S 4S 5S 6S 7S 8S 3H 4H 2C 5D 6D"], "7D", v=v, minimum=[75, 0])
    legal(deal, "draw")
    assert not [a for a in texts(deal) if a.startswith("meld")], texts(deal)
    illegal(deal, "meld 4S 5S 6S 7S 8S", "75")
    legal(deal, "discard 3S")
