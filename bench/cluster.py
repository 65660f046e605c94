"""The whole room behind a real proxy under load, and one of its processes killed.

Run: ``python bench/cluster.py [--tables 200] [--rated 20] [--before 40] [--after 40] [--quick 0]``

It starts, all on 127.0.0.1 and in a temporary folder: a PostgreSQL server (``initdb``,
as the ``postgres`` user when run as root), a Redis server, three ``burraco serve``
processes on them (``--forwarded-allow-ips 127.0.0.1``) and Debian's nginx in front of
them (the configuration of docs/cluster.md, as the current user, with its pid, logs and
temporary files in the folder). Every client talks to nginx only, each person from an
address of their own (``X-Forwarded-For: 10.x.y.z``, which nginx passes on and the room
believes from nginx alone, so the rate limits count people, not the proxy).

The people (as in ``bench/abuse.py``) think 1 to 3 seconds a move, read the score a
moment between deals, and reconnect as the page does when a socket closes or cannot open
(1012 from a relay whose owner died, 1006 from a process killed under them), asking for
what they missed:

* ``--tables`` tables of two guests, a long match each;
* ``--rated`` pairs of registered players who play rated one-deal matches, one after the
  other, quicker (0.05-0.25 s a move), so results and ratings are written all along;
* ``--quick`` guests who press "Play" in quick play (2 players, bots allowed), ask for
  their ticket every second (each ask may reach any process) and play where they are
  seated, then press "Play" again (also when a ticket is gone: counted).

After ``--before`` seconds it kills one process with ``kill -9`` (the one that owns the
most tables), and measures, for the tables that process owned, when each moves again and
when each of their players has played again; ``--after`` seconds later it stops the
people and checks that nothing was lost: every action a person saw acknowledged is in its
table's stored log (at its version, by its seat), every finished table has its results,
and each account's rating is what its rated results give when replayed in order (each
result's rating before is the previous one's rating after, the last one's is the rating,
and the matches counted are the results). It prints the action latency (from sending an
action to the state that shows it) p50/p90/p99 before, during and after the failover.

``tests/test_cluster_bench.py`` runs the same at small scale.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import glob
import grp
import itertools
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
REDIS = shutil.which("redis-server")
POSTGRES_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
PHASES = ("before", "during", "after")
#: Seconds a person waits for an answer to a move before asking for the table again.
UNANSWERED = 3.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(what: str, ready: Any, process: subprocess.Popen[bytes] | None, seconds: float) -> None:
    """Poll ``ready()`` until it is true; fail if ``process`` ends or time runs out."""
    deadline = time.time() + seconds
    while True:
        try:
            if ready():
                return
        except Exception:
            pass
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} ended at start (exit {process.returncode})")
        if time.time() > deadline:
            raise RuntimeError(f"{what} did not start within {seconds:.0f} s")
        time.sleep(0.1)


# --- the services -----------------------------------------------------------------------------


def _as_postgres(*command: str) -> None:
    # PostgreSQL refuses to run as root: as root, run it as its own user.
    if os.geteuid() == 0:
        command = ("runuser", "-u", "postgres", "--", *command)
    subprocess.run(command, check=True, capture_output=True)


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL server on 127.0.0.1: its SQLAlchemy URL."""
    if not POSTGRES_BIN:
        raise RuntimeError("PostgreSQL's server is not installed (apt-get install postgresql)")
    # Not a folder of root's: the postgres user must reach it.
    folder = Path(tempfile.mkdtemp(prefix="burraco-pg-"))
    folder.chmod(0o777)
    bin_dir = POSTGRES_BIN[-1]
    port = free_port()
    data = str(folder / "data")
    _as_postgres(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "postgres")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"
    log = str(folder / "log")
    _as_postgres(f"{bin_dir}/pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "start")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        _as_postgres(f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    if REDIS is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    import redis

    port = free_port()
    command = [
        REDIS,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=folder)
    try:
        _wait("redis-server", redis.Redis(port=port).ping, process, 10)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def serve(
    port: int, database: str, redis_url: str, node: str, quick_wait: float
) -> subprocess.Popen[bytes]:
    """One ``burraco serve`` of the cluster, trusting nginx's forwarded addresses."""
    command = [
        sys.executable, "-m", "burraco.cli", "serve", "--port", str(port),
        "--database-url", database, "--redis-url", redis_url, "--node", node,
        "--forwarded-allow-ips", "127.0.0.1", "--quick-wait-seconds", str(quick_wait),
    ]  # fmt: skip
    # The bench's players make their tables at once, as programs do: the pace of new tables
    # (a burst, then 20 a second: table/door.py) is bench/abuse.py's to measure.
    pace = {"BURRACO_NEW_TABLES_PER_SECOND": "0"}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ | pace)
    return process


