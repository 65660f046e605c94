"""Quick play across the processes of a cluster: one queue and one set of tickets in Redis.

Two `burraco serve` processes on one Redis and one SQLite file (as tests/test_cluster.py
starts them): players pressing "Play" on different processes meet, a ticket given by one
is asked about on the other, an account holds one ticket across both, a ticket outlives
its process, the bot fallback makes one table, and two matchers racing on one queue
never seat a ticket twice. Skipped where no ``redis-server`` is installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
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

from burraco.server.quick.play import Entry, QuickRules
from burraco.server.quick.redis_queue import RedisQuickPlay

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")

#: Seconds quick play waits before bots (the command's least).
WAIT = 1.0


class Cluster:
    """A Redis server and two `burraco serve` processes, "one" and "two", on one SQLite
    file; a process may be killed and started again."""

    def __init__(self, tmp: Path) -> None:
        assert REDIS is not None
        self.database = tmp / "room.db"
        self.redis_port = free_port()
        self.redis = subprocess.Popen(
            [REDIS, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", ""],
            stdout=subprocess.DEVNULL,
            cwd=tmp,
        )
        self.redis_url = f"http://127.0.0.1:{self.redis_port}".replace("http", "redis") + "/0"
        # Another database of the same server, which the room's processes never read: the
        # tests of the queue's own rules match there, so that a process's matcher (every
        # half second) cannot take their groups first.
        self.apart_url = self.redis_url.removesuffix("/0") + "/1"
        self.ports = [free_port(), free_port()]
        self.processes: list[subprocess.Popen[bytes]] = []
        self.urls = [f"http://127.0.0.1:{p}" for p in self.ports]

    def serve(self, at: int) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-m", "burraco.cli", "serve", "--port", str(self.ports[at]),
            "--database-url", f"sqlite:///{self.database}", "--redis-url", self.redis_url,
            "--node", ("one", "two")[at], "--bot-delay", "0",
            "--quick-wait-seconds", str(WAIT),
        ]  # fmt: skip
        # A program's pace, not a person's; and a machine loaded by other tests is no
        # reason to turn the test's players away as "busy".
        pace = {
            "BURRACO_SOCKET_MESSAGES": "100000/minute",
            "BURRACO_QUICK_PLAY": "1000/minute",
            "BURRACO_BUSY_LAG": "30",
        }
        process = subprocess.Popen(command, env=os.environ | pace)
        deadline = time.time() + seconds(30)
        while time.time() < deadline:
            try:
                httpx.get(f"{self.urls[at]}/api/quick", timeout=1)
                return process
            except httpx.HTTPError:
                time.sleep(0.1)
        process.kill()
        raise RuntimeError(f"server {at} did not start")

    def start(self) -> None:
        self.processes = [self.serve(0), self.serve(1)]

    def kill(self, at: int) -> None:
        self.processes[at].kill()
        self.processes[at].wait(timeout=seconds(10))

    def restart(self, at: int) -> None:
        self.processes[at] = self.serve(at)

    def stop(self) -> None:
        for process in [*self.processes, self.redis]:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=seconds(20))

    def tables_of(self, name: str) -> list[str]:
        """The tables at which someone of this name sits."""
        with sqlite3.connect(self.database) as db:
            rows = db.execute("SELECT table_id FROM seats WHERE name = ?", (name,)).fetchall()
        return sorted(r[0] for r in rows)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster for the module (each test plays its own game or size, so that their
    queues do not meet)."""
    running = Cluster(tmp_path_factory.mktemp("quick-cluster"))
    try:
        running.start()
        yield running
    finally:
        running.stop()


