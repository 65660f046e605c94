"""How long the room takes to stop on SIGTERM with ~300 tables just made.

Run: ``python bench/sigterm.py [--tables 300] [--runs 5]``

Each run starts ``burraco serve`` with its default settings (but the pace of new tables) in a child process (a fresh
SQLite file, pinned to core 0 when the OS allows), makes ``--tables`` tables from as
many loopback addresses as the cap per creator asks (127.20.x.y), starts every other
one against bots (a 1 s move clock nobody answers: bots take over, as far as the room
lets them) and leaves the rest waiting, then sends SIGTERM at once and times the exit.
The bound is 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from abuse import _pin, client, free_port, wait_listening

#: Tables one address holds (the room's default ``tables_per_creator``).
PER_ADDRESS = 3


async def make_tables(url: str, tables: int) -> int:
    """``tables`` tables, every other one started; how many the room made."""
    made = 0

    async def address(i: int, count: int) -> None:
        nonlocal made
        async with client(url, f"127.20.{i // 250}.{i % 250 + 1}") as http:
            k = 0
            deadline = time.time() + 60
            while k < count and time.time() < deadline:
                answer = await http.post("/api/tables", json={"name": "Anna", "move_seconds": 1})
                if answer.status_code != 200:
                    await asyncio.sleep(0.5)  # busy a moment: the room's loop fell behind
                    continue
                made += 1
                k += 1
                if k % 2 == 1:
                    seat = answer.json()
                    await http.post(
                        f"/api/tables/{seat['table']}/start", json={"token": seat["token"]}
                    )

    addresses = -(-tables // PER_ADDRESS)
    counts = [min(PER_ADDRESS, tables - i * PER_ADDRESS) for i in range(addresses)]
    await asyncio.gather(*(address(i, n) for i, n in enumerate(counts)))
    return made


def run(tables: int) -> tuple[int, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "burraco.cli", "serve", "--port", str(port)]
        command += ["--database-url", f"sqlite:///{Path(folder) / 'sigterm.db'}"]
        # Its tables come at once (the pace of new tables, a burst then 20 a second, would
        # spread them over half a minute: bench/abuse.py measures it).
        pace = {"BURRACO_NEW_TABLES_PER_SECOND": "0"}
        server = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, preexec_fn=_pin(0), env=os.environ | pace
        )
        try:
            wait_listening(url, server)
            made = asyncio.run(make_tables(url, tables))
            began = time.perf_counter()
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
            return made, time.perf_counter() - began
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    _pin(1)()
    took = []
    for i in range(args.runs):
        made, seconds = run(args.tables)
        took.append(seconds)
        print(f"run {i + 1}: {made} tables made, SIGTERM to exit {seconds:.2f} s", flush=True)
    print(f"\nworst {max(took):.2f} s, best {min(took):.2f} s (bound: 5 s)")


if __name__ == "__main__":
    main()
