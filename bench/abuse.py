"""The room under abuse: what one visitor can do to everyone else's tables.

Run: ``python bench/abuse.py [--tables 50] [--seconds 20]``

It starts ``burraco serve`` with its default settings in a child process (on a fresh
SQLite file, pinned to core 0 when the OS allows) and seats people-like players at
``--tables`` tables of two (each table's two players come from their own loopback
address, 127.0.1.N, as different visitors do; they think 1 to 3 seconds a move), plus
four tables of a person against expert bots. Then, from a child process of its own and
the address 127.0.0.2, an abuser runs each attack of the issue for ``--seconds``:

* ``tournaments``: create tournaments, pad each to 1000, start an online round;
* ``sockets``: 2000 sockets on one seat;
* ``tables``: create tables as fast as answers come, while 40 lobbies poll the list;
* ``bodies``: five 200 MB POSTs at once;
* ``hints``: 30 sockets asking for hints without pause;
* ``logins``: 5 login attempts a second from 250 addresses (127.0.5.N), four in five
  with a wrong password, and a sign-up a second (each password hashed with Argon2);
* ``takeover``: from 64 addresses, tables with a 1 s move clock started and never opened
  (each address as many as the room lets it hold), which bots would play on alone;
* ``waiting``: 160 addresses each making 20 waiting tables nobody opens;
* ``spectators``: 900 spectators' sockets from 60 addresses on two tables (the room's
  ``max_sockets`` is lowered to 600 to show it, ``--max-sockets``), then a player's seat
  at one of them reconnects and must be admitted;
* ``ghosts``: quick-play tickets from one address (30 a minute, its rate) whose pages
  never ask again, while a person presses Play: the person must sit with bots, not them;
* ``stuck``: stuck tables from many addresses: 667 addresses each making 3 tables with no
  move clock, started against bots and never opened (issue 32: they filled ``max_tables``;
  now they hold the guests' share at most, and end after ``deserted_seconds``);
* ``farm``: a rated farm: a farmer and three feeders (accounts made together, each from
  its address) play 20 rated matches, each feeder abandoning at once; its row says how many
  were rated (``rated_pair_cap`` a day a pair), the farmer's rating, and whether the
  leaderboard marks it under review (the farm detector).
* ``syncflood``: nine bot accounts' sockets (three people's three bots each), at tables
  two of them played to a log of ~200 events at full speed, each sending
  ``{"type": "sync", "since": 0}`` 60 times a second (a program's rate, issue 32);
* ``reviews``: 800 reads a second of a table's reviews (``GET .../reviews``) from 20
  addresses.

After each attack a newcomer from a fresh address must be admitted (make a table and
play a move) within 30 s; its row says how long it took. ``bench/sigterm.py`` times a
SIGTERM with ~300 tables just made.

For each phase it prints the people's action latency (from sending an action to the
state that shows it: p50, p90, p99), the expert tables' moves, what the abuser got
(answers by status code) and the server's memory. The goal is p99 under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import websockets

ABUSER = "127.0.0.2"
PHASES = (
    "quiet",
    "tournaments",
    "sockets",
    "tables",
    "bodies",
    "hints",
    "takeover",
    "waiting",
    "spectators",
    "ghosts",
    "logins",
    "stuck",
    "farm",
    "syncflood",
    "reviews",
    "after",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client(url: str, address: str, **options: Any) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=60, **options)


def connect(ws_url: str, address: str) -> Any:
    return websockets.connect(ws_url, local_addr=(address, 0), max_queue=None, open_timeout=30)


# --- the people ---------------------------------------------------------------------------------


class Clock:
    """The phase now, and the latencies of the people's actions by the phase they began in."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.latencies: dict[str, list[float]] = {p: [] for p in PHASES}
        self.expert_moves: Counter[str] = Counter()
        self.stop = False