def nginx_config(folder: Path, port: int, upstreams: list[int]) -> str:
    """nginx in front of the room (docs/cluster.md's configuration), every path in
    ``folder``, listening on 127.0.0.1 only."""
    # Started as root, nginx would run its workers as "nobody", who cannot write here.
    user = ""
    if os.geteuid() == 0:
        user = f"user {getpass.getuser()} {grp.getgrgid(os.getgid()).gr_name};"
    servers = "\n".join(
        f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in upstreams
    )
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""{user}
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
{temp}
    # A WebSocket's upgrade is passed on; other requests keep their upstream connection.
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      '';
    }}
    upstream room {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://room;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 3600s;
        }}
    }}
}}
"""


@contextlib.contextmanager
def nginx(folder: Path, upstreams: list[int]) -> Iterator[str]:
    """Debian's nginx in front of ``upstreams``: its base URL."""
    if NGINX is None:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    port = free_port()
    config = folder / "nginx.conf"
    config.write_text(nginx_config(folder, port, upstreams))
    command = [NGINX, "-e", str(folder / "error.log"), "-c", str(config), "-p", str(folder)]
    process = subprocess.Popen([*command, "-g", "daemon off;"])
    url = f"http://127.0.0.1:{port}"
    try:
        _wait("nginx", lambda: httpx.get(f"{url}/api/tables", timeout=2).status_code, process, 30)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Cluster:
    """The running cluster: nginx's URL, the processes by node, the database and Redis."""

    url: str
    database: str
    redis_url: str
    processes: dict[str, subprocess.Popen[bytes]]


@contextlib.contextmanager
def cluster(nodes: int = 3, quick_wait: float = 5.0) -> Iterator[Cluster]:
    """PostgreSQL, Redis, ``nodes`` room processes and nginx, all stopped at the end."""
    with (
        tempfile.TemporaryDirectory(prefix="burraco-cluster-") as name,
        postgres() as database,
    ):
        folder = Path(name)
        with redis_server(folder) as redis_url:
            ports = [free_port() for _ in range(nodes)]
            processes: dict[str, subprocess.Popen[bytes]] = {}
            try:
                for i, port in enumerate(ports):
                    node = f"n{i + 1}"
                    processes[node] = serve(port, database, redis_url, node, quick_wait)
                    # One at a time, as a deployment would: the first brings the new
                    # database up to date and seeds the bots' ratings.
                    base = f"http://127.0.0.1:{port}"
                    _wait(
                        node,
                        lambda b=base: httpx.get(f"{b}/api/tables", timeout=2),
                        processes[node],
                        60,
                    )
                with nginx(folder, ports) as url:
                    yield Cluster(url, database, redis_url, processes)
            finally:
                for process in processes.values():
                    if process.poll() is None:
                        process.send_signal(signal.SIGTERM)
                for process in processes.values():
                    try:
                        process.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        process.kill()


# --- the people -------------------------------------------------------------------------------


@dataclass
class Ack:
    """An action a person saw acknowledged: the state of ``version`` showed it."""

    table: str
    version: int
    seat: int
    action: str | None


