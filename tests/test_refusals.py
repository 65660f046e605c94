"""The engine's refusals carry a code and params (``burraco.refusals``), and the room sends them.

1. Concrete illegal actions of ``italian``, ``buraco`` and ``canasta``: the exact code and
   params of each refusal, and its English text, unchanged.
2. A property over random deals: every refused action's ``IllegalMove`` has a code of
   ``TEXTS``, exactly the params its template names, and an English text with nothing left
   to fill in.
3. The catalogue: every code is used by the engine, and docs/protocol.md lists each with
   its text.
4. The web room over its real WebSocket: an illegal action's error carries ``rule`` and
   ``params``; an action out of turn carries ``params.seat``.
"""

from __future__ import annotations

import asyncio
import pickle
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import dealt
from positions_bc import buraco_order, canasta_order
from roomserver import Player, RoomServer, create_table
from test_properties import candidates, describe, playout

from burraco import Action, Deal, IllegalMove, compose, parse_cards, variant
from burraco.cards import format_cards
from burraco.refusals import TEXTS, Refusal, nested

ROOT = Path(__file__).resolve().parents[1]


def refused(deal: Deal, text: str) -> IllegalMove:
    """The refusal of an illegal action: the same from ``check`` and ``apply``, and the
    English message is ``"{action}: {text of the refusal}"``."""
    action = Action.parse(text)
    assert not deal.is_legal(action), f"{text} should be illegal"
    with pytest.raises(IllegalMove) as checked:
        deal.check(action)
    with pytest.raises(IllegalMove) as applied:
        deal.apply(action)
    error = checked.value
    assert error.refusal == applied.value.refusal
    assert error.action == str(action)
    assert str(error) == f"{action}: {error.refusal}"
    return error


def assert_refused(deal: Deal, text: str, code: str, params: dict[str, str | int], english: str):
    error = refused(deal, text)
    assert (error.code, dict(error.params)) == (code, params), text
    assert str(error.refusal) == english


# --- 1. concrete refusals -----------------------------------------------------------------


def test_italian_refusals():
    v = variant("italian")
    deal = dealt(v, {1: "5H 6H 7H 9H 9C 9D KS QS JK 2C 4C"}, up="8C", stock="JD")
    assert deal.turn == 1
    assert_refused(
        deal,
        "meld 5H 6H 7H",
        "not_drawn_yet",
        {},
        "first draw from the stock or take the pile",
    )
    deal.apply("draw")
    assert_refused(deal, "take", "already_drawn", {}, "the player has already drawn this turn")
    assert_refused(
        deal,
        "meld AS AS AS",
        "hand_lacks_cards",
        {"cards": "AS AS AS"},
        "the hand does not hold AS AS AS",
    )
    gap = (
        "the cards of a sequence must be consecutive, with at most one wildcard filling a gap"
        " (the ace goes below the 2 or above the K, never round the corner)"
    )
    assert_refused(
        deal, "meld 5H 6H 9H", "not_a_meld", {"reason": "sequence_gap"}, f"not a meld: {gap}"
    )
    assert_refused(
        deal,
        "meld 9C 9D",
        "not_a_meld",
        {"reason": "meld_too_short"},
        "not a meld: a meld has at least three cards",
    )
    assert_refused(
        deal,
        "extend 2 5H",
        "no_such_meld",
        {"target": 2, "last": -1},
        "the line has no meld 2 (its melds are 0 to -1)",
    )
    deal.apply("meld 5H 6H 7H")
    deal.apply("extend 0 JK")
    meld = str(deal.melds[deal.line_of[1]][0])
    assert_refused(
        deal,
        "extend 0 2C",
        "cannot_add",
        {"card": "2C", "meld": meld, "reason": "wildcard_limit_one"},
        f"cannot add 2C to {meld}: a meld holds at most one wildcard",
    )
    assert_refused(
        deal,
        "extend 0 9C",
        "cannot_add",
        {"card": "9C", "meld": meld, "reason": "sequence_wrong_suit"},
        f"cannot add 9C to {meld}: a sequence takes only cards of its suit and wildcards",
    )


def test_italian_refuses_discarding_back_the_card_of_a_one_card_pile():
    v = variant("italian")
    deal = dealt(v, {1: "5H 6H 7H 9H 9C 9D KS QS JK 2C 4C"}, up="8C", stock="JD")
    deal.apply("take")
    assert_refused(
        deal,
        "discard 8C",
        "discard_back_single",
        {},
        "the card taken from a one-card pile may not be discarded in the same turn, "
        "unless the hand holds two equal to it",
    )


