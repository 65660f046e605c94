"""Two server processes and a Redis server on this machine play one table together.

The table is created on the first process; the second player joins, starts and
plays through the second one, whose socket is relayed to the owner over Redis.
Skipped where no ``redis-server`` is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import os
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
from waits import seconds

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")

#: Every request waits as long as a busy machine needs: httpx's own default of 5 s once
#: ran out under load (two processes, Redis and the other tests on 2 cores).
get = functools.partial(httpx.get, timeout=seconds(30))
post = functools.partial(httpx.post, timeout=seconds(30))


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    assert REDIS is not None
    port = free_port()
    process = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    deadline = time.time() + seconds(10)
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
    process.wait(timeout=seconds(10))


def test_commands_past_the_redis_connections_wait_for_one(redis_url: str) -> None:
    """A loaded process sends more commands at once than it has connections: each waits
    for a free one (redis-py's default pool refused them with "Too many connections", a
    500 for the player, seen in bench/cluster.py)."""
    from burraco.server.cluster.wire import REDIS_CONNECTIONS, redis_client

    async def crowd() -> list[Any]:
        client = redis_client(redis_url)
        try:
            # Each holds its connection a moment: far more at once than connections.
            return list(
                await asyncio.gather(
                    *(client.blpop([f"nothing:{i}"], timeout=0.1) for i in range(250))
                )
            )
        finally:
            await client.aclose()

    assert REDIS_CONNECTIONS < 250
    assert asyncio.run(crowd()) == [None] * 250


def test_a_node_renews_all_its_leases_in_one_command(redis_url: str) -> None:
    """A loaded process renewed its leases one table at a time (a GET and an EXPIRE each,
    awaited one after the other): with a hundred tables that took longer than the lease,
    and its tables lapsed to other processes while it played them (bench/cluster.py)."""
    from burraco.server.cluster.leases import OWNER_SECONDS, Leases
    from burraco.server.cluster.wire import redis_client
    from burraco.server.room import Room
    from burraco.storage import Store

    leases = Leases(Room(Store("sqlite://")), redis_client(redis_url), "one")
    tables = [f"t-{i}" for i in range(300)]

    async def busy(until: asyncio.Event) -> None:
        # A loaded process: the event loop is busy 10 ms between two of its turns.
        while not until.is_set():
            time.sleep(0.01)
            await asyncio.sleep(0)

    async def scenario() -> tuple[float, dict[str, int]]:
        try:
            for table in tables:
                await leases.redis.set(f"burraco:owner:{table}", "one", ex=5)
            await leases.redis.set("burraco:owner:t-7", "two", ex=5)  # another's now
            leases.owned.update(tables)
            done = asyncio.Event()
            load = asyncio.create_task(busy(done))
            start = time.perf_counter()
            await leases.renew()
            took = time.perf_counter() - start
            done.set()
            await load
            ttls = {t: await leases.redis.ttl(f"burraco:owner:{t}") for t in ("t-0", "t-7")}
            return took, ttls
        finally:
            await leases.redis.aclose()

    took, ttls = asyncio.run(scenario())
    # One at a time, 600 commands each behind 10 ms of the loop's work: over 6 s.
    assert took < 1.0, f"renewing 300 leases took {took:.1f} s"
    assert ttls["t-0"] > 5 and ttls["t-0"] <= OWNER_SECONDS
    assert ttls["t-7"] <= 5  # not renewed: not ours
    assert "t-7" not in leases.owned and "t-0" in leases.owned


def test_two_claims_of_one_table_in_one_process_load_it_once(redis_url: str) -> None:
    """A socket and the scan of one process take a dead owner's table at the same moment:
    the second claim loaded the table again, and the players whose sockets the first copy
    held heard nothing more (bench/cluster.py: a player waiting for a move made)."""
    from burraco.server.cluster.leases import Leases
    from burraco.server.cluster.wire import redis_client
    from burraco.server.room import Room
    from burraco.storage import Store

    room = Room(Store("sqlite://"), bot_delay=0)
    table, _seat, _token = room.create({"variant": "italian", "players": 2, "name": "Anna"})
    leases = Leases(room, redis_client(redis_url), "one")

    async def scenario() -> tuple[object, object]:
        try:
            first = asyncio.create_task(leases.claim(table.id))
            second = asyncio.create_task(leases.claim(table.id))
            assert await first
            held = room.tables[table.id]  # the copy the first claim's sockets would join
            assert await second
            return held, room.tables[table.id]
        finally:
            await leases.redis.aclose()

    held, now = asyncio.run(scenario())
    assert now is held


def test_a_node_whose_channel_has_no_listener_is_dead_before_its_key_lapses(
    redis_url: str,
) -> None:
    """A process killed with ``kill -9`` loses its Redis connections at once, but its key
    said it was alive for up to 4 s more, and its tables and sockets waited that long
    (bench/cluster.py: every player back after 13.7-20.4 s). A node whose key is there but
    whose channel nobody listens to is dead; one that listens is alive."""
    from burraco.server.cluster.nodes import Nodes
    from burraco.server.cluster.wire import redis_client

    nodes = Nodes(redis_client(redis_url), "one")

    async def scenario() -> tuple[bool, bool, bool]:
        try:
            await nodes.redis.set("burraco:alive:two", "1", ex=60)  # its key: not lapsed
            killed = await nodes.is_alive("two")  # nobody listens on burraco:rpc:two
            listener = nodes.redis.pubsub()
            await listener.subscribe("burraco:rpc:two")  # two (re)started: it listens
            back = await nodes.is_alive("two")
            await listener.aclose()
            await nodes.redis.delete("burraco:alive:two")
            lapsed = await nodes.is_alive("two")
            return killed, back, lapsed
        finally:
            await nodes.redis.aclose()

    assert asyncio.run(scenario()) == (False, True, False)


def test_a_dead_nodes_tables_are_adopted_in_batches_each_once(redis_url: str) -> None:
    """A process that adopts a dead one's tables loads each from its log on the event loop:
    all at once they held the tables in play here as long (bench/cluster.py: p99 of 213 ms
    during the failover). Adopted a few at a time, the loop turns between batches, every
    table of the dead node is adopted, each once, and nobody else's table is."""
    from burraco.server.cluster.leases import Leases
    from burraco.server.cluster.nodes import Nodes
    from burraco.server.cluster.owners import ADOPT_BATCH, Owners
    from burraco.server.cluster.wire import redis_client
    from burraco.server.room import Room
    from burraco.storage import Store

    store = Store("sqlite://")
    room = Room(store, bot_delay=0)
    theirs = []
    for _ in range(3 * ADOPT_BATCH + 1):
        table, _seat, _token = room.create({"variant": "italian", "players": 2, "name": "Anna"})
        theirs.append(table.id)
    redis = redis_client(redis_url)
    leases = Leases(room, redis, "one")
    owners = Owners(room, Nodes(redis, "one"), leases)
    adopted: list[str] = []
    leases.taken.append(adopted.append)

    async def scenario() -> list[int]:
        try:
            for table_id in theirs:  # in play (a join starts a table of two), as left
                await room.join(table_id, {"name": "Bruno"})
            room.tables.clear()  # the dead node's: in the store only, here
            for table_id in theirs[:-1]:
                await redis.set(f"burraco:owner:{table_id}", "gone", ex=60)
            await redis.set(f"burraco:owner:{theirs[-1]}", "three", ex=60)
            await redis.set("burraco:alive:three", "1", ex=60)
            listener = redis.pubsub()
            await listener.subscribe("burraco:rpc:three")  # "three" lives
            ticks: list[int] = []  # how many tables were adopted at each turn of the loop

            async def ticker() -> None:
                while True:
                    ticks.append(len(adopted))
                    await asyncio.sleep(0)

            turning = asyncio.create_task(ticker())
            await owners.scan()  # finds "gone" dead, and adopts its tables
            while owners.adopting.running:
                await asyncio.sleep(0.01)
            turning.cancel()
            await listener.aclose()
            return ticks
        finally:
            await redis.aclose()

    ticks = asyncio.run(scenario())
    dead_ones = sorted(theirs[:-1])
    assert sorted(adopted) == dead_ones  # each once, and not the living node's
    assert sorted(leases.owned) == dead_ones
    assert all(t in room.tables and room.tables[t].status == "playing" for t in dead_ones)
    # The loop turned while they were adopted: after each batch, other work ran.
    batches = range(ADOPT_BATCH, len(dead_ones) + 1, ADOPT_BATCH)
    assert set(batches) <= set(ticks), sorted(set(ticks))


