"""The web room through its real HTTP and WebSocket API, on 127.0.0.1.

Every bad message gets a clear error and leaves the table as it was; a seat
hears only its own view; a reconnection replays what was missed; a server
stopped in the middle of a deal resumes it exactly from its log.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from roomserver import Player, RoomServer, create_table, start_table

from burraco.record import read_record, replay
from burraco.server.messages import view_json

STATE_KEYS = {
    "phase", "turn", "dealer", "deal", "hand", "partner_hands", "hand_sizes", "line_of",
    "line", "melds", "grades", "line_points", "pile", "pile_hidden", "stock", "pozzetti",
    "has_pozzetto", "pozzetto_face_down", "red_threes", "opened", "minimum", "taken_single", "final_turn",
    "end_reason",
}  # fmt: skip


async def _my_turn(player: Player) -> dict[str, Any]:
    while True:
        message = await player.next()
        if message["type"] == "state" and message["legal"]:
            return message
        if message["type"] == "match_over":
            return message


def test_lobby_creates_lists_joins_and_refuses_bad_requests(db: str) -> None:
    with RoomServer(db) as server, server.http() as http:
        created = create_table(server, players=4)
        table = created["table"]
        listed = http.get("/api/tables").json()["tables"]
        assert [t["table"] for t in listed] == [table]
        assert listed[0]["seats"][1]["kind"] == "empty"
        assert "token" not in str(listed)
        joined = http.post(f"/api/tables/{table}/join", json={"name": "Bruno", "seat": 2}).json()
        assert joined["seat"] == 2 and joined["token"] != created["token"]
        taken = http.post(f"/api/tables/{table}/join", json={"name": "Carla", "seat": 2})
        assert taken.status_code == 409 and "not free" in taken.json()["detail"]
        assert http.post("/api/tables", json={"variant": "chess", "name": "x"}).status_code == 422
        bad = http.post("/api/tables", json={"variant": "canasta", "players": 3, "name": "x"})
        assert bad.status_code == 400 and "canasta is played by" in bad.json()["detail"]
        wrong = http.post(f"/api/tables/{table}/start", json={"token": joined["token"]})
        assert wrong.status_code == 403
        assert http.get("/api/tables/t-nothere").status_code == 404
        assert http.get(f"/api/tables/{table}/record").status_code == 409
        started = http.post(f"/api/tables/{table}/start", json={"token": created["token"]}).json()
        assert started["status"] == "playing"
        assert [s["kind"] for s in started["seats"]] == ["human", "bot", "human", "bot"]
        late = http.post(f"/api/tables/{table}/join", json={"name": "Dino"})
        assert late.status_code == 409
        assert http.get("/").status_code == 200
        assert "canasta" in http.get("/api/variants").json()


def test_bad_messages_get_errors_and_change_nothing(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        async with Player(server, table["table"], "not-a-token") as stranger:
            refused = await stranger.next()
            assert refused["type"] == "error" and refused["code"] == "forbidden"
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            state = await _my_turn(anna)
            version = state["version"]
            room_table = server.room.table(table["table"])
            before = room_table.match.view(0) if room_table.match else None
            cases: list[tuple[Any, str]] = [
                ("{not json", "bad_message"),
                ('["a list"]', "bad_message"),
                ({"type": "dance"}, "bad_message"),
                ({"type": "action", "action": "draw"}, "bad_message"),
                ({"type": "action", "action": "fold", "version": version}, "unknown_action"),
                ({"type": "action", "action": "discard 5H", "version": version}, "illegal"),
                ({"type": "action", "action": "draw", "version": version - 1}, "stale"),
                ({"type": "sync", "since": "zero"}, "bad_message"),
            ]
            for message, code in cases:
                await anna.send(message)
                answer = await anna.next()
                assert answer["type"] == "error", message
                assert answer["code"] == code, (message, answer)
                assert answer["message"]
            assert room_table.version == version
            assert room_table.match is not None and room_table.match.view(0) == before
            await anna.send({"type": "action", "action": "draw", "version": version})
            after = await anna.until("state")
            assert after["version"] == version + 1
            # Now seat 0 is in its play phase; the bot's seat is not Anna's to move.
            await anna.send({"type": "ping"})
            assert (await anna.until("pong"))["type"] == "pong"

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_out_of_turn_and_replayed_actions_are_refused(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        with server.http() as http:
            bruno = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"}).json()
        async with (
            Player(server, table["table"], table["token"]) as anna,
            Player(server, bruno["table"], bruno["token"]) as brun,
        ):
            state = await anna.until("state")
            while state["table"]["status"] != "playing":
                state = await anna.until("state")
            turn = state["view"]["turn"]
            mover, waiter = (anna, brun) if turn == 0 else (brun, anna)
            await waiter.send({"type": "action", "action": "draw", "version": state["version"]})
            refused = await waiter.until("error")
            assert refused["code"] == "not_your_turn"
            await mover.send({"type": "action", "action": "draw", "version": state["version"]})
            await mover.until("state")
            await mover.send({"type": "action", "action": "draw", "version": state["version"]})
            again = await mover.until("error")
            assert again["code"] == "stale"

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


async def _play_to_the_end(server: RoomServer, players: list[Player], table_id: str) -> None:
    rng = random.Random(0)
    room_table = server.room.table(table_id)
    finished = [False] * len(players)

    async def drive(index: int, player: Player) -> None:
        while True:
            message = await player.next(60)
            if message["type"] == "match_over":
                finished[index] = True
                return
            if message["type"] != "state":
                continue
            match = room_table.match
            seat = message["seat"]
            view = message["view"]
            if view is not None and match is not None and message["version"] == room_table.version:
                # What the seat hears is its own view and nothing else.
                assert set(view) == STATE_KEYS
                assert view == view_json(match.view(seat), len(match.deals))
            if message["legal"]:
                action = rng.choice(message["legal"])
                await player.send(
                    {"type": "action", "action": action, "version": message["version"]}
                )

    await asyncio.gather(*(drive(i, p) for i, p in enumerate(players)))
    assert all(finished)


def test_two_people_play_a_match_hearing_only_their_own_views(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, players=4, move_seconds=0)
        with server.http() as http:
            joined = [
                http.post(f"/api/tables/{table['table']}/join", json={"name": n}).json()
                for n in ("Bruno", "Carla", "Dino")
            ]
        tokens = [table["token"]] + [j["token"] for j in joined]
        players = [Player(server, table["table"], t) for t in tokens]
        for p in players:
            await p.__aenter__()
        try:
            await _play_to_the_end(server, players, table["table"])
        finally:
            for p in players:
                await p.__aexit__()
        with server.http() as http:
            text = http.get(f"/api/tables/{table['table']}/record").text
            frames = http.get(f"/api/tables/{table['table']}/replay").json()["frames"]
        record = read_record(text)
        assert record.names == ("Anna", "Bruno", "Carla", "Dino")
        assert list(replay(record).totals) == list(server.room.table(table["table"]).match.totals)
        assert len(frames) == sum(len(d.actions) for d in record.deals)

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_reconnection_replays_the_missed_events(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            state = await _my_turn(anna)
            seen = state["version"]
            await anna.send({"type": "action", "action": "draw", "version": seen})
            await anna.until("state")
            await anna.socket.close()
        async with Player(server, table["table"], table["token"]) as back:
            first = await back.until("state")
            await back.send({"type": "sync", "since": seen})
            events = []
            while True:
                message = await back.next()
                if message["type"] == "state":
                    break
                events.append(message)
            assert [e["version"] for e in events] == list(range(seen + 1, message["version"] + 1))
            assert events[0]["action"] == "draw" and events[0]["seat"] == 0
            assert message["view"] == first["view"]

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_restarted_server_resumes_the_deal_exactly(db: str, tmp_path: Path) -> None:
    table: dict[str, Any] = {}
    before: dict[str, Any] = {}

    async def first_half(server: RoomServer) -> None:
        table.update(create_table(server, move_seconds=0))
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            for _ in range(3):
                state = await _my_turn(anna)
                phase = state["view"]["phase"]
                action = "draw" if phase == "draw" else state["legal"][-1]
                await anna.send({"type": "action", "action": action, "version": state["version"]})
            state = await _my_turn(anna)
            before.update(state)

    async def second_half(server: RoomServer) -> None:
        async with Player(server, table["table"], table["token"]) as anna:
            state = await anna.until("state")
            assert state["version"] == before["version"]
            assert state["view"] == before["view"]
            assert state["legal"] == before["legal"]
            await anna.send({"type": "sync", "since": state["version"]})
            await _play_to_the_end(server, [anna], table["table"])

    with RoomServer(db) as server:
        asyncio.run(first_half(server))
    with RoomServer(db) as server:
        asyncio.run(second_half(server))


def test_a_clock_that_runs_out_lets_a_bot_take_over_or_ends_the_match(db: str) -> None:
    async def scenario(server: RoomServer, takeover: bool) -> dict[str, Any]:
        table = create_table(server, move_seconds=1, takeover=takeover)
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            state = await _my_turn(anna)
            assert state["clock"]["seat"] == 0 and 0 < state["clock"]["seconds"] <= 1
            if takeover:
                while True:  # the bot plays for Anna: versions move without her
                    message = await anna.until("state", timeout=10)
                    if message["version"] > state["version"] + 1:
                        return message
            return await anna.until("match_over", timeout=10)

    with RoomServer(db) as server:
        moved = asyncio.run(scenario(server, True))
        assert moved["table"]["seats"][0]["kind"] == "bot"
        over = asyncio.run(scenario(server, False))
        assert over["abandoned_by"] == 0
        assert over["victory_points"][1] >= 14 and over["victory_points"][0] == 0


def test_abandon_ends_the_match_by_the_rule_of_002(db: str) -> None:
    async def scenario(server: RoomServer) -> dict[str, Any]:
        table = create_table(server, move_seconds=0)
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            await _my_turn(anna)
            await anna.send({"type": "abandon"})
            return await anna.until("match_over")

    with RoomServer(db) as server:
        over = asyncio.run(scenario(server))
        assert over["abandoned_by"] == 0 and over["winner"] == 1
        assert over["victory_points"] == [0, 14] or over["victory_points"][1] > 14


def test_a_hint_names_a_legal_action_with_its_reason(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            state = await _my_turn(anna)
            await anna.send({"type": "hint"})
            hint = await anna.until("hint", timeout=60)
            assert hint["action"] in state["legal"] and hint["reason"]

    with RoomServer(db, hint_seconds=0.1) as server:
        asyncio.run(scenario(server))