@dataclass
class Evening:
    """What the people did and saw, shared by all of them."""

    phase: str = "setup"
    stop: bool = False
    killed_at: float | None = None
    latencies: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PHASES})
    acks: list[Ack] = field(default_factory=list)
    #: (table, seat) -> times of that seat's acknowledged actions.
    played: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    #: Tables whose match the people saw end.
    over: set[str] = field(default_factory=set)
    closes: Counter[str] = field(default_factory=Counter)
    #: (table, seat) -> the last state it received: when, its version, its legal actions.
    last_state: dict[tuple[str, int], tuple[float, int, int]] = field(default_factory=dict)
    #: Per person: the seat they hold, their connection attempts, whether one is open now.
    seat_of: dict[int, tuple[str, int]] = field(default_factory=dict)
    attempts: Counter[int] = field(default_factory=Counter)
    open_now: set[int] = field(default_factory=set)
    quick: Counter[str] = field(default_factory=Counter)


def address(n: int) -> str:
    """The n-th person's own address (forwarded by nginx)."""
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


def http_client(url: str, person: int) -> httpx.AsyncClient:
    headers = {"X-Forwarded-For": address(person)}
    return httpx.AsyncClient(base_url=url, headers=headers, timeout=60)


async def retried(http: httpx.AsyncClient, method: str, path: str, **options: Any) -> Any:
    """A request a page would make again when the room is busy or a process just died."""
    for _ in range(60):
        try:
            answer = await http.request(method, path, **options)
        except httpx.TransportError:
            await asyncio.sleep(1.0)
            continue
        if answer.status_code in (502, 503, 504):
            await asyncio.sleep(1.0)
            continue
        return answer.raise_for_status().json()
    raise RuntimeError(f"{method} {path}: the room kept refusing")


async def play_seat(
    url: str,
    person: int,
    table: str,
    token: str,
    evening: Evening,
    rng: random.Random,
    think: tuple[float, float],
    cookie: str = "",
    choose: Callable[[random.Random, list[str]], str] = lambda rng, legal: rng.choice(legal),
) -> None:
    """Play one seat as a person and as the page does; return when the match is over
    (or the evening ends). ``cookie``: a registered player's session (an account's seat
    opens only with it); ``choose``: which legal action the person plays.

    A person whose move met no answer in :data:`UNANSWERED` s (a message dropped while
    the socket was over its pace) asks for the table again, as they would press a card
    again on the page."""
    ws_url = url.replace("http", "ws", 1) + f"/ws/{table}?token={token}"
    headers = {"X-Forwarded-For": address(person)} | ({"Cookie": cookie} if cookie else {})
    seen = 0
    while not evening.stop:
        sent_at: float | None = None
        sent = (-1, "", "")
        evening.attempts[person] += 1
        try:
            async with websockets.connect(
                ws_url, additional_headers=headers, max_queue=None, open_timeout=10
            ) as ws:
                evening.open_now.add(person)
                await ws.send(json.dumps({"type": "sync", "since": seen}))
                asked = time.monotonic()
                while not evening.stop:
                    try:
                        raw = await asyncio.wait_for(ws.recv(), 1.0)
                    except TimeoutError:
                        if asked is not None and time.monotonic() - asked > UNANSWERED:
                            sent_at, asked = None, time.monotonic()
                            await ws.send(json.dumps({"type": "sync", "since": seen}))
                        continue
                    message: dict[str, Any] = json.loads(raw)
                    if message["type"] == "match_over":
                        evening.over.add(table)
                        return
                    if message["type"] == "error":
                        sent_at = None
                        if message.get("code") == "too_fast":
                            # The action was dropped (the socket's message limit): as the
                            # page does, wait as told, then ask for the table again.
                            evening.quick["too fast"] += 1
                            wait = float((message.get("params") or {}).get("seconds", 1))
                            await asyncio.sleep(max(1.0, wait))
                            asked = time.monotonic()
                            await ws.send(json.dumps({"type": "sync", "since": seen}))
                        continue
                    if message["type"] != "state":
                        continue
                    version = message["version"]
                    seen, asked = max(seen, version), None
                    seat = message["seat"]
                    evening.seat_of[person] = (table, seat)
                    evening.last_state[(table, seat)] = (
                        time.time(),
                        version,
                        len(message["legal"]),
                    )
                    if sent_at is not None and version > sent[0]:
                        last = message.get("last") or {}
                        shown = version == sent[0] + 1 and last.get("seat") == seat
                        evening.acks.append(
                            Ack(table, sent[0] + 1, seat, last.get("action") if shown else None)
                        )
                        now = time.time()
                        evening.played.setdefault((table, seat), []).append(now)
                        if sent[1] in evening.latencies:
                            evening.latencies[sent[1]].append(time.perf_counter() - sent_at)
                        sent_at = None
                    pause = message.get("pause")
                    if pause and seat not in pause["ready"]:
                        await asyncio.sleep(rng.uniform(0.5, 1.5))  # reads the score
                        asked = time.monotonic()
                        await ws.send(json.dumps({"type": "next_deal"}))
                    if message["legal"] and sent_at is None:
                        await asyncio.sleep(rng.uniform(*think))
                        action = choose(rng, message["legal"])
                        sent_at, asked = time.perf_counter(), time.monotonic()
                        sent = (version, evening.phase, action)
                        await ws.send(
                            json.dumps({"type": "action", "action": action, "version": version})
                        )
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else 1006
            evening.closes[str(code)] += 1
        except (OSError, websockets.WebSocketException, TimeoutError) as error:
            evening.closes[type(error).__name__] += 1
        evening.open_now.discard(person)
        await asyncio.sleep(rng.uniform(0.5, 1.0))  # the page reconnects