def test_a_socket_for_a_known_table_costs_no_query(redis_url: str) -> None:
    """Every socket that opens on a process of a cluster asked the database whether its
    table exists, a query that holds the event loop: after a failover hundreds of pages
    reconnecting at once asked it, and the tables in play waited. A table this process
    holds, one with an owner in Redis, or one it found in the database before, is known
    without a query; an id nobody made is not known."""
    from sqlalchemy import event

    from burraco.server.cluster.leases import Leases
    from burraco.server.cluster.wire import redis_client
    from burraco.server.room import Room
    from burraco.storage import Store

    store = Store("sqlite://")
    room = Room(store, bot_delay=0)
    here, _seat, _token = room.create({"variant": "italian", "players": 2, "name": "Anna"})
    stored, _seat, _token = room.create({"variant": "italian", "players": 2, "name": "Bice"})
    room.tables.pop(stored.id)  # in the database only (another process's, say)
    leases = Leases(room, redis_client(redis_url), "one")
    queries: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a: queries.append(a[2]))

    async def scenario() -> list[tuple[bool, int]]:
        try:
            await leases.redis.set("burraco:owner:t-elsewhere", "two", ex=60)
            asked = []
            for table in (here.id, "t-elsewhere", stored.id, stored.id, "t-nobodys"):
                before = len(queries)
                asked.append((await leases.known(table), len(queries) - before))
            return asked
        finally:
            await leases.redis.aclose()

    assert asyncio.run(scenario()) == [
        (True, 0),  # held here
        (True, 0),  # owned by another process
        (True, 1),  # read from the database once,
        (True, 0),  # then remembered
        (False, 1),
    ]


