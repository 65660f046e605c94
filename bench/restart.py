"""A restart with many tables in play: how soon the room answers, and how soon every
table is loaded again.

Run: ``python bench/restart.py [--tables 450] [--moves 150] [--runs 3]``

It writes ``--tables`` two-player tables straight into a new SQLite database, each
``--moves`` random legal actions into its match (tests/inplay.py), then ``--runs`` times:

* in process: how long ``Room.startup`` takes (the server listens only after it), and
  how long until every table is rebuilt (the same, when startup rebuilds them all);
* ``burraco serve``, from the start of the process (Python's imports included): the
  first answer to ``GET /api/tables`` (connection refused before), and a lobby that
  lists every table (it lists the tables loaded so far).

Against another checkout: ``PYTHONPATH=/other/src python bench/restart.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from inplay import fill


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def once(url: str, tables: int) -> tuple[float, float]:
    """Seconds to the first answer, and to a lobby listing every table."""
    port = free_port()
    began = time.monotonic()
    command = [sys.executable, "-m", "burraco.cli", "serve", "--database-url", url]
    server = subprocess.Popen([*command, "--port", str(port)], stdout=subprocess.DEVNULL)
    listening = loaded = 0.0
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            while not loaded:
                if server.poll() is not None:
                    raise RuntimeError("the room stopped")
                with contextlib.suppress(httpx.TransportError):
                    answer = http.get("/api/tables", params={"per_page": 1})
                    listening = listening or time.monotonic() - began
                    if answer.status_code == 200 and answer.json()["total"] >= tables:
                        loaded = time.monotonic() - began
                # Often until it answers; then seldom, not to slow the loading down.
                time.sleep(0.1 if listening else 0.01)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return listening, loaded


def in_process(url: str) -> tuple[float, float]:
    """Seconds ``Room.startup`` takes, and until every table is rebuilt."""
    from burraco.server.room import Room
    from burraco.storage import Store

    async def run() -> tuple[float, float]:
        room = Room(Store(url), bot_delay=0.6)
        began = time.perf_counter()
        try:
            await room.startup(background=True)
        except TypeError:  # a checkout whose startup rebuilds every table first
            await room.startup()
        started = time.perf_counter() - began
        loader = getattr(room, "_loader", None)  # none where startup rebuilds them all
        if loader is not None:
            await loader
        loaded = time.perf_counter() - began
        await room.shutdown()
        room.store.engine.dispose()
        return started, loaded

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=450)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/room.db"
        began = time.monotonic()
        fill(url, args.tables, args.moves)
        print(
            f"{args.tables} tables of {args.moves} moves written in {time.monotonic() - began:.1f} s"
        )
        inside = [in_process(url) for _ in range(args.runs)]
        served = [once(url, args.tables) for _ in range(args.runs)]
    for name, values in (
        ("startup", [f[0] for f in inside]),
        ("rebuilt", [f[1] for f in inside]),
        ("listening", [f[0] for f in served]),
        ("all loaded", [f[1] for f in served]),
    ):
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:>11}: median {statistics.median(values):.2f} s ({shown})")


if __name__ == "__main__":
    main()
