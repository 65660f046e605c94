"""Rate limits per client address, through the real server: one address that floods the
room is told to wait (429, Retry-After), another address is not; padding and online
rounds are bounded."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from roomserver import RoomServer

from burraco.server.door.capacity import Capacity
from burraco.server.door.limits import Limits, Rates


def _from(server: RoomServer, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=20)


def test_each_address_has_its_own_rates(tmp_path: Path) -> None:
    limits = Limits(
        create_table="3/minute",
        join_table="2/minute",
        create_tournament="2/minute",
        pad_tournament="1/minute",
        start_round="1/minute",
    )
    server = RoomServer(f"sqlite:///{tmp_path / 'room.db'}", limits=limits)
    with server, _from(server, "127.0.0.1") as flood, _from(server, "127.0.0.2") as person:
        made = [flood.post("/api/tables", json={"name": "F", "players": 4}) for _ in range(4)]
        assert [m.status_code for m in made] == [200, 200, 200, 429]
        refused = made[-1]
        assert int(refused.headers["retry-after"]) >= 1
        assert "too many new tables from your address" in refused.json()["detail"]
        assert refused.json()["code"] == "too_many"
        # Another visitor is not held back by the flood.
        assert person.post("/api/tables", json={"name": "P"}).status_code == 200
        table = made[0].json()["table"]
        joins = [flood.post(f"/api/tables/{table}/join", json={"name": f"J{i}"}) for i in range(3)]
        assert [j.status_code for j in joins] == [200, 200, 429]
        tournaments = [flood.post("/api/tournaments", json={"name": "T"}) for _ in range(3)]
        assert [t.status_code for t in tournaments] == [200, 200, 429]
        made_t = tournaments[0].json()
        path = f"/api/tournaments/{made_t['tournament']}"
        pads = [
            flood.post(f"{path}/pad", json={"token": made_t["token"], "size": n}) for n in (4, 6)
        ]
        assert [p.status_code for p in pads] == [200, 429]
        rounds = [
            flood.post(f"{path}/rounds", json={"token": made_t["token"], "online": True})
            for _ in range(2)
        ]
        assert [r.status_code for r in rounds] == [200, 429]


def test_online_rounds_are_bounded(tmp_path: Path) -> None:
    limits = Limits(round_tables=4, pad_size=16)
    capacity = Capacity(max_bot_tables=3, tables_per_creator=100)
    with (
        RoomServer(f"sqlite:///{tmp_path / 'room.db'}", limits=limits, capacity=capacity) as server,
        server.http() as http,
    ):
        big = http.post("/api/tournaments", json={"name": "Big"}).json()
        path = f"/api/tournaments/{big['tournament']}"
        assert http.post(f"{path}/pad", json={"token": big["token"], "size": 10}).status_code == 200
        wide = http.post(f"{path}/rounds", json={"token": big["token"], "online": True})
        assert wide.status_code == 409 and "at most 4 tables" in wide.json()["detail"]
        # The round was not started: it can still be played at physical tables.
        physical = http.post(f"{path}/rounds", json={"token": big["token"], "online": False})
        assert physical.status_code == 200, physical.text
        bots = http.post("/api/tournaments", json={"name": "Bots"}).json()
        path = f"/api/tournaments/{bots['tournament']}"
        http.post(f"{path}/pad", json={"token": bots["token"], "size": 8})
        busy = http.post(f"{path}/rounds", json={"token": bots["token"], "online": True})
        assert busy.status_code == 503 and busy.json()["code"] == "busy"


def test_a_socket_that_floods_is_paced_and_the_others_are_not(tmp_path: Path) -> None:
    """Past ``socket_messages`` a socket's messages are ignored, with one ``too_fast``
    answer a burst; another player's socket at the same table is answered as usual."""
    import asyncio

    from roomserver import Player, create_table

    limits = Limits(create_table="100/minute", join_table="100/minute", socket_messages="5/minute")
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", limits=limits) as server:
        table = create_table(server, players=2)
        with server.http() as http:
            joined = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"}).json()

        async def scenario() -> None:
            async with (
                Player(server, table["table"], table["token"]) as anna,
                Player(server, table["table"], joined["token"]) as bruno,
            ):
                await anna.until("state")
                await bruno.until("state")
                for _ in range(40):
                    await anna.send({"type": "ping"})
                answers: list[dict[str, object]] = []
                while len(answers) < 6:
                    message = await anna.next(5)
                    if message["type"] in ("pong", "error"):
                        answers.append(message)
                assert [a["type"] for a in answers] == ["pong"] * 5 + ["error"]
                assert answers[-1]["code"] == "too_fast"
                # Nothing more comes for the flood: the rest was dropped unanswered.
                with contextlib.suppress(TimeoutError):
                    extra = await anna.next(1)
                    assert extra["type"] not in ("pong", "error"), extra
                # Bruno is not held back.
                await bruno.send({"type": "ping"})
                await bruno.until("pong")

        asyncio.run(scenario())


