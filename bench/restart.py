"""A restart with many tables in play: how soon the room answers, and how soon every
table is loaded again.

Run: ``python bench/restart.py [--tables 450] [--moves 150] [--runs 3]``

It writes ``--tables`` two-player tables straight into a new SQLite database, each
``--moves`` random legal actions into its match (tests/inplay.py), then starts
``burraco serve`` on it ``--runs`` times and measures, from the start of the process:

* listening: the first answer to ``GET /api/tables`` (connection refused before);
* loaded: the lobby lists every table (it lists the tables loaded so far).
"""

from __future__ import annotations

import argparse
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
                time.sleep(0.01)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return listening, loaded


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
        figures = [once(url, args.tables) for _ in range(args.runs)]
    for name, values in (
        ("listening", [f[0] for f in figures]),
        ("all loaded", [f[1] for f in figures]),
    ):
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:>11}: median {statistics.median(values):.2f} s ({shown})")


if __name__ == "__main__":
    main()
