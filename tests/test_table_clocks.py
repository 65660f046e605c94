"""Fair clocks at the table (issue 9): the pause between two deals, a seat taken back from
the bot that played for it, and the move clock and deal clock of a tournament's table.

Everything goes through the real HTTP and WebSocket API of a room on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

from roomserver import Player, RoomServer, create_table, start_table

NO_PAUSE_KEYS = {"deal", "until", "seconds", "ready", "waiting"}


async def _play_deal_one(players: list[Player], rng: random.Random) -> dict[str, Any]:
    """Random legal moves for every seat until deal 1 ends; the first state of the pause."""
    queue: asyncio.Queue[tuple[Player, dict[str, Any]]] = asyncio.Queue()

    async def listen(player: Player) -> None:
        while True:
            await queue.put((player, await player.next()))

    tasks = [asyncio.create_task(listen(p)) for p in players]
    try:
        while True:
            player, message = await asyncio.wait_for(queue.get(), 30)
            if message["type"] == "state" and message.get("pause"):
                return message
            if message["type"] == "state" and message["legal"]:
                action = rng.choice(message["legal"])
                await player.send(
                    {"type": "action", "action": action, "version": message["version"]}
                )
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _state(player: Player, done: Any, timeout: float = 20) -> dict[str, Any]:
    """The next state that satisfies ``done``."""
    while True:
        message = await player.next(timeout)
        if message["type"] == "state" and done(message):
            return message


def _two_people(server: RoomServer, **body: Any) -> tuple[str, str, str]:
    """A 4-seat table (two lines) with Anna and Bruno, bots on the other seats, started."""
    table = create_table(server, players=4, deals=2, bot="greedy", **body)
    with server.http() as http:
        joined = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"})
        assert joined.status_code == 200, joined.text
    start_table(server, table)
    return table["table"], table["token"], joined.json()["token"]


def test_the_next_deal_waits_until_every_person_has_pressed(db: str) -> None:
    """The score of deal 1 stays up: no clock runs, no bot moves, no action is taken, until
    both people have pressed "next deal"; then the move clock starts whole."""

    async def scenario(server: RoomServer) -> None:
        table, anna_token, bruno_token = _two_people(server, move_seconds=30)
        async with (
            Player(server, table, anna_token, next_deal=False) as anna,
            Player(server, table, bruno_token, next_deal=False) as bruno,
        ):
            paused = await _play_deal_one([anna, bruno], random.Random(4))
            pause = paused["pause"]
            assert set(pause) == NO_PAUSE_KEYS and pause["deal"] == 1
            assert paused["clock"] is None and paused["legal"] == []
            assert sorted(pause["waiting"]) == [0, 1] and pause["ready"] == []
            assert 25 < pause["seconds"] <= 30
            version = paused["version"]
            # Nobody moves meanwhile, not even the bots.
            await asyncio.sleep(1.0)
            assert server.room.tables[table].version == version
            # An action now is refused with the rule's name, and changes nothing.
            await anna.send({"type": "action", "action": "draw", "version": version})
            error = await anna.until("error")
            assert error["code"] == "between_deals"
            assert server.room.tables[table].version == version
            # Anna presses: the table waits for Bruno.
            await anna.send({"type": "next_deal"})
            waiting = await _state(bruno, lambda m: m["pause"] and m["pause"]["ready"] == [0])
            assert waiting["pause"]["waiting"] == [1]
            # Bruno presses: deal 2 begins, with a whole move clock.
            await bruno.send({"type": "next_deal"})
            begun = await _state(anna, lambda m: m["pause"] is None)
            assert begun["view"]["deal"] == 2
            assert begun["clock"] is None or begun["clock"]["seconds"] > 28

    with RoomServer(db, bot_delay=0.0) as server:
        asyncio.run(scenario(server))


def test_the_next_deal_begins_by_itself_when_the_countdown_ends(db: str) -> None:
    """A person online who does not press "next deal" sees the deal begin when the
    countdown ends, and has the whole clock on their first turn."""

    async def scenario(server: RoomServer) -> None:
        table = create_table(server, deals=2, move_seconds=20)
        start_table(server, table)
        async with Player(server, table["table"], table["token"], next_deal=False) as anna:
            paused = await _play_deal_one([anna], random.Random(5))
            assert paused["pause"]["waiting"] == [0]
            started = time.monotonic()
            begun = await _state(anna, lambda m: m["pause"] is None)
            assert 1.0 < time.monotonic() - started < 4.0
            assert begun["view"]["deal"] == 2
            mine = begun
            if begun["view"]["turn"] != 0:
                mine = await _state(anna, lambda m: m["view"]["turn"] == 0)
            assert mine["view"]["deal"] == 2 and mine["clock"]["seconds"] > 19

    with RoomServer(db, next_deal_seconds=2.0) as server:
        asyncio.run(scenario(server))


def test_the_final_table_of_a_deal_can_be_opened_once_it_has_ended(db: str) -> None:
    """The melds of deal 1 as they lay when it ended; nothing of a deal in play."""

    async def scenario(server: RoomServer, table: dict[str, Any]) -> dict[str, Any]:
        async with Player(server, table["table"], table["token"], next_deal=False) as anna:
            last_of_deal_one: dict[str, Any] = {}

            async def watch() -> dict[str, Any]:
                rng = random.Random(6)
                while True:
                    m = await anna.next()
                    if m["type"] == "state" and m.get("pause"):
                        return m
                    if m["type"] == "state" and m["view"]["deal"] == 1:
                        last_of_deal_one.update(m)
                    if m["type"] == "state" and m["legal"]:
                        action = rng.choice(m["legal"])
                        await anna.send(
                            {"type": "action", "action": action, "version": m["version"]}
                        )

            await watch()
            return last_of_deal_one

    with RoomServer(db) as server:
        table = create_table(server, deals=2, move_seconds=0)
        start_table(server, table)
        before = asyncio.run(scenario(server, table))
        with server.http() as http:
            final = http.get(f"/api/tables/{table['table']}/deals/1")
            assert final.status_code == 200, final.text
            data = final.json()
            in_play = http.get(f"/api/tables/{table['table']}/deals/2")
            assert in_play.status_code == 409
            assert http.get(f"/api/tables/{table['table']}/deals/0").status_code == 422
        assert data["deal"] == 1 and "hands" not in data and "hand" not in data
        assert (
            data["score"]["points"] == before["scores"][0]["points"] if before["scores"] else True
        )
        # Every meld seen during deal 1 is on the final table (the closer may add more).
        for line, melds in enumerate(before["view"]["melds"]):
            assert len(data["melds"][line]) >= len(melds)


def _anna_and_bruno(server: RoomServer, **body: Any) -> tuple[str, dict[int, str]]:
    """A 2-seat table of two people, Anna (seat 0) and Bruno (seat 1): full, it starts."""
    table = create_table(server, deals=2, **body)
    with server.http() as http:
        joined = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"})
        assert joined.status_code == 200, joined.text
    return table["table"], {0: table["token"], 1: joined.json()["token"]}


async def _one_leaves_during_the_pause(
    server: RoomServer, table: str, tokens: dict[int, str], seed: int
) -> tuple[int, Player, dict[str, Any]]:
    """Deal 1 played; during its pause the person on turn in deal 2 closes the page
    without pressing "next deal", the other presses: deal 2 begins. Who left, the one
    who stayed (still connected), and the first state of deal 2 the latter hears."""
    anna = Player(server, table, tokens[0], next_deal=False)
    bruno = Player(server, table, tokens[1], next_deal=False)
    await anna.__aenter__()
    await bruno.__aenter__()
    paused = await _play_deal_one([anna, bruno], random.Random(seed))
    away = paused["view"]["turn"]  # deal 2 is dealt already: its first turn
    stays = bruno if away == 0 else anna
    await (anna if away == 0 else bruno).__aexit__()
    # The room must have heard the page close before the deal begins: the other socket's
    # "next deal" could otherwise come first on a busy machine (the seat then counts as
    # there, with its plain move clock).
    await _state(stays, lambda m: not m["table"]["seats"][away]["connected"])
    await stays.send({"type": "next_deal"})
    begun = await _state(stays, lambda m: m["pause"] is None and m["view"]["deal"] == 2)
    return away, stays, begun


def test_a_person_away_when_the_deal_begins_gets_the_whole_clock_on_coming_back(db: str) -> None:
    """Issue 19: the next deal began while a person's page was away (a reload, a lost
    connection, a closed tab) and their clock ran meanwhile. Their first turn's clock now
    waits for them (one more pause), and starts whole when their socket hears the deal."""

    async def scenario(server: RoomServer) -> None:
        table, tokens = _anna_and_bruno(server, move_seconds=20)
        away, stays, begun = await _one_leaves_during_the_pause(server, table, tokens, 8)
        try:
            # The absence wait (30 s, the pause) comes before the 20 s of the move clock.
            assert begun["clock"]["seat"] == away and begun["clock"]["seconds"] > 45
            async with Player(server, table, tokens[away], next_deal=False) as back:
                state = await back.until("state")
                assert state["pause"] is None and state["view"]["turn"] == away
                assert state["clock"]["seat"] == away and 19 < state["clock"]["seconds"] <= 20
                assert state["legal"] and not state["table"]["seats"][away]["taken_over"]
                told = await _state(stays, lambda m: m["table"]["seats"][away]["connected"])
                assert told["clock"]["seconds"] <= 20
        finally:
            await stays.__aexit__()

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_person_who_does_not_come_back_is_waited_for_then_a_bot_plays(db: str) -> None:
    """The rule of absence: a person away when the deal begins is waited for one more
    pause, then has their move clock as anyone away; when it runs out a bot plays the
    seat (never before: the clock did not run while they were away at the pause)."""

    async def scenario(server: RoomServer) -> None:
        table, tokens = _anna_and_bruno(server, move_seconds=1)
        away, stays, begun = await _one_leaves_during_the_pause(server, table, tokens, 9)
        started = time.monotonic()
        try:
            assert begun["clock"]["seat"] == away and 3.5 < begun["clock"]["seconds"] <= 4
            taken = await _state(stays, lambda m: m["table"]["seats"][away]["taken_over"])
            assert 3.5 < time.monotonic() - started < 15
            assert taken["view"]["deal"] == 2
        finally:
            await stays.__aexit__()

    with RoomServer(db, next_deal_seconds=3.0) as server:
        asyncio.run(scenario(server))


def test_a_restart_during_the_pause_keeps_it(db: str) -> None:
    table: dict[str, Any] = {}

    async def first(server: RoomServer) -> None:
        table.update(create_table(server, deals=2, move_seconds=20))
        start_table(server, table)
        async with Player(server, table["table"], table["token"], next_deal=False) as anna:
            await _play_deal_one([anna], random.Random(7))

    async def second(server: RoomServer) -> None:
        async with Player(server, table["table"], table["token"], next_deal=False) as anna:
            state = await anna.until("state")
            assert state["pause"] is not None and state["pause"]["deal"] == 1
            assert state["clock"] is None
            await anna.send({"type": "next_deal"})
            begun = await _state(anna, lambda m: m["pause"] is None)
            assert begun["view"]["deal"] == 2 and begun["clock"]["seconds"] > 18

    with RoomServer(db) as server:
        asyncio.run(first(server))
    with RoomServer(db) as server:
        asyncio.run(second(server))


def test_a_player_takes_the_seat_back_before_the_bot_moves_again(db: str) -> None:
    """After a time-out a bot plays for the seat; "take your seat back" gives it back at
    once, and the bot does not make the move it was about to make."""

    async def scenario(server: RoomServer) -> None:
        table = create_table(server, deals=1, move_seconds=1)
        start_table(server, table)
        async with Player(server, table["table"], table["token"]) as anna:
            # Anna lets her clock run out: the bot plays for her.
            taken = await _state(anna, lambda m: m["table"]["seats"][0]["taken_over"])
            assert taken["table"]["seats"][0]["kind"] == "bot"
            # Wait for her next turn, while the bot thinks (its delay is 1.5 s).
            mine = await _state(anna, lambda m: m["view"]["turn"] == 0, timeout=30)
            version = mine["version"]
            await anna.send({"type": "take_back"})
            back = await _state(anna, lambda m: not m["table"]["seats"][0]["taken_over"])
            assert back["version"] == version and back["legal"]
            assert back["clock"] is not None and back["clock"]["seat"] == 0
            await asyncio.sleep(0.8)  # the bot's delay runs out: it must not move
            assert server.room.tables[table["table"]].version == version

    with RoomServer(db, bot_delay=1.5) as server:
        asyncio.run(scenario(server))


def test_a_tournament_table_has_the_move_clock_of_002_and_shows_the_deal_clock(
    tmp_path: Path,
) -> None:
    """A tournament's table: a person's move clock (running out is abandonment, never a
    bot) and the deal clock, both in the state the seat hears."""
    from burraco.server.room import Room
    from burraco.server.table.views import state as seat_state
    from burraco.storage import Store

    async def scenario() -> None:
        room = Room(Store(f"sqlite:///{tmp_path / 'tour.db'}"), bot_delay=0.0)
        table, _ = await room.create_seated(
            "italian",
            {"players": 2, "deals": 3, "target": None},
            [("Anna", "human"), ("Bot", "bot")],
            move_seconds=45,
            deal_seconds=900,
            tournament="x:1:1",
        )
        assert not table.row.takeover
        for _ in range(100):
            assert table.match is not None
            if table.match.deal.turn == 0:
                break
            await asyncio.sleep(0.02)
        state = seat_state(table, 0)
        assert state["deal_clock"]["total"] == 900
        assert 890 < state["deal_clock"]["seconds"] <= 900
        assert state["clock"]["seat"] == 0 and 40 < state["clock"]["seconds"] <= 45
        await room.shutdown()

    asyncio.run(scenario())