async def person(ws_url: str, address: str, rng: random.Random, clock: Clock, role: str) -> None:
    """Play like a person: think 1-3 s, then a random legal action; time the answer."""
    sent_at: float | None = None
    sent_phase = ""
    waiting_for = -1
    last_version = -1
    while not clock.stop:
        try:
            async with connect(ws_url, address) as ws:
                while not clock.stop:
                    try:
                        raw = await asyncio.wait_for(ws.recv(), 1.0)
                    except TimeoutError:
                        continue
                    message: dict[str, Any] = json.loads(raw)
                    if message["type"] == "match_over":
                        return
                    if message["type"] != "state":
                        if message["type"] == "error":
                            sent_at = None
                        continue
                    version = message["version"]
                    if role == "expert" and last_version >= 0 and version > last_version:
                        # Moves of the expert bots, counted by the state the person sees.
                        moved = version - last_version - (1 if sent_at is not None else 0)
                        clock.expert_moves[clock.phase] += max(0, moved)
                    last_version = version
                    if sent_at is not None and version >= waiting_for:
                        if sent_phase in clock.latencies:
                            clock.latencies[sent_phase].append(time.perf_counter() - sent_at)
                        sent_at = None
                    pause = message.get("pause")
                    if pause and message["seat"] not in pause["ready"]:
                        # Between two deals: read the score a moment, then "next deal".
                        await asyncio.sleep(rng.uniform(1, 3))
                        await ws.send(json.dumps({"type": "next_deal"}))
                    if message["legal"] and sent_at is None:
                        await asyncio.sleep(
                            rng.uniform(0.2, 0.6) if role == "expert" else rng.uniform(1, 3)
                        )
                        action = rng.choice(message["legal"])
                        sent_at, sent_phase = time.perf_counter(), clock.phase
                        waiting_for = version + 1
                        await ws.send(
                            json.dumps({"type": "action", "action": action, "version": version})
                        )
        except (OSError, websockets.WebSocketException):
            await asyncio.sleep(0.5)  # a page reconnects
            sent_at = None


async def seat_people(url: str, tables: int, clock: Clock) -> list[asyncio.Task[None]]:
    ws_base = url.replace("http", "ws", 1)
    tasks = []
    for i in range(tables + 4):
        address = f"127.0.1.{i + 1}"
        expert = i >= tables
        async with client(url, address) as http:
            body = {
                "variant": "italian",
                "players": 2,
                "target": 100000,
                "name": f"P{i}",
                "move_seconds": 0,
                "bot": "expert" if expert else "greedy",
            }
            while (answer := await http.post("/api/tables", json=body)).status_code == 503:
                await asyncio.sleep(0.5)  # a busy moment of a loaded machine
            created = answer.raise_for_status().json()
            table = created["table"]
            rng = random.Random(i)
            if expert:
                await http.post(f"/api/tables/{table}/start", json={"token": created["token"]})
                seats = [(created["token"], "expert")]
            else:
                join = f"/api/tables/{table}/join"
                while (joined := await http.post(join, json={"name": f"Q{i}"})).status_code == 503:
                    await asyncio.sleep(0.5)
                seats = [
                    (created["token"], "person"),
                    (joined.raise_for_status().json()["token"], "person"),
                ]
        for token, role in seats:
            ws_url = f"{ws_base}/ws/{table}?token={token}"
            tasks.append(asyncio.create_task(person(ws_url, address, rng, clock, role)))
    return tasks


# --- the abuser (a process of its own) ------------------------------------------------------------


async def _tournaments(url: str, until: float, codes: Counter[str]) -> None:
    async with client(url, ABUSER) as http:
        while time.time() < until:
            answer = await http.post("/api/tournaments", json={"name": "flood"})
            codes[f"create {answer.status_code}"] += 1
            if answer.status_code != 200:
                await asyncio.sleep(0.2)
                continue
            made = answer.json()
            path = f"/api/tournaments/{made['tournament']}"
            padded = await http.post(f"{path}/pad", json={"token": made["token"], "size": 1000})
            codes[f"pad {padded.status_code}"] += 1
            started = await http.post(
                f"{path}/rounds", json={"token": made["token"], "online": True}
            )
            codes[f"round {started.status_code}"] += 1