def play(url: str, variant: str, players: int, name: str, bots: bool = False) -> str:
    body = {"variant": variant, "players": players, "name": name, "bots": bots}
    answer = httpx.post(f"{url}/api/quick", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "waiting"
    return str(answer.json()["ticket"])


def until_seated(asks: list[tuple[str, str]], bound: float = 15) -> list[dict[str, Any]]:
    """Ask about each (process, ticket) in turn, as each page does, until all are seated."""
    deadline = time.time() + seconds(bound)
    seated: dict[int, dict[str, Any]] = {}
    while time.time() < deadline:
        for i, (url, ticket) in enumerate(asks):
            if i in seated:
                continue
            answer = httpx.get(f"{url}/api/quick/{ticket}")
            assert answer.status_code == 200, answer.text
            if answer.json()["status"] == "seated":
                seated[i] = dict(answer.json())
        if len(seated) == len(asks):
            return [seated[i] for i in range(len(asks))]
        time.sleep(0.1)
    raise AssertionError(f"never seated: {len(seated)} of {len(asks)}")


def test_players_pressing_play_on_two_processes_meet(cluster: Cluster) -> None:
    one, two = cluster.urls
    anna = play(one, "italian", 2, "Anna")
    bruno = play(two, "italian", 2, "Bruno")
    seated = until_seated([(one, anna), (two, bruno)])
    assert seated[0]["table"] == seated[1]["table"]
    assert {s["seat"] for s in seated} == {0, 1}
    table = seated[0]["table"]
    info = httpx.get(f"{two}/api/tables/{table}").json()
    assert info["quick"] and {s["name"] for s in info["seats"]} == {"Anna", "Bruno"}

    async def opens(url: str, token: str) -> str:
        socket = f"{url.replace('http', 'ws')}/ws/{table}?token={token}"
        async with websockets.connect(socket) as ws:
            while (said := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] != "state":
                pass
            return str(said["type"])

    # The table was made by one process; each player reaches it through the other.
    assert asyncio.run(opens(two, seated[0]["token"])) == "state"
    assert asyncio.run(opens(one, seated[1]["token"])) == "state"


def test_a_ticket_given_by_one_process_is_asked_and_left_on_the_other(cluster: Cluster) -> None:
    one, two = cluster.urls
    ticket = play(one, "canasta", 4, "Carla")
    waiting = httpx.get(f"{two}/api/quick/{ticket}").json()
    assert waiting["status"] == "waiting" and (waiting["position"], waiting["queue"]) == (1, 1)
    assert httpx.get(f"{two}/api/quick").json()["waiting"] == {"canasta-4": 1}
    assert httpx.delete(f"{two}/api/quick/{ticket}").json() == {"left": True}
    gone = httpx.get(f"{one}/api/quick/{ticket}")
    assert gone.status_code == 404 and gone.json()["code"] == "quick_gone"
    assert httpx.get(f"{one}/api/quick").json()["waiting"] == {}


def test_an_account_holds_one_ticket_across_the_processes(cluster: Cluster) -> None:
    one, two = cluster.urls
    # One client for both processes: its session cookie (the database's) goes to both.
    with httpx.Client() as http:
        account = http.post(
            f"{one}/api/account/signup", json={"name": "Dario", "password": "cuori e picche"}
        ).json()
        csrf = {"X-CSRF-Token": account["csrf"]}
        body = {"variant": "buraco", "players": 2, "bots": False}

        def press(url: str) -> str:
            answer = http.post(f"{url}/api/quick", json=body, headers=csrf)
            assert answer.status_code == 200, answer.text
            return str(answer.json()["ticket"])

        first = press(one)
        second = press(two)
        for url in (one, two):
            assert http.get(f"{url}/api/quick/{first}").json()["code"] == "quick_gone"
            assert http.get(f"{url}/api/quick/{second}").json()["status"] == "waiting"

        async def both_at_once() -> list[str]:
            async with httpx.AsyncClient(cookies=http.cookies) as client:
                answers = await asyncio.gather(
                    *(client.post(f"{u}/api/quick", json=body, headers=csrf) for u in (one, two))
                )
            return [str(a.json()["ticket"]) for a in answers]

        pressed = asyncio.run(both_at_once())
        alive = [
            t for t in [second, *pressed] if http.get(f"{one}/api/quick/{t}").status_code == 200
        ]
        assert len(alive) == 1 and alive[0] in pressed
        assert http.get(f"{two}/api/quick").json()["waiting"] == {"buraco-2": 1}
        left = http.delete(f"{one}/api/quick/{alive[0]}", headers=csrf)
        assert left.json() == {"left": True}


def test_a_ticket_survives_the_restart_of_the_process_that_gave_it(cluster: Cluster) -> None:
    one, two = cluster.urls
    elena = play(one, "online", 2, "Elena")
    assert httpx.get(f"{one}/api/quick/{elena}").json()["status"] == "waiting"
    cluster.kill(0)  # kill -9: nothing is handed over
    assert httpx.get(f"{two}/api/quick/{elena}").json()["status"] == "waiting"
    cluster.restart(0)
    fabio = play(one, "online", 2, "Fabio")
    seated = until_seated([(one, elena), (two, fabio)])
    assert seated[0]["table"] == seated[1]["table"]


def test_the_bot_fallback_fires_once(cluster: Cluster) -> None:
    one, two = cluster.urls
    ticket = play(one, "italian", 4, "Gina", bots=True)
    started = time.time()
    seated, _ = until_seated([(one, ticket), (two, ticket)])
    assert time.time() - started >= WAIT
    # Both processes match every half second: keep asking through several of their rounds.
    deadline = time.time() + 2.0
    while time.time() < deadline:
        for url in (one, two):
            again = httpx.get(f"{url}/api/quick/{ticket}").json()
            assert (again["table"], again["seat"]) == (seated["table"], seated["seat"])
        time.sleep(0.1)
    assert cluster.tables_of("Gina") == [seated["table"]]
    info = httpx.get(f"{two}/api/tables/{seated['table']}").json()
    assert [s["kind"] for s in info["seats"]].count("bot") == 3
    # The table plays on: Gina's turns come, through either process, the bots' between.
    for url in (two, one):
        assert asyncio.run(turns(url, seated["table"], seated["token"], 3)) == 3


async def turns(url: str, table: str, token: str, count: int) -> int:
    """Play ``count`` turns (random legal actions) at a table; how many were played."""
    played = 0
    async with websockets.connect(f"{url.replace('http', 'ws')}/ws/{table}?token={token}") as ws:
        while played < count:
            message = json.loads(await asyncio.wait_for(ws.recv(), seconds(20)))
            if message["type"] == "match_over":
                break
            if message["type"] != "state":
                continue
            pause = message.get("pause")
            if pause and message["seat"] not in pause["ready"]:
                await ws.send(json.dumps({"type": "next_deal"}))
            if message["legal"]:
                action = message["legal"][0]
                await ws.send(
                    json.dumps({"type": "action", "action": action, "version": message["version"]})
                )
                played += 1
    return played


def test_many_players_on_both_processes_each_sit_once(cluster: Cluster) -> None:
    one, two = cluster.urls
    names = [f"Player{i}" for i in range(8)]
    asks = [
        ((one, two)[i % 2], play((one, two)[i % 2], "italian", 2, n)) for i, n in enumerate(names)
    ]
    # Each page asks the other process too, as a balancer may send it.
    seated = until_seated(asks + [((two, one)[i % 2], t) for i, (_, t) in enumerate(asks)])
    mine = {t: (s["table"], s["seat"]) for (_, t), s in zip(asks + asks, seated, strict=True)}
    assert len({table for table, _ in mine.values()}) == 4
    assert len(set(mine.values())) == 8
    for name, (_, ticket) in zip(names, asks, strict=True):
        assert cluster.tables_of(name) == [mine[ticket][0]]


def test_two_matchers_racing_on_one_queue_never_seat_a_ticket_twice(cluster: Cluster) -> None:
    """Two services over one Redis match the same queue at the same moment, again and
    again: every group's tickets are taken by one of them only."""
    import redis.asyncio as aioredis

    made: list[tuple[str, list[str]]] = []

    async def seat_table(
        kind: str, options: dict[str, Any], seats: list[tuple[str, str]], **more: Any
    ) -> tuple[str, dict[int, str]]:
        await asyncio.sleep(0.01)  # the other matcher runs meanwhile
        table = f"race-{len(made)}"
        made.append((table, [name for name, _ in seats]))
        return table, {i: f"{table}-{i}" for i in range(len(seats))}

    async def race() -> None:
        clients = [aioredis.from_url(cluster.apart_url, decode_responses=True) for _ in "ab"]
        services = [
            RedisQuickPlay(c, seat_table, rules=QuickRules(wait_seconds=600)) for c in clients
        ]
        try:
            for round_ in range(10):
                tickets = [f"race-{round_}-{i}" for i in range(6)]
                for i, ticket in enumerate(tickets):
                    entry = Entry(ticket, "buraco", 4, 25.0 + i % 2, False, True, ticket)
                    await services[i % 2].enter(entry)
                    assert await services[1 - i % 2].ask(ticket) is not None
                groups = await asyncio.gather(*(s.tick() for s in services))
                # Six people, four a table: one table this round, by one matcher only.
                assert sorted(len(g) for g in groups) == [0, 1], groups
                for ticket in tickets:
                    await services[0].give_up(ticket)
            # They did race: the loser of a round had found the same group.
            assert sum(s.lost for s in services) >= 5, [s.lost for s in services]
        finally:
            for c in clients:
                await c.aclose()

    asyncio.run(race())
    seated = [name for _, names in made for name in names]
    assert len(made) == 10 and len(seated) == len(set(seated)) == 40


# --- the Redis queue's rules, on a database of their own (and a clock of their own) -----


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def guest(ticket: str, players: int, rating: float = 25.0, *, bots: bool = True) -> Entry:
    """A registered player of italian (their queue is apart from the guests' above)."""
    return Entry(ticket, "italian", players, rating, True, bots, ticket.title())


def service(
    url: str, made: list[list[str]], *, fail: bool = False, expiry: float = 60.0
) -> tuple[RedisQuickPlay, Clock, Any]:
    import redis.asyncio as aioredis

    async def seat_table(
        kind: str, options: dict[str, Any], seats: list[tuple[str, str]], **more: Any
    ) -> tuple[str, dict[int, str]]:
        if fail:
            raise RuntimeError("the database is gone")
        made.append([name for name, _ in seats])
        return f"t-{len(made)}", {i: f"token-{i}" for i in range(len(seats))}

    clock = Clock()
    client = aioredis.from_url(url, decode_responses=True)
    rules = QuickRules(wait_seconds=5)
    quick = RedisQuickPlay(client, seat_table, rules=rules, clock=clock, expiry=expiry)
    return quick, clock, client


def test_the_window_widens_and_the_absent_wait_unseated(cluster: Cluster) -> None:
    """Ratings 25 and 31 share a rating once 1 + 0.3 s a second covers 3 points each
    (after 7 s); the ghost at 28, nearer both but never asked about, is never seated."""
    made: list[list[str]] = []

    async def scenario() -> None:
        quick, clock, client = service(cluster.apart_url, made)
        try:
            await quick.enter(guest("near", 2, 25.0, bots=False))
            await quick.enter(guest("far", 2, 31.0, bots=False))
            await quick.enter(guest("ghost", 2, 28.0, bots=False))
            for second in range(1, 8):
                clock.now += 1
                assert await quick.ask("near") is not None
                assert await quick.ask("far") is not None
                await quick.tick()
                assert [sorted(t) for t in made] == ([] if second < 7 else [["Far", "Near"]])
            assert (await quick.ask("far") or {}).get("status") == "seated"
            assert (await quick.ask("ghost") or {}).get("status") == "waiting"
            assert await quick.give_up("ghost")
        finally:
            await client.aclose()

    asyncio.run(scenario())


def test_a_table_that_cannot_be_made_or_a_seater_that_died_leaves_them_waiting(
    cluster: Cluster,
) -> None:
    made: list[list[str]] = []

    async def scenario() -> None:
        failing, clock, failing_client = service(cluster.apart_url, [], fail=True)
        quick, _, client = service(cluster.apart_url, made)
        quick.clock = clock
        try:
            for ticket in ("a", "b", "c"):
                await quick.enter(guest(ticket, 3))
                await quick.ask(ticket)
            assert await failing.tick() == []  # the database refused: they wait, in place
            news = await quick.ask("a")
            assert news is not None and (news["status"], news["position"]) == ("waiting", 1)
            # A process takes them and dies before seating: its claim's lease runs out.
            assert await failing._run_script("take", "dead", repr(clock.now + 30), "a", "b", "c")
            assert (await quick.ask("b") or {}).get("status") == "waiting"
            assert await quick.tick() == [] and made == []
            clock.now += 31
            for ticket in ("a", "b", "c"):
                await quick.ask(ticket)
            assert len(await quick.tick()) == 1 and made == [["A", "B", "C"]]
        finally:
            for ticket in ("a", "b", "c"):
                await quick.give_up(ticket)
            await client.aclose()
            await failing_client.aclose()

    asyncio.run(scenario())


def test_bots_now_in_redis_seats_at_once_and_every_process_sees_it(cluster: Cluster) -> None:
    """Issue 31: "Play bots now" on the queue in Redis: the process that hears it seats
    the ticket at once, with bots (its holder had first refused them); pressed on a
    process that may not seat (busy), another process's matcher seats it."""
    made: list[list[str]] = []

    async def scenario() -> None:
        quick, clock, client = service(cluster.apart_url, made)
        busy, _, busy_client = service(cluster.apart_url, made)
        busy.clock, busy.may_seat = clock, lambda: False
        try:
            await quick.enter(guest("hasty", 6, bots=False))
            await quick.enter(guest("slow", 6, bots=False))
            assert await quick.ask("hasty") is not None
            assert await quick.ask("slow") is not None
            assert await quick.tick() == [] and made == []
            seated = await quick.bots_now("hasty")
            assert seated is not None and seated["status"] == "seated", seated
            assert made == [["Hasty", *[f"greedy bot {i}" for i in range(1, 6)]]]
            assert await quick.bots_now("hasty") == seated and len(made) == 1
            assert await quick.bots_now("nobody") is None
            waiting = await busy.bots_now("slow")
            assert waiting is not None and waiting["status"] == "waiting" and len(made) == 1
            assert len(await quick.tick()) == 1 and made[1][0] == "Slow"
            assert (await busy.ask("slow") or {}).get("status") == "seated"
        finally:
            for ticket in ("hasty", "slow"):
                await quick.give_up(ticket)
            await client.aclose()
            await busy_client.aclose()

    asyncio.run(scenario())


def test_tickets_expire_unless_asked_and_redis_out_of_reach_is_503(cluster: Cluster) -> None:
    from burraco.server.room import RoomError

    async def scenario() -> None:
        quick, _, client = service(cluster.apart_url, [], expiry=0.3)
        try:
            await quick.enter(guest("kept", 5, bots=False))
            await quick.enter(guest("lost", 5, bots=False))
            deadline = time.time() + seconds(10)
            # Only "kept" is asked about (asking about "lost" would keep it).
            while await client.exists("burraco:quick:t:lost"):
                assert await quick.ask("kept") is not None
                assert time.time() < deadline, "the ticket nobody asked about never expired"
                await asyncio.sleep(0.05)
            assert await quick.ask("lost") is None
            await quick.tick()
            assert (await quick.waiting()).get("italian-5") == 1
            assert await quick.give_up("kept")
        finally:
            await client.aclose()
        gone, _, nowhere = service(f"redis://127.0.0.1:{free_port()}/0", [])
        with pytest.raises(RoomError) as refused:
            await gone.enter(guest("x", 5))
        assert (refused.value.code, refused.value.status) == ("unavailable", 503)
        await nowhere.aclose()

    asyncio.run(scenario())
