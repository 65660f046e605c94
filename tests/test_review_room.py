"""The reviews in the room (server/process/reviews.py, server/routes/reviews.py): who may ask for a
review of which seat, the pool's bounds, and a review stored in the database."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import Player, RoomServer, create_table, start_table
from typer.testing import CliRunner
from waits import seconds

from burraco.bots.review import DealReview
from burraco.cli import app
from burraco.server.door.limits import Limits
from burraco.server.process.reviews import ReviewPool, ReviewSettings
from burraco.server.table.errors import RoomError
from burraco.storage import ReviewRow, Store

#: Reviews small enough for a test: a few sampled deals a decision.
QUICK = ReviewSettings(workers=1, queue=4, per_person=1, seconds=0.05, worlds=4)


async def _play_until(player: Player, done: Any, rng: random.Random) -> dict[str, Any]:
    while True:
        message = await player.next()
        if done(message):
            return message
        if message["type"] == "state" and message["legal"]:
            action = rng.choice(message["legal"])
            await player.send({"type": "action", "action": action, "version": message["version"]})


def _wait_stored(http: httpx.Client, table: str, count: int, token: str = "") -> dict[str, Any]:
    deadline = time.monotonic() + seconds(120)
    while time.monotonic() < deadline:
        answer = http.get(f"/api/tables/{table}/reviews", params={"token": token}).json()
        assert not [j for j in answer["jobs"] if j["status"] == "failed"], answer
        if len(answer["reviews"]) >= count:
            return dict(answer)
        time.sleep(0.1)
    raise AssertionError(f"no {count} reviews stored in time")


def test_who_may_ask_for_a_review_and_who_may_read_it(db: str, tmp_path: Path) -> None:
    rng = random.Random(4)
    with RoomServer(db, reviews=QUICK) as server:
        table = create_table(server, deals=2, move_seconds=0)
        start_table(server, table)
        tid, token = table["table"], table["token"]
        url = f"/api/tables/{tid}/reviews"

        async def to_deal_two() -> None:
            async with Player(server, tid, token) as anna:
                await _play_until(
                    anna, lambda m: m["type"] == "state" and m["view"]["deal"] == 2, rng
                )

        asyncio.run(to_deal_two())
        with server.http() as http:
            # In play: a player, their own seat, a deal that has ended.
            other = http.post(url, json={"deal": 1, "seat": 1, "token": token})
            assert other.status_code == 403, other.text
            assert "own seat" in other.json()["detail"]
            nobody = http.post(url, json={"deal": 1, "seat": 0})
            assert nobody.status_code == 403
            running = http.post(url, json={"deal": 2, "seat": 0, "token": token})
            assert running.status_code == 409 and "not ended" in running.json()["detail"]
            no_seat = http.post(url, json={"deal": 1, "seat": 3, "token": token})
            assert no_seat.status_code in (400, 422)
            asked = http.post(url, json={"deal": 1, "seat": 0, "token": token})
            assert asked.status_code == 202, asked.text
            assert asked.json()["job"]["status"] in ("queued", "running")
            # The same question again is the same job, not a second one.
            again = http.post(url, json={"deal": 1, "seat": 0, "token": token})
            assert again.json()["job"]["id"] == asked.json()["job"]["id"]
            # Nobody else sees a review of a match in play, not even that it is asked for.
            outside = http.get(url).json()
            assert outside["reviews"] == [] and outside["jobs"] == []
            mine = _wait_stored(http, tid, 1, token)
            review = DealReview.from_dict(mine["reviews"][0])
            assert (review.deal, review.seat, review.worlds) == (1, 0, 4)
            assert review.decisions and all(d.index >= 1 for d in review.decisions)
            assert http.get(url).json()["reviews"] == []

        async def to_the_end() -> None:
            async with Player(server, tid, token) as anna:
                await _play_until(anna, lambda m: m["type"] == "match_over", rng)

        asyncio.run(to_the_end())
        with server.http() as http:
            # Over, the record public: anyone, any seat, and every review is public.
            anyone = http.post(url, json={"deal": 1, "seat": 1})
            assert anyone.status_code == 202, anyone.text
            everyone = _wait_stored(http, tid, 2)
            assert sorted(r["seat"] for r in everyone["reviews"]) == [0, 1]
            record = http.get(f"/api/tables/{tid}/record").text
        # The command on the same record, budget and seed gives the room's very figures.
        path = tmp_path / "game.txt"
        path.write_text(record)
        command = ["review", str(path), "--seat", "1", "--deal", "1", "--worlds", "4", "--json"]
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        ours = json.loads(result.stdout[result.stdout.index("[") :])[0]
        room = next(r for r in everyone["reviews"] if r["seat"] == 1)
        for review in (ours, room):
            review.pop("elapsed")
            review.pop("seconds")
        assert ours == room
        # Stored in the database, the room's own table of reviews.
        stored = Store(db).reviews(tid)
        assert [(r.deal, r.seat) for r in stored] == [(1, 0), (1, 1)]


def test_a_person_has_a_limit_of_reviews_at_once(db: str) -> None:
    rng = random.Random(6)
    with RoomServer(db, reviews=QUICK) as server:
        table = create_table(server, deals=1, move_seconds=0)
        start_table(server, table)

        async def play() -> None:
            async with Player(server, table["table"], table["token"]) as anna:
                await _play_until(anna, lambda m: m["type"] == "match_over", rng)

        asyncio.run(play())
        url = f"/api/tables/{table['table']}/reviews"
        with server.http() as http:
            assert http.post(url, json={"deal": 1, "seat": 0}).status_code == 202
            second = http.post(url, json={"deal": 1, "seat": 1})
            assert second.status_code == 429, second.text
            assert second.headers.get("Retry-After")
            _wait_stored(http, table["table"], 1)
            # Once the first is done, the next may be asked for.
            assert http.post(url, json={"deal": 1, "seat": 1}).status_code == 202


def test_reads_of_reviews_are_limited_per_address_and_a_full_queue_refuses_first(
    db: str,
) -> None:
    """Issue 32: ``GET .../reviews`` had no per-address rate (a flood from 20 addresses
    pushed the players' p99 to 0.4 s), and a POST built the table's record before the
    full queue refused it."""
    busy = dataclasses.replace(QUICK, queue=0)
    with RoomServer(db, reviews=busy, limits=Limits(read_reviews="5/minute")) as server:
        table = create_table(server, deals=1, move_seconds=0)
        start_table(server, table)
        url = f"/api/tables/{table['table']}/reviews"
        with server.http() as http:
            reads = [http.get(url) for _ in range(6)]
            assert [r.status_code for r in reads] == [200] * 5 + [429]
            assert reads[-1].json()["code"] == "too_many" and reads[-1].headers["Retry-After"]
            other = httpx.Client(
                base_url=server.url, transport=httpx.HTTPTransport(local_address="127.0.0.2")
            )
            assert other.get(url).status_code == 200  # another address has its own count
            # The queue is full: refused before the table is read (a table nobody has,
            # a deal in play: the queue answers first, and no record is built).
            for where in (url, "/api/tables/t-nothing/reviews"):
                asked = http.post(where, json={"deal": 1, "seat": 0, "token": table["token"]})
                assert (asked.status_code, asked.json()["code"]) == (503, "reviews_busy")


def test_a_tables_stored_reviews_are_read_from_the_database_once_a_while() -> None:
    """The reviews a flood of reads asks for are read and parsed once every
    ``ReviewPool.CACHED`` seconds, not at every read; one this process stores shows at once."""

    async def check() -> None:
        store = Store("sqlite://")
        from burraco.storage import TableRow

        store.create_table(
            TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "over", 0.0, 0.0)
        )
        pool = ReviewPool(store, ReviewSettings())
        now = [0.0]
        pool.clock = lambda: now[0]
        try:
            store.save_review(ReviewRow("t-1", 1, 0, '{"a": 1}', 1.0))
            first = pool.stored("t-1")
            assert first == [(1, 0, {"a": 1})]
            # Another process stores one: this one reads it after CACHED seconds.
            store.save_review(ReviewRow("t-1", 1, 1, '{"a": 2}', 2.0))
            assert pool.stored("t-1") is first
            now[0] = ReviewPool.CACHED
            assert [seat for _, seat, _ in pool.stored("t-1")] == [0, 1]
            # A full queue refuses a new review, not one stored already (its answer is there).
            full = ReviewPool(store, ReviewSettings(queue=0))
            full.admit("t-1", 1, 1, "anna")
            with pytest.raises(RoomError) as busy:
                full.admit("t-1", 2, 1, "anna")
            assert busy.value.code == "reviews_busy"
            await full.close()
        finally:
            await pool.close()

    asyncio.run(check())


def test_the_pool_takes_tables_in_turn_and_caps_its_queue() -> None:
    async def check() -> None:
        store = Store("sqlite://")
        pool = ReviewPool(store, ReviewSettings(queue=4, per_person=3))
        try:
            a = [pool.submit("A", "", 1, seat, f"a{seat}") for seat in range(3)]
            b = pool.submit("B", "", 1, 0, "b")
            # Four wait: the fifth is refused, whoever asks.
            with pytest.raises(RoomError) as busy:
                pool.submit("C", "", 1, 0, "c")
            assert busy.value.status == 503 and busy.value.retry_after
            # Table A asked first and thrice: B's one request comes second, not fourth.
            order = [pool._next() for _ in range(4)]
            assert order == [a[0], b, a[1], a[2]]
        finally:
            await pool.close()

    asyncio.run(check())


def test_a_person_past_the_limit_is_refused_another_is_not() -> None:
    async def check() -> None:
        store = Store("sqlite://")
        pool = ReviewPool(store, ReviewSettings(queue=10, per_person=2))
        try:
            pool.submit("A", "", 1, 0, "anna")
            pool.submit("B", "", 1, 0, "anna")
            with pytest.raises(RoomError) as limit:
                pool.submit("C", "", 1, 0, "anna")
            assert limit.value.status == 429
            pool.submit("C", "", 1, 0, "bruno")
        finally:
            await pool.close()

    asyncio.run(check())


def test_the_store_keeps_a_seats_first_review(tmp_path: Any) -> None:
    from burraco.storage import TableRow

    store = Store(f"sqlite:///{tmp_path / 'room.db'}")  # migrated: the reviews' migration
    store.create_table(TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "over", 0.0, 0.0))
    store.save_review(ReviewRow("t-1", 1, 0, '{"a": 1}', 1.0))
    store.save_review(ReviewRow("t-1", 1, 0, '{"a": 2}', 2.0))
    store.save_review(ReviewRow("t-1", 1, 1, '{"a": 3}', 3.0))
    assert [(r.seat, r.data) for r in store.reviews("t-1")] == [(0, '{"a": 1}'), (1, '{"a": 3}')]
    assert store.reviews("t-2") == []


def test_the_workers_run_below_the_room() -> None:
    """A worker starts as the pool starts it (server/process/reviews.py): niced by the settings'
    increment, so the room's own process goes first on a shared core."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from burraco.server.process.reviews import _start_worker

    context = multiprocessing.get_context("spawn")
    start = (None, 15, os.getpid())
    with ProcessPoolExecutor(
        1, mp_context=context, initializer=_start_worker, initargs=start
    ) as workers:
        niceness = workers.submit(os.nice, 0).result(timeout=seconds(60))
        policy = workers.submit(os.sched_getscheduler, 0).result(timeout=seconds(60))
    assert niceness == min(19, os.nice(0) + 15)
    assert policy == os.SCHED_IDLE
