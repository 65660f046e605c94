"""What one room process takes on: sockets per seat, a lobby in pages, finished and
forgotten tables leaving memory, and a clear "busy" for new visitors when it is full."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from roomserver import Player, RoomServer, create_table

from burraco.server.door.capacity import Capacity


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
    with (
        RoomServer(db, capacity=Capacity(lobby_page=3, tables_per_creator=10)) as server,
        server.http() as http,
    ):
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

    capacity = Capacity(finished_linger=0, waiting_expiry=3600, busy_lag=30.0)
    with RoomServer(db, capacity=capacity) as server, server.http() as http:
        room = server.room
        played = create_table(server, move_seconds=0)
        http.post(f"/api/tables/{played['table']}/start", json={"token": played["token"]})
        asyncio.run(play_out(server, played))
        waiting = create_table(server)["table"]
        # The room's own reaper (each second here) may have let it go already.
        room.reap(now=room.tables[waiting].row.created_at + 10)
        assert played["table"] not in room.tables and waiting in room.tables
        assert room.reap(now=room.tables[waiting].row.created_at + 3601) == [waiting]
        assert room.tables == {}
        assert http.get("/api/tables").json()["total"] == 0
        assert http.get(f"/api/tables/{played['table']}/record").status_code == 200
        assert http.get(f"/api/tables/{waiting}").json()["status"] == "expired"
        joined = http.post(f"/api/tables/{waiting}/join", json={"name": "Bruno"})
        assert joined.status_code == 409


def test_new_visitors_hear_busy_when_the_room_is_full(db: str) -> None:
    # Guests' tables may fill the whole room here (their share: table/door.py).
    capacity = Capacity(max_tables=2, max_sockets=1, guest_share=1.0)
    with RoomServer(db, capacity=capacity) as server:
        with server.http() as http:
            first, _ = create_table(server), create_table(server)
            third = http.post("/api/tables", json={"name": "Carla"})
            assert third.status_code == 503 and third.json()["code"] == "busy"
            assert "try again" in third.json()["detail"]
            # A join brings no table in: a newcomer sits at a friend's table in a full room.
            joined = http.post(f"/api/tables/{first['table']}/join", json={"name": "Dino"})
            assert joined.status_code == 200

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


def _until(check: Any, what: str, seconds: float = 30.0) -> None:
    deadline = time.time() + seconds
    while not check():
        assert time.time() < deadline, what
        time.sleep(0.05)


def test_a_table_left_to_bots_counts_as_a_bot_table_and_the_cap_holds(db: str) -> None:
    """Tables started by a creator who never opens them: the first one's seat a bot takes
    over counts as a bot table; past ``max_bot_tables`` the next one's clock ends as it
    does without takeover (002's abandonment), and no bot plays it on."""
    capacity = Capacity(busy_lag=30.0, max_bot_tables=1)
    with RoomServer(db, capacity=capacity, bot_delay=0.5) as server, server.http() as http:
        room = server.room
        made = [create_table(server, move_seconds=1, deals=50) for _ in range(2)]
        for table in made:
            started = http.post(f"/api/tables/{table['table']}/start", json=table)
            assert started.status_code == 200, started.text
        live = [room.tables[t["table"]] for t in made]

        def settled() -> bool:
            return all(t.seats[0].taken_over or t.status == "over" for t in live)

        _until(settled, "both clocks ran out")
        taken = [t for t in live if t.seats[0].taken_over]
        ended = [t for t in live if not t.seats[0].taken_over]
        assert len(taken) == 1 and taken[0].status == "playing"
        assert room.bot_tables() == 1
        [over] = ended
        assert over.status == "over" and over.match is not None and over.match.abandoned_by == 0


def test_a_creator_holds_a_few_open_tables(db: str) -> None:
    """By address for a guest: a third table from one address is refused, another
    address is not; a table that goes frees its place."""
    capacity = Capacity(busy_lag=30.0, tables_per_creator=2)
    with RoomServer(db, capacity=capacity) as server, server.http() as http:
        first, _ = create_table(server), create_table(server)
        third = http.post("/api/tables", json={"name": "Anna"})
        assert third.status_code == 429 and third.json()["code"] == "too_many_tables"
        # A guest is told the limit of an address and why (issue 31; test_part_seats.py).
        assert third.json()["params"] == {"n": 2, "guest": True, "others": 0}
        assert "a guest can keep 2 tables open at a time from one address" in third.json()["detail"]
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.url, transport=transport) as other:
            assert other.post("/api/tables", json={"name": "Bruno"}).status_code == 200
        room = server.room
        assert room.reap(now=time.time() + capacity.waiting_idle + 1) != []
        assert http.post("/api/tables", json={"name": "Anna"}).status_code == 200
        assert first["table"] not in room.tables


