"""Group commits of the event log (storage/group.py): the actions of many tables in one
transaction, written off the event loop; nobody hears of an action before its group is
stored, and a process killed after an acknowledgement loses nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from parts import Socket, greedy_move, room_in, seated, stored
from roomserver import free_port
from sqlalchemy import event

from burraco.server.table.errors import RoomError
from burraco.storage import EventRow, Store
from burraco.storage.store import StaleVersion


def test_actions_of_many_tables_arriving_together_are_one_commit(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        tables = [(await seated(room))[0] for _ in range(8)]
        commits: list[int] = []
        event.listen(room.store.engine, "commit", lambda _: commits.append(1))
        versions = [t.version for t in tables]
        await asyncio.gather(
            *(
                room.step.act(t, t.match.deal.turn, greedy_move(t), t.version)  # type: ignore[union-attr]
                for t in tables
            )
        )
        assert [t.version for t in tables] == [v + 1 for v in versions]
        for table, version in zip(tables, versions, strict=True):
            assert room.store.events(table.id)[-1].version == version + 1
        assert len(commits) == 1  # one transaction for the eight actions
        await room.shutdown()

    asyncio.run(scenario())


def test_nobody_hears_of_an_action_before_its_group_is_stored(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        anna, bruno = Socket(), Socket()
        await room.sockets_part.connect(table, 0, anna.send)
        await room.sockets_part.connect(table, 1, bruno.send)
        heard = len(anna.heard), len(bruno.heard)
        version = table.version
        assert table.match is not None
        # Another process holds the database's write lock: the group cannot be stored.
        blocker = sqlite3.connect(tmp_path / "room.db", isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        acting = asyncio.create_task(
            room.step.act(table, table.match.deal.turn, greedy_move(table), version)
        )
        began = time.monotonic()
        for _ in range(20):
            await asyncio.sleep(0.02)
        # The event loop went on serving while the writer waited on the database...
        assert time.monotonic() - began < 2.0
        # ...and nobody heard of the action, which is not applied either.
        assert (len(anna.heard), len(bruno.heard)) == heard
        assert table.version == version and not acting.done()
        assert [e.version for e in room.store.events(table.id)][-1] == version
        blocker.execute("ROLLBACK")
        blocker.close()
        await asyncio.wait_for(acting, timeout=30)
        assert table.version == version + 1
        assert room.store.events(table.id)[-1].version == version + 1
        assert any(m["type"] == "state" and m["version"] == version + 1 for m in anna.heard)
        await room.shutdown()

    asyncio.run(scenario())


def test_a_stale_event_fails_alone_and_the_rest_of_its_group_is_stored(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        first, _ = await seated(room)
        second, _ = await seated(room)
        # Another process stored the first table's next version already.
        room.store.append_event(first.id, first.version + 1, "time-out", None, "{}")
        before = first.version, second.version
        outcomes = await asyncio.gather(
            room.event_log.commit_event(first, "abandon", 0, {}),
            room.event_log.commit_event(second, "abandon", 0, {}),
            return_exceptions=True,
        )
        assert isinstance(outcomes[0], RoomError) and outcomes[0].code == "stale"
        assert outcomes[1] is None
        assert (first.version, second.version) == (before[0], before[1] + 1)
        assert room.store.events(second.id)[-1].kind == "abandon"
        await room.shutdown()

    asyncio.run(scenario())


def test_the_store_tells_each_event_of_a_group_its_outcome(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'room.db'}")
    table = stored(store)
    store.append_event(table.id, 1, "start", None, "{}")
    rows = [EventRow(table.id, v, "time-out", None, "{}", 0.0) for v in (1, 2, 3)]
    outcomes = store.append_events(rows)
    assert isinstance(outcomes[0], StaleVersion) and outcomes[1:] == [None, None]
    assert [e.version for e in store.events(table.id)] == [1, 2, 3]


# --- a process killed after its acknowledgements -------------------------------------


def _listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the room stopped"
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the room never listened")


async def _play(port: int, moves: int) -> list[int]:
    """Both seats of a new table play ``moves`` actions; the versions acknowledged
    (a state that shows the action reached its player)."""
    url = f"http://127.0.0.1:{port}"
    body = {"variant": "italian", "players": 2, "target": 100000, "move_seconds": 0}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        created = (await http.post("/api/tables", json=body | {"name": "Anna"})).json()
        joined = (
            await http.post(f"/api/tables/{created['table']}/join", json={"name": "Bruno"})
        ).json()
    acknowledged: list[int] = []
    ws = f"ws://127.0.0.1:{port}/ws/{created['table']}?token="
    async with (
        websockets.connect(ws + created["token"]) as anna,
        websockets.connect(ws + joined["token"]) as bruno,
    ):
        latest: dict[int, dict[str, Any]] = {}

        async def state_of(socket: Any, seat: int) -> dict[str, Any]:
            while True:
                message = json.loads(await asyncio.wait_for(socket.recv(), 30))
                if message["type"] == "state":
                    latest[seat] = message
                    return message

        await state_of(anna, 0)
        await state_of(bruno, 1)
        sockets = (anna, bruno)
        while len(acknowledged) < moves:
            on_turn = next(
                seat for seat in (0, 1) if latest[seat]["legal"] and not latest[seat]["pause"]
            )
            message = latest[on_turn]
            socket = sockets[on_turn]
            action = sorted(message["legal"])[0]
            await socket.send(
                json.dumps({"type": "action", "action": action, "version": message["version"]})
            )
            wanted = message["version"] + 1
            while (await state_of(socket, on_turn))["version"] < wanted:
                pass
            acknowledged.append(wanted)
            other = 1 - on_turn
            while latest[other]["version"] < wanted:
                await state_of(sockets[other], other)
        return [created["table"], *acknowledged]  # type: ignore[list-item]


def test_a_process_killed_after_acknowledging_loses_no_action(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'room.db'}"
    port = free_port()
    command = [sys.executable, "-m", "burraco.cli", "serve", "--database-url", database]
    room = subprocess.Popen([*command, "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        _listening(port, room)
        table, *acknowledged = asyncio.run(_play(port, 12))
        room.kill()  # kill -9: nothing is flushed, nothing shuts down
        room.wait(timeout=30)
    finally:
        if room.poll() is None:
            room.kill()
    stored = {e.version for e in Store(database, migrate=False).events(str(table))}
    assert set(acknowledged) <= stored