async def guests_table(url: str, n: int, evening: Evening) -> None:
    """Two guests at a long table: one creates it, the other joins."""
    rng = random.Random(n)
    a, b = 2 * n, 2 * n + 1
    async with http_client(url, a) as first, http_client(url, b) as second:
        body = {"players": 2, "target": 100000, "name": f"G{a}", "move_seconds": 0}
        created = await retried(first, "POST", "/api/tables", json=body)
        table = created["table"]
        joined = await retried(second, "POST", f"/api/tables/{table}/join", json={"name": f"G{b}"})
    think = (1.0, 3.0)
    await asyncio.gather(
        play_seat(url, a, table, created["token"], evening, rng, think),
        play_seat(url, b, table, joined["token"], evening, rng, think),
    )


async def account(url: str, person: int, name: str) -> httpx.AsyncClient:
    http = http_client(url, person)
    answer = await retried(
        http, "POST", "/api/account/signup", json={"name": name, "password": "cuori e picche"}
    )
    http.headers["X-CSRF-Token"] = answer["csrf"]
    return http


def cookie(http: httpx.AsyncClient) -> str:
    return "; ".join(f"{name}={value}" for name, value in http.cookies.items())


def shortest(rng: random.Random, legal: list[str]) -> str:
    """A random legal action, but the stock drawn rather than the pile taken: random play
    that takes the pile plays a deal in about 270 actions, this in about 135 (so that a
    rated one-deal match ends within a test's evening)."""
    drawn = [action for action in legal if action != "take"]
    return rng.choice(drawn or legal)


async def rated_pair(
    url: str, n: int, evening: Evening, think: tuple[float, float] = (0.05, 0.25)
) -> None:
    """Two registered players who play rated one-deal matches, one after the other,
    quickly (``think``: the seconds a move takes them), so results and ratings are
    written all evening."""
    rng = random.Random(100_000 + n)
    a, b = 100_000 + 2 * n, 100_000 + 2 * n + 1
    first = await account(url, a, f"Rosa{n}")
    second = await account(url, b, f"Bice{n}")

    try:
        while not evening.stop:
            body = {"players": 2, "deals": 1, "name": "x", "move_seconds": 0, "rated": True}
            created = await retried(first, "POST", "/api/tables", json=body)
            table = created["table"]
            joined = await retried(second, "POST", f"/api/tables/{table}/join", json={"name": "x"})
            await asyncio.gather(
                play_seat(
                    url, a, table, created["token"], evening, rng, think, cookie(first), shortest
                ),
                play_seat(
                    url, b, table, joined["token"], evening, rng, think, cookie(second), shortest
                ),
            )
    finally:
        await first.aclose()
        await second.aclose()


