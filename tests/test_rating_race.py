"""Two tables of one player end at the same moment on two processes: both ratings count.

Each "process" is a store of its own on one database, finishing its table in a thread
of its own. A hook holds each finish between reading the player's rating and writing
the new one until the other has read too (or, when the other cannot read because the
first holds the player, a short while): without a lock per player both read the same
old rating and the second write loses the first update. The PostgreSQL case is in
test_postgres.py, on the same scenario.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from waits import seconds

from burraco.server.absence import absent_seats
from burraco.server.results import record
from burraco.server.results.record import bot_accounts, match_results, rated_results
from burraco.server.room import LiveTable, Room
from burraco.storage import Store
from burraco.storage.store import RatingRow

#: How long a finish waits at the hook for the other to have read the ratings too.
HOLD = 2.0


async def _two_finished_tables(store: Store) -> tuple[int, list[LiveTable]]:
    """Anna's account at two rated one-deal tables against the greedy bot, both over
    (a room that records no results: nothing is stored yet)."""
    room = Room(store, bot_delay=0, next_deal_seconds=0, results=None)
    room.bot_accounts.update(bot_accounts(store))
    anna = store.create_user("Anna", "x")
    greedy = room.bot_accounts["greedy"]
    tables = []
    try:
        for _ in range(2):
            table, _ = await room.create_seated(
                "italian",
                {"deals": 1, "target": None, "players": 2},
                [("Anna", "bot"), ("greedy bot", "bot")],
                users={0: anna.id, 1: greedy},
                rated=True,
            )
            tables.append(table)
        deadline = time.monotonic() + seconds(60)
        while not all(t.match is not None and t.match.is_over for t in tables):
            assert time.monotonic() < deadline, "the bots did not finish both tables"
            await asyncio.sleep(0.01)
    finally:
        await room.shutdown()
    return anna.id, tables


def finish_at_once(url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Finish two tables of Anna at once through two stores on ``url``: what each finish
    read as her rating, her stored rating, and her rating after either order of the two."""
    first = Store(url)
    anna, tables = asyncio.run(_two_finished_tables(first))
    second = Store(url, migrate=False)
    barrier = threading.Barrier(2, timeout=seconds(HOLD))
    seen: list[RatingRow | None] = []
    real = rated_results

    def held(match: Any, rows: Any, before: Mapping[int, RatingRow], *args: Any) -> Any:
        seen.append(before.get(anna))
        # Broken: the other finish is waiting for this one's player, so go on alone.
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        return real(match, rows, before, *args)

    monkeypatch.setattr(record, "rated_results", held)
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(record.save_table_results, (first, second), tables, (1.0, 2.0)))
    monkeypatch.undo()
    return {
        "done": done,
        "seen": seen,
        "stored": first.ratings_for("italian-2", [anna])[anna],
        "orders": [_in_turn(tables, order, anna) for order in ((0, 1), (1, 0))],
        "results": [len(first.results(table_id=t.id)) for t in tables],
        "anna": [(r.rating_before, r.rating_after) for r in first.results(user_id=anna)],
    }


def _in_turn(tables: list[LiveTable], order: tuple[int, int], anna: int) -> RatingRow:
    """Anna's rating after the two tables rated one after the other in ``order``."""
    before: dict[int, RatingRow] = {}
    for i in order:
        table = tables[i]
        assert table.match is not None
        rows = match_results(
            table.match,
            table_id=table.id,
            names=[s.name for s in table.seats],
            user_ids=[s.user_id for s in table.seats],
            finished_at=0.0,
        )
        absent = absent_seats([s.kind for s in table.seats], table.turns)
        _, ratings = rated_results(table.match, rows, before, 0.0, absent)
        before.update({r.user_id: r for r in ratings})
    return before[anna]


def check_no_update_lost(got: dict[str, Any], close: Callable[[float, float], bool]) -> None:
    assert got["done"] == [True, True] and got["results"] == [2, 2]
    stored = got["stored"]
    # Before the lock per player both read "no rating yet" and the last write won: one
    # match counted, the other's move lost.
    assert stored.matches == 2, f"one rating update was lost: {got['seen']}"
    # The second finish read the rating the first wrote.
    assert got["seen"][0] is None and got["seen"][1] is not None
    assert got["seen"][1].matches == 1
    # Her matches on her page chain: one starts from where the other ended.
    (a_before, a_after), (b_before, b_after) = got["anna"]
    assert b_before == a_after or a_before == b_after, got["anna"]
    assert any(
        close(stored.mu, order.mu) and close(stored.sigma, order.sigma) for order in got["orders"]
    ), "the stored rating is not the two matches applied one after the other"


def test_two_tables_of_one_player_finishing_at_once_on_sqlite_lose_no_rating(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = finish_at_once(db, monkeypatch)
    check_no_update_lost(got, lambda a, b: abs(a - b) < 1e-9)


def test_a_table_finished_at_once_by_two_processes_is_stored_and_rated_once(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failover: the table's old owner and its new one both finish it. One stores it."""
    first = Store(db)
    anna, tables = asyncio.run(_two_finished_tables(first))
    second = Store(db, migrate=False)
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(record.save_table_results, (first, second), tables[:1] * 2))
    assert sorted(done) == [False, True]
    assert first.ratings_for("italian-2", [anna])[anna].matches == 1
    assert len(first.results(table_id=tables[0].id)) == 2


def test_seeding_the_bots_never_replaces_a_rating_a_match_stored_meanwhile(db: str) -> None:
    """Two processes start on a fresh database: one has read that the greedy bot has no
    rating yet when the other's first match rates it; the shipped rating must not
    overwrite the match's."""
    other = Store(db)
    accounts = bot_accounts(other)
    greedy = accounts["greedy"]
    rated = RatingRow(greedy, "italian-2", 27.0, 5.0, 41, 1.0)

    class Starting(Store):
        def ratings_for(self, game: str, user_ids: Any) -> dict[int, RatingRow]:
            found = super().ratings_for(game, user_ids)
            if game == "italian-2":
                other.put_ratings([rated])  # the other process's match, just after the read
            return found

    starting = Starting(db, migrate=False)
    defaults = {"italian-2": {"greedy": {"mu": 30.0, "sigma": 2.0, "matches": 40}}}
    assert record.seed_bot_ratings(starting, accounts, defaults) == 0
    assert starting.ratings_for("italian-2", [greedy]) == {greedy: rated}