def test_buraco_refusals():
    v = variant("buraco")
    hands = ["8S 9S 10S JH QH KH 3D 4D 5D 2C 2H", "3C 4C 5C 9D 9H 10C JC QD 7S 8D KS"]
    deal = Deal.from_deck(v, buraco_order(v, hands, "9C AC 4S 2D 5S"), dealer=0)
    assert deal.turn == 0 and not deal.pile
    assert_refused(deal, "take", "pile_empty", {}, "the discard pile is empty")
    assert_refused(
        deal, "pass", "pass_needs_empty_stock", {}, "a player passes only when the stock is empty"
    )
    deal.apply("draw")
    deal.apply("redraw")
    assert_refused(
        deal,
        "redraw",
        "redraw_once",
        {},
        "the dealer may draw again only once, right after the first draw",
    )
    assert_refused(
        deal,
        "meld 3D 4D 2H 2C",
        "not_a_meld",
        {"reason": "wildcard_limit_one"},
        "not a meld: a meld holds at most one wildcard",
    )
    assert_refused(
        deal,
        "meld 8S 9S JH",
        "not_a_meld",
        {"reason": "sequence_one_suit"},
        "not a meld: a sequence is of one suit",
    )
    deal.apply("meld 8S 9S 10S")
    assert_refused(
        deal,
        "extend 0 QH",
        "cannot_add",
        {"card": "QH", "meld": "8S 9S 10S", "reason": "sequence_wrong_suit"},
        "cannot add QH to 8S 9S 10S: a sequence takes only cards of its suit and wildcards",
    )
    deal.apply("discard KH")
    deal.apply("draw")
    assert_refused(
        deal,
        "redraw",
        "redraw_dealer_first_turn",
        {},
        "only the dealer, on the first turn of the deal, may draw again",
    )


def test_buraco_vulnerable_refusals():
    v = variant("buraco", vulnerable_refuse=True)
    hands = ["3S 4S 5S 7H 8D 9C JC QD KS 6H 6C"]
    deal = Deal.from_deck(v, buraco_order(v, hands, "10D"), dealer=0, minimum=[75, 0])
    deal.apply("draw")
    assert_refused(
        deal,
        "meld 3S 4S 5S",
        "meld_minimum_unreachable",
        {"minimum": 75},
        "the first melds of a line must be worth at least 75; the hand cannot reach it after this",
    )
    hands = ["8S 9S 10S JH QH KH 3D 4D 5D 6D 7C"]
    deal = Deal.from_deck(v, buraco_order(v, hands, "9C"), dealer=0, minimum=[75, 0])
    deal.apply("draw")
    deal.apply("meld 8S 9S 10S")
    assert_refused(
        deal,
        "discard 9C",
        "meld_minimum_laid_so_far",
        {"minimum": 75, "laid": 60},
        "the first melds of a line must be worth at least 75 (laid so far: 60)",
    )


def canasta(hands: dict[int, str], **pile: str) -> Deal:
    v = variant("canasta")
    return Deal.from_deck(v, canasta_order(v, hands, dealer=1, **pile), dealer=1)


def test_canasta_refusals():
    deal = canasta({0: "AS AH AD KS KH QS QH QD 2C 2S JK JK 5C 6D 7H"}, stock="9C 10D")
    pair = "the pile is taken only with two naturals equal to its top (4C), melded with it at once"
    assert_refused(deal, "take", "pile_needs_pair", {"top": "4C"}, pair)
    assert_refused(deal, "take KS KH", "pile_needs_pair", {"top": "4C"}, pair)
    deal.apply("draw")
    limit = "two naturals take at most one wildcard, three or more take two"
    assert_refused(
        deal,
        "meld KS KH 2C JK",
        "not_a_meld",
        {"reason": "canasta_wildcard_limit"},
        f"not a meld: {limit}",
    )
    assert_refused(
        deal,
        "meld 5C 6D 7H",
        "not_a_meld",
        {"reason": "set_one_rank"},
        "not a meld: a set is of one rank",
    )
    deal.apply("meld AS AH 2C")
    assert_refused(
        deal,
        "extend 0 JK",
        "cannot_add",
        {"card": "JK", "meld": "AS AH 2C", "reason": "canasta_wildcard_limit"},
        f"cannot add JK to AS AH 2C: {limit}",
    )


