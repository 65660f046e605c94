"""A tournament on a cluster: two `burraco serve` processes on one database and one Redis.

The desk is created on one process and driven through the other; a round's tables are
seated on both; one process is killed (kill -9) mid-round, its tables fail over, and
every result lands in the tournament. Skipped where no ``redis-server`` is installed.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import test_cluster
from test_cluster import REDIS, ROOMS
from waits import seconds

from burraco.server.cluster.processes import Cluster
from burraco.server.desk import Desk
from burraco.server.door.capacity import Capacity
from burraco.server.room import Room
from burraco.storage import Store

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")

#: The fixtures of the cluster's tests: a Redis server, and two processes on it.
redis_url = test_cluster.redis_url
rooms = test_cluster.rooms


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The processes (started after this) take no round for "busy" on a loaded machine:
    this test is about the cluster, not the room's admission (as ``RoomServer``)."""
    monkeypatch.setenv("BURRACO_BUSY_LAG", "30")


def _owners(url: str, tables: list[str]) -> dict[str, str | None]:
    """Which process owns each table, as Redis says."""
    client = redis.Redis.from_url(url, decode_responses=True)
    return {t: client.get(f"burraco:owner:{t}") for t in tables}  # type: ignore[misc]


def _round_done(url: str, tid: str, timeout: float) -> dict[str, Any]:
    """The tournament once its round in play has every result; each look at the desk
    answers within a few seconds, even while a process has just died."""
    deadline = time.time() + seconds(timeout)
    while time.time() < deadline:
        asked = time.time()
        info: dict[str, Any] = httpx.get(f"{url}/api/tournaments/{tid}", timeout=30).json()
        took = time.time() - asked
        assert took < seconds(5), f"the desk took {took:.1f} s to answer"
        if all(t["result"] is not None for t in info["rounds"][-1]["tables"]):
            return info
        time.sleep(0.2)
    raise AssertionError(f"the round did not end: {info['rounds'][-1]['tables']}")


def test_a_tournament_runs_on_two_processes_and_survives_a_kill_mid_round(
    rooms: list[str],
    redis_url: str,
) -> None:
    one, two = rooms
    body = {"name": "Club night", "format": "danish", "kind": "pairs", "rounds": 2, "deals": 4}
    created = httpx.post(f"{one}/api/tournaments", json=body).json()
    tid, token = created["tournament"], created["token"]
    # From here on the desk goes through the other process.
    assert httpx.get(f"{two}/api/tournaments/{tid}").status_code == 200
    listed = httpx.get(f"{two}/api/tournaments").json()["tournaments"]
    assert [t["tournament"] for t in listed] == [tid]
    padded = httpx.post(
        f"{two}/api/tournaments/{tid}/pad", json={"token": token, "size": 8, "level": "random"}
    )
    assert padded.status_code == 200, padded.text
    started = httpx.post(f"{two}/api/tournaments/{tid}/rounds", json={"token": token}, timeout=30)
    assert started.status_code == 200, started.text
    tables = [t["room"] for t in started.json()["rounds"][-1]["tables"]]
    owners = _owners(redis_url, tables)
    assert sorted(owners.values()) == ["one", "one", "two", "two"], owners  # type: ignore[type-var]
    on_one = [t for t in tables if owners[t] == "one"]

    ROOMS[0].kill()  # kill -9 of the process that created the tournament, mid-round
    ROOMS[0].wait()
    killed = time.time()
    info = _round_done(two, tid, 60)
    print(f"the round ended {time.time() - killed:.1f} s after the kill")
    results = [t["result"] for t in info["rounds"][0]["tables"]]
    assert len(results) == 4 and None not in results
    # The killed process's tables were still playing: the other took them over and
    # finished them (a table over before the kill keeps its owner's name).
    taken = [t for t, owner in _owners(redis_url, on_one).items() if owner == "two"]
    assert taken, "the round had ended on the killed process before the kill"

    closed = httpx.post(f"{two}/api/tournaments/{tid}/close", json={"token": token})
    assert closed.status_code == 200, closed.text
    # The next round goes to the living process only.
    second = httpx.post(f"{two}/api/tournaments/{tid}/rounds", json={"token": token}, timeout=30)
    assert second.status_code == 200, second.text
    tables = [t["room"] for t in second.json()["rounds"][-1]["tables"]]
    assert set(_owners(redis_url, tables).values()) == {"two"}
    _round_done(two, tid, 60)
    closed = httpx.post(f"{two}/api/tournaments/{tid}/close", json={"token": token})
    assert closed.status_code == 200, closed.text
    standings = httpx.get(f"{two}/api/tournaments/{tid}").json()["standings"]
    assert len(standings) == 8 and all(s["played"] == 2 for s in standings)
    assert sum(s["vp"] for s in standings) == 8 * 2 * 10