async def _sockets(url: str, until: float, codes: Counter[str]) -> None:
    async with client(url, ABUSER) as http:
        made = await http.post("/api/tables", json={"name": "flood", "players": 4})
        codes[f"create {made.status_code}"] += 1
        if made.status_code != 200:
            return
        table, token = made.json()["table"], made.json()["token"]
    ws_url = url.replace("http", "ws", 1) + f"/ws/{table}?token={token}"
    held: list[Any] = []

    async def one() -> None:
        try:
            ws = await connect(ws_url, ABUSER)
            held.append(ws)
            codes["socket opened"] += 1
            with contextlib.suppress(websockets.WebSocketException):
                async for _ in ws:
                    pass
            codes[f"socket closed {ws.close_code}"] += 1
        except (OSError, websockets.WebSocketException) as error:
            codes[f"socket refused {type(error).__name__}"] += 1

    tasks = []
    for _ in range(2000):
        if time.time() > until:
            break
        tasks.append(asyncio.create_task(one()))
        await asyncio.sleep(0.002)
    await asyncio.sleep(max(0.0, until - time.time()))
    for ws in held:
        with contextlib.suppress(Exception):
            await ws.close()
    for task in tasks:
        task.cancel()


async def _tables(url: str, until: float, codes: Counter[str]) -> None:
    sizes: list[int] = []

    async def lobby(i: int) -> None:
        async with client(url, f"127.0.2.{i + 1}") as http:
            while time.time() < until:
                answer = await http.get("/api/tables")
                codes[f"lobby {answer.status_code}"] += 1
                sizes.append(len(answer.content))
                await asyncio.sleep(0.5)

    async def flood() -> None:
        async with client(url, ABUSER) as http:
            while time.time() < until:
                answer = await http.post("/api/tables", json={"name": "flood"})
                codes[f"create {answer.status_code}"] += 1
                if answer.status_code == 429:
                    await asyncio.sleep(0.01)

    await asyncio.gather(flood(), *(lobby(i) for i in range(40)))
    if sizes:
        codes[f"lobby bytes max {max(sizes)}"] += 1


async def _chunks(total: int) -> AsyncIterator[bytes]:
    block = b"x" * (1 << 20)
    for _ in range(total >> 20):
        yield block


async def _bodies(url: str, until: float, codes: Counter[str]) -> None:
    async def post() -> None:
        async with client(url, ABUSER) as http:
            try:
                answer = await http.post(
                    "/api/tables",
                    content=_chunks(200 << 20),
                    headers={"content-type": "application/json"},
                )
                codes[f"post {answer.status_code}"] += 1
            except httpx.HTTPError as error:
                codes[f"post cut off ({type(error).__name__})"] += 1

    await asyncio.gather(*(post() for _ in range(5)))
    await asyncio.sleep(max(0.0, until - time.time()))


async def _hints(url: str, until: float, codes: Counter[str]) -> None:
    ws_base = url.replace("http", "ws", 1)

    async def asker(i: int) -> None:
        async with client(url, f"127.0.3.{i + 1}") as http:
            made = await http.post("/api/tables", json={"name": "hinter", "move_seconds": 0})
            codes[f"create {made.status_code}"] += 1
            if made.status_code != 200:
                return
            table, token = made.json()["table"], made.json()["token"]
            await http.post(f"/api/tables/{table}/start", json={"token": token})
        async with connect(f"{ws_base}/ws/{table}?token={token}", f"127.0.3.{i + 1}") as ws:
            while time.time() < until:
                await ws.send(json.dumps({"type": "hint"}))
                with contextlib.suppress(TimeoutError):
                    while True:
                        said = json.loads(await asyncio.wait_for(ws.recv(), 2))
                        if said["type"] in ("hint", "error"):
                            codes[f"hint {said.get('code', 'ok')}"] += 1
                            break

    await asyncio.gather(*(asker(i) for i in range(30)), return_exceptions=True)


async def _takeover(url: str, until: float, codes: Counter[str]) -> None:
    """Tables a bot would play for their absent creator: made, started, never opened."""

    async def address(i: int) -> None:
        async with client(url, f"127.10.{i // 250}.{i % 250 + 1}") as http:
            while time.time() < until:
                body = {"name": "ghost", "move_seconds": 1, "bot": "greedy"}
                made = await http.post("/api/tables", json=body)
                codes[f"create {made.status_code}"] += 1
                if made.status_code != 200:
                    await asyncio.sleep(1.0)
                    continue
                created = made.json()
                started = await http.post(
                    f"/api/tables/{created['table']}/start", json={"token": created["token"]}
                )
                codes[f"start {started.status_code}"] += 1

    await asyncio.gather(*(address(i) for i in range(64)), return_exceptions=True)