def test_a_call_to_another_process_is_answered_its_refusal_carried(redis_url: str) -> None:
    """Two clusters in one event loop, one Redis: a process's handler (the desk's seating,
    a token's revocation) asked by another answers through the listener; what it refuses
    reaches the asker as the same RoomError; a process nobody answers for is a 503."""
    from burraco.server.cluster.processes import Cluster
    from burraco.server.room import Room, RoomError
    from burraco.storage import Store

    async def scenario() -> tuple[Any, RoomError, RoomError]:
        one, two = (Cluster(Room(Store("sqlite://")), redis_url, n) for n in ("one", "two"))

        async def seat(body: dict[str, Any]) -> Any:
            return {"seated": body["name"], "by": "two"}

        async def refuse(body: dict[str, Any]) -> Any:
            raise RoomError("full", "no seat left", 409, params={"seats": 0})

        two.calls.handlers.update(seat=seat, refuse=refuse)
        await one.start()
        await two.start()
        try:
            answer = await one.calls.call_node("two", "seat", {"name": "Anna"})
            with pytest.raises(RoomError) as refused:
                await one.calls.call_node("two", "refuse", {})
            with pytest.raises(RoomError) as silent:
                await one.calls.call_node("three", "seat", {}, seconds=0.2)
            return answer, refused.value, silent.value
        finally:
            for cluster in (one, two):
                await cluster.stop()
                await cluster.room.shutdown()

    answer, refused, silent = asyncio.run(scenario())
    assert answer == {"seated": "Anna", "by": "two"}
    assert (refused.code, refused.status, refused.params) == ("full", 409, {"seats": 0})
    assert (silent.code, silent.status) == ("unavailable", 503)