async def quick_person(url: str, n: int, evening: Evening) -> None:
    """A guest who presses "Play" (2 players, bots allowed), asks every second, plays."""
    rng = random.Random(200_000 + n)
    person = 200_000 + n
    async with http_client(url, person) as http:
        while not evening.stop:
            body = {"variant": "italian", "players": 2, "name": f"Q{n}"}
            ticket = (await retried(http, "POST", "/api/quick", json=body))["ticket"]
            seated: dict[str, Any] | None = None
            while not evening.stop and seated is None:
                await asyncio.sleep(1.0)
                try:
                    answer = await http.get(f"/api/quick/{ticket}")
                except httpx.TransportError:
                    continue
                if answer.status_code == 404:
                    evening.quick["ticket gone"] += 1
                    break  # the page says so; the person presses "Play" again
                if answer.status_code == 200 and answer.json().get("status") == "seated":
                    seated = answer.json()
            if seated is None:
                continue
            info = (await http.get(f"/api/tables/{seated['table']}")).json()
            people = [s for s in info.get("seats", []) if s.get("kind") == "human"]
            evening.quick[f"seated with {len(people) - 1} people"] += 1
            await play_seat(url, person, seated["table"], seated["token"], evening, rng, (1.0, 3.0))


# --- the evening ------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


@dataclass
class Failover:
    node: str
    #: Tables each node held a lease on when one was killed.
    leases: dict[str, int]
    tables: int
    players: int
    #: Seconds from the kill until every table of the node moved again, and until every
    #: player of those tables had played again (None: one never did).
    tables_back: float | None
    players_back: float | None