async def _waiting(url: str, until: float, codes: Counter[str]) -> None:
    """Waiting tables nobody opens, 20 from each of 160 addresses."""

    async def address(i: int) -> None:
        async with client(url, f"127.11.{i // 250}.{i % 250 + 1}") as http:
            for _ in range(20):
                if time.time() > until:
                    return
                made = await http.post("/api/tables", json={"name": "idle", "players": 4})
                codes[f"create {made.status_code}"] += 1

    await asyncio.gather(*(address(i) for i in range(160)), return_exceptions=True)
    await asyncio.sleep(max(0.0, until - time.time()))


async def _spectators(url: str, until: float, codes: Counter[str]) -> None:
    """900 anonymous spectators' sockets from 60 addresses on two tables, then a player's
    seat at one of them reconnects."""
    ws_base = url.replace("http", "ws", 1)
    seats = []
    for i in range(2):
        async with client(url, f"127.12.1.{i + 1}") as http:
            body = {"name": f"Watched{i}", "move_seconds": 0, "watchable": True}
            while True:  # the room may be busy a moment after the last attack
                answer = await http.post("/api/tables", json=body)
                codes[f"create {answer.status_code}"] += 1
                if answer.status_code == 200 or time.time() > until:
                    break
                await asyncio.sleep(1.0)
            made = answer.json()
            await http.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
            seats.append(made)
    held: list[Any] = []

    async def spectator(n: int) -> None:
        table = seats[n % 2]["table"]
        address = f"127.12.2.{n % 60 + 1}"
        try:
            ws = await connect(f"{ws_base}/ws/{table}?watch=1", address)
        except (OSError, websockets.WebSocketException) as error:
            codes[f"spectator refused {type(error).__name__}"] += 1
            return
        held.append(ws)
        first = json.loads(await ws.recv())
        codes[f"spectator {first.get('code', first['type'])}"] += 1
        with contextlib.suppress(websockets.WebSocketException):
            async for _ in ws:
                pass
        codes[f"spectator closed {ws.close_code}"] += 1

    watchers = [asyncio.create_task(spectator(n)) for n in range(900)]
    await asyncio.sleep(min(8.0, max(0.0, until - time.time() - 5)))
    seat = seats[0]
    async with connect(f"{ws_base}/ws/{seat['table']}?token={seat['token']}", "127.12.1.1") as ws:
        said = json.loads(await ws.recv())
        codes[f"seat {said.get('code', said['type'])}"] += 1
    await asyncio.sleep(max(0.0, until - time.time()))
    for ws in held:
        with contextlib.suppress(Exception):
            await ws.close()
    for task in watchers:
        task.cancel()


async def _ghosts(url: str, until: float, codes: Counter[str]) -> None:
    """Quick-play tickets from one address whose pages never ask again, and a person who
    presses Play meanwhile: who sits beside the person?"""

    async def ghosts() -> None:
        async with client(url, "127.13.0.1") as http:
            while time.time() < until:
                body = {"variant": "italian", "players": 4, "name": "ghost"}
                answer = await http.post("/api/quick", json=body)
                codes[f"ghost ticket {answer.status_code}"] += 1
                await asyncio.sleep(2.0)  # 30 a minute, the rate of one address

    async def person() -> None:
        await asyncio.sleep(min(6.0, max(0.0, until - time.time() - 25)))
        async with client(url, "127.13.1.1") as http:
            body = {"variant": "italian", "players": 4, "name": "Person"}
            while (pressed := await http.post("/api/quick", json=body)).status_code == 503:
                await asyncio.sleep(1.0)  # busy a moment: the person presses Play again
            ticket = pressed.json()["ticket"]
            while time.time() < until + 40:
                status = (await http.get(f"/api/quick/{ticket}")).json()
                if status.get("status") == "seated":
                    info = (await http.get(f"/api/tables/{status['table']}")).json()
                    others = [s["kind"] for s in info["seats"] if s["seat"] != status["seat"]]
                    codes[f"person seated with {others.count('human')} ghosts"] += 1
                    return
                await asyncio.sleep(1.0)  # the page asks every second
            codes["person never seated"] += 1

    await asyncio.gather(ghosts(), person())