def _serve(port: int, database: str, redis_url: str, node: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "burraco.cli", "serve", "--port", str(port),
        "--database-url", database, "--redis-url", redis_url, "--node", node, "--bot-delay", "0",
    ]  # fmt: skip
    # The test's players answer at a program's pace, not a person's.
    pace = {"BURRACO_SOCKET_MESSAGES": "100000/minute"}
    process = subprocess.Popen(command, env=os.environ | pace)
    deadline = time.time() + seconds(30)
    while time.time() < deadline:
        try:
            get(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server {node} did not start")


@pytest.fixture
def rooms(tmp_path: Path, redis_url: str) -> Iterator[list[str]]:
    """Two `burraco serve` processes, "one" and "two", on one SQLite file and one Redis:
    their base URLs. Stopped at the end (a test may kill one first)."""
    database = f"sqlite:///{tmp_path / 'room.db'}"
    ports = [free_port(), free_port()]
    processes = [
        _serve(ports[0], database, redis_url, "one"),
        _serve(ports[1], database, redis_url, "two"),
    ]
    ROOMS[:] = processes
    try:
        yield [f"http://127.0.0.1:{p}" for p in ports]
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=seconds(20))


#: The processes of the running ``rooms`` fixture (for a test that kills one).
ROOMS: list[subprocess.Popen[bytes]] = []


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


def test_two_processes_share_a_table_over_redis(rooms: list[str]) -> None:
    one, two = rooms
    body = {"variant": "italian", "players": 2, "deals": 1, "name": "Anna", "move_seconds": 0}
    created = post(f"{one}/api/tables", json=body).json()
    table = created["table"]
    listed = get(f"{two}/api/tables").json()["tables"]
    assert [t["table"] for t in listed] == [table]
    joined = post(f"{two}/api/tables/{table}/join", json={"name": "Bruno"})
    assert joined.status_code == 200, joined.text
    bruno = joined.json()
    info = get(f"{two}/api/tables/{table}").json()
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
    record = get(f"{two}/api/tables/{table}/record")
    assert record.status_code == 200 and '[Seat1 "Bruno"]' in record.text
    refused = post(f"{two}/api/tables/{table}/join", json={"name": "Carla"})
    assert refused.status_code == 409


def _anna_and_robo(url: str) -> tuple[httpx.Client, dict[str, str], dict[str, str]]:
    """Anna signed up on the process at ``url`` and her bot account Robo made: her
    client, her CSRF header, and Robo's bearer header."""
    anna = httpx.Client(base_url=url, timeout=seconds(30))
    signed = anna.post("/api/account/signup", json={"name": "Anna", "password": "cuori e picche"})
    assert signed.status_code == 200, signed.text
    csrf = {"X-CSRF-Token": signed.json()["csrf"]}
    token = anna.post("/api/account/bots", json={"name": "Robo"}, headers=csrf).json()["token"]
    return anna, csrf, {"Authorization": f"Bearer {token}"}


def test_a_challenge_made_on_one_process_is_accepted_once_on_either(rooms: list[str]) -> None:
    """A person's challenge is in the database: the bot polling the other process sees it,
    a join there is refused its seat, and of two accepts (one on each process) only the
    first seats the bot."""
    one, two = rooms
    anna, csrf, bearer = _anna_and_robo(one)
    body = {"players": 2, "deals": 1, "move_seconds": 60}
    seat = anna.post("/api/players/Robo/challenge", json=body, headers=csrf).json()
    [challenge] = get(f"{two}/api/bot/challenges", headers=bearer).json()["challenges"]
    assert (challenge["challenge"], challenge["from"]) == (seat["challenge"], "Anna")
    status = get(f"{two}/api/challenges/{seat['challenge']}").json()["status"]
    assert status == "pending"
    carla = post(f"{two}/api/tables/{seat['table']}/join", json={"name": "Carla"})
    assert carla.status_code == 409
    path = f"/api/bot/challenges/{seat['challenge']}/accept"
    accepted = post(f"{two}{path}", headers=bearer, timeout=seconds(30))
    assert accepted.status_code == 200, accepted.text
    assert (accepted.json()["table"], accepted.json()["seat"]) == (seat["table"], 1)
    again = post(f"{one}{path}", headers=bearer, timeout=seconds(30))
    assert (again.status_code, again.json()["code"]) == (404, "not_found")
    for url in rooms:
        assert get(f"{url}/api/challenges/{seat['challenge']}").json()["status"] == "accepted"


