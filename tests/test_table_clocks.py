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
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, deals=2, move_seconds=0)
        start_table(server, table)
        async with Player(server, table["table"], table["token"], next_deal=False) as anna:
            paused = await _play_deal_one([anna], random.Random(5))
            assert paused["pause"]["waiting"] == [0]
            started = time.monotonic()
            begun = await _state(anna, lambda m: m["pause"] is None)
            assert 1.0 < time.monotonic() - started < 4.0
            assert begun["view"]["deal"] == 2

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
        state = room._state(table, 0)
        assert state["deal_clock"]["total"] == 900
        assert 890 < state["deal_clock"]["seconds"] <= 900
        assert state["clock"]["seat"] == 0 and 40 < state["clock"]["seconds"] <= 45
        await room.shutdown()

    asyncio.run(scenario())