async def _logins(url: str, until: float, codes: Counter[str]) -> None:
    rng = random.Random(19)
    password = "cuori e picche"
    names: list[str] = []
    waits: list[float] = []

    async def sign_up(i: int) -> None:
        async with client(url, f"127.0.6.{i % 250 + 1}") as http:
            started = time.perf_counter()
            name = f"abuse{i}x{rng.randrange(10**6)}"
            answer = await http.post(
                "/api/account/signup", json={"name": name, "password": password}
            )
            waits.append(time.perf_counter() - started)
            codes[f"signup {answer.status_code}"] += 1
            if answer.status_code == 200:
                names.append(name)

    async def log_in() -> None:
        name = rng.choice(names) if names else "nobody"
        wrong = rng.random() < 0.8
        async with client(url, f"127.0.5.{rng.randrange(250) + 1}") as http:
            started = time.perf_counter()
            answer = await http.post(
                "/api/account/login",
                json={
                    "name": name,
                    "password": f"guess{rng.randrange(10**6)}" if wrong else password,
                },
            )
            waits.append(time.perf_counter() - started)
            codes[f"login {'wrong' if wrong else 'right'} {answer.status_code}"] += 1

    tasks = [asyncio.create_task(sign_up(i)) for i in range(10)]
    tick = 0
    while time.time() < until:
        tasks.append(asyncio.create_task(log_in()))
        if tick % 5 == 0:
            tasks.append(asyncio.create_task(sign_up(10 + tick)))
        tick += 1
        await asyncio.sleep(0.2)
    await asyncio.gather(*tasks, return_exceptions=True)
    codes[f"answer p50 {pct(waits, 0.5):.0f} ms, p99 {pct(waits, 0.99):.0f} ms"] += 1


async def _stuck(url: str, until: float, codes: Counter[str]) -> None:
    """Tables with no move clock, started against bots and never opened: 3 from each of
    667 addresses."""

    async def address(i: int) -> None:
        async with client(url, f"127.13.{i // 250}.{i % 250 + 1}") as http:
            for _ in range(3):
                if time.time() > until:
                    return
                body = {"name": "stuck", "move_seconds": 0, "bot": "greedy"}
                made = await http.post("/api/tables", json=body)
                codes[f"create {made.status_code}"] += 1
                if made.status_code != 200:
                    continue
                created = made.json()
                started = await http.post(
                    f"/api/tables/{created['table']}/start", json={"token": created["token"]}
                )
                codes[f"start {started.status_code}"] += 1

    await asyncio.gather(*(address(i) for i in range(667)), return_exceptions=True)
    await asyncio.sleep(max(0.0, until - time.time()))


async def _farm(url: str, until: float, codes: Counter[str]) -> None:
    """A farmer and three feeders made together play rated matches; each feeder abandons
    at once. What the ratings did: matches rated and not, the farmer's rating, whether the
    leaderboard holds it for review."""
    password = "farm farm farm"
    tag = random.randrange(10**6)
    names = [f"Farmer{tag}", *(f"Feeder{tag}x{i}" for i in range(3))]
    accounts = []
    for i, name in enumerate(names):
        http = client(url, f"127.14.0.{i + 1}")
        signed = await http.post("/api/account/signup", json={"name": name, "password": password})
        codes[f"signup {signed.status_code}"] += 1
        if signed.status_code != 200:
            return
        http.headers["X-CSRF-Token"] = signed.json()["csrf"]
        accounts.append(http)
    farmer, feeders = accounts[0], accounts[1:]
    ws_base = url.replace("http", "ws", 1)
    for n in range(20):
        if time.time() > until:
            break
        feeder = feeders[n % len(feeders)]
        body = {"name": names[0], "deals": 1, "rated": True, "move_seconds": 0}
        made = await farmer.post("/api/tables", json=body)
        if made.status_code != 200:
            codes[f"create {made.status_code}"] += 1
            continue
        table = made.json()["table"]
        joined = await feeder.post(f"/api/tables/{table}/join", json={"name": "feeder"})
        if joined.status_code != 200:
            codes[f"join {joined.status_code}"] += 1
            continue
        cookie = "; ".join(f"{k}={v}" for k, v in feeder.cookies.items())
        ws_url = f"{ws_base}/ws/{table}?token={joined.json()['token']}"
        async with websockets.connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
            while True:
                said = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if said["type"] == "state" and said["table"]["status"] == "playing":
                    await ws.send(json.dumps({"type": "abandon"}))
                over = said if said["type"] == "match_over" else said.get("match_over")
                if over:
                    codes[f"table unrated: {over.get('unrated')}"] += 1
                    break
    await asyncio.sleep(1.0)  # the last result stored
    player = (await farmer.get(f"/api/players/{names[0]}")).json()
    for match in player["matches"]:
        codes["rated" if match["rated"] else "not rated"] += 1
    rating = next((r["rating"] for r in player["ratings"] if r["game"] == "italian-2"), None)
    codes[f"farmer rating {rating}"] = 1
    board = (await farmer.get("/api/leaderboard/italian-2?kind=person")).json()
    marked = [r["review"] for r in board["rows"] if r["name"] == names[0]]
    codes[f"farmer on the leaderboard under review: {marked}"] = 1
    for http in accounts:
        await http.aclose()