def test_what_a_bot_accepts_said_on_one_process_refuses_a_challenge_on_the_other(
    rooms: list[str],
) -> None:
    """Issue 32: a program's word on what it accepts, said to one process, refuses a
    challenge outside it sent to the other (the cluster keeps it in Redis)."""
    one, two = rooms
    anna, csrf, bearer = _anna_and_robo(one)
    said = get(f"{two}/api/bot/challenges?seconds=30-60", headers=bearer)
    assert said.status_code == 200, said.text
    body = {"players": 2, "deals": 1, "move_seconds": 10}
    sent = anna.post("/api/players/Robo/challenge", json=body, headers=csrf)
    assert (sent.status_code, sent.json()["code"]) == (422, "not_accepted"), sent.text
    assert "out of its range (30 to 60 s)" in sent.json()["detail"]
    fits = anna.post("/api/players/Robo/challenge", json=body | {"move_seconds": 45}, headers=csrf)
    assert fits.status_code == 200, fits.text


def test_a_token_revoked_on_one_process_closes_its_socket_on_the_other(
    rooms: list[str],
) -> None:
    """Issue 32: "a revoked token is refused at once" (docs/bots.md), across processes: its
    socket open on process two is closed before process one answers the revocation."""
    one, two = rooms
    anna, csrf, bearer = _anna_and_robo(one)
    body = {"name": "Robo", "players": 2, "move_seconds": 0}
    table = post(f"{one}/api/tables", json=body, headers=bearer).json()["table"]

    async def scenario() -> tuple[list[dict[str, Any]], int | None]:
        url = f"{two.replace('http', 'ws')}/ws/{table}"
        async with websockets.connect(url, additional_headers=bearer) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), seconds(20)))["type"]
            revoked = await asyncio.to_thread(
                anna.post, "/api/account/bots/Robo/revoke", json={"hint": None}, headers=csrf
            )
            assert revoked.json() == {"revoked": 1}
            said: list[dict[str, Any]] = []
            with contextlib.suppress(websockets.ConnectionClosed):
                while True:
                    said.append(json.loads(await asyncio.wait_for(ws.recv(), seconds(20))))
            return said, ws.close_code

    said, code = asyncio.run(scenario())
    assert said[-1]["code"] == "bad_token" and code == 4401


class PagePlayer:
    """A player whose client behaves like the table page: when its socket closes or cannot
    open, it reconnects after a short pause, to one process or the other (as a load
    balancer would send it), and asks for what it missed; on its turn it plays."""

    def __init__(self, urls: list[str], table: str, token: str, seed: int) -> None:
        self.urls = urls
        self.table = table
        self.token = token
        self.rng = random.Random(seed)
        self.played_at: list[float] = []
        self.states_at: list[float] = []
        self.closes: list[int | None] = []
        self.stop = False

    async def run(self, first: int) -> None:
        at = first
        seen = 0
        while not self.stop:
            url = f"{self.urls[at]}/ws/{self.table}?token={self.token}"
            try:
                async with websockets.connect(url, open_timeout=5) as ws:
                    await ws.send(json.dumps({"type": "sync", "since": seen}))
                    while not self.stop:
                        try:
                            raw = await asyncio.wait_for(ws.recv(), 0.5)
                        except TimeoutError:
                            continue
                        message = json.loads(raw)
                        if message["type"] == "match_over":
                            self.stop = True
                        if message["type"] != "state":
                            continue
                        self.states_at.append(time.time())
                        if message["version"] > seen and seen and self.mine(message):
                            self.played_at.append(time.time())
                        seen = max(seen, message["version"])
                        pause = message.get("pause")
                        if pause and message["seat"] not in pause["ready"]:
                            await ws.send(json.dumps({"type": "next_deal"}))
                        if message["legal"]:
                            action = self.rng.choice(message["legal"])
                            self.pending = message["version"] + 1
                            await ws.send(
                                json.dumps({"type": "action", "action": action, "version": seen})
                            )
            except (OSError, websockets.WebSocketException) as error:
                self.closes.append(getattr(getattr(error, "rcvd", None), "code", None))
            await asyncio.sleep(0.5)
            at = 1 - at  # the next try goes to the other process

    pending = -1

    def mine(self, message: dict[str, Any]) -> bool:
        """The state shows the action this player sent."""
        last = message.get("last") or {}
        return message["version"] == self.pending and last.get("seat") is not None