def test_a_waiting_table_nobody_has_open_goes_within_minutes(db: str) -> None:
    """Counted from its creation, or from when its last socket closed; an open one stays."""
    capacity = Capacity(busy_lag=30.0)
    idle = capacity.waiting_idle
    assert idle <= 300

    async def hold(server: RoomServer, kept: dict[str, Any], left: str) -> float:
        async with Player(server, kept["table"], kept["token"]) as anna:
            await anna.until("state")
            live = server.room.tables[kept["table"]]
            made = server.room.tables[left].row.created_at
            assert server.room.reap(now=made + idle - 1) == []
            assert server.room.reap(now=made + idle + 1) == [left]
        _until(lambda: not live.seats[0].connections, "the socket closed")
        return live.seen

    with RoomServer(db, capacity=capacity) as server, server.http() as http:
        room = server.room
        left, kept = create_table(server), create_table(server)
        closed = asyncio.run(hold(server, kept, left["table"]))
        assert room.reap(now=closed + idle - 1) == []
        assert room.reap(now=closed + idle + 1) == [kept["table"]]
        assert http.get(f"/api/tables/{left['table']}").json()["status"] == "expired"


def _watch_url(server: RoomServer, table: str) -> str:
    return f"{server.ws_url}/ws/{table}?watch=1"


def test_a_seat_is_never_refused_for_spectators_who_are_shed_first(db: str) -> None:
    """Spectators fill ``max_sockets``: the next spectator hears busy, but a player's seat
    opens, and the newest spectator is told why and closed with 1013."""
    capacity = Capacity(busy_lag=30.0, max_sockets=4)

    async def scenario(server: RoomServer, table: dict[str, Any]) -> None:
        url = _watch_url(server, table["table"])
        watching = [await websockets.connect(url) for _ in range(4)]
        for ws in watching:
            assert json.loads(await ws.recv())["type"] == "state"
        late = await websockets.connect(url)
        assert json.loads(await late.recv())["code"] == "busy"
        await late.wait_closed()
        assert late.close_code == 1013
        async with Player(server, table["table"], table["token"]) as anna:
            state = await anna.until("state")
            assert state["seat"] == 0
            newest = watching[-1]
            said = []
            with contextlib.suppress(websockets.ConnectionClosed):
                while True:
                    said.append(json.loads(await newest.recv()))
            assert said[-1]["code"] == "busy" and newest.close_code == 1013
            for ws in watching[:-1]:
                await ws.send(json.dumps({"type": "ping"}))
                while json.loads(await ws.recv())["type"] != "pong":
                    pass
            assert server.room.sockets == 4
        for ws in watching[:-1]:
            await ws.close()

    with RoomServer(db, capacity=capacity) as server:
        table = create_table(server, watchable=True)
        asyncio.run(scenario(server, table))
        _until(lambda: server.room.sockets == 0, "every socket closed")
        assert server.room.spectators == {}


def test_spectators_are_capped_per_address(db: str) -> None:
    capacity = Capacity(busy_lag=30.0, watchers_per_address=2)

    async def scenario(server: RoomServer, table: str) -> None:
        url = _watch_url(server, table)
        mine = [await websockets.connect(url) for _ in range(2)]
        for ws in mine:
            assert json.loads(await ws.recv())["type"] == "state"
        async with websockets.connect(url) as third:
            refused = json.loads(await third.recv())
            assert refused["code"] == "watching_too_many" and refused["params"] == {"n": 2}
            await third.wait_closed()
            assert third.close_code == 1013
        async with websockets.connect(url, local_addr=("127.0.0.2", 0)) as other:
            assert json.loads(await other.recv())["type"] == "state"
        for ws in mine:
            await ws.close()

    with RoomServer(db, capacity=capacity) as server:
        table = create_table(server, watchable=True)
        asyncio.run(scenario(server, table["table"]))


def test_bots_alone_at_a_table_nobody_has_open_play_slower() -> None:
    """Nobody follows their moves: each such table costs the room a fifth of a table that
    someone watches (or plays at)."""
    from burraco.server.room import Room
    from burraco.storage import Store

    async def scenario() -> tuple[int, int]:
        room = Room(Store("sqlite://"), bot_delay=0.04)
        seats = [("Bot A", "bot"), ("Bot B", "bot")]
        options = {"players": 2, "deals": 50, "target": None}
        unseen, _ = await room.create_seated("italian", options, seats)
        seen, _ = await room.create_seated("italian", options, seats, watchable=True)

        async def nothing(text: str) -> None:
            pass

        await room.watch(seen, "", nothing)
        began = (unseen.version, seen.version)
        await asyncio.sleep(2.0)
        moves = (unseen.version - began[0], seen.version - began[1])
        await room.shutdown()
        return moves

    unseen, seen = asyncio.run(scenario())
    assert seen > 5 and unseen * 2 < seen, (unseen, seen)


def test_a_waiting_table_loaded_again_gives_its_people_the_idle_wait(tmp_path: Path) -> None:
    """After a restart a waiting table made long ago is not expired before its creator's
    page has had ``waiting_idle`` to reconnect."""
    from burraco.server.room import Room
    from burraco.storage import Store, models

    url = f"sqlite:///{tmp_path / 'room.db'}"
    first = Room(Store(url))
    table, _, _ = first.create({"name": "Anna"})
    with first.store.engine.begin() as c:  # made an hour ago
        c.execute(models.tables.update().values(created_at=time.time() - 3600))
    first.store.engine.dispose()
    again = Room(Store(url))
    # The table is seen when it is loaded, somewhere between these two times (a second
    # or more apart on a loaded machine).
    before = time.time()
    again.table(table.id)
    after = time.time()
    idle = again.capacity.waiting_idle
    assert again.reap(now=before + idle - 1) == []
    assert again.reap(now=after + idle + 1) == [table.id]