async def _patient(http: httpx.AsyncClient, path: str, **options: Any) -> httpx.Response:
    """A POST tried again while the loaded room answers busy (503)."""
    while (answer := await http.post(path, **options)).status_code == 503:
        await asyncio.sleep(0.5)
    return answer


async def _bot_tokens(url: str, count: int) -> list[str]:
    """``count`` bot accounts' tokens: three a person, each person from an address."""
    tokens: list[str] = []
    for i in range((count + 2) // 3):
        async with client(url, f"127.0.8.{i + 1}") as http:
            name = f"Owner{i}x{random.randrange(10**6)}"
            body = {"name": name, "password": "cuori e picche"}
            signed = await _patient(http, "/api/account/signup", json=body)
            csrf = {"X-CSRF-Token": signed.raise_for_status().json()["csrf"]}
            for b in range(min(3, count - len(tokens))):
                bot = {"name": f"{name}b{b}"}
                made = await _patient(http, "/api/account/bots", json=bot, headers=csrf)
                tokens.append(made.raise_for_status().json()["token"])
    return tokens


async def _rush(ws: Any, version: int, until: float) -> None:
    """Play a seat's legal actions at once, until the table's log reaches ``version``."""
    rng = random.Random(version)
    while time.time() < until:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] != "state":
            continue
        if message["version"] >= version or message.get("match_over"):
            return
        if message.get("pause") and message["seat"] not in message["pause"]["ready"]:
            await ws.send(json.dumps({"type": "next_deal"}))
        if message["legal"]:
            action = {"type": "action", "action": rng.choice(message["legal"])}
            await ws.send(json.dumps(action | {"version": message["version"]}))


async def _syncflood(url: str, until: float, codes: Counter[str]) -> None:
    """Nine bot sockets, each at a table of two bots played to ~200 events, sending
    ``sync since 0`` at a program's rate (60 a second) for the rest of the phase."""
    ws_base = url.replace("http", "ws", 1)
    length = until - time.time()
    tokens = await _bot_tokens(url, 9)
    tables: list[str] = []
    for token in tokens:
        bearer = {"Authorization": f"Bearer {token}"}
        async with client(url, ABUSER, headers=bearer) as http:
            body = {"name": "x", "players": 2}
            made = await _patient(http, "/api/tables", json=body)
            codes[f"create {made.status_code}"] += 1
            tables.append(made.json()["table"])
    for i, table in enumerate(tables):  # the next bot takes the other seat: the match starts
        bearer = {"Authorization": f"Bearer {tokens[(i + 1) % 9]}"}
        async with client(url, ABUSER, headers=bearer) as http:
            while (
                joined := await http.post(f"/api/tables/{table}/join", json={"name": "x"})
            ).status_code == 503:
                await asyncio.sleep(0.5)  # a busy moment of a loaded machine
            codes[f"join {joined.status_code}"] += 1

    def socket(token: str, table: str) -> Any:
        return websockets.connect(
            f"{ws_base}/ws/{table}",
            additional_headers={"Authorization": f"Bearer {token}"},
            local_addr=(ABUSER, 0),
            max_queue=None,
            open_timeout=30,
        )

    async def log(i: int) -> None:
        async with socket(tokens[i], tables[i]) as a, socket(tokens[(i + 1) % 9], tables[i]) as b:
            await asyncio.gather(_rush(a, 200, until), _rush(b, 200, until))

    built = time.time()
    for failed in await asyncio.gather(*(log(i) for i in range(9)), return_exceptions=True):
        if failed is not None:
            codes[f"log failed {failed!r}"[:80]] += 1
    codes[f"logs built in {time.time() - built:.0f} s"] += 1
    # The flood lasts the phase's length from here: making the accounts (Argon2) and the
    # logs took part of it.
    until = time.time() + length

    async def flood(i: int) -> None:
        async with socket(tokens[i], tables[i]) as ws:

            async def listen() -> None:
                async for raw in ws:
                    message = json.loads(raw)
                    codes[f"answer {message.get('code', message['type'])}"] += 1
                    codes["answer bytes"] += len(raw)

            listening = asyncio.create_task(listen())
            sync = json.dumps({"type": "sync", "since": 0})
            while time.time() < until:
                await ws.send(sync)
                codes["sync sent"] += 1
                await asyncio.sleep(1 / 60)
            listening.cancel()

    for failed in await asyncio.gather(*(flood(i) for i in range(9)), return_exceptions=True):
        if failed is not None:
            codes[f"flood failed {failed!r}"[:80]] += 1