def test_when_the_owner_dies_every_player_plays_on_within_the_lease(rooms: list[str]) -> None:
    """kill -9 of the table's owner: the player connected to it and the player relayed
    through the other process are both playing again within lease + 5 s, without any
    help (their clients reconnect as the page does)."""
    from burraco.server.cluster.leases import OWNER_SECONDS

    urls = rooms
    ws_urls = [u.replace("http", "ws") for u in urls]
    body = {"players": 2, "deals": 20, "name": "Anna", "move_seconds": 0}
    created = post(f"{urls[0]}/api/tables", json=body).json()
    table = created["table"]
    bruno = post(f"{urls[1]}/api/tables/{table}/join", json={"name": "Bruno"}).json()
    anna = PagePlayer(ws_urls, table, created["token"], 1)
    bruno_page = PagePlayer(ws_urls, table, bruno["token"], 2)

    async def evening() -> float:
        tasks = [
            asyncio.create_task(anna.run(first=0)),  # straight to the owner
            asyncio.create_task(bruno_page.run(first=1)),  # relayed by the other
        ]
        # Both have played (by both processes) before the owner dies.
        going = time.time() + seconds(30)
        while not (anna.played_at and bruno_page.played_at):
            assert time.time() < going, "the table did not get going"
            await asyncio.sleep(0.05)
        ROOMS[0].kill()
        killed = time.time()
        deadline = killed + OWNER_SECONDS + 5
        while time.time() < deadline:
            if any(t > killed for t in anna.played_at) and any(
                t > killed for t in bruno_page.played_at
            ):
                break
            await asyncio.sleep(0.2)
        anna.stop = bruno_page.stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
        return killed

    killed = asyncio.run(evening())
    back = [min((t for t in p.played_at if t > killed), default=None) for p in (anna, bruno_page)]
    assert None not in back, f"a player never played again after the kill: {back}"
    took = max(back) - killed  # type: ignore[type-var,operator]
    print(f"both players played again {took:.1f} s after the owner was killed")
    assert took < OWNER_SECONDS + 5, f"playing again took {took:.1f} s"


def test_a_dead_owners_tables_are_adopted_and_their_pages_reconnecting_at_once_served(
    rooms: list[str], redis_url: str
) -> None:
    """kill -9 of the owner of eight tables, each with one player on it and one relayed
    through the other process: the other process adopts every table (its lease is its
    own after), closes each relayed socket with 1012, and every page, reconnecting at
    once (all eight tables' pages to the survivor), plays again."""
    from burraco.server.cluster.leases import OWNER_SECONDS

    urls = rooms
    ws_urls = [u.replace("http", "ws") for u in urls]
    players: list[PagePlayer] = []
    tables = []
    for n in range(8):
        # Each table's creator from an address of their own (an address holds 3 tables).
        transport = httpx.HTTPTransport(local_address=f"127.0.3.{n + 1}")
        with httpx.Client(transport=transport, timeout=seconds(30)) as http:
            body = {"players": 2, "deals": 20, "name": f"Anna{n}", "move_seconds": 0}
            created = http.post(f"{urls[0]}/api/tables", json=body).json()
            path = f"{urls[1]}/api/tables/{created['table']}/join"
            joined = http.post(path, json={"name": f"Bruno{n}"}).json()
        tables.append(created["table"])
        players.append(PagePlayer(ws_urls, created["table"], created["token"], 2 * n))
        players.append(PagePlayer(ws_urls, created["table"], joined["token"], 2 * n + 1))

    async def evening() -> float:
        # Each table's first player straight to its owner, the second relayed by the other.
        tasks = [asyncio.create_task(p.run(first=i % 2)) for i, p in enumerate(players)]
        going = time.time() + seconds(60)
        while not all(p.played_at for p in players):
            assert time.time() < going, "the tables did not get going"
            await asyncio.sleep(0.05)
        ROOMS[0].kill()
        killed = time.time()
        deadline = killed + seconds(OWNER_SECONDS + 5)
        while time.time() < deadline:
            if all(any(t > killed for t in p.played_at) for p in players):
                break
            await asyncio.sleep(0.2)
        for p in players:
            p.stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
        return killed

    killed = asyncio.run(evening())
    late = [p.table for p in players if not any(t > killed for t in p.played_at)]
    assert not late, f"players of these tables never played again: {late}"
    relayed = players[1::2]
    assert all(1012 in p.closes for p in relayed), [p.closes for p in relayed]
    import redis

    owners = redis.Redis.from_url(redis_url).mget([f"burraco:owner:{t}" for t in tables])
    assert owners == [b"two"] * len(tables)