def test_a_result_nobody_entered_is_collected_from_the_store_once(
    tmp_path: Path,
    redis_url: str,
) -> None:
    """A process that dies between a table's end (stored) and the entry of its result
    loses nothing: any process of the cluster enters it from the store, once."""

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.db'}")
        room = Room(store, bot_delay=0, capacity=Capacity(busy_lag=30.0))
        cluster = Cluster(room, redis_url, "one")
        desk = Desk(room, store, cluster=cluster)
        await cluster.start()  # the desk's own collector is not started: called below
        try:
            body = {"name": "Club night", "format": "round-robin", "kind": "individual"}
            live, token = desk.create(body)
            await desk.pad(live.id, token, 2, "random")
            # Nobody hears the end of the table: as if its process died just after it.
            room.finish_listeners.remove(desk._table_finished)
            await desk.start_round(live.id, token, online=True)
            (table_id,) = desk.get(live.id).tables.values()
            assert cluster.leases.owned == {table_id}
            deadline = time.time() + seconds(60)
            while (row := store.table(table_id)) is not None and row.status != "over":
                assert time.time() < deadline, "the bots did not finish their table"
                await asyncio.sleep(0.05)
            current = desk.get(live.id).tournament.current_round
            assert current is not None and current.results == {}
            assert await desk.collect_results() == 1
            current = desk.get(live.id).tournament.current_round
            assert current is not None and list(current.results) == [1]
            assert await desk.collect_results() == 0
        finally:
            await cluster.stop()
            await room.shutdown()

    asyncio.run(scenario())


def test_a_table_taken_over_keeps_its_players_grace(tmp_path: Path, redis_url: str) -> None:
    """The grace of the players not yet at a tournament table is not in its log: the
    process that takes the table over from a dead one keeps it, as a restart does."""

    async def scenario() -> None:
        database = f"sqlite:///{tmp_path / 'room.db'}"
        processes = []
        for node in ("one", "two"):
            room = Room(Store(database), bot_delay=0, capacity=Capacity(busy_lag=30.0))
            cluster = Cluster(room, redis_url, node)
            processes.append((room, cluster, Desk(room, room.store, cluster=cluster)))
        for _, cluster, _ in processes:
            await cluster.start()
        (room_one, one, desk), (room_two, two, desk_two) = processes
        try:
            body = {"name": "Club night", "format": "round-robin", "kind": "individual"}
            live, token = desk.create(body | {"grace_seconds": 600})
            tokens = []
            for name in ("Anna", "Bruno"):
                said = await desk.register(live.id, token, {"players": [name]})
                tokens += said["tokens"]
            await desk.start_round(live.id, token, online=True)
            (table_id,) = desk.get(live.id).tables.values()
            assert table_id in one.leases.owned
            started = room_one.tables[table_id].deal_started
            assert room_one.tables[table_id].absent_until == pytest.approx(started + 600)
            # The other process's desk shows who is not at the table, and the clocks,
            # as the table's owner knows them.
            (shown,) = (await desk_two.view(desk_two.get(live.id)))["rounds"][0]["tables"]
            assert shown["absent"] == ["N", "S"]
            assert shown["grace_until"] == int((started + 600) * 1000)
            me = await desk_two.player_view(live.id, tokens[1])
            assert me["clock"] == {"deal_deadline": int((started + 15 * 60) * 1000)}
            # "one" dies: it stops saying it is alive, and holds its lease to the end.
            for task in one._tasks:
                task.cancel()
            await one.redis.delete(f"burraco:alive:{one.node}")
            await room_one.shutdown()
            assert await two.owners.owner(table_id) == "two"
            table = room_two.tables[table_id]
            assert table.unseen == {0, 1}
            assert table.absent_until == pytest.approx(started + 600)
            # The first turn's clock runs after the grace, not now.
            assert table.deadline is not None and table.deadline > started + 600
        finally:
            await one.redis.aclose()
            await two.stop()
            await room_two.shutdown()

    asyncio.run(scenario())


def test_a_process_that_does_not_answer_holds_up_a_round_once(
    tmp_path: Path, redis_url: str
) -> None:
    """A process that says it is alive but does not answer (hung) gets its share of a
    round's tables seated by the director's process, after one wait, not one a table."""
    from burraco.server.cluster.wire import RPC_SECONDS

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'room.db'}")
        room = Room(store, bot_delay=0, capacity=Capacity(busy_lag=30.0))
        cluster = Cluster(room, redis_url, "one")
        desk = Desk(room, store, cluster=cluster)
        await cluster.start()
        await cluster.redis.set("burraco:alive:hung", "1", ex=120)
        try:
            body = {"name": "Club night", "format": "round-robin", "kind": "individual"}
            live, token = desk.create(body)
            await desk.pad(live.id, token, 8, "random")
            asked = time.time()
            await desk.start_round(live.id, token, online=True)
            took = time.time() - asked
            tables = set(desk.get(live.id).tables.values())
            assert len(tables) == 4 and tables <= cluster.leases.owned
            assert RPC_SECONDS <= took < 2 * RPC_SECONDS, f"seating took {took:.1f} s"
        finally:
            await cluster.stop()
            await room.shutdown()

    asyncio.run(scenario())