async def _reviews(url: str, until: float, codes: Counter[str]) -> None:
    """800 reads a second of one table's reviews, from 20 addresses (40 a second each)."""
    async with client(url, ABUSER) as http:
        body = {"name": "reader", "move_seconds": 0}
        made = await _patient(http, "/api/tables", json=body)
        codes[f"create {made.status_code}"] += 1
        seat = made.json()
        await http.post(f"/api/tables/{seat['table']}/start", json={"token": seat["token"]})
    path = f"/api/tables/{seat['table']}/reviews"

    async def address(i: int) -> None:
        async with client(url, f"127.0.7.{i + 1}") as http:

            async def read() -> None:
                with contextlib.suppress(httpx.HTTPError):
                    answer = await http.get(path)
                    codes[f"read {answer.status_code}"] += 1

            reads: set[asyncio.Task[None]] = set()
            while time.time() < until:
                if len(reads) < 20:  # at most 20 waiting from one address
                    task = asyncio.create_task(read())
                    reads.add(task)
                    task.add_done_callback(reads.discard)
                await asyncio.sleep(1 / 40)
            await asyncio.gather(*reads, return_exceptions=True)

    await asyncio.gather(*(address(i) for i in range(20)))


ATTACKS: dict[str, Callable[[str, float, Counter[str]], Any]] = {
    "tournaments": _tournaments,
    "sockets": _sockets,
    "tables": _tables,
    "bodies": _bodies,
    "hints": _hints,
    "takeover": _takeover,
    "waiting": _waiting,
    "spectators": _spectators,
    "ghosts": _ghosts,
    "logins": _logins,
    "stuck": _stuck,
    "farm": _farm,
    "syncflood": _syncflood,
    "reviews": _reviews,
}


async def newcomer(url: str, address: str, seconds: float = 30.0) -> str:
    """A newcomer after an attack: makes a table against a bot and plays a move. How long
    until that worked (it is tried again each second), or why it never did."""
    began = time.time()
    why = "never answered"
    while time.time() < began + seconds:
        try:
            async with client(url, address) as http:
                body = {"name": "Newcomer", "move_seconds": 0}
                made = await http.post("/api/tables", json=body)
                if made.status_code != 200:
                    why = f"create {made.status_code} {made.json().get('code')}"
                    await asyncio.sleep(1.0)
                    continue
                seat = made.json()
                await http.post(f"/api/tables/{seat['table']}/start", json={"token": seat["token"]})
            ws_url = url.replace("http", "ws", 1) + f"/ws/{seat['table']}?token={seat['token']}"
            async with connect(ws_url, address) as ws:
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if message["type"] == "error":
                        why = f"socket {message['code']}"
                        break
                    if message["type"] == "state" and message["legal"]:
                        version = message["version"]
                        action = message["legal"][0]
                        await ws.send(
                            json.dumps({"type": "action", "action": action, "version": version})
                        )
                    elif message["type"] == "state" and message["version"] > 1:
                        return f"admitted in {time.time() - began:.1f} s"
        except (OSError, TimeoutError, httpx.HTTPError, websockets.WebSocketException) as error:
            why = type(error).__name__
        await asyncio.sleep(1.0)
    return f"refused ({why})"


