"""Two server processes and a Redis server on this machine play one table together.

The table is created on the first process; the second player joins, starts and
plays through the second one, whose socket is relayed to the owner over Redis.
Skipped where no ``redis-server`` is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from roomserver import free_port

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    assert REDIS is not None
    port = free_port()
    process = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    deadline = time.time() + 10
    import redis

    client = redis.Redis(port=port)
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.time() > deadline:
                process.kill()
                raise
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)


def _serve(port: int, database: str, redis_url: str, node: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "burraco.cli", "serve", "--port", str(port),
        "--database-url", database, "--redis-url", redis_url, "--node", node, "--bot-delay", "0",
    ]  # fmt: skip
    process = subprocess.Popen(command)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server {node} did not start")


async def _play(url: str, table: str, token: str, rng: random.Random) -> dict[str, Any]:
    async with websockets.connect(f"{url}/ws/{table}?token={token}") as ws:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if message["type"] == "match_over":
                return dict(message)
            if message["type"] == "state" and message["legal"]:
                action = rng.choice(message["legal"])
                await ws.send(
                    json.dumps({"type": "action", "action": action, "version": message["version"]})
                )


def test_two_processes_share_a_table_over_redis(tmp_path: Path, redis_url: str) -> None:
    database = f"sqlite:///{tmp_path / 'room.db'}"
    ports = [free_port(), free_port()]
    servers = [
        _serve(ports[0], database, redis_url, "one"),
        _serve(ports[1], database, redis_url, "two"),
    ]
    try:
        one, two = (f"http://127.0.0.1:{p}" for p in ports)
        body = {"variant": "italian", "players": 2, "deals": 1, "name": "Anna", "move_seconds": 0}
        created = httpx.post(f"{one}/api/tables", json=body).json()
        table = created["table"]
        listed = httpx.get(f"{two}/api/tables").json()["tables"]
        assert [t["table"] for t in listed] == [table]
        joined = httpx.post(f"{two}/api/tables/{table}/join", json={"name": "Bruno"})
        assert joined.status_code == 200, joined.text
        bruno = joined.json()
        info = httpx.get(f"{two}/api/tables/{table}").json()
        assert info["status"] == "playing"  # both seats taken: the owner started the match

        async def both() -> list[dict[str, Any]]:
            return list(
                await asyncio.gather(
                    _play(one.replace("http", "ws"), table, created["token"], random.Random(1)),
                    _play(two.replace("http", "ws"), table, bruno["token"], random.Random(2)),
                )
            )

        first, second = asyncio.run(both())
        assert first["totals"] == second["totals"]
        record = httpx.get(f"{two}/api/tables/{table}/record")
        assert record.status_code == 200 and '[Seat1 "Bruno"]' in record.text
        refused = httpx.post(f"{two}/api/tables/{table}/join", json={"name": "Carla"})
        assert refused.status_code == 409
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)