async def owners(redis_url: str) -> dict[str, str]:
    """Each table's owner, from the cluster's leases in Redis."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(redis_url)
    try:
        keys = [k async for k in client.scan_iter("burraco:owner:*")]
        values = await client.mget(keys) if keys else []
    finally:
        await client.aclose()
    return {
        k.decode().rsplit(":", 1)[1]: v.decode() for k, v in zip(keys, values, strict=True) if v
    }


async def evening_of(
    room: Cluster,
    tables: int,
    rated: int,
    quick: int,
    before: float,
    after: float,
    deadline: float,
    rated_think: tuple[float, float] = (0.05, 0.25),
    finished: int = 0,
) -> tuple[Evening, Failover]:
    """Seat the people, play ``before`` s, kill a process, play until its players are back
    (or ``deadline`` s), then ``after`` s more, and on until ``finished`` tables are over
    (or ``deadline`` s more: a test's short matches may have waited for the failover); the
    people then stop."""
    evening = Evening()
    url = room.url
    tasks = [asyncio.create_task(guests_table(url, n, evening)) for n in range(tables)]
    tasks += [asyncio.create_task(rated_pair(url, n, evening, rated_think)) for n in range(rated)]
    tasks += [asyncio.create_task(quick_person(url, n, evening)) for n in range(quick)]
    # Seated when every long table and every rated pair's first table has been played on
    # (their sign-ups hash passwords first, slowly on a loaded machine), or two minutes on.
    going = time.time() + 120
    while time.time() < going:
        moving = {t for (t, _seat) in evening.played}
        if len(moving) >= tables + rated:
            break
        await asyncio.sleep(0.5)
    evening.phase = "before"
    await asyncio.sleep(before)

    leases = await owners(room.redis_url)
    by_node = Counter(leases.values())
    node = by_node.most_common(1)[0][0]
    theirs = {t for t, owner in leases.items() if owner == node and t not in evening.over}
    seats = {key for key in evening.played if key[0] in theirs}
    theirs = {t for t, _seat in seats}  # tables in play there, not just made
    evening.phase = "during"
    room.processes[node].kill()
    killed = evening.killed_at = time.time()

    def back(keys: set[Any], of: Any) -> float | None:
        times = []
        for key in keys:
            after_kill = [t for k, ts in evening.played.items() if of(k, key) for t in ts]
            later = [t for t in after_kill if t > killed]
            if not later:
                return None
            times.append(min(later) - killed)
        return max(times, default=0.0)

    def players_back() -> float | None:
        playing = {k for k in seats if k[0] not in evening.over}
        return back(playing, lambda k, key: k == key)

    limit = killed + deadline
    while time.time() < limit and players_back() is None:
        await asyncio.sleep(0.2)
    stragglers = [
        (key, evening.last_state.get(key))
        for key in seats
        if key[0] not in evening.over and not any(t > killed for t in evening.played[key])
    ]
    people = {seat: person for person, seat in evening.seat_of.items()}
    for key, last in stragglers[:10]:
        person = people.get(key, -1)
        print(
            f"not back: {key}, last state (time after the kill, version, legal): "
            f"{last and (round(last[0] - killed, 1), last[1], last[2])}, connections "
            f"tried {evening.attempts[person]}, one open now: {person in evening.open_now}"
        )
    evening.phase = "after"
    failover = Failover(
        node,
        dict(by_node),
        len(theirs),
        len(seats),
        back({t for t in theirs if t not in evening.over}, lambda k, key: k[0] == key),
        players_back(),
    )
    await asyncio.sleep(after)
    enough = time.time() + deadline
    while len(evening.over) < finished and time.time() < enough:
        await asyncio.sleep(0.2)
    evening.stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    return evening, failover


# --- nothing lost -----------------------------------------------------------------------------


def lost(database: str, evening: Evening, wait: float = 30.0) -> list[str]:
    """What the database lacks of what the people were told: each a sentence."""
    from sqlalchemy import select

    from burraco.server.results.ratings import displayed
    from burraco.storage import Store
    from burraco.storage.models import ratings as ratings_table
    from burraco.storage.models import results as results_table
    from burraco.storage.models import tables as tables_table

    store = Store(database)
    problems: list[str] = []
    try:
        events: dict[str, dict[int, Any]] = {}
        for ack in evening.acks:
            if ack.table not in events:
                events[ack.table] = {e.version: e for e in store.events(ack.table)}
            event = events[ack.table].get(ack.version)
            if event is None or event.kind != "action" or event.seat != ack.seat:
                problems.append(f"action {ack} is not in the stored log")
            elif ack.action is not None and json.loads(event.payload)["action"] != ack.action:
                problems.append(f"action {ack} is stored as {event.payload}")
        # A finished match's results may still be on their way (retried while the
        # database refuses): wait for them a while.
        deadline = time.time() + wait
        while True:
            with store.engine.connect() as c:
                finished = {
                    r.id: r
                    for r in c.execute(select(tables_table).where(tables_table.c.status == "over"))
                }
                results = list(c.execute(select(results_table)))
                rating_rows = list(c.execute(select(ratings_table)))
            with_results = {r.table_id for r in results}
            missing = sorted((set(finished) | evening.over) - with_results)
            if not missing or time.time() > deadline:
                break
            time.sleep(0.5)
        problems += [f"table {t} finished without its results" for t in missing]
        # Each account's rated results, replayed in order, give its rating.
        chains: dict[tuple[int, str], list[Any]] = {}
        for r in sorted(results, key=lambda r: (r.finished_at, r.table_id)):
            if r.rated and r.user_id is not None:
                chains.setdefault((r.user_id, r.game), []).append(r)
        stored = {(r.user_id, r.game): r for r in rating_rows}
        frozen = store.frozen(sorted({key[0] for key in chains}))
        for key, chain in chains.items():
            rating = stored.get(key)
            if rating is None:
                problems.append(f"account {key[0]} has rated results but no rating in {key[1]}")
                continue
            for earlier, later in itertools.pairwise(chain):
                if earlier.rating_after != later.rating_before:
                    problems.append(
                        f"account {key[0]}: table {later.table_id} was rated from "
                        f"{later.rating_before}, not {earlier.rating_after} (a lost update)"
                    )
            # A flagged account's rating stands still (fair play, docs/operating.md): its
            # results from then on are rated with the rating unmoved, not counted as
            # matches. (The bench's pairs, made together and playing each other all
            # evening, are what the farm detector looks for.)
            unmoved = sum(r.rating_before == r.rating_after for r in chain)
            counted = len(chain) - unmoved if key[0] in frozen else len(chain)
            if rating.matches != counted:
                problems.append(
                    f"account {key[0]}: {rating.matches} rated matches, {len(chain)} results"
                    + (f" ({unmoved} while frozen)" if key[0] in frozen else "")
                )
            if displayed(rating.mu, rating.sigma) != chain[-1].rating_after:
                problems.append(
                    f"account {key[0]}: rating {displayed(rating.mu, rating.sigma)}, its "
                    f"last result says {chain[-1].rating_after}"
                )
        evening.quick["finished tables"] = len(finished)
        evening.quick["rated results"] = sum(len(c) for c in chains.values())
    finally:
        store.engine.dispose()
    return problems


@dataclass
class Report:
    evening: Evening
    failover: Failover
    problems: list[str]

    def lines(self) -> list[str]:
        e, f = self.evening, self.failover
        out = []
        for phase in PHASES:
            lat = e.latencies[phase]
            out.append(
                f"{phase:>6}: {len(lat):6d} actions, latency p50 {pct(lat, 0.5):6.1f} ms, "
                f"p90 {pct(lat, 0.9):6.1f} ms, p99 {pct(lat, 0.99):6.1f} ms"
            )

        def s(x: float | None) -> str:
            return "never" if x is None else f"{x:.1f} s"

        out.append(
            f"killed {f.node} (kill -9), owner of {f.tables} tables with {f.players} players: "
            f"every table moved again after {s(f.tables_back)}, every player had played "
            f"again after {s(f.players_back)} (leases held at the kill: {f.leases})"
        )
        out.append(f"closes seen by the pages: {dict(e.closes)}")
        out.append(f"acknowledged actions checked: {len(e.acks)}; {dict(e.quick)}")
        out.append("nothing lost" if not self.problems else f"{len(self.problems)} things lost:")
        out += [f"  {p}" for p in self.problems[:20]]
        return out


def run(
    tables: int, rated: int, quick: int, before: float, after: float, deadline: float = 60.0
) -> Report:
    """The whole bench: a cluster started, an evening played on it, what was lost."""
    with cluster(quick_wait=5.0) as room:
        evening, failover = asyncio.run(
            evening_of(room, tables, rated, quick, before, after, deadline)
        )
        problems = lost(room.database, evening)
    return Report(evening, failover, problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="long tables of two guests")
    parser.add_argument("--rated", type=int, default=20, help="pairs playing rated short matches")
    parser.add_argument("--quick", type=int, default=0, help="guests playing through quick play")
    parser.add_argument("--before", type=float, default=40.0, help="seconds before the kill")
    parser.add_argument("--after", type=float, default=40.0, help="seconds after the failover")
    args = parser.parse_args()
    started = time.time()
    report = run(args.tables, args.rated, args.quick, args.before, args.after)
    print(
        f"{args.tables} tables, {args.rated} rated pairs, {args.quick} quick-play guests "
        f"through nginx to 3 processes ({time.time() - started:.0f} s):"
    )
    print("\n".join(report.lines()))
    sys.exit(1 if report.problems else 0)


if __name__ == "__main__":
    main()