def test_canasta_take_refusals():
    deal = canasta(
        {0: "4S 4H 5S 5H 6S 6H 7S 7H 8S 9S 10S JS QS KS AS"}, turned="4C", buried="8H 9H 10H JH"
    )
    assert_refused(
        deal,
        "take 4S 4H",
        "take_cannot_open",
        {"minimum": 50},
        "the first melds of a line must be worth at least 50, reached with the top card and "
        "the hand: the rest of the pile never counts, and this take cannot reach it",
    )
    hands = {
        0: "3S KS KH AS AH AD 5D 6D 7H 8C 9H 10D JC QD 4S",
        1: "3S 3C KD AC 5C 6C 7C 8D 9D 10C JD QC 4D 5H 6H",
    }
    deal = canasta(hands, turned="4C", stock="7S 8S 9C 10H")
    deal.apply("draw")
    deal.apply("discard 3S")
    assert_refused(
        deal,
        "take 3S 3C",
        "pile_frozen_black_three",
        {},
        "the pile is frozen while its top is a black 3",
    )


def test_canasta_black_threes_wait_for_going_out():
    hand = "AS AS AH AH AD AD AC KS KH KD KC KS 2C JK 3S"
    deal = canasta({0: hand}, turned="4C", stock="3S QD 4S 4H 3C QH")
    for text in ("draw", "meld AS AS AH AH AD AD AC", "discard QD", "draw", "discard 4S"):
        deal.apply(text)
    deal.apply("draw")
    assert_refused(
        deal,
        "meld 3S 3S 3C",
        "black_threes_going_out",
        {},
        "black 3s may be melded only by a player going out",
    )
    assert_refused(
        deal,
        "meld 3S 3C 2C",
        "not_a_meld",
        {"reason": "black_threes_no_wildcards"},
        "not a meld: black 3s are melded without wildcards",
    )


#: The start of leaves_last_card_no_burraco's text, before its reason.
LAST_CARD = (
    "this would leave one card, and discarding it would empty the hand, "
    "which the line may not do yet: "
)


def test_a_last_card_held_back_by_a_missing_burraco_says_so():
    """Issue 11: a lay-down that leaves one card the line may not discard for want of a
    burraco (canastra, canasta) says that, with the rule, not only "cannot end the turn"."""
    # italian: the line has its pozzetto (in diretta), no burraco, so no close
    deal = dealt(
        variant("italian"),
        {1: "3H 4H 5H 10S JS QS 6D 7D 8D 9C 9S", 0: "3D 4S 6H 8D 9D JH QC KC AD 5S 7C"},
        up="8H",
        stock="9H",
        pozzetti=["4C 5C 6C 7C JD QD KD 8S 8H 8C KH"],
    )
    for text in ("draw", "meld 3H 4H 5H", "meld 10S JS QS", "meld 6D 7D 8D", "meld 9C 9S 9H"):
        deal.apply(text)
    deal.apply("meld 4C 5C 6C 7C")
    deal.apply("meld JD QD KD")
    close = "to close the line needs at least one burraco"
    reason = {"reason": "close_needs_burraco"}
    assert_refused(deal, "meld 8S 8H 8C", "leaves_last_card_no_burraco", reason, LAST_CARD + close)
    # italian with 6 players: no pozzetto before a burraco
    deal = dealt(
        variant("italian", players=6), {1: "3H 4H 5H 10S JS QS 7D 7C 7S 6H KC"}, up="8H", stock="9S"
    )
    for text in ("draw", "meld 3H 4H 5H", "meld 10S JS QS", "meld 7D 7C 7S", "extend 1 9S"):
        deal.apply(text)
    assert_refused(
        deal,
        "extend 0 6H",
        "leaves_last_card_no_burraco",
        {"reason": "burraco_before_pozzetto"},
        LAST_CARD + "with 6 players a line needs a burraco before it takes its pozzetto",
    )
    # buraco: going out needs a canastra
    v = variant("buraco")
    hands = ["3S 4S 5S 6S 7S 8S 9H 10H JH QH KH"]
    deal = Deal.from_deck(v, buraco_order(v, hands, "AH"), dealer=0)
    deal.apply("draw")
    deal.apply("meld 3S 4S 5S 6S 7S 8S")
    assert_refused(
        deal,
        "meld 9H 10H JH QH KH",
        "leaves_last_card_no_burraco",
        {"reason": "go_out_needs_canastra"},
        LAST_CARD + "to go out the line needs a canastra",
    )
    # canasta: going out needs two canastas, one of them clean
    deal = canasta({0: "AS AS AH AH AD AD AC KS KH KD KC 2C JK 9S 5D"}, stock="9H 9D")
    for text in ("draw", "meld AS AS AH AH AD AD AC", "meld KS KH KD KC 2C JK"):
        deal.apply(text)
    two = "to go out a line needs two canastas, one of them clean"
    reason = {"reason": "go_out_two_canastas"}
    assert_refused(deal, "meld 9S 9H 9D", "leaves_last_card_no_burraco", reason, LAST_CARD + two)
    # ... and a take that would leave that card says the reason once, one level deep
    deal = compose(variant("canasta"), ["7S 7H 9C"], melds=[["QH QC JK"]], pile="7D", turn=0)
    assert_refused(
        deal,
        "take 7S 7H",
        "take_leaves_dead_end",
        reason,
        f"after this take the turn could not end legally ({two})",
    )


