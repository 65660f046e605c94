"""The views (server/table/views.py): what a seat and a spectator receive of a table, and
the telling that gives each seat its own."""

from __future__ import annotations

import asyncio
import time

from parts import Socket, dealt, greedy_move

from burraco.actions import Action
from burraco.server.messages import view_json
from burraco.server.table.views import Views, common, deal_over, match_over, public_event, state


def test_a_seat_sees_its_own_hand_and_its_legal_moves_only_on_its_turn() -> None:
    table = dealt()
    assert table.match is not None
    turn = table.match.deal.turn
    mine, theirs = state(table, turn), state(table, 1 - turn)
    assert mine["seat"] == turn and mine["legal"] and "watching" not in mine
    assert theirs["legal"] == []
    assert mine["view"] != theirs["view"]  # each its own hand


def test_a_spectator_sees_the_public_view_nothing_legal() -> None:
    table = dealt()
    seen = state(table, None)
    assert seen["watching"] is True and seen["legal"] == [] and seen["seat"] is None
    assert "hand" not in seen["view"] and "partner_hands" not in seen["view"]
    assert "hand" in state(table, 0)["view"]


def test_between_two_deals_nothing_is_legal_and_the_pause_says_who_is_waited_for() -> None:
    table = dealt()
    assert table.match is not None
    table.pause_until = time.time() + 30
    table.seats[0].connections.append(Socket().send)
    table.seats[1].connections.append(Socket().send)
    table.ready = {1}
    message = state(table, table.match.deal.turn)
    assert message["legal"] == []
    assert message["pause"]["ready"] == [1] and message["pause"]["waiting"] == [0]
    assert 29 < message["pause"]["seconds"] <= 30


def test_the_move_clock_and_the_deal_clock_are_told_in_seconds_left() -> None:
    table = dealt(deal_seconds=600)
    table.deadline = time.time() + 45
    table.deal_started = time.time()
    message = state(table, 0)
    assert 44 < message["clock"]["seconds"] <= 45
    assert message["deal_clock"]["total"] == 600 and not message["deal_clock"]["called"]
    assert message["clock"]["absent"] == 0


def test_the_clock_says_when_it_waits_for_a_player_who_has_not_come() -> None:
    table = dealt()
    turn = table.match.deal.turn
    table.unseen = {turn}
    table.absent_until = time.time() + 30
    table.deadline = table.absent_until + 45
    assert 29 < state(table, 0)["clock"]["absent"] <= 30
    table.absent_until = time.time() - 1  # the wait is over: the move's own clock runs
    assert state(table, 0)["clock"]["absent"] == 0


def test_an_event_says_its_action_or_its_kind() -> None:
    assert public_event(5, 0, "action", {"action": "draw", "bot": True})["action"] == "draw"
    assert public_event(6, 1, "abandon", {}) == {
        "type": "event",
        "version": 6,
        "seat": 1,
        "action": "abandon",
    }


def test_a_deals_score_and_the_matchs_end() -> None:
    table = dealt()
    match = table.match
    assert match is not None
    while not match.scores:
        match.apply(Action.parse(greedy_move(table)))
    over = deal_over(table, 0, 7)
    assert over["deal"] == 1 and over["version"] == 7 and over["totals"] == list(match.totals)
    match.abandon(0)
    end = match_over(table)
    assert end["abandoned_by"] == 0 and end["winner"] == match.winner()


def test_each_seat_is_told_its_own_state_and_the_socket_asked_is_skipped() -> None:
    async def scenario() -> None:
        table = dealt()
        anna, anna_too, bruno = Socket(), Socket(), Socket()
        skipped = anna_too.send  # one bound method: the room tells sockets apart by identity
        table.seats[0].connections += [anna.send, skipped]
        table.seats[1].connections.append(bruno.send)
        views = Views()
        info, shared = await views.tell_seats(table, skip=skipped)
        assert [m["seat"] for m in anna.heard] == [0] and anna_too.heard == []
        assert [m["seat"] for m in bruno.heard] == [1]
        assert info == table.info() and shared == common(table)  # for the spectators' frames
        await views.send_all(table, {"type": "pong"})
        assert anna_too.heard == [{"type": "pong"}]

    asyncio.run(scenario())


def test_a_seats_view_is_the_public_view_and_its_own_cards_at_every_step() -> None:
    # The broadcast builds the public part once for every seat: each seat must still get
    # exactly its whole view, at every step of a deal, for two players and for four.
    for players in (2, 4):
        table = dealt(("human",) * players)
        match = table.match
        assert match is not None
        for _ in range(80):
            if match.is_over or match.scores:
                break
            shared = common(table)
            for seat in range(players):
                whole = view_json(match.view(seat), len(match.deals))
                assert state(table, seat)["view"] == whole
                assert state(table, seat, shared=shared)["view"] == whole
            assert state(table, None)["view"] == shared["view"]
            match.apply(match.deal.legal_actions()[-1])
