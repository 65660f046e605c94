"""Load on the web room: N tables of bot players through the real WebSocket API.

Run: ``python bench/room.py [--tables 200] [--seconds 30] [--url http://127.0.0.1:8000]``

Without ``--url`` it starts a room itself in a child process (on a fresh SQLite
file, bots without delay, pinned to core 0 when the OS allows), and drives it
from this process (pinned to core 1). Every table is created over HTTP with two
seats taken by this script's players, who connect by WebSocket and, when the
server gives them legal actions, answer at once with a random one. The latency
of an action is the time from sending it to receiving the state that shows it.
A player thinks ``--think`` seconds on average before it acts (0.5 by default,
a quick bot's pace; 0 gives a closed-loop stress test, where latency is the
queue of every table waiting on the server).
The measured window opens ``--warmup`` s after every table is playing (each player
told its first state; the set-up's seconds are printed apart) and lasts ``--seconds``:
the room at N tables, not the room making them. It prints actions per second and the
50th, 90th and 99th percentiles of that latency, and, for a room it started, the
server's CPU (user + system, from ``/proc/PID/stat``) per action over the window: the
figure that stays true on a busy machine, where the percentiles do not.
``--profile FILE`` runs the room started here under cProfile and writes its stats to
FILE when it stops (read them with ``python -m pstats FILE``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collector import Collections

#: The measured window: it opens ``--warmup`` s after every player has been told its
#: first state (every table made, joined and connected), and closes ``--seconds`` later.
#: Until every table is playing both are unknown (infinite). A window opened at a fixed
#: time after the start measured the set-up of the last tables too wherever making 500
#: tables took longer than the warm-up (a slower or busier machine): the actions then
#: waited behind the tables still being made.
WINDOW = {"warm": float("inf"), "stop": float("inf")}
#: Actions sent in the measured window (after it opened), for the CPU per action.
MEASURED = [0]
#: The room's error answers by code: a refused action leaves its player waiting, so a
#: run that met any is printed as such (the per-socket message limit once stopped every
#: table of ``--think 0`` after 60 actions a seat, unseen).
REFUSALS: dict[str, int] = {}
#: When each measured latency's answer came (beside ``latencies``): where the slowest
#: hundredth fell in the window, to put beside the room's whole-heap walks.
ANSWERED: list[float] = []
#: When a player pressed "next deal": the deals' ends, which come in waves when the tables
#: all began together.
NEXT_DEALS: list[float] = []
#: The players' own collections (their walks of the oldest generation are printed): a
#: pause of this process delays the reading of every answer, as the room's would.
OWN = Collections()


async def player(
    url: str,
    table: str,
    token: str,
    seated: asyncio.Event,
    latencies: list[float],
    rng: random.Random,
    think: float,
) -> int:
    """Play a seat until the window closes; ``seated`` is set at its first state."""
    actions = 0
    sent_at: float | None = None
    waiting_for = -1
    async with websockets.connect(
        f"{url}/ws/{table}?token={token}", max_queue=None, open_timeout=120
    ) as ws:
        while time.perf_counter() < WINDOW["stop"]:
            left = WINDOW["stop"] - time.perf_counter()
            try:
                # Until the window is known, wake now and then to read it again.
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, min(left, 1.0)))
            except TimeoutError:
                continue
            message: dict[str, Any] = json.loads(raw)
            kind = message["type"]
            if kind == "match_over":
                break
            if kind == "error":
                REFUSALS[message["code"]] = REFUSALS.get(message["code"], 0) + 1
            if kind != "state":
                continue
            seated.set()
            if sent_at is not None and message["version"] >= waiting_for:
                if sent_at >= WINDOW["warm"]:
                    latencies.append(time.perf_counter() - sent_at)
                    ANSWERED.append(time.perf_counter())
                sent_at = None
            pause = message.get("pause")
            if pause and message["seat"] not in pause["ready"]:
                # Between two deals: every player presses "next deal" at once.
                await ws.send(json.dumps({"type": "next_deal"}))
                NEXT_DEALS.append(time.perf_counter())
            if message["legal"] and sent_at is None:
                if think:
                    # A bot's thinking time, spread so the tables do not move in lockstep.
                    await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                action = rng.choice(message["legal"])
                sent_at = time.perf_counter()
                if WINDOW["warm"] <= sent_at < WINDOW["stop"]:
                    MEASURED[0] += 1
                waiting_for = message["version"] + 1
                await ws.send(
                    json.dumps({"type": "action", "action": action, "version": message["version"]})
                )
                actions += 1
    return actions


async def table_of_players(
    http: httpx.AsyncClient,
    ws_url: str,
    seated: tuple[asyncio.Event, asyncio.Event],
    latencies: list[float],
    seed: int,
    think: float,
) -> int:
    body = {"variant": "italian", "players": 2, "target": 100000, "name": "A", "move_seconds": 0}
    answer = await http.post("/api/tables", json=body)
    if answer.status_code != 200:
        raise RuntimeError(f"create: {answer.status_code} {answer.text[:200]}")
    created = answer.json()
    joined = (await http.post(f"/api/tables/{created['table']}/join", json={"name": "B"})).json()
    rng = random.Random(seed)
    counts = await asyncio.gather(
        player(ws_url, created["table"], created["token"], seated[0], latencies, rng, think),
        player(ws_url, joined["table"], joined["token"], seated[1], latencies, rng, think),
    )
    return sum(counts)


def cpu_seconds(pid: int | None) -> float | None:
    """The user + system CPU seconds process ``pid`` has used (Linux), else None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime are fields 14 and 15 of stat (11 and 12 after the name's ")").
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_cpu(pid: int | None, into: list[float]) -> None:
    """The server's CPU seconds at the start and the end of the measured window."""
    await asyncio.sleep(max(0.0, WINDOW["warm"] - time.perf_counter()))
    first, first_at, mine = cpu_seconds(pid), time.perf_counter(), _own_cpu()
    await asyncio.sleep(max(0.0, WINDOW["stop"] - time.perf_counter()))
    last, last_at = cpu_seconds(pid), time.perf_counter()
    if first is not None and last is not None:
        into.extend([last - first, last_at - first_at, _own_cpu() - mine])


def _own_cpu() -> float:
    """This process's CPU seconds: the players' side, which must not be the bottleneck."""
    times = os.times()
    return times.user + times.system


async def run(
    url: str,
    tables: int,
    seconds: float,
    think: float,
    warmup: float,
    server_pid: int | None = None,
) -> dict[str, Any]:
    ws_url = url.replace("http", "ws", 1)
    latencies: list[float] = []
    # Idle connections let go before uvicorn's keep-alive (5 s) closes them: a busy
    # client would otherwise send a table's creation on a connection the room just shut.
    limits = httpx.Limits(max_connections=50, keepalive_expiry=3)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        start = time.perf_counter()
        seated = [(asyncio.Event(), asyncio.Event()) for _ in range(tables)]
        playing = asyncio.gather(
            *(table_of_players(http, ws_url, seated[i], latencies, i, think) for i in range(tables))
        )
        every = asyncio.gather(*(e.wait() for pair in seated for e in pair))
        done, _ = await asyncio.wait([playing, every], return_when=asyncio.FIRST_COMPLETED)
        if playing in done:
            playing.result()  # a table's set-up failed: say why
        set_up = time.perf_counter() - start
        # The players are the instrument: a walk of their own heap (1000 sockets' worth,
        # 160 ms) delayed the reading of every answer and was counted as the room's. What
        # the set-up built is frozen, and their oldest generation left alone.
        gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1 << 30)
        WINDOW["warm"] = time.perf_counter() + warmup
        WINDOW["stop"] = WINDOW["warm"] + seconds
        cpu: list[float] = []
        await measure_cpu(server_pid, cpu)
        await playing
    ordered = sorted(latencies) or [0.0]
    # The seconds of the window in which the slowest hundredth of the answers came.
    tail = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    slow_at = sorted(
        int(at - WINDOW["warm"]) for at, lat in zip(ANSWERED, latencies, strict=True) if lat >= tail
    )

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return {
        "tables": tables,
        "actions": MEASURED[0],
        "actions/s": MEASURED[0] / seconds,
        "set-up s": set_up,
        "p50 ms": pct(0.50),
        "p90 ms": pct(0.90),
        "p99 ms": pct(0.99),
        "mean ms": statistics.fmean(ordered) * 1000,
        "cpu ms/action": cpu[0] / MEASURED[0] * 1000 if cpu and MEASURED[0] else float("nan"),
        "server cpu %": cpu[0] / cpu[1] * 100 if cpu and cpu[1] else float("nan"),
        "players cpu %": cpu[2] / cpu[1] * 100 if cpu and cpu[1] else float("nan"),
        "window": (WINDOW["warm"], WINDOW["stop"]),
        "slow at": slow_at,
        "next deals at": [int(at - WINDOW["warm"]) for at in NEXT_DEALS if at >= WINDOW["warm"]],
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    port: int,
    database: Path,
    profile: str | None,
    deflate: bool = False,
    collections: Path | None = None,
) -> subprocess.Popen[bytes]:
    code = (
        "import gc, json, os, signal, sys, time, uvicorn\n"
        "from burraco.server.app import create_app\n"
        "from burraco.server.door.capacity import Capacity\n"
        "from burraco.server.door.limits import Limits\n"
        "if hasattr(os, 'sched_setaffinity'): os.sched_setaffinity(0, {0})\n"
        # One address makes every table here: no rate limit, and no busy answers.
        "limits = Limits(create_table='100000/minute', join_table='100000/minute',\n"
        # The players are programs acting as fast as the room answers (--think 0).
        "                socket_messages='1000000 per 10 seconds')\n"
        "capacity = Capacity(max_tables=100000, max_sockets=100000, busy_lag=1e9,\n"
        "                    tables_per_creator=100000, new_tables_per_second=0.0)\n"
        f"app = create_app('sqlite:///{database}', bot_delay=0, limits=limits, capacity=capacity)\n"
        f"config = uvicorn.Config(app, host='127.0.0.1', port={port}, log_level='warning',"
        f" ws_max_queue=1024, ws_per_message_deflate={deflate})\n"
        # The room's event loop woken every 5 ms: each time it woke over 20 ms late (when,
        # how late), what any player's message waited for then.
        "stalls = []\n"
        "async def probe():\n"
        "    import asyncio\n"
        "    while True:\n"
        "        before = time.perf_counter()\n"
        "        await asyncio.sleep(0.005)\n"
        "        late = time.perf_counter() - before - 0.005\n"
        "        if late > 0.02: stalls.append((time.perf_counter(), late))\n"
        "async def main():\n"
        "    import asyncio\n"
        "    task = asyncio.get_running_loop().create_task(probe())\n"
        "    await uvicorn.Server(config).serve()\n"
        "    task.cancel()\n"
        "serve = lambda: __import__('asyncio').run(main())\n"
        # As `burraco serve` does: what start-up built is never walked again.
        "from burraco.server.process.collector import freeze_startup\n"
        "freeze_startup()\n"
        # Every collection's pause, by generation, written when the room stops.
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from collector import Collections\n"
        "timed = Collections()\n"
        "gc.callbacks.append(timed)\n"
    )
    # uvicorn raises the stop signal again once it has shut down, which would end the
    # process before the collections or the profile are written.
    code += "signal.raise_signal = lambda number: None\n"
    if profile is None:
        code += "serve()\n"
    else:
        code += (
            "import cProfile\n"
            "profiler = cProfile.Profile()\n"
            "profiler.runcall(serve)\n"
            f"profiler.dump_stats({profile!r})\n"
        )
    if collections is not None:
        code += f"open({str(collections)!r}, 'w').write(json.dumps([timed.work, timed.ended[2], stalls]))\n"
    process = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the room did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--url", default=None, help="a running room; else one is started")
    parser.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        help="seconds played after every table is playing, before the measured window opens",
    )
    parser.add_argument(
        "--think", type=float, default=0.5, help="mean seconds a bot player thinks (0: none)"
    )
    parser.add_argument("--port", type=int, default=0, help="for the room started here")
    parser.add_argument("--profile", default=None, help="cProfile the room started here into FILE")
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="the room started here with permessage-deflate (`burraco serve --compress`)",
    )
    args = parser.parse_args()
    gc.callbacks.append(OWN)
    process = None
    url = args.url
    with tempfile.TemporaryDirectory() as folder:
        if url is None:
            port = args.port or free_port()
            database = Path(folder) / "bench.db"
            collections = Path(folder) / "collections.json"
            process = start_server(port, database, args.profile, args.deflate, collections)
            url = f"http://127.0.0.1:{port}"
        if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(0, {1})
        try:
            pid = None if process is None else process.pid
            result = asyncio.run(run(url, args.tables, args.seconds, args.think, args.warmup, pid))
        finally:
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
        pauses, walks, stalls = (
            json.loads(collections.read_text())
            if process and collections.exists()
            else (None, [], [])
        )
    print(
        f"{result['tables']:.0f} tables (all playing after {result['set-up s']:.1f} s), "
        f"think {args.think} s, {result['actions']:.0f} actions in {args.seconds:.0f} s: "
        f"{result['actions/s']:.0f} actions/s; latency p50 {result['p50 ms']:.1f} ms, "
        f"p90 {result['p90 ms']:.1f} ms, p99 {result['p99 ms']:.1f} ms "
        f"(mean {result['mean ms']:.1f} ms); server CPU {result['cpu ms/action']:.2f} ms "
        f"an action ({result['server cpu %']:.0f}% of a core; the players "
        f"{result['players cpu %']:.0f}%)"
    )
    if REFUSALS:
        # Each refused action stopped its table: the figures above do not measure the room.
        print(f"REFUSED (tables stalled): {REFUSALS}")
    if pauses is not None:
        # The collector's own work (CPU time) in the room: what it adds to a player's wait.
        print(
            "the room's collections (CPU ms, longest): "
            + ", ".join(
                f"gen{g} {len(p)} ({max(p, default=0) * 1000:.1f})" for g, p in pauses.items()
            )
        )
        warm, _ = result["window"]
        print(
            "walks of the oldest generation, s into the window (CPU): "
            + (
                ", ".join(
                    f"{at - warm:.1f} ({took * 1000:.0f} ms)"
                    for at, took in zip(walks, pauses["2"], strict=True)
                )
                or "none"
            )
        )
    warm, stop = result["window"]
    print(
        "the room's loop woke over 20 ms late, s into the window (ms late): "
        + (
            ", ".join(
                f"{at - warm:.1f} ({late * 1000:.0f})" for at, late in stalls if warm <= at <= stop
            )
            or "never"
        )
    )
    print(
        "the players' own walks of their oldest generation, s into the window: "
        + (
            ", ".join(
                f"{at - warm:.1f} ({took * 1000:.0f} ms)"
                for at, took in zip(OWN.ended[2], OWN.pauses[2], strict=True)
            )
            or "none"
        )
    )
    for what, key in (
        ("the slowest hundredth of answers", "slow at"),
        ("next deals", "next deals at"),
    ):
        seconds = Counter(result[key]).most_common(5)
        print(
            f"{what} came in second (count): "
            + ", ".join(f"{second} ({n})" for second, n in seconds)
        )


if __name__ == "__main__":
    main()