def test_match_and_meld_functions_refuse_with_codes():
    from burraco import extend_meld, read_meld
    from burraco.match import Match

    v = variant("italian")
    with pytest.raises(IllegalMove) as caught:
        read_meld(parse_cards("KH AH 3H"), v)
    assert caught.value.code == "cards_not_a_meld" and caught.value.action is None
    assert dict(caught.value.params) == {"cards": "KH AH 3H", "reason": "sequence_gap"}
    meld = read_meld(parse_cards("3H 2H 5H"), v)
    with pytest.raises(IllegalMove) as caught:
        extend_meld(meld, parse_cards("2C")[0], v)
    assert str(caught.value) == "cannot add 2C to 3H 2H 5H: a meld holds at most one wildcard"
    assert caught.value.code == "cannot_add"
    match = Match(variant("italian", deals=1), seed=3)
    match.abandon(0)
    with pytest.raises(IllegalMove) as caught:
        match.check(Action.parse("draw"))
    assert (caught.value.code, str(caught.value)) == ("match_over", "draw: the match is over")


def test_an_illegal_move_survives_pickling_with_its_refusal():
    error = IllegalMove(nested("not_a_meld", Refusal("meld_too_short")), "meld 9C 9D")
    again = pickle.loads(pickle.dumps(error))
    assert (again.refusal, again.action, str(again)) == (error.refusal, error.action, str(error))


# --- 2. every refusal of random deals -----------------------------------------------------


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


#: The params that hold cards in the engine's notation.
CARD_PARAMS = {"cards", "card", "top", "meld"}


def check_refusal(error: IllegalMove, action: Action, where: str) -> None:
    refusal = error.refusal
    assert refusal.code in TEXTS, f"{action}: unknown code {refusal.code!r}: {where}"
    names = placeholders(TEXTS[refusal.code])
    reason = refusal.params.get("reason")
    if "reason" in names:
        assert isinstance(reason, str) and reason in TEXTS, f"{action}: reason {reason!r}"
        assert "reason" not in placeholders(TEXTS[reason]), "a reason is one level deep"
        names |= placeholders(TEXTS[reason])
    assert set(refusal.params) == names, f"{action}: params {dict(refusal.params)}: {where}"
    for name, value in refusal.params.items():
        assert isinstance(value, str | int) and not isinstance(value, bool), (name, value)
        if name in CARD_PARAMS:
            assert format_cards(parse_cards(str(value))) == value, (name, value)
    text = str(refusal)
    assert "{" not in text and "}" not in text, f"{action}: {text!r}: {where}"
    assert str(error) == f"{action}: {text}"


#: One table of each family, and the larger tables of the rules that depend on them.
PROPERTY_SETUPS = [
    ("italian", 2, None),
    ("italian", 4, None),
    ("italian", 6, 2),
    ("online", 2, None),
    ("buraco", 2, None),
    ("buraco", 4, 2),
    ("canasta", 2, None),
    ("canasta", 4, None),
]