def test_a_relay_closes_a_bad_token_and_keeps_hints_from_holding_up_others(
    rooms: list[str],
) -> None:
    one, two = rooms
    tables = []
    for name in ("Anna", "Carla"):
        made = post(f"{one}/api/tables", json={"name": name, "move_seconds": 0}).json()
        post(f"{one}/api/tables/{made['table']}/start", json={"token": made["token"]})
        tables.append(made)
    relay = two.replace("http", "ws")

    async def scenario() -> None:
        bad = await websockets.connect(f"{relay}/ws/{tables[0]['table']}?token=nope")
        said = json.loads(await asyncio.wait_for(bad.recv(), 10))
        assert said["code"] == "forbidden"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(bad.recv(), 10)
        assert bad.close_code == 4403
        urls = [f"{relay}/ws/{t['table']}?token={t['token']}" for t in tables]
        async with websockets.connect(urls[0]) as asker, websockets.connect(urls[1]) as other:
            for ws in (asker, other):
                while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "state":
                    pass
            order: list[str] = []

            async def ask() -> None:
                await asker.send(json.dumps({"type": "hint"}))
                while json.loads(await asyncio.wait_for(asker.recv(), 20))["type"] not in (
                    "hint",
                    "error",
                ):
                    pass
                order.append("hint")

            async def ping() -> None:
                await asyncio.sleep(0.05)
                await other.send(json.dumps({"type": "ping"}))
                while json.loads(await asyncio.wait_for(other.recv(), 20))["type"] != "pong":
                    pass
                order.append("pong")

            await asyncio.gather(ask(), ping())
            assert order == ["pong", "hint"], order

    asyncio.run(scenario())


def _abandoned_rated_match(url: str, name: str) -> str:
    """A new account's rated match against the greedy bot on the process at ``url``,
    abandoned at once (002: a rated loss); its table."""
    client = httpx.Client(base_url=url)
    signed = client.post("/api/account/signup", json={"name": name, "password": "12345678"})
    assert signed.status_code == 200, signed.text
    client.headers["X-CSRF-Token"] = signed.json()["csrf"]
    body = {"name": name, "deals": 1, "rated": True, "move_seconds": 0}
    made = client.post("/api/tables", json=body).json()
    assert client.post(f"/api/tables/{made['table']}/start", json={}).status_code == 200
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())

    async def abandon() -> None:
        ws_url = f"{url.replace('http', 'ws')}/ws/{made['table']}?token={made['token']}"
        async with websockets.connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
            await asyncio.wait_for(ws.recv(), 10)
            await ws.send(json.dumps({"type": "abandon"}))
            while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "match_over":
                pass

    asyncio.run(abandon())
    return str(made["table"])


def test_the_leaderboard_and_player_pages_are_the_same_from_every_process(
    rooms: list[str],
) -> None:
    """Pia's rated match on one process and Quinn's on the other, both against the greedy
    bot: every process shows both, and the greedy bot rated twice (one rating, moved by
    both processes)."""
    greedy_before = get(f"{rooms[0]}/api/players/greedy").json()
    tables = {"Pia": _abandoned_rated_match(rooms[0], "Pia")}
    tables["Quinn"] = _abandoned_rated_match(rooms[1], "Quinn")
    deadline = time.time() + seconds(30)
    for url in rooms:
        for name in tables:
            while not get(f"{url}/api/players/{name}").json()["matches"]:
                assert time.time() < deadline, f"{name}'s match was not stored"
                time.sleep(0.05)
    paths = [
        "/api/leaderboard",
        "/api/leaderboard/italian-2",
        "/api/leaderboard/italian-2?kind=person",
        "/api/players/Pia",
        "/api/players/Quinn",
        "/api/players/greedy",
    ]
    for path in paths:
        seen = [get(f"{url}{path}").json() for url in rooms]
        assert seen[0] == seen[1], path
    greedy = get(f"{rooms[1]}/api/players/greedy").json()
    assert {m["table"] for m in greedy["matches"]} >= set(tables.values())
    played = {r["game"]: r["matches"] for r in greedy["ratings"]}
    before = {r["game"]: r["matches"] for r in greedy_before["ratings"]}
    assert played["italian-2"] == before.get("italian-2", 0) + 2
    board = get(f"{rooms[0]}/api/leaderboard/italian-2?kind=person").json()
    assert {r["name"] for r in board["rows"]} == {"Pia", "Quinn"}


