"""Stopping and starting the room as an operator does: ``burraco serve`` in a process of
its own, stopped with SIGTERM or killed with ``kill -9``, then started again on the same
port and database; and the thinking processes of expert bots and hints, which must
neither outlive the room nor let hints starve the expert tables."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from roomserver import Player, RoomServer, free_port, port_is_free
from waits import seconds

from burraco.server.process.thinking import Busy, Thinking, ThinkingSettings

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes in /proc")


def _children(pid: int) -> set[int]:
    """Every process descended from ``pid``."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            parents.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in parents.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                alive.add(pid)
    return alive


def _listening_inode(port: int) -> str:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                return fields[9]
    raise AssertionError(f"nothing listens on {port}")


class Served:
    """``burraco serve`` as a child process on a port and a SQLite file."""

    def __init__(self, port: int, database: Path, **env: str) -> None:
        command = [
            sys.executable, "-m", "burraco.cli", "serve", "--port", str(port),
            "--database-url", f"sqlite:///{database}", "--bot-delay", "0",
            "--expert-seconds", "0.3",
        ]  # fmt: skip
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        # Tests make many tables from one address, and at once (the cap is tested in
        # test_capacity.py, the pace of new tables in test_part_door.py).
        many = {"BURRACO_TABLES_PER_CREATOR": "100000", "BURRACO_NEW_TABLES_PER_SECOND": "0"}
        self.process = subprocess.Popen(command, env=os.environ | many | env)
        deadline = time.time() + seconds(60)
        while True:
            assert self.process.poll() is None, "the room stopped at start"
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{self.url}/api/variants", timeout=2)
                return
            assert time.time() < deadline, "the room did not start"
            time.sleep(0.1)

    def table(self, **body: Any) -> dict[str, Any]:
        """A table of one person (who never moves: a bot plays for the seat after its 1 s
        clock) against bots, started."""
        request = {"name": "Anna", "players": 2, "deals": 5, "move_seconds": 1} | body
        made = httpx.post(f"{self.url}/api/tables", json=request, timeout=30)
        assert made.status_code == 200, made.text
        created: dict[str, Any] = made.json()
        started = httpx.post(
            f"{self.url}/api/tables/{created['table']}/start",
            json={"token": created["token"]},
            timeout=30,
        )
        assert started.status_code == 200, started.text
        return created

    def tables(self, count: int, **body: Any) -> list[dict[str, Any]]:
        """``count`` tables as :meth:`table` makes them, made first and then started all at
        once (the room's load arrives together, not while the next table is being made)."""
        request = {"name": "Anna", "players": 2, "deals": 5, "move_seconds": 1} | body
        with httpx.Client(base_url=self.url, timeout=30) as http:
            made = [http.post("/api/tables", json=request) for _ in range(count)]
        assert all(m.status_code == 200 for m in made), made[0].text
        created: list[dict[str, Any]] = [m.json() for m in made]

        async def start_all() -> list[int]:
            async with httpx.AsyncClient(base_url=self.url, timeout=60) as http:
                answers = await asyncio.gather(
                    *(
                        http.post(f"/api/tables/{c['table']}/start", json={"token": c["token"]})
                        for c in created
                    )
                )
            return [a.status_code for a in answers]

        assert set(asyncio.run(start_all())) == {200}
        return created

    def version(self, table: dict[str, Any]) -> int:
        """The version the table's person sees now."""

        async def ask() -> int:
            url = f"ws://127.0.0.1:{self.port}/ws/{table['table']}?token={table['token']}"
            async with websockets.connect(url) as ws:
                return int(json.loads(await asyncio.wait_for(ws.recv(), 20))["version"])

        return asyncio.run(ask())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _stored_versions(database: Path, table: str) -> list[int]:
    with contextlib.closing(sqlite3.connect(database)) as c:
        rows = c.execute("SELECT version FROM events WHERE table_id = ?", (table,)).fetchall()
    return sorted(v for (v,) in rows)


def _wait_for_workers(room: Served, seconds: float = 60) -> set[int]:
    """The room's thinking processes (a fork server and its workers), once they run."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = _alive(_children(room.process.pid))
        if len(found) >= 2:
            return found
        time.sleep(0.2)
    raise AssertionError("no thinking process started")


def _resumes(room: Served, table: dict[str, Any], since: int) -> None:
    """The table is at ``since`` or later and its bots play on."""
    seen = room.version(table)
    assert seen >= since
    deadline = time.time() + seconds(30)
    while room.version(table) <= seen:
        assert time.time() < deadline, "the table did not go on after the restart"
        time.sleep(0.3)


def _held(pid: int) -> list[str]:
    """What a process's open files are (a file it closes while they are read is skipped)."""
    held = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(FileNotFoundError):
            held.append(os.readlink(fd))
    return held


def test_sigterm_stops_the_room_and_its_thinking_within_5_s_and_it_restarts(
    tmp_path: Path,
) -> None:
    database, port = tmp_path / "room.db", free_port()
    room = Served(port, database)
    try:
        table = room.table(bot="expert")
        workers = _wait_for_workers(room)
        # The workers never hold the room's listening socket.
        listening = f"socket:[{_listening_inode(port)}]"
        for pid in workers:
            assert listening not in _held(pid), f"process {pid} holds the listening socket"
        acknowledged = room.version(table)
        began = time.time()
        room.process.send_signal(signal.SIGTERM)
        room.process.wait(timeout=20)
        deadline = began + 5
        while _alive(workers) and time.time() < deadline:
            time.sleep(0.05)
        took = time.time() - began
        assert took < 5, f"SIGTERM took {took:.1f} s"
        assert not _alive(workers), "a thinking process outlived the room"
        assert port_is_free(port)
        assert _stored_versions(database, table["table"])[:acknowledged] == list(
            range(1, acknowledged + 1)
        )
    finally:
        room.stop()
    again = Served(port, database)
    try:
        _resumes(again, table, acknowledged)
    finally:
        again.stop()