def abuse(url: str, phase: str, seconds: float, out: Any) -> None:
    codes: Counter[str] = Counter()
    with contextlib.suppress(Exception):
        asyncio.run(
            asyncio.wait_for(ATTACKS[phase](url, time.time() + seconds, codes), seconds + 60)
        )
    out.send(dict(codes))


# --- the run ----------------------------------------------------------------------------------------


def memory_mb(pid: int) -> float:
    """Resident memory of the server and its children, in MB."""
    total = 0
    pids = [pid]
    with contextlib.suppress(OSError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    for p in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


async def drive(
    url: str,
    server: subprocess.Popen[bytes],
    tables: int,
    seconds: float,
    phases: tuple[str, ...] = PHASES,
) -> None:
    clock = Clock()
    people = await seat_people(url, tables, clock)
    await asyncio.sleep(5)  # everyone seated and playing
    rows = []
    for phase in phases:
        clock.phase = phase
        began = time.time()
        peak = memory_mb(server.pid)
        codes: dict[str, int] = {}
        if phase in ATTACKS:
            receiver, sender = multiprocessing.Pipe(duplex=False)
            worker = multiprocessing.Process(target=abuse, args=(url, phase, seconds, sender))
            worker.start()
            while worker.is_alive():
                peak = max(peak, memory_mb(server.pid))
                await asyncio.sleep(0.25)
            codes = receiver.recv() if receiver.poll(5) else {"abuser": -1}
            index = PHASES.index(phase)
            codes[f"newcomer {await newcomer(url, f'127.0.9.{index}')}"] = 1
        while time.time() < began + seconds:
            peak = max(peak, memory_mb(server.pid))
            await asyncio.sleep(0.25)
        got = clock.latencies[phase]
        rows.append(
            (
                phase,
                len(got),
                pct(got, 0.5),
                pct(got, 0.9),
                pct(got, 0.99),
                clock.expert_moves[phase],
                peak,
                codes,
            )
        )
        print(
            f"{phase:12} {len(got):5} actions  p50 {pct(got, 0.5):6.1f}  p90 {pct(got, 0.9):6.1f}  "
            f"p99 {pct(got, 0.99):7.1f} ms  expert moves {clock.expert_moves[phase]:4}  "
            f"server {peak:6.0f} MB  abuser: {json.dumps(codes, sort_keys=True)}",
            flush=True,
        )
    clock.stop = True
    for task in people:
        task.cancel()
    await asyncio.gather(*people, return_exceptions=True)
    worst = max(r[4] for r in rows if r[1])
    print(f"\nworst phase p99: {worst:.1f} ms (goal: under 100 ms)")


def wait_listening(url: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until the room at ``url`` answers (it started as ``server``), for at most
    ``seconds``."""
    deadline = time.time() + seconds
    while True:
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(f"{url}/api/variants", timeout=1)
            return
        if time.time() > deadline or server.poll() is not None:
            raise SystemExit("the room did not start")
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--max-sockets", type=int, default=600, help="the room's max_sockets (lowered: spectators)"
    )
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help=f"the phases to run, in order (default: all of {','.join(PHASES)})",
    )
    args = parser.parse_args()
    phases = tuple(args.phases.split(","))
    if unknown := set(phases) - set(PHASES):
        parser.error(f"no such phase: {', '.join(sorted(unknown))}")
    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "burraco.cli", "serve", "--port", str(port)]
        command += ["--database-url", f"sqlite:///{Path(folder) / 'abuse.db'}"]
        env = os.environ | {"BURRACO_MAX_SOCKETS": str(args.max_sockets)}
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, preexec_fn=_pin(0), env=env)
        try:
            wait_listening(url, server)
            _pin(1)()
            asyncio.run(drive(url, server, args.tables, args.seconds, phases))
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def _pin(core: int) -> Callable[[], None]:
    def pin() -> None:
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(0, {core})

    return pin


if __name__ == "__main__":
    main()
