"""The bot API's pace: a bot account's program playing whole matches against a house bot
over the room's own protocol (docs/bots.md), on ``burraco serve`` in a process of its own.

Run: ``python bench/bots.py [--matches 5] [--opponent random]``

For two choosers (plain text: the first meld, else draw, else the first discard; and the
house greedy bot through the client, which asks the seat's position before each decision)
it reports the matches' wall time (the house bot's moves, the room's storing and telling
included), the program's decisions and how many a second, and how long its chooser took
a decision (the greedy one's includes reading the position into the engine's view).
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
from typing import Any

import httpx

from burraco.client import house, run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def plain(view: dict[str, Any], legal: list[str]) -> str:
    melds = [a for a in legal if a.startswith(("meld", "extend"))]
    if melds:
        return melds[0]
    if "draw" in legal:
        return "draw"
    return next((a for a in legal if a.startswith("discard")), legal[0])


class Timed:
    """A chooser that times itself."""

    def __init__(self, choose: Any) -> None:
        self.choose = choose
        self.position = getattr(choose, "position", False)
        self.seconds: list[float] = []

    def __call__(self, view: dict[str, Any], legal: list[str]) -> str:
        started = time.perf_counter()
        try:
            return str(self.choose(view, legal))
        finally:
            self.seconds.append(time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--opponent", default="random")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = [
            sys.executable, "-m", "burraco.cli", "serve", "--port", str(port),
            "--database-url", f"sqlite:///{Path(tmp) / 'room.db'}", "--bot-delay", "0",
        ]  # fmt: skip
        served = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(f"{url}/api/variants", timeout=2)
                    break
                if time.monotonic() > deadline:
                    raise SystemExit("the room did not start")
                time.sleep(0.1)
            http = httpx.Client(base_url=url, timeout=30)
            csrf = http.post(
                "/api/account/signup", json={"name": "Bench", "password": "a long password"}
            ).json()["csrf"]
            for name, choose in (("plain", plain), ("greedy", house("greedy"))):
                token = http.post(
                    "/api/account/bots",
                    json={"name": f"Bench{name}"},
                    headers={"X-CSRF-Token": csrf},
                ).json()["token"]
                timed = Timed(choose)
                table = {"players": 2, "deals": 1, "bot": args.opponent}
                started = time.perf_counter()
                done = asyncio.run(
                    run(timed, url=url, token=token, matches=args.matches, create=table, poll=0.05)
                )
                wall = time.perf_counter() - started
                decisions = len(timed.seconds)
                print(
                    f"{name:>6}: {len(done)} matches of one deal against {args.opponent} in "
                    f"{wall:.1f} s ({wall / len(done):.2f} s a match); {decisions} decisions, "
                    f"{decisions / wall:.0f} a second; the chooser "
                    f"{1000 * statistics.mean(timed.seconds):.2f} ms a decision "
                    f"(median {1000 * statistics.median(timed.seconds):.2f})"
                )
        finally:
            served.terminate()
            served.wait()


if __name__ == "__main__":
    main()
