"""A tournament on a cluster: two `burraco serve` processes on one database and one Redis.

The desk is created on one process and driven through the other; a round's tables are
seated on both; one process is killed (kill -9) mid-round, its tables fail over, and
every result lands in the tournament. Skipped where no ``redis-server`` is installed.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
import redis
from test_cluster import REDIS, ROOMS, redis_url, rooms  # noqa: F401 (the fixtures)
from waits import seconds

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The processes (started after this) take no round for "busy" on a loaded machine:
    this test is about the cluster, not the room's admission (as ``RoomServer``)."""
    monkeypatch.setenv("BURRACO_BUSY_LAG", "30")


def _owners(redis_url: str, tables: list[str]) -> dict[str, str | None]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    return {t: client.get(f"burraco:owner:{t}") for t in tables}  # type: ignore[misc]


def _round_done(url: str, tid: str, timeout: float) -> dict[str, Any]:
    deadline = time.time() + seconds(timeout)
    while time.time() < deadline:
        info: dict[str, Any] = httpx.get(f"{url}/api/tournaments/{tid}", timeout=10).json()
        if all(t["result"] is not None for t in info["rounds"][-1]["tables"]):
            return info
        time.sleep(0.2)
    raise AssertionError(f"the round did not end: {info['rounds'][-1]['tables']}")


def test_a_tournament_runs_on_two_processes_and_survives_a_kill_mid_round(
    rooms: list[str],
    redis_url: str,  # noqa: F811
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