@pytest.mark.parametrize(
    "setup",
    PROPERTY_SETUPS,
    ids=[f"{n}-{p}p" + (f"-{x}l" if x else "") for n, p, x in PROPERTY_SETUPS],
)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    policy=st.sampled_from(["uniform", "melder"]),
)
def test_every_refusal_has_a_known_code_and_its_params(
    setup: tuple[str, int, int | None], seed: int, policy: str
) -> None:
    pick = random.Random(f"refusals {seed}")
    for deal, legal, side in playout(setup, seed, policy):
        if deal.is_over:
            error = refused(deal, "draw")
            check_refusal(error, Action.parse("draw"), describe(setup, seed, policy, deal))
            assert error.code == "deal_over"
            continue
        if pick.random() > 0.3:
            continue
        listed = set(legal)
        where = describe(setup, seed, policy, deal)
        for action in candidates(deal, side, legal):
            if action in listed:
                continue
            with pytest.raises(IllegalMove) as caught:
                deal.check(action)
            check_refusal(caught.value, action, where)


# --- 3. the catalogue ---------------------------------------------------------------------


def test_every_code_is_used_by_the_engine_and_every_code_used_is_in_the_catalogue():
    sources = {
        path: path.read_text()
        for path in (ROOT / "src" / "burraco").glob("*.py")
        if path.name != "refusals.py"
    }
    used = set()
    for text in sources.values():
        used |= set(re.findall(r'(?:Refusal|nested|_minimum)\(\s*"([a-z_]+)"', text))
    assert used <= set(TEXTS), f"codes missing from TEXTS: {sorted(used - set(TEXTS))}"
    assert set(TEXTS) <= used, f"codes the engine never uses: {sorted(set(TEXTS) - used)}"


def test_every_code_is_documented_in_the_protocol_with_its_text():
    doc = (ROOT / "docs" / "protocol.md").read_text()
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.*?) \| .*\|$", doc, re.M))
    for code, template in TEXTS.items():
        assert code in rows, f"docs/protocol.md does not list the refusal {code!r}"
        assert rows[code] == template.replace("|", "\\|"), f"docs/protocol.md: {code!r} drifted"


# --- 4. the room --------------------------------------------------------------------------


def test_the_room_sends_the_rule_and_its_params(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        table_id = table["table"]
        with server.http() as http:
            taken = http.post(f"/api/tables/{table_id}/join", json={"name": "Carla", "seat": 0})
            assert taken.status_code == 409
            assert taken.json()["params"] == {"seat": 0}
            bruno = http.post(f"/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
        async with (
            Player(server, table_id, table["token"]) as anna,
            Player(server, table_id, bruno["token"]) as brun,
        ):
            state = await anna.until("state")
            while state["table"]["status"] != "playing":
                state = await anna.until("state")
            turn = state["view"]["turn"]
            mover, waiter = (anna, brun) if turn == 0 else (brun, anna)
            version = state["version"]

            # Out of turn: the seat on turn, for the page to name its player.
            await waiter.send({"type": "action", "action": "draw", "version": version})
            error = await waiter.until("error")
            assert error["code"] == "not_your_turn" and "rule" not in error
            assert error["params"] == {"seat": turn}

            # The engine's refusal: its rule and params, the English message as before.
            await mover.send({"type": "action", "action": "discard 5H", "version": version})
            error = await mover.until("error")
            assert (error["code"], error["rule"], error["params"]) == (
                "illegal",
                "not_drawn_yet",
                {},
            )
            assert error["message"] == "discard 5H: first draw from the stock or take the pile"

            await mover.send({"type": "action", "action": "draw", "version": version})
            state = await mover.until("state")
            while not state["legal"]:
                state = await mover.until("state")
            version = state["version"]
            held = set(state["view"]["hand"])
            absent = [c for c in ("AS", "KS", "QS", "JS", "10S", "9S", "AH", "KH") if c not in held]
            text = f"meld {' '.join(absent[:3])}"
            cards = format_cards(Action.parse(text).cards)
            await mover.send({"type": "action", "action": text, "version": version})
            error = await mover.until("error")
            assert (error["code"], error["rule"], error["params"]) == (
                "illegal",
                "hand_lacks_cards",
                {"cards": cards},
            )
            assert error["message"] == f"{Action.parse(text)}: the hand does not hold {cards}"

            mine = state["view"]["hand"][0]
            await mover.send({"type": "action", "action": f"extend 0 {mine}", "version": version})
            error = await mover.until("error")
            assert (error["rule"], error["params"]) == ("no_such_meld", {"target": 0, "last": -1})

            # Other errors carry params too, empty.
            await mover.send({"type": "dance"})
            error = await mover.until("error")
            assert error["code"] == "bad_message" and error["params"] == {}

    with RoomServer(db) as server:
        asyncio.run(scenario(server))