def test_a_relays_failed_side_is_read_not_logged_as_never_retrieved() -> None:
    from burraco.server.cluster.relays import _read_failure

    reported: list[dict[str, object]] = []

    async def failing() -> None:
        raise ConnectionResetError("the player's socket closed under a send")

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda _, context: reported.append(context)
        )
        task = asyncio.create_task(failing())
        task.add_done_callback(_read_failure)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        del task
        gc.collect()

    asyncio.run(scenario())
    assert not reported


def test_an_address_is_counted_once_across_the_processes(redis_url: str) -> None:
    """The proxy sends an address's requests round the processes: each counting alone
    let it make as many tables a minute as there are processes (docs/cluster.md)."""
    from burraco.server.door.limits import Limits, Rates, SharedRates

    async def scenario() -> list[float | None]:
        first, second = (Rates(Limits(create_table="3/minute")) for _ in range(2))
        first.shared, second.shared = SharedRates(redis_url), SharedRates(redis_url)
        waits = []
        for rates in (first, second, first, second, second):
            waits.append(await rates.hit_anywhere("create_table", "10.0.0.9"))
        # Another address, and a socket's messages (one process's), count on their own.
        waits.append(await second.hit_anywhere("create_table", "10.0.0.10"))
        waits.append(await first.hit_anywhere("socket_messages", "socket-1"))
        return waits

    waits = asyncio.run(scenario())
    assert waits[:3] == [None, None, None]
    assert all(w is not None and 0 < w <= 60 for w in waits[3:5])
    assert waits[5:] == [None, None]


def test_without_redis_each_process_counts_alone() -> None:
    from burraco.server.door.limits import Limits, Rates, SharedRates

    async def scenario() -> list[float | None]:
        rates = Rates(Limits(create_table="2/minute"))
        rates.shared = SharedRates(f"redis://127.0.0.1:{free_port()}/0")  # nobody there
        return [await rates.hit_anywhere("create_table", "10.0.0.9") for _ in range(3)]

    waits = asyncio.run(scenario())
    assert waits[:2] == [None, None] and waits[2] is not None


def test_a_rematch_asked_on_either_process_is_one_table_its_owner_holds(
    rooms: list[str], redis_url: str
) -> None:
    """The finished table's owner makes the rematch and owns it at once (a process that
    asked first for it would load a second copy)."""
    import redis

    one, two = rooms
    body = {"variant": "italian", "players": 2, "deals": 1, "name": "Anna", "move_seconds": 0}
    anna = post(f"{one}/api/tables", json=body).json()
    table = anna["table"]
    bruno = post(f"{two}/api/tables/{table}/join", json={"name": "Bruno"}).json()

    async def both() -> None:
        await asyncio.gather(
            _play(one.replace("http", "ws"), table, anna["token"], random.Random(1)),
            _play(two.replace("http", "ws"), table, bruno["token"], random.Random(2)),
        )

    asyncio.run(both())
    # Bruno asks through the process that does not own the table: the owner makes it.
    first = post(f"{two}/api/tables/{table}/rematch", json={"token": bruno["token"]})
    assert first.status_code == 200, first.text
    again = first.json()["table"]
    assert redis.Redis.from_url(redis_url).get(f"burraco:owner:{again}") == b"one"
    second = post(f"{one}/api/tables/{table}/rematch", json={"token": anna["token"]})
    assert second.status_code == 200, second.text
    assert (second.json()["table"], second.json()["seat"]) == (again, 1)
    for url in (one, two):
        info = get(f"{url}/api/tables/{again}").json()
        assert info["status"] == "playing"  # both seated: it started
        assert [s["name"] for s in info["seats"]] == ["Bruno", "Anna"]
