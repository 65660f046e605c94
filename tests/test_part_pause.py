"""The pause between two deals (server/table/pause.py): its length, the presses of "next
deal", its countdown, and the absence wait of a person who has not seen a deal begin."""

from __future__ import annotations

import asyncio
import time

from parts import Socket, dealt

from burraco.server.table.pause import Pauser, waiting_for


def test_the_pause_is_for_people_and_with_online_for_people_connected() -> None:
    pauser = Pauser(seconds=30.0)
    bots = dealt(("bot", "bot"))
    assert pauser.seconds_after(bots) == 0.0
    people = dealt(("human", "bot"))
    assert pauser.seconds_after(people) == 30.0
    assert pauser.seconds_after(people, online=True) == 0.0
    people.seats[0].connections.append(Socket().send)
    assert pauser.seconds_after(people, online=True) == 30.0


def test_a_deal_read_by_nobody_online_gives_way_to_the_next_at_once() -> None:
    pauser = Pauser(seconds=30.0)
    table = dealt(("human", "human"))
    table.seats[1].connections.append(Socket().send)
    ended = time.time()
    pauser.pause(table, ended)
    assert table.pause_until == ended + 30.0 and table.ready == set()
    away = dealt(("human", "bot"))
    pauser.pause(away, ended)
    assert away.pause_until is None
    # The person away has not seen the new deal begin: their first clock waits.
    assert away.unseen == {0} and away.absent_until == ended + 30.0


def test_the_next_deal_begins_when_everyone_online_has_pressed() -> None:
    table = dealt(("human", "human"))
    table.seats[0].connections.append(Socket().send)
    table.seats[1].connections.append(Socket().send)
    assert Pauser.press(table, 1) is None  # no pause: a late press
    pauser = Pauser(seconds=30.0)
    pauser.pause(table, time.time())
    assert Pauser.press(table, 1) is False and table.ready == {1}
    assert Pauser.press(table, 0) is True
    assert pauser.end(table, time.time()) and table.pause_until is None and not table.ready
    assert not pauser.end(table, time.time())  # ended already


def test_the_pause_ends_by_itself_when_its_countdown_does() -> None:
    table = dealt(("human", "human"))
    table.pause_until = time.time() + 0.05
    assert asyncio.run(Pauser.countdown(table))
    table.pause_until = None  # the deal began sooner
    assert not asyncio.run(Pauser.countdown(table))


def test_a_person_who_sees_the_deal_begin_on_turn_gets_a_whole_clock() -> None:
    table = dealt(move_seconds=40)
    assert table.match is not None
    turn = table.match.deal.turn
    # Nobody had the table open when it began: the clock waits the grace out.
    assert Pauser.keep_grace(table, time.time() + 600)
    assert table.unseen == {0, 1}
    assert table.deadline is not None and table.deadline > time.time() + 500
    assert not Pauser.sees_deal(table, 1 - turn)  # not on turn: nothing starts
    assert Pauser.sees_deal(table, turn)
    assert table.unseen == set()
    assert table.deadline is not None and table.deadline <= time.time() + 40


def test_the_pause_waits_only_for_the_people_online_who_have_not_pressed() -> None:
    table = dealt(("human", "human"))
    assert waiting_for(table) == []  # nobody online: nobody is waited for
    table.seats[1].connections.append(Socket().send)
    assert waiting_for(table) == [1]
    table.ready = {1}
    assert waiting_for(table) == []
    bots = dealt(("bot", "bot"))
    bots.seats[0].connections.append(Socket().send)  # a bot's seat is never waited for
    assert waiting_for(bots) == []
