"""The room through the faults of a real evening: a reconnection after a deal has ended,
a process killed between the last action and the end of the match, a full disk, and a
second server started on the same database.

The disk-full test mounts a small tmpfs (it needs root, as CI has); the others run
anywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from roomserver import Player, RoomServer, create_table, free_port, start_table
from sqlalchemy import create_engine, delete, select, update
from waits import seconds

from burraco.record import read_record, replay
from burraco.storage import SeatRow, Store, TableRow, models
from burraco.storage.store import SeatTaken, StoreInUse


async def _drain(player: Player) -> None:
    """Read what the server had already queued (broadcasts), so the next answer is ours."""
    with contextlib.suppress(TimeoutError):
        while True:
            await player.next(timeout=0.5)


async def _play_until(player: Player, done: Any, rng: random.Random) -> dict[str, Any]:
    """Play random legal moves for the seat until ``done(message)`` holds."""
    while True:
        message = await player.next()
        if done(message):
            return message
        if message["type"] == "state" and message["legal"]:
            action = rng.choice(message["legal"])
            await player.send({"type": "action", "action": action, "version": message["version"]})


# --- 2. a reconnection after a deal has ended -------------------------------------------------


def test_sync_after_a_deal_has_ended_replays_its_score_and_keeps_the_socket(db: str) -> None:
    """The deal-over entry of the table's log is a versioned event like the others: a `sync`
    (sent by the page on every reconnection and after a stale answer) replays it, in deal 2
    and after a restart, and the socket stays open."""
    rng = random.Random(3)

    async def deal_two(server: RoomServer, table: dict[str, Any]) -> int:
        async with Player(server, table["table"], table["token"]) as anna:
            seen = await _play_until(
                anna,
                lambda m: m["type"] == "state" and m["view"] and m["view"]["deal"] == 2,
                rng,
            )
            assert any(m["type"] == "deal_over" for m in anna.received)
            # A reconnecting page asks for everything since the start.
            await _drain(anna)
            await anna.send({"type": "sync", "since": 0})
            replayed = []
            while (message := await anna.next())["type"] != "state":
                replayed.append(message)
            overs = [m for m in replayed if m["type"] == "deal_over"]
            assert [m["deal"] for m in overs] == [1]
            assert "sent" not in overs[0] and isinstance(overs[0]["version"], int)
            # The score comes right after the action that ended the deal.
            at = replayed.index(overs[0])
            assert replayed[at - 1]["version"] == overs[0]["version"]
            # A stale action, then the page's sync: an error, then the state, same socket.
            version = message["version"]
            await anna.send({"type": "action", "action": "draw", "version": version - 1})
            error = await anna.until("error")
            assert error["code"] == "stale"
            await anna.send({"type": "sync", "since": version})
            assert (await anna.until("state"))["version"] >= version
            await anna.send({"type": "ping"})
            await anna.until("pong")
            return int(seen["version"])

    with RoomServer(db) as server:
        table = create_table(server, deals=3, move_seconds=0)
        start_table(server, table)
        version = asyncio.run(deal_two(server, table))

    async def after_restart(server: RoomServer) -> None:
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            await _drain(anna)
            await anna.send({"type": "sync", "since": 0})
            replayed = []
            while (message := await anna.next())["type"] != "state":
                replayed.append(message)
            assert [m["deal"] for m in replayed if m["type"] == "deal_over"] == [1]
            assert message["version"] >= version and message["view"]["deal"] == 2

    with RoomServer(db) as server:
        asyncio.run(after_restart(server))


# --- 4. the end of a match follows from the log alone ----------------------------------------


def _finish_a_match(server: RoomServer, rng: random.Random) -> dict[str, Any]:
    table = create_table(server, deals=1, move_seconds=0)
    start_table(server, table)

    async def play() -> None:
        async with Player(server, table["table"], table["token"]) as anna:
            await _play_until(anna, lambda m: m["type"] == "match_over", rng)

    asyncio.run(play())
    return table


def test_a_match_whose_end_was_not_saved_is_finished_at_restart(db: str) -> None:
    """Killed between the commit of the last action and the record: the database says the
    table is still playing and has no record. The log alone says the match is over, so the
    restarted room finishes it (record, replay, status)."""
    with RoomServer(db) as server:
        table = _finish_a_match(server, random.Random(5))
        with server.http() as http:
            kept = http.get(f"/api/tables/{table['table']}/record").text
    # The state on disk of a process killed right after the last action's commit.
    engine = create_engine(db)
    with engine.begin() as c:
        c.execute(delete(models.records).where(models.records.c.table_id == table["table"]))
        c.execute(
            update(models.tables)
            .where(models.tables.c.id == table["table"])
            .values(status="playing")
        )
    engine.dispose()
    with RoomServer(db) as server, server.http() as http:
        info = http.get(f"/api/tables/{table['table']}").json()
        assert info["status"] == "over"
        answer = http.get(f"/api/tables/{table['table']}/record")
        assert answer.status_code == 200
        record = read_record(answer.text)
        assert replay(record).is_over
        assert record.deals == read_record(kept).deals
        assert http.get(f"/api/tables/{table['table']}/replay").status_code == 200
        assert table["table"] not in [t["table"] for t in http.get("/api/tables").json()["tables"]]


# --- 4. two servers on one database ------------------------------------------------------------


def test_one_room_per_database_without_redis(tmp_path: Path) -> None:
    """A second `burraco serve` on the same SQLite file is refused with a clear message;
    the first goes on serving."""
    database = f"sqlite:///{tmp_path / 'room.db'}"
    first_port, second_port = free_port(), free_port()
    command = [sys.executable, "-m", "burraco.cli", "serve", "--database-url", database]
    first = subprocess.Popen([*command, "--port", str(first_port)], stderr=subprocess.PIPE)
    try:
        _wait_listening(first_port, first)
        second = subprocess.run(
            [*command, "--port", str(second_port)], capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 1
        said = " ".join(second.stderr.split())
        assert "is served by process" in said and "--redis-url" in said
        _wait_listening(first_port, first)  # the first one is untouched
    finally:
        first.terminate()
        first.wait(timeout=20)
    # Once the first is gone, the database is free again (even after kill -9: the lock is
    # the process's).
    third = subprocess.Popen([*command, "--port", str(second_port)], stderr=subprocess.DEVNULL)
    try:
        _wait_listening(second_port, third)
        third.kill()
        third.wait(timeout=20)
    finally:
        if third.poll() is None:
            third.kill()
    fourth = subprocess.Popen([*command, "--port", str(first_port)], stderr=subprocess.DEVNULL)
    try:
        _wait_listening(first_port, fourth)
    finally:
        fourth.terminate()
        fourth.wait(timeout=20)


def test_a_seat_is_given_once_across_writers(db: str) -> None:
    """The database, not a process's memory, decides who gets an empty seat."""
    first, second = Store(db), Store(db)
    row = TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "waiting", 0.0, 0.0)
    first.create_table(
        row, [SeatRow("t-1", 0, "Anna", "human", "a"), SeatRow("t-1", 1, "", "empty", "")]
    )
    first.claim_seat(SeatRow("t-1", 1, "Bruno", "human", "b"))
    with pytest.raises(SeatTaken):
        second.claim_seat(SeatRow("t-1", 1, "Carla", "human", "c"))
    assert [s.name for s in second.seats("t-1")] == ["Anna", "Bruno"]
    first.hold()
    with pytest.raises(StoreInUse, match="is served by process"):
        second.hold()
    first.release()
    second.hold()
    second.release()