def test_a_socket_that_waits_as_told_is_heard_again(tmp_path: Path) -> None:
    """``too_fast`` tells the seconds to wait rounded up: a program that waits them and
    sends again is answered. (Rounded to the nearest, a wait of 1.4 s said 1, the message
    sent after 1 s was dropped without a word, and a bench's players waited for ever.)"""
    import asyncio
    import time

    from roomserver import Player, create_table

    limits = Limits(socket_messages="5 per 2 seconds")
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", limits=limits) as server:
        table = create_table(server, players=2)

        async def scenario() -> None:
            async with Player(server, table["table"], table["token"]) as anna:
                await anna.until("state")
                first = time.monotonic()
                for _ in range(5):
                    await anna.send({"type": "ping"})
                for _ in range(5):
                    await anna.until("pong")
                # Past the window's middle, so that the wait's fraction is under a half.
                await asyncio.sleep(max(0.0, first + 0.6 - time.monotonic()))
                for _ in range(3):
                    await anna.send({"type": "ping"})
                told = await anna.until("error")
                assert told["code"] == "too_fast"
                await asyncio.sleep(told["params"]["seconds"])
                await anna.send({"type": "ping"})
                await anna.until("pong", timeout=5)

        asyncio.run(scenario())


def test_one_account_opening_sockets_in_a_loop_is_held_from_any_address(tmp_path: Path) -> None:
    """Issue 32: one account opening and closing sockets in a loop, from a new address
    each time, was limited by nothing (the rates counted addresses). Past
    ``account_sockets`` its next socket, from yet another address, is told
    ``too_many_sockets`` and closed with 1013 and a reason that says why; another
    player's socket at the same table opens as usual."""
    import asyncio
    import json

    import websockets

    limits = Limits(account_sockets="4/minute")
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", limits=limits) as server:
        with _from(server, "127.0.0.1") as anna:
            signed = anna.post("/api/account/signup", json={"name": "Anna", "password": "x" * 12})
            assert signed.status_code == 200, signed.text
            csrf = {"X-CSRF-Token": signed.json()["csrf"]}
            table = anna.post("/api/tables", json={"name": "Anna"}, headers=csrf).json()
            cookie = {"Cookie": f"burraco_session={anna.cookies['burraco_session']}"}
        with _from(server, "127.0.0.2") as bruno:
            joined = bruno.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"})
        base = f"{server.ws_url}/ws/{table['table']}?token="

        async def opened(token: str, address: str, headers: dict[str, str]) -> Any:
            """The first message a socket from ``address`` hears, and how it closed."""
            async with websockets.connect(
                base + token, additional_headers=headers, local_addr=(address, 0)
            ) as socket:
                first = json.loads(await asyncio.wait_for(socket.recv(), 20))
                if first["type"] == "error":
                    with contextlib.suppress(websockets.ConnectionClosed):
                        await asyncio.wait_for(socket.recv(), 20)
                    assert socket.close_code is not None
                    return first, socket.close_code, socket.close_reason
                return first, None, None

        async def scenario() -> None:
            for n in range(4):
                first, _, _ = await opened(table["token"], f"127.0.0.{10 + n}", cookie)
                assert first["type"] == "state", first
            first, code, reason = await opened(table["token"], "127.0.0.20", cookie)
            assert (first["code"], code) == ("too_many_sockets", 1013)
            assert 1 <= first["params"]["seconds"] <= 60
            assert "too many sockets opened by this account" in reason
            # Bruno, a guest at the same table, is not held back by Anna's count.
            other, _, _ = await opened(joined.json()["token"], "127.0.0.20", {})
            assert other["type"] == "state", other

        asyncio.run(scenario())


def test_a_rate_counts_a_moving_window_without_a_thread() -> None:
    # Every socket message passes through a rate: counting one must not start a thread
    # (the limits library's memory storage started one after every idle 10 ms).
    started: list[str] = []
    threading.settrace(lambda *_: started.append(threading.current_thread().name))
    try:
        rates = Rates(Limits(socket_messages="2 per 1 second"))
        assert rates.hit("socket_messages", "10.0.0.1") is None
        time.sleep(0.05)  # longer than that storage's idle moment
        assert rates.hit("socket_messages", "10.0.0.1") is None
        wait = rates.hit("socket_messages", "10.0.0.1")
        assert wait is not None and 0 < wait <= 1.0
        assert rates.hit("socket_messages", "10.0.0.2") is None
        time.sleep(1.05)  # the window moves on: the first hits no longer count
        assert rates.hit("socket_messages", "10.0.0.1") is None
    finally:
        threading.settrace(None)  # type: ignore[arg-type]
    assert started == []
