"""The pause between two deals (server/table/pause.py): its length, the presses of "next
deal", its countdown, and the absence wait of a person who has not seen a deal begin."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from parts import Socket, dealt, play_deal, room_in, seated

from burraco.server.table.pause import Pauser, waiting_for
from burraco.server.table.views import Views


def test_the_pause_is_for_people_and_with_online_for_people_connected() -> None:
    pauser = Pauser(Views(), seconds=30.0)
    bots = dealt(("bot", "bot"))
    assert pauser.seconds_after(bots) == 0.0
    people = dealt(("human", "bot"))
    assert pauser.seconds_after(people) == 30.0
    assert pauser.seconds_after(people, online=True) == 0.0
    people.seats[0].connections.append(Socket().send)
    assert pauser.seconds_after(people, online=True) == 30.0


def test_a_deal_read_by_nobody_online_gives_way_to_the_next_at_once() -> None:
    pauser = Pauser(Views(), seconds=30.0)
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


def test_the_next_deal_begins_when_everyone_online_has_pressed(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, next_deal_seconds=30.0)
        table, _ = await seated(room)
        anna, bruno = Socket(), Socket()
        table.seats[0].connections.append(anna.send)
        table.seats[1].connections.append(bruno.send)
        play_deal(room.turns, table)
        assert table.pause_until is not None
        assert waiting_for(table) == [0, 1]
        await room.pauser.next_deal(table, 1)
        assert table.pause_until is not None and anna.heard[-1]["pause"]["ready"] == [1]
        await room.pauser.next_deal(table, 0)
        assert table.pause_until is None and table.ready == set()
        assert anna.heard[-1]["pause"] is None and anna.heard[-1]["view"]["deal"] == 2
        await room.shutdown()

    asyncio.run(scenario())


def test_the_pause_ends_by_itself_when_its_countdown_does(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path, next_deal_seconds=0.05)
        table, _ = await seated(room)
        table.seats[0].connections.append(Socket().send)
        play_deal(room.turns, table)
        assert table.pause_until is not None
        await room.pauser.countdown(table)
        assert table.pause_until is None
        await room.shutdown()

    asyncio.run(scenario())


def test_a_person_who_sees_the_deal_begin_on_turn_gets_a_whole_clock(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, move_seconds=40, grace_seconds=600)
        assert table.match is not None
        turn = table.match.deal.turn
        # Nobody had the table open when it began: the clock waits the grace out.
        assert table.unseen == {0, 1}
        assert table.deadline is not None and table.deadline > time.time() + 500
        assert not room.pauser.sees_deal(table, 1 - turn)  # not on turn: nothing starts
        assert room.pauser.sees_deal(table, turn)
        assert table.unseen == set()
        assert table.deadline is not None and table.deadline <= time.time() + 40
        await room.shutdown()

    asyncio.run(scenario())


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
