"""The room on PostgreSQL: the same code and migrations as on SQLite.

A throwaway PostgreSQL cluster is started on 127.0.0.1 for the test (as the
``postgres`` user, as PostgreSQL will not run as root) and stopped after it.
Skipped where PostgreSQL's server or psycopg is not installed (``scripts/test.sh``
installs both).
"""

from __future__ import annotations

import asyncio
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from roomserver import RoomServer, create_table, free_port, start_table
from test_server import _my_turn, _play_to_the_end

BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
pytestmark = [
    pytest.mark.skipif(not BIN, reason="PostgreSQL's server is not installed"),
    pytest.mark.skipif(
        shutil.which("runuser") is None or not any(u.pw_name == "postgres" for u in pwd.getpwall()),
        reason="no postgres user to run the server as",
    ),
]
psycopg = pytest.importorskip("psycopg")


def _as_postgres(*command: str) -> None:
    if os.geteuid() == 0:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True
        )
    else:
        subprocess.run(list(command), check=True, capture_output=True)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    # Not pytest's tmp_path: its folders are closed to the postgres user.
    folder = Path(tempfile.mkdtemp(prefix="burraco-pg-"))
    folder.chmod(0o777)
    bin_dir = BIN[-1]
    port = free_port()
    _as_postgres(f"{bin_dir}/initdb", "-D", str(folder / "data"), "-A", "trust", "-U", "postgres")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    # A log file, or the server would hold pg_ctl's output open and the call never return.
    log = str(folder / "log")
    _as_postgres(
        f"{bin_dir}/pg_ctl", "-D", str(folder / "data"), "-o", options, "-l", log, "-w", "start"
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        _as_postgres(f"{bin_dir}/pg_ctl", "-D", str(folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_a_match_is_played_and_resumed_on_postgresql(postgres_url: str) -> None:
    table: dict[str, object] = {}

    async def first_half(server: RoomServer) -> None:
        table.update(create_table(server, move_seconds=0))
        from roomserver import Player

        async with Player(server, str(table["table"]), str(table["token"])) as anna:
            await anna.until("state")
            start_table(server, table)
            state = await _my_turn(anna)
            await anna.send({"type": "action", "action": "draw", "version": state["version"]})
            await anna.until("state")

    async def second_half(server: RoomServer) -> None:
        from roomserver import Player

        async with Player(server, str(table["table"]), str(table["token"])) as anna:
            state = await anna.until("state")
            await anna.send({"type": "sync", "since": state["version"]})
            await _play_to_the_end(server, [anna], str(table["table"]))

    with RoomServer(postgres_url) as server:
        asyncio.run(first_half(server))
    with RoomServer(postgres_url) as server:
        asyncio.run(second_half(server))
        with server.http() as http:
            record = http.get(f"/api/tables/{table['table']}/record")
            assert record.status_code == 200 and '[Seat0 "Anna"]' in record.text


def test_one_room_per_postgresql_database_without_redis(postgres_url: str) -> None:
    """As on SQLite: a second room on the database is refused while the first holds it, and
    the hold ends with the first's session."""
    from burraco.storage import Store
    from burraco.storage.store import StoreInUse

    first, second = Store(postgres_url), Store(postgres_url)
    first.hold()
    with pytest.raises(StoreInUse, match="served by another process"):
        second.hold()
    first.release()
    second.hold()
    second.release()
    first.engine.dispose()
    second.engine.dispose()


def test_accounts_ratings_results_and_chat_on_postgresql(postgres_url: str) -> None:
    """The community's tables on PostgreSQL as on SQLite: an account, a rated match against
    a bot that moves both ratings, the results, the chat kept across a restart."""
    import json

    import httpx
    import websockets

    from burraco.storage import ChatRow, Store

    with RoomServer(postgres_url) as server:
        client = httpx.Client(base_url=server.url)
        signed = client.post("/api/account/signup", json={"name": "Pia", "password": "12345678"})
        assert signed.status_code == 200, signed.text
        client.headers["X-CSRF-Token"] = signed.json()["csrf"]
        made = client.post(
            "/api/tables", json={"name": "Pia", "deals": 1, "rated": True, "move_seconds": 0}
        ).json()
        assert client.post(f"/api/tables/{made['table']}/start", json={}).status_code == 200
        table = server.room.tables[made["table"]]
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())

        async def abandon() -> None:
            # 002: who abandons loses the match; at a rated table, a rated loss.
            url = f"{server.ws_url}/ws/{made['table']}?token={made['token']}"
            async with websockets.connect(url, additional_headers={"Cookie": cookie}) as ws:
                await ws.recv()
                await ws.send(json.dumps({"type": "abandon"}))
                await asyncio.sleep(0.5)

        asyncio.run(abandon())
        for _ in range(600):
            if client.get("/api/players/Pia").json()["matches"]:
                break
            time.sleep(0.1)
        player = client.get("/api/players/Pia").json()
        assert player["ratings"][0]["game"] == "italian-2"
        assert player["ratings"][0]["matches"] == 1
        board = client.get("/api/leaderboard/italian-2").json()
        assert {r["name"] for r in board["rows"]} >= {"Pia", "greedy"}
        Store(postgres_url, migrate=False).add_chat(
            ChatRow(table.id, "players", 0, "Pia", "ciao", None, time.time())
        )
    store = Store(postgres_url, migrate=False)
    assert [c.text for c in store.chat(made["table"], "players")] == ["ciao"]
    results = store.results(table_id=made["table"])
    assert len(results) == 2 and all(r.rated for r in results)


def test_two_tables_of_one_player_finishing_at_once_on_postgresql_lose_no_rating(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of test_rating_race.py on PostgreSQL: the second finish waits for the
    first's lock on the player's account and rates on the rating the first wrote."""
    from test_rating_race import check_no_update_lost, finish_at_once

    got = finish_at_once(postgres_url, monkeypatch)
    check_no_update_lost(got, lambda a, b: abs(a - b) < 1e-9)


def test_a_finish_waits_for_anothers_hold_on_its_player_and_stores_after_it(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holds Anna (its own rating of her under way) longer than the store
    waits: the finish is refused for now, tries again, and stores her match once the
    other lets go, moving her rating once."""
    import logging
    import threading

    from sqlalchemy import text
    from test_rating_race import _two_finished_tables

    from burraco.server.results.record import listener
    from burraco.storage import Store

    store = Store(postgres_url)
    anna, tables = asyncio.run(_two_finished_tables(store))
    store.wait_seconds = 0.2
    other = Store(postgres_url, migrate=False).engine.connect()
    other.execute(text("SELECT id FROM users WHERE id = :id FOR UPDATE"), {"id": anna})

    # Should the finish block the loop on the hold (code without a lock timeout), let go
    # after a while so the test fails instead of hanging.
    safety = threading.Timer(15, other.rollback)
    safety.start()

    async def finish() -> None:
        stored = asyncio.ensure_future(listener(store)(tables[0]))
        deadline = time.monotonic() + 30
        while "results not stored" not in caplog.text:
            assert time.monotonic() < deadline and not stored.done(), "the finish did not wait"
            await asyncio.sleep(0.01)
        safety.cancel()
        other.rollback()  # the other process is done with Anna
        await asyncio.wait_for(stored, 30)

    with caplog.at_level(logging.WARNING, logger="burraco.results"):
        asyncio.run(finish())
    other.close()
    assert len(store.results(table_id=tables[0].id)) == 2
    assert store.ratings_for("italian-2", [anna])[anna].matches == 1


def test_a_group_commit_on_postgresql_fails_a_stale_event_alone(postgres_url: str) -> None:
    # PostgreSQL aborts a whole transaction at a broken constraint: the group is written
    # again one event at a time, and each event hears its own outcome.
    from burraco.storage import EventRow, Store, TableRow
    from burraco.storage.group import GroupCommit
    from burraco.storage.store import StaleVersion

    store = Store(postgres_url)
    for name in ("t-1", "t-2"):
        row = TableRow(name, "italian", "{}", 7, 40, "greedy", True, "playing", 0.0, 0.0)
        store.create_table(row)
        store.append_event(name, 1, "start", None, "{}")
    group = GroupCommit(store)

    async def together() -> list[BaseException | None]:
        rows = [EventRow(t, v, "time-out", None, "{}", 0.0) for t, v in (("t-1", 1), ("t-2", 2))]
        outcomes = await asyncio.gather(*(group.append(r) for r in rows), return_exceptions=True)
        await group.close()
        return list(outcomes)

    outcomes = asyncio.run(together())
    assert isinstance(outcomes[0], StaleVersion) and outcomes[1] is None
    assert [e.version for e in store.events("t-2")] == [1, 2]
    assert group.groups == 1