def _wait_listening(port: int, process: subprocess.Popen[Any], seconds: float = 30) -> None:
    import socket

    deadline = time.time() + seconds
    while time.time() < deadline:
        assert process.poll() is None, "the server stopped"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


# --- 4. a full disk ------------------------------------------------------------------------------


@contextlib.contextmanager
def _small_disk(path: Path, size: str = "3m") -> Iterator[Path]:
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)])
    if mounted.returncode != 0:
        pytest.skip("this machine cannot mount a tmpfs")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _fill(disk: Path) -> Path:
    """Fill the disk to its last byte (unbuffered, so nothing is left to flush)."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as f:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * size)
    return filler


def test_a_full_disk_pauses_the_tables_and_they_go_on_by_themselves(tmp_path: Path) -> None:
    """With the disk full, a player's move gets a clear "cannot save" answer on an open
    socket, a new table gets 503, the bots wait; once space comes back every table goes on
    by itself, and nothing that was acknowledged is lost."""
    with _small_disk(tmp_path / "disk") as disk:
        database = f"sqlite:///{disk / 'room.db'}"
        with RoomServer(database, bot_delay=0.02) as server:
            # A table where bots play on: the person never moves and a bot takes over.
            idle = create_table(server, deals=5, move_seconds=1)
            start_table(server, idle)
            busy = create_table(server, deals=5, move_seconds=0, name="Bruno")
            start_table(server, busy)
            room = server.room
            deadline = time.time() + seconds(30)
            while room.tables[idle["table"]].version < 5 and time.time() < deadline:
                time.sleep(0.1)

            async def evening() -> None:
                async with Player(server, busy["table"], busy["token"]) as bruno:
                    mine = await _play_until(
                        bruno, lambda m: m["type"] == "state" and bool(m["legal"]), random.Random(1)
                    )
                    filler = _fill(disk)
                    # Let the bots run into the full disk.
                    await asyncio.sleep(2)
                    frozen = room.tables[idle["table"]].version
                    await bruno.send(
                        {"type": "action", "action": mine["legal"][0], "version": mine["version"]}
                    )
                    error = await bruno.until("error")
                    assert error["code"] == "unavailable"
                    assert "cannot save" in error["message"]
                    await bruno.send({"type": "ping"})
                    await bruno.until("pong")
                    with server.http() as http:
                        answer = http.post("/api/tables", json={"name": "Carla"})
                        assert answer.status_code == 503
                        assert "cannot save" in answer.json()["detail"]
                    await asyncio.sleep(1)
                    assert room.tables[idle["table"]].version == frozen
                    filler.unlink()
                    # The bots go on by themselves (the backoff waits at most 30 s).
                    deadline = time.time() + seconds(45)
                    while room.tables[idle["table"]].version <= frozen:
                        assert time.time() < deadline, "the bot table did not resume"
                        await asyncio.sleep(0.2)
                    await bruno.send(
                        {"type": "action", "action": mine["legal"][0], "version": mine["version"]}
                    )
                    state = await bruno.until("state")
                    assert state["version"] == mine["version"] + 1

            asyncio.run(evening())
        # What the room had acknowledged when it stopped.
        acknowledged = {t: room.tables[t].version for t in (idle["table"], busy["table"])}
        # Every acknowledged action is in the log, and the tables rebuild from it.
        store = Store(database)
        with store.engine.connect() as c:
            for table, version in acknowledged.items():
                versions = c.execute(
                    select(models.events.c.version).where(models.events.c.table_id == table)
                ).scalars()
                assert sorted(versions) == list(range(1, version + 1))
        store.engine.dispose()
        with RoomServer(database, bot_delay=5) as server:
            for table, version in acknowledged.items():
                assert server.room.table(table).version >= version