def test_after_kill_9_the_thinking_processes_end_and_the_room_restarts(tmp_path: Path) -> None:
    database, port = tmp_path / "room.db", free_port()
    room = Served(port, database)
    try:
        table = room.table(bot="expert")
        workers = _wait_for_workers(room)
        acknowledged = room.version(table)
        room.process.kill()
        room.process.wait(timeout=20)
        deadline = time.time() + 5
        while _alive(workers) and time.time() < deadline:
            time.sleep(0.05)
        assert not _alive(workers), "a thinking process outlived the killed room"
        assert port_is_free(port)
    finally:
        room.stop()
    again = Served(port, database)
    try:
        _resumes(again, table, acknowledged)
    finally:
        again.stop()


def test_sigterm_under_load_stops_within_5_s(tmp_path: Path) -> None:
    """200 tables of bots playing as fast as they can, and sockets open on some of them."""
    database, port = tmp_path / "room.db", free_port()
    room = Served(
        port,
        database,
        BURRACO_BUSY_LAG="100",
        BURRACO_CREATE_TABLE="1000/second",
        BURRACO_MAX_BOT_TABLES="1000",
    )
    try:
        tables = room.tables(200, bot="greedy", deals=50)

        async def watch() -> list[Any]:
            sockets = []
            for table in tables[:50]:
                url = f"ws://127.0.0.1:{port}/ws/{table['table']}?token={table['token']}"
                sockets.append(await websockets.connect(url))
            return sockets

        loop = asyncio.new_event_loop()
        sockets = loop.run_until_complete(watch())
        time.sleep(3)
        began = time.time()
        room.process.send_signal(signal.SIGTERM)
        room.process.wait(timeout=30)
        took = time.time() - began
        assert took < 5, f"SIGTERM with 200 busy tables took {took:.1f} s"
        for ws in sockets:
            loop.run_until_complete(ws.close())
        loop.close()
        assert port_is_free(port)
    finally:
        room.stop()


# --- the thinking processes --------------------------------------------------------------------


def test_the_thinking_queue_is_capped_per_table_and_keeps_room_for_the_bots() -> None:
    thinking = Thinking(ThinkingSettings(workers=1, queue=3, hint_queue=1))

    async def scenario() -> None:
        first = asyncio.create_task(thinking.think("t-1", time.sleep, 0.5))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy, match="already has a search"):
            await thinking.think("t-1", time.sleep, 0)
        hint = asyncio.create_task(thinking.think("t-2", time.sleep, 0.2, hint=True))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy, match="busy"):
            await thinking.think("t-3", time.sleep, 0, hint=True)  # hints have one place
        bot = asyncio.create_task(thinking.think("t-4", time.sleep, 0))  # a bot still gets in
        await asyncio.sleep(0.05)
        with pytest.raises(Busy):
            await thinking.think("t-5", time.sleep, 0)  # the queue is full
        await asyncio.gather(first, hint, bot)
        assert thinking.pending == 0
        assert await thinking.think("t-5", sum, [1, 2]) == 3

    try:
        asyncio.run(scenario())
        assert thinking.worker_pids()
    finally:
        thinking.close()
    assert thinking.worker_pids() == []


def test_hints_never_stop_the_expert_tables(tmp_path: Path) -> None:
    """Twenty sockets asking for hints without pause; the expert table keeps moving."""

    async def scenario(server: RoomServer) -> tuple[int, int]:
        with server.http() as http:
            expert = http.post(
                "/api/tables", json={"name": "E", "bot": "expert", "move_seconds": 1, "deals": 9}
            ).json()
            http.post(f"/api/tables/{expert['table']}/start", json={"token": expert["token"]})
            hinters = []
            for i in range(20):
                made = http.post(
                    "/api/tables", json={"name": f"H{i}", "move_seconds": 0, "deals": 1}
                ).json()
                http.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
                hinters.append(made)
        # The flood goes on until the expert table has made eight moves (8 s on a quiet
        # machine), or for a minute: the table must move while it lasts, whatever the
        # machine's load (a fixed window counted moves, and a loaded machine made six).
        stop = time.time() + seconds(60)
        answers: list[str] = []
        room = server.room

        def flooding() -> bool:
            return room.tables[expert["table"]].version - before < 8 and time.time() < stop

        async def ask(table: dict[str, Any]) -> None:
            async with Player(server, table["table"], table["token"]) as p:
                await p.until("state")
                while flooding():
                    await p.send({"type": "hint"})
                    while True:
                        said = await p.next()
                        if said["type"] in ("hint", "error"):
                            answers.append(said.get("code", "hint"))
                            break

        await asyncio.sleep(1.5)  # the person's clock runs out: the expert bots play
        before = room.tables[expert["table"]].version
        await asyncio.gather(*(ask(t) for t in hinters), return_exceptions=True)
        after = room.tables[expert["table"]].version
        assert "busy" in answers and "hint" in answers
        return before, after

    with RoomServer(
        f"sqlite:///{tmp_path / 'room.db'}",
        expert_seconds=0.2,
        thinking=ThinkingSettings(workers=1, queue=4, hint_queue=2),
    ) as server:
        try:
            before, after = asyncio.run(scenario(server))
        finally:
            server.room.thinking.close()
    assert after - before >= 8, (
        f"the expert table made {after - before} moves in {seconds(60)} s of hints asked"
    )
