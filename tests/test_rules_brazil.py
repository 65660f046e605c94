"""Rule tests for Buraco as Brazil's online rooms play it: ``buraco-aberto``, ``buraco-fechado``
and ``stbl`` (issue 24).

Sources: the rooms' published rules and one open-source room, named in ``docs/brazil.md``
("Sources"), which also says each decision where they disagree or are silent. Each test
quotes the sentence or line it checks, written ``SOURCE: «text»``; the last test checks that
every quote stands verbatim in docs/brazil.md's list of what the sources say (the pages
themselves are not kept here). Positions are set up with :func:`burraco.position.compose`:
two players unless said otherwise.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest
from positions_bc import illegal, legal

from burraco import Deal, DealView, IllegalMove, Match, card_points, parse_cards, variant
from burraco.bots.expert import line_totals
from burraco.melds import grade_of, meld_bonus, read_meld
from burraco.position import compose
from burraco.view import public_view_of

BRAZIL = ("buraco-aberto", "buraco-fechado", "stbl")
ABERTO = variant("buraco-aberto")
FECHADO = variant("buraco-fechado")
STBL = variant("stbl")
DOC = Path(__file__).resolve().parents[1] / "docs" / "brazil.md"


def texts(deal: Deal) -> list[str]:
    return [str(a) for a in deal.legal_actions()]


# --- the three games side by side ------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_the_rooms_table_of_differences(players: int) -> None:
    """The three games differ in five points, as the rooms' table sets them side by side.

    jogatina: «Vale Trinca? NÃO SIM NÃO»
    jogatina: «Tem Joker (Curingão)? SIM SIM SIM»
    jogatina: «Tem morto? SIM SIM SIM»
    jogatina: «O lixo é aberto? SIM NÃO NÃO»
    jogatina: «Só bate com canastra limpa? SIM NÃO SIM»
    jogatina: «pode ser jogado com dois ou quatro jogadores»
    """
    found = {
        name: (v.sets, v.jokers > 0, v.pozzetti, v.pile_open, v.go_out_needs_clean)
        for name in BRAZIL
        for v in [variant(name, players=players)]
    }
    assert found == {
        "buraco-aberto": (False, True, True, True, True),
        "buraco-fechado": (True, True, True, False, False),
        "stbl": (False, True, True, False, True),
    }
    for name in BRAZIL:
        v = variant(name, players=players)
        assert (v.players, v.lines, v.family) == (players, 2, "buraco")
        assert v.line_of == ((0, 1) if players == 2 else (0, 1, 0, 1))


def test_three_players_are_refused() -> None:
    """Two alone or four in pairs, nothing else.

    jogatina: «Quando quatro pessoas participam, duas duplas são formadas»
    """
    from burraco import SetupError

    with pytest.raises(SetupError, match="2 alone or 4 in pairs"):
        variant("stbl", players=3)


def test_the_deck_has_four_jokers_and_one_wildcard_a_meld() -> None:
    """108 cards: two decks and four jokers; the 2s and the jokers are wild, one to a meld.

    playjoy: «inclui os jokers (4 no total)»
    playjoy: «Só pode haver um curinga por combinação.»
    """
    for name in BRAZIL:
        v = variant(name)
        assert (v.decks, v.jokers, v.deck_size, v.max_wildcards) == (2, 4, 108, 1)
    assert str(read_meld(parse_cards("5H JK 7H"), FECHADO)) == "5H JK 7H"
    with pytest.raises(IllegalMove, match="at most one wildcard"):
        read_meld(parse_cards("5H JK 2C 8H"), FECHADO)


# --- sets -------------------------------------------------------------------------------------


def test_no_sets_in_aberto_and_stbl() -> None:
    """Buraco aberto and STBL have no trincas: three 7s are no meld, in the legal actions or
    typed; buraco fechado lays them down.

    jogatina: «Vale Trinca? NÃO SIM NÃO»
    jogosdorei: «uma variante do buraco tradicional que elimina as trincas do jogo»
    """
    hands = ["7H 7S 7C 9D 10D JD KS KS 4C 5C QH", None]
    for v in (ABERTO, STBL):
        deal = compose(v, hands, stock_top="3D", turn=0)
        legal(deal, "draw")
        assert not any(a.startswith("meld 7") for a in texts(deal))
        illegal(deal, "meld 7H 7S 7C", "no sets")
        legal(deal, "meld 9D 10D JD")
    deal = compose(FECHADO, hands, stock_top="3D", turn=0)
    legal(deal, "draw")
    legal(deal, "meld 7H 7S 7C")


# --- the morto --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BRAZIL)
def test_two_mortos_of_eleven(name: str) -> None:
    """Two mortos of 11 cards are set aside, one for each line, at 2 and at 4 players.

    playjoy: «Dois conjuntos de 11 cartas são deixados na mesa (“mortos”).»
    rafaelmuylaert: «const pots = [initialDeck.splice(0, 11), initialDeck.splice(0, 11)];»
    """
    for players in (2, 4):
        deal = Deal.new(variant(name, players=players), seed=3)
        assert [len(p) for p in deal.pozzetti] == [11, 11]
        assert all(deal.sizes[s] == 11 for s in range(players))
        assert len(deal.pile) == 1  # the first card turned up starts the pile
        assert len(deal.stock) == 108 - 22 - 11 * players - 1


def test_running_out_by_melding_takes_the_morto_and_plays_on() -> None:
    """A hand that runs out, in a line without its morto, takes the morto: melded out, the
    player picks it up and plays on in the same turn; it is not going out.

    rafaelmuylaert: «if(!suppressMorto && G.handSizes[p]===0) tryPickupMorto(G, p);»
    """
    deal = compose(STBL, ["5H 6H", None], stock_top="7H", turn=0, melds=[["8H 9H 10H"], []])
    legal(deal, "draw")
    legal(deal, "meld 5H 6H 7H")
    assert deal.phase == "play" and deal.turn == 0
    assert deal.has_pozzetto[0] and deal.sizes[0] == 11
    assert not deal.went_out and len(deal.pozzetti) == 1


def test_running_out_by_discard_takes_the_morto_next_turn() -> None:
    """Emptied by a discard, the turn ends; the morto reaches the hand at the start of the
    player's next turn (with a partner, at the partner's discard), as the pozzetto does.

    rafaelmuylaert: «tryPickupMorto(G, p);»
    """
    deal = compose(FECHADO, ["5H 6H", None], stock_top="KC", turn=0, melds=[["7H 8H 9H"], []])
    legal(deal, "draw")
    legal(deal, "extend 0 6H")
    legal(deal, "extend 0 5H")
    legal(deal, "discard KC")
    assert deal.has_pozzetto[0] and deal.sizes[0] == 0 and not deal.went_out
    assert deal.turn == 1 and deal.view(1).pozzetto_face_down == (11, 0)
    legal(deal, "draw")
    legal(deal, "discard " + str(deal.hand(1)[0]))
    assert deal.turn == 0 and deal.sizes[0] == 11


def test_a_morto_never_taken_costs_100() -> None:
    """A line that never took its morto loses 100.

    rafaelmuylaert: «const mortoPenaltyAmt    = G.rules?.mortoPenalty       ?? 100;»
    """
    deal = Deal.new(FECHADO, seed=1)
    score = deal.score()
    assert [ls.pozzetto_penalty for ls in score.lines] == [-100, -100]
    assert variant("buraco").no_pozzetto_penalty == 0  # 001's game has no morto


def test_a_morto_left_becomes_the_stock() -> None:
    """When the stock runs out, a morto nobody took becomes the stock; the line it would have
    gone to may then go out without it, and still loses 100.

    rafaelmuylaert: «if (G.deck.length === 0 && G.pots.length > 0) G.deck = G.pots.shift();»
    """
    deal = compose(FECHADO, [None, None], stock_top="4C", turn=0)
    deal.stock = deal.stock[-1:]  # one card left in the stock: the 4C
    deal.apply("draw")
    assert [str(c) for c in deal.hand(0)].count("4C") >= 1
    assert len(deal.stock) == 11 and len(deal.pozzetti) == 1
    assert deal.score().lines[0].pozzetto_penalty == -100


def _morto_by_discard(players: int, **options: object) -> Deal:
    """Seat 0 empties the hand by a discard and takes line 0's morto; line 1 has its morto
    and a clean canastra, and seat 1 ("4S 5S", then seat 3 at four) can go out by melding
    the 3S the stock holds for it."""
    v = variant("buraco-fechado", players=players, **options)
    canastra = "6S 7S 8S 9S 10S JS QS"
    if players == 2:
        hands: list[str | None] = ["5H 6H", "4S 5S"]
        stock = "KC 3S"
    else:
        hands = ["5H 6H", "QD KD AD", "3D 4D 5D", "4S 5S"]
        stock = "KC 9C 10C 3S"
    deal = compose(v, hands, stock_top=stock, turn=0, melds=[["7H 8H 9H"], [canastra]])
    deal.has_pozzetto[1] = True
    deal.pozzetti.pop(1)
    legal(deal, "draw")
    legal(deal, "extend 0 6H")
    legal(deal, "extend 0 5H")
    legal(deal, "discard KC")
    assert deal.has_pozzetto[0] and deal.view(0).pozzetto_face_down[0] == 11
    return deal


@pytest.mark.parametrize("players", [2, 4])
def test_a_morto_taken_by_a_discard_and_unused_counts_as_never_taken(players: int) -> None:
    """The morto taken by the discard that emptied the hand, and the deal ended by the other
    line before its taker's next turn: -100, and its cards not counted against the line. At
    four the morto waits face down for its taker's turn, past the partner's discard.

    gamevelvet: «He gets the extra pile but can only use it on his/her next turn.»
    gamevelvet: «If a player draws the extra pile throught an indirect knock out and the
    adversaries ends the match before the player uses the extra hand, the points must be
    discounted, like the player never got the extra hand»
    buraco2009: «If one player buy the “dead” deck by indirect beat and the other player
    finish the game before reaching his turn again, the “dead” deck score is not counted and
    it's punished as it was not bought.»
    """
    deal = _morto_by_discard(players)
    if players == 4:
        legal(deal, "draw")
        legal(deal, "discard 9C")
        legal(deal, "draw")
        legal(deal, "discard 10C")  # the partner's discard: the morto still waits
        assert deal.view(0).pozzetto_face_down[0] == 11 and deal.sizes[0] == 0
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S")
    assert deal.went_out and deal.line_of[deal.closer] == 1
    line = deal.score().lines[0]
    partner_hand = -sum(card_points(c, FECHADO) for c in deal.hand(2)) if players == 4 else 0
    # Line 0 melded 5H 6H 7H 8H 9H: 35.
    assert (line.melded, line.in_hand, line.pozzetto_penalty) == (35, partner_hand, -100)
    assert line.total == 35 + partner_hand - 100
    # The expert's playouts score an ended deal as the deal does.
    assert line_totals(deal) == {ls.line: ls.total for ls in deal.score().lines}


@pytest.mark.parametrize("players", [2, 4])
def test_a_morto_taken_by_a_discard_counts_once_its_taker_has_played(players: int) -> None:
    """Once its taker's turn has come the morto is in the hand, taken: the deal ended after
    that counts its cards left in hand, with no penalty.

    gamevelvet: «He gets the extra pile but can only use it on his/her next turn.»
    """
    deal = _morto_by_discard(players)
    for _ in range(players - 1):
        legal(deal, "draw")
        legal(deal, "discard " + str(max(deal.hand(deal.turn))))
    assert deal.turn == 0 and deal.sizes[0] == 11
    line = deal.score().lines[0]
    assert line.pozzetto_penalty == 0 and line.in_hand < 0


def test_a_morto_unused_when_the_partner_goes_out_counts_as_taken() -> None:
    """The partner goes out while the morto taken by a discard still waits: the line went
    out, which it may only with its morto, so the morto counts as taken and its cards as
    cards in hand (decision: the sources speak of the adversaries ending the deal).

    buraco2009: «If one player buy the “dead” deck by indirect beat and the other player
    finish the game before reaching his turn again, the “dead” deck score is not counted and
    it's punished as it was not bought.»
    """
    v = variant("buraco-fechado", players=4)
    hands = ["5H 6H", "QD KD AD", "4S 5S", None]
    canastra = "6S 7S 8S 9S 10S JS QS"
    deal = compose(v, hands, stock_top="KC 9C 3S", turn=0, melds=[["7H 8H 9H", canastra], []])
    morto = sum(card_points(c, v) for c in deal.pozzetti[0])
    for action in ("draw", "extend 0 6H", "extend 0 5H", "discard KC", "draw", "discard 9C"):
        legal(deal, action)
    legal(deal, "draw")
    legal(deal, "meld 3S 4S 5S")
    assert deal.went_out and deal.line_of[deal.closer] == 0
    line = deal.score().lines[0]
    assert (line.in_hand, line.pozzetto_penalty, line.closing) == (-morto, 0, 100)


def test_without_the_option_an_unused_morto_counts_as_cards_in_hand() -> None:
    """``unused_morto_untaken=False``: the morto reaches the hand at the partner's discard
    and, unused at the deal's end, counts as cards in hand (our pozzetto's rule).

    buraco2009: «If one player buy the “dead” deck by indirect beat and the other player
    finish the game before reaching his turn again, the “dead” deck score is not counted and
    it's punished as it was not bought.»
    """
    assert all(variant(name).unused_morto_untaken for name in BRAZIL)
    assert not variant("italian").unused_morto_untaken
    assert not variant("buraco").unused_morto_untaken
    for players in (2, 4):
        deal = _morto_by_discard(players, unused_morto_untaken=False)
        morto = sum(card_points(c, FECHADO) for c in deal.view(0).hand) + sum(
            card_points(c, FECHADO) for c in (deal.pending_pozzetto[0] or ())
        )
        if players == 4:
            for action in ("draw", "discard 9C", "draw", "discard 10C"):
                legal(deal, action)
            assert deal.sizes[0] == 11  # released at the partner's discard
        legal(deal, "draw")
        legal(deal, "meld 3S 4S 5S")
        line = deal.score().lines[0]
        partner_hand = sum(card_points(c, FECHADO) for c in deal.hand(2)) if players == 4 else 0
        assert (line.in_hand, line.pozzetto_penalty) == (-morto - partner_hand, 0)


# --- going out --------------------------------------------------------------------------------


def test_stbl_goes_out_only_with_a_clean_canastra() -> None:
    """Bate limpo: a line with only a dirty canastra may not go out; with a clean one it may.
    In buraco fechado a dirty canastra is enough.

    jogatina: «Só bate com canastra limpa? SIM NÃO SIM»
    rafaelmuylaert: «if (!G.rules.cleanCanastaToWin || teamHasClean(G, team)) {»
    """
    dirty = [["3S 4S 5S 6S 7S JK 9S"], []]
    clean = [["3S 4S 5S 6S 7S 8S 9S"], []]
    for v, melds, ok in (
        (STBL, dirty, False),
        (ABERTO, dirty, False),
        (FECHADO, dirty, True),
        (STBL, clean, True),
    ):
        deal = compose(v, ["5H 6H", None], stock_top="7H", turn=0, melds=melds)
        deal.has_pozzetto[0] = True
        deal.pozzetti.pop(0)
        deal.apply("draw")
        if ok:
            legal(deal, "meld 5H 6H 7H")
            assert deal.went_out and deal.phase == "over"
        else:
            illegal(deal, "meld 5H 6H 7H", "needs a clean canastra")


def test_the_batida_scores_100() -> None:
    """Going out (the batida) scores 100.

    rafaelmuylaert: «const bonus = G.rules?.endGameBonus ?? 100;»
    """
    deal = compose(
        FECHADO, ["5H 6H", None], stock_top="7H", turn=0, melds=[["3S 4S 5S 6S 7S 8S 9S"], []]
    )
    deal.has_pozzetto[0] = True
    deal.pozzetti.pop(0)
    deal.apply("draw")
    deal.apply("meld 5H 6H 7H")
    line = deal.score().lines[0]
    assert line.closing == 100 and line.burracos == (("clean", 200),)


# --- the pile ---------------------------------------------------------------------------------


def test_a_closed_pile_shows_its_top_only() -> None:
    """A closed pile shows only its top card, to every seat and to a spectator; a seat's
    position writes the rest as a count; the whole deal's position keeps every card.

    jogatina: «No Buraco Fechado STBL só fica visível a carta do topo do lixo.»
    """
    for v, shown in ((STBL, ["8C"]), (FECHADO, ["8C"]), (ABERTO, ["2S", "9C", "8C"])):
        deal = compose(v, [None, None], pile="2S 9C 8C", turn=0)
        for seat in (0, 1):
            seen = deal.view(seat)
            assert [str(c) for c in seen.pile] == shown
            assert seen.pile_hidden == 3 - len(shown)
            assert DealView.from_position(seen.position()) == seen
        assert [str(c) for c in public_view_of(deal).pile] == shown
        assert deal.position().split()[5] == "2S9C8C"
        assert deal.view(1).position().split()[5] == ("#2|8C" if len(shown) == 1 else "2S9C8C")


def test_a_closed_pile_is_taken_only_to_meld_its_top() -> None:
    """A closed pile is taken only by a player whose hand melds its top card at once; after
    the take, the top is melded before anything else (no discard, no other meld), then the
    turn goes on as usual. The rest of the pile comes to the hand, known to no one else.

    jogatina: «O jogador só poderá comprar o lixo se a carta que esti»
    rafaelmuylaert: «if (!moveMeld(G, p, selectedHandIds, meldTarget, restCount, topCard, true)) return false;»
    """
    hands = ["3H 4H 5H 6H 7H 8H 9H 9C 10C KS QD", "4S 5S 6S 7D 7D 8D 9S 9S JH JH QH"]
    deal = compose(STBL, hands, pile="2S 9C 8C", turn=0)
    assert texts(deal) == ["draw", "take"]
    legal(deal, "take")
    assert texts(deal) == ["meld 2S 8C 9C", "meld 2S 8C 9C 10C", "meld 2S 8C 10C", "meld 8C 9C 10C"]
    illegal(deal, "discard QD", "first meld its top card")
    illegal(deal, "meld 3H 4H 5H", "first meld its top card")
    assert [str(c) for c in deal.view(1).known[0]] == ["8C"]
    legal(deal, "meld 8C 9C 10C")
    legal(deal, "meld 3H 4H 5H")
    legal(deal, "discard QD")
    # Seat 1 cannot meld 10C... the pile is now QD alone: its hand has no diamonds near it.
    assert texts(deal) == ["draw"]
    illegal(deal, "take", "taken only by a player who can meld its top card")


def test_the_top_may_go_on_a_meld_of_the_line() -> None:
    """The top of a closed pile may also go on one of the line's melds.

    rafaelmuylaert: «const meldTarget = target.type === 'append' ? target.meldTarget : null;»
    """
    deal = compose(
        FECHADO, ["KS KS QD 4C 4D", None], pile="9C 6H", melds=[["3H 4H 5H"], []], turn=0
    )
    legal(deal, "take")
    assert texts(deal) == ["extend 0 6H"]
    legal(deal, "extend 0 6H")
    assert "discard 9C" in texts(deal)


def test_an_open_pile_is_taken_whole_with_no_condition() -> None:
    """Buraco aberto: the pile is open, and taking it asks nothing of its top; everyone
    knows every card taken.

    jogatina: «O lixo é aberto? SIM NÃO NÃO»
    """
    deal = compose(ABERTO, ["KS KS QD 4C 4D 5S 7S 9S 10H JH 3C", None], pile="2S 9C 8C", turn=0)
    legal(deal, "take")
    assert sorted(str(c) for c in deal.view(1).known[0]) == ["2S", "8C", "9C"]
    legal(deal, "discard 3C")


def test_one_card_in_hand_takes_no_pile_of_one() -> None:
    """A player holding one card may not take a pile of one card; a pile of one taken is not
    discarded back.

    canastra.online: «O jogador que tem apenas uma carta à mão fica proibido de comprar cartas do descarte»
    canastra.online: «porém não é permitido, ao final da sua vez, descartar esta mesma carta»
    """
    deal = compose(ABERTO, ["KS", None], pile="KH", turn=0)
    deal.has_pozzetto[0] = True
    deal.pozzetti.pop(0)
    assert texts(deal) == ["draw"]
    deal = compose(ABERTO, ["KS QS 4C", None], pile="KH", turn=0)
    legal(deal, "take")
    illegal(deal, "discard KH", "one-card pile")


# --- canastras --------------------------------------------------------------------------------


def test_canastras_of_500_and_1000() -> None:
    """A clean canastra from ace to king (13 cards) scores 500, from ace to ace (14) 1000; a
    dirty one is a dirty canastra (100). Other canastras: clean 200, dirty 100.

    jogosdorei: «Ao sujar uma canastra de 500, aparecerá -10»
    rafaelmuylaert: «if (length === 13) pts += 500;»
    wikipedia: «canastra "limpa" (sem curingas) vale 200 pontos, a "suja" vale 100 pontos»
    """
    for v in (ABERTO, FECHADO, STBL):
        a_to_k = read_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"), v)
        a_to_a = read_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"), v)
        dirty = read_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH JK KH AH"), v)
        seven = read_meld(parse_cards("3S 4S 5S 6S 7S 8S 9S"), v)
        seven_dirty = read_meld(parse_cards("3S 4S 5S 6S 7S JK 9S"), v)
        assert [meld_bonus(m, v) for m in (a_to_k, a_to_a, dirty, seven, seven_dirty)] == [
            500,
            1000,
            100,
            200,
            100,
        ]
        assert grade_of(a_to_a, v) == "clean" and grade_of(dirty, v) == "dirty"
    with pytest.raises(IllegalMove, match="ace"):
        read_meld(parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"), variant("buraco"))


def test_card_values() -> None:
    """Joker 50, 2 10, ace 15, 8 to K 10, 3 to 7 5, on the table and in hand, in the three
    games; ``twos_20`` (or ``values``) plays rafaelmuylaert's 2 of 20.

    gamedesire: «2 (10 points)»
    gamedesire: «Joker (50 points)»
    playjoy: «Twos add up 10 points and jokers add up 20»
    pagat: «Each two: 10 points»
    rafaelmuylaert: «if (s === 5) return v?.joker ?? 50;»
    rafaelmuylaert: «if (r === 2) return v?.two   ?? 20;»
    """
    for name in BRAZIL:
        for players in (2, 4):
            v = variant(name, players=players)
            points = [card_points(c, v) for c in parse_cards("JK 2H AS KC 8C 7D 3D")]
            assert points == [50, 10, 15, 10, 10, 5, 5]
            assert card_points(parse_cards("2H")[0], variant(name, twos_20=True)) == 20
    # Italian and 001's buraco keep theirs.
    assert card_points(parse_cards("2H")[0], variant("italian")) == 20
    assert card_points(parse_cards("2H")[0], variant("buraco")) == 10
    assert variant("buraco").values[0] == 10
    # A 2 counts 10 in hand and 10 on the table: a wildcard 2 in a meld, a 2 left in hand.
    deal = compose(STBL, ["2C 2D 4D", None], stock_top="KC", turn=0, melds=[["5H 6H 7H"], []])
    deal.has_pozzetto[1] = True
    deal.pozzetti.pop(1)
    deal.has_pozzetto[0] = True
    deal.pozzetti.pop(0)
    legal(deal, "draw")
    legal(deal, "extend 0 2C")
    legal(deal, "discard KC")
    line = deal.score().lines[0]
    assert (line.melded, line.in_hand) == (5 + 5 + 5 + 10, -10 - 5)


def test_a_match_is_played_to_3000() -> None:
    """A match ends when a line reaches 3000.

    wikipedia: «até que se atinjam 3 000 ou 5 000 pontos»
    """
    for name in BRAZIL:
        v = variant(name)
        assert (v.target, v.vulnerable_at, v.relancinho_bonus) == (3000, 0, 0)
        assert variant(name, target=5000).target == 5000
    match = Match(variant("buraco-fechado", target=600), seed=1)
    rng = __import__("random").Random(1)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
    assert max(match.score()) >= 600 and match.winner() is not None


def test_whole_deals_play_out() -> None:
    """Random legal play ends every deal of every game at both tables, each seat's view and
    position agree, and the closed pile never shows more than its top.

    jogatina: «apenas a última carta jogada na lixeira é exibida e as demais cartas ficam ocultas»
    """
    import random

    for name in BRAZIL:
        for players in (2, 4):
            v = variant(name, players=players)
            for seed in range(4):
                deal = Deal.new(v, seed=seed)
                rng = random.Random(seed)
                while not deal.is_over:
                    actions = deal.legal_actions()
                    assert actions, deal.position()
                    deal.apply(rng.choice(actions))
                    if not v.pile_open:
                        assert len(deal.view(0).pile) <= 1
                    copy = Deal.from_position(deal.position())
                    assert copy.position() == deal.position()
                assert deal.end_reason in ("went out", "stall")


def test_the_quotes_stand_in_the_notes() -> None:
    """Every quote of these tests stands verbatim in docs/brazil.md (its sources' words).

    jogatina: «Tem morto? SIM SIM SIM»
    """
    notes = " ".join(DOC.read_text(encoding="utf-8").split())
    module = sys.modules[__name__]
    for name, fn in vars(module).items():
        if not (name.startswith("test_") and inspect.isfunction(fn)):
            continue
        quotes = re.findall(r"([\w.]+): «(.*?)»", inspect.getdoc(fn) or "", re.S)
        assert quotes, f"{name} quotes no source"
        for source, text in quotes:
            assert f"«{' '.join(text.split())}»" in notes, f"{name}: {source} «{text}» not in notes"


def test_positions_write_the_options_and_the_closed_pile() -> None:
    """The position notation writes each new option that differs from the preset, reads it
    back, and keeps a closed pile's top card to be melded (``tomeld``).

    jogatina: «No Buraco Fechado STBL só fica visível a carta do topo do lixo.»
    """
    v = variant("buraco-fechado", sets=False, go_out_needs_clean=True, long_clean_bonus=0)
    deal = Deal.new(v, seed=2)
    text = deal.position()
    assert text.split()[1] == (
        "buraco-fechado/2/2;sets=False;long_clean_bonus=0;go_out_needs_clean=True"
    )
    assert Deal.from_position(text).v == v
    mixed = variant("buraco", pile_open=False, morto_as_stock=True)
    assert Deal.from_position(Deal.new(mixed, seed=1).position()).v == mixed
    hands = ["3H 4H 5H 6H 7H 8H 9H 9C 10C KS QD", None]
    deal = compose(STBL, hands, pile="2S 9C 8C", turn=0)
    deal.apply("take")
    assert deal.position().split()[-1] == "first,tomeld=8C"
    again = Deal.from_position(deal.position())
    assert again.pile_top == deal.pile_top and texts(again) == texts(deal)
    seen = deal.view(1)
    assert seen.position().split()[-1] == "first,tomeld=8C"
    assert DealView.from_position(seen.position()).pile_top == seen.pile_top


def test_the_quick_answers_on_a_closed_pile_are_the_full_ones() -> None:
    """Whether a closed pile may be taken is answered at once in the common cases (a meld of
    the line takes the top; no card of the hand can go with it); the answer is always the
    one the full trial gives (the top put in the hand and the legal melds listed).

    jogatina: «O jogador só poderá comprar o lixo se a carta que esti»
    """
    import random

    checked = 0
    for name in ("buraco-fechado", "stbl"):
        for players in (2, 4):
            v = variant(name, players=players)
            for seed in range(6):
                deal = Deal.new(v, seed=seed)
                rng = random.Random(seed)
                while not deal.is_over:
                    if deal.phase == "draw" and deal.pile:
                        full = deal._top_meldable_trial(deal.turn)
                        assert deal._top_meldable(deal.turn) == full, deal.position()
                        checked += 1
                    deal.apply(rng.choice(deal.legal_actions()))
    assert checked > 500


def test_the_top_of_a_closed_pile_of_one_is_not_discarded_back() -> None:
    """A closed pile of one card taken: that card goes to the table, never back to the pile
    (found by the property tests: the discard of the top was let through).

    jogatina: «O jogador só poderá comprar o lixo se a carta que esti»
    """
    deal = compose(STBL, ["5C 6C 7C KS QD 4H", None], pile="7C", melds=[["4C 5C 6C"], []], turn=0)
    legal(deal, "take")
    assert all("7C" in a for a in texts(deal)) and "discard 7C" not in texts(deal)
    illegal(deal, "discard 7C", "first meld its top card")
