"""What one room process takes on: sockets per seat, a lobby in pages, finished and
forgotten tables leaving memory, and a clear "busy" for new visitors when it is full."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import pytest
import websockets
from roomserver import Player, RoomServer, create_table

from burraco.server.capacity import Capacity


def test_a_new_socket_on_a_seat_replaces_the_oldest_past_the_cap(db: str) -> None:
    """Past the cap the oldest socket hears why and is closed (4409, which the page does
    not answer by reconnecting); opening sockets on one seat costs the other seats nothing."""

    async def scenario(server: RoomServer, table: dict[str, Any], bruno: dict[str, Any]) -> None:
        url = f"{server.ws_url}/ws/{table['table']}?token={table['token']}"
        async with Player(server, table["table"], bruno["token"]) as other:
            await other.until("state")
            sockets = []
            for _ in range(6):
                ws = await websockets.connect(url)
                assert json.loads(await ws.recv())["type"] == "state"
                sockets.append(ws)
            for old in sockets[:4]:
                said = []
                with contextlib.suppress(websockets.ConnectionClosed):
                    while True:
                        said.append(json.loads(await old.recv()))
                assert said[-1]["code"] == "replaced"
                assert old.close_code == 4409
            for young in sockets[4:]:
                await young.send(json.dumps({"type": "ping"}))
                assert json.loads(await young.recv())["type"] == "pong"
            # Bruno heard Anna come online once, not once per socket.
            with contextlib.suppress(TimeoutError):
                while True:
                    await other.next(timeout=0.5)
            assert sum(1 for m in other.received if m["type"] == "state") == 2
            for young in sockets[4:]:
                await young.close()

    capacity = Capacity(sockets_per_seat=2)
    with RoomServer(db, capacity=capacity) as server:
        table = create_table(server, players=4)
        with server.http() as http:
            bruno = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"}).json()
        asyncio.run(scenario(server, table, bruno))
        assert server.room.sockets == 0


def test_the_lobby_comes_in_pages_with_filters(db: str) -> None:
    with RoomServer(db, capacity=Capacity(lobby_page=3)) as server, server.http() as http:
        made = [create_table(server, players=2)["table"] for _ in range(4)]
        made += [create_table(server, variant="buraco", players=4)["table"] for _ in range(2)]
        first = http.get("/api/tables").json()
        assert (first["total"], first["pages"], len(first["tables"])) == (6, 2, 3)
        second = http.get("/api/tables", params={"page": 2}).json()
        assert {t["table"] for t in first["tables"] + second["tables"]} == set(made)
        buraco = http.get("/api/tables", params={"variant": "buraco"}).json()
        assert {t["table"] for t in buraco["tables"]} == set(made[4:])
        four = http.get("/api/tables", params={"players": 4, "free": True}).json()
        assert four["total"] == 2
        own = http.get("/api/tables", params={"ids": f"{made[0]},t-nothere,{made[5]}"}).json()
        assert [t["table"] for t in own["tables"]] == [made[0], made[5]]
        assert http.get("/api/tables", params={"page": 0}).status_code == 422
        assert http.get("/api/tables", params={"per_page": 10**6}).status_code == 422


def test_finished_and_forgotten_tables_leave_memory_and_the_lobby(db: str) -> None:
    """They stay in the database: the record and the replay load again on demand."""

    async def play_out(server: RoomServer, table: dict[str, Any]) -> None:
        async with Player(server, table["table"], table["token"]) as anna:
            while True:
                message = await anna.next()
                if message["type"] == "match_over":
                    return
                if message["type"] == "state" and message["legal"]:
                    action = message["legal"][-1]
                    version = message["version"]
                    await anna.send({"type": "action", "action": action, "version": version})

    capacity = Capacity(finished_linger=0, waiting_expiry=3600)
    with RoomServer(db, capacity=capacity) as server, server.http() as http:
        room = server.room
        played = create_table(server, move_seconds=0)
        http.post(f"/api/tables/{played['table']}/start", json={"token": played["token"]})
        asyncio.run(play_out(server, played))
        waiting = create_table(server)["table"]
        assert room.reap(now=room.tables[waiting].row.created_at + 10) == [played["table"]]
        assert waiting in room.tables
        assert room.reap(now=room.tables[waiting].row.created_at + 3601) == [waiting]
        assert room.tables == {}
        assert http.get("/api/tables").json()["total"] == 0
        assert http.get(f"/api/tables/{played['table']}/record").status_code == 200
        assert http.get(f"/api/tables/{waiting}").json()["status"] == "expired"
        joined = http.post(f"/api/tables/{waiting}/join", json={"name": "Bruno"})
        assert joined.status_code == 409


def test_new_visitors_hear_busy_when_the_room_is_full(db: str) -> None:
    with RoomServer(db, capacity=Capacity(max_tables=2, max_sockets=1)) as server:
        with server.http() as http:
            first, _ = create_table(server), create_table(server)
            third = http.post("/api/tables", json={"name": "Carla"})
            assert third.status_code == 503 and third.json()["code"] == "busy"
            assert "try again" in third.json()["detail"]
            # The loop falls behind: the watcher's reading says so (and is left alone).
            lag = server.room.lag
            lag.period = 3600
            time.sleep(0.2)
            lag.lag = 1.0
            joined = http.post(f"/api/tables/{first['table']}/join", json={"name": "Dino"})
            assert joined.status_code == 503

        async def sockets() -> None:
            async with Player(server, first["table"], first["token"]) as anna:
                await anna.until("state")
                url = f"{server.ws_url}/ws/{first['table']}?token={first['token']}"
                async with websockets.connect(url) as late:
                    said = json.loads(await late.recv())
                    assert said["code"] == "busy"
                    with pytest.raises(websockets.ConnectionClosed):
                        await late.recv()
                    assert late.close_code == 1013

        asyncio.run(sockets())
