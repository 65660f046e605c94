"""The lobby's list with thousands of tables: how long a page takes, filtered or not.

Run: ``python bench/lobby.py [--tables 5000] [--repeat 200]``

It fills a room (an in-memory SQLite database) with ``--tables`` open tables of every
game and size, a third of them rated, some with free seats, and times:

* listing the lobby's tables in their order, which the room does at most once a second
  (``lobby_cache``) however many lobbies ask;
* one page of 50, for a few filters: the filters read the live tables, and only the
  page's 50 are described (what each request costs);
* the same through the HTTP route, in process (FastAPI's TestClient).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable

from fastapi.testclient import TestClient

from burraco.server.app import create_app
from burraco.server.door.capacity import Capacity
from burraco.server.room import LobbyQuery, Room
from burraco.variants import SETUPS

QUERIES = {
    "no filter": LobbyQuery(),
    "italian, 4": LobbyQuery(variant="italian", players=4),
    "rated": LobbyQuery(rated=True),
    "free seat, buraco": LobbyQuery(variant="buraco", free=True),
    "page 40": LobbyQuery(page=40),
}


def fill(room: Room, tables: int, rng: random.Random) -> None:
    """Open tables of every setup, a third rated, some already full (started)."""
    owner = room.store.create_user("Owner", "x").id
    for i in range(tables):
        name, players, lines = rng.choice(SETUPS)
        rated = i % 3 == 0
        request = {"variant": name, "players": players, "lines": lines, "name": f"P{i}"}
        table, _, _ = room.create(request | {"rated": rated}, owner if rated else None)
        if rng.random() < 0.3:
            # A few seats taken: the list shows names and kinds.
            for seat in table.seats[1:]:
                seat.name, seat.kind = "Bruno", "human"


def timed(work: Callable[[], object], repeat: int) -> list[float]:
    found = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        found.append((time.perf_counter() - started) * 1000)
    return found


def line(label: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"  {label:<22} median {statistics.median(ms):7.2f} ms   p99 {p99:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    capacity = Capacity(max_tables=args.tables + 10, busy_lag=60.0, new_tables_per_second=0.0)
    app = create_app("sqlite://", bot_delay=0, capacity=capacity)
    room: Room = app.state.room
    started = time.perf_counter()
    fill(room, args.tables, random.Random(1))
    print(f"{args.tables} open tables made in {time.perf_counter() - started:.1f} s")

    def rebuild() -> None:
        room.listing.changed()
        room.listing.listed()

    def describe_all() -> None:
        room.open_tables()

    print("listing the tables (at most once a second):")
    print(line("in order", timed(rebuild, max(5, args.repeat // 10))))
    print(line("every table described", timed(describe_all, max(5, args.repeat // 10))))
    print("one page of 50 (the list made):")
    room.listing.listed()
    for label, query in QUERIES.items():
        print(line(label, timed(lambda q=query: room.lobby(q), args.repeat)))  # type: ignore[misc]
    print("GET /api/tables in process (the list built, JSON out):")
    with TestClient(app) as http:
        asyncio.run(asyncio.sleep(0))
        fill_again = len(room.tables) < args.tables
        if fill_again:  # the startup reloaded nothing: an in-memory database is per connection
            fill(room, args.tables, random.Random(1))
        for label, path in (
            ("no filter", "/api/tables"),
            ("rated, free", "/api/tables?rated=true&free=true"),
            ("italian 4", "/api/tables?variant=italian&players=4"),
        ):
            print(line(label, timed(lambda p=path: http.get(p), args.repeat)))  # type: ignore[misc]


if __name__ == "__main__":
    main()
