"""The history of finished matches (``GET /api/history``, the player page's last
matches): a page of tables with their seats and results, read in one query."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from burraco.storage import Store, TableRow
from burraco.storage.store import ResultRow, SeatRow


def _table(store: Store, n: int, *, status: str = "over", variant: str = "italian") -> str:
    table_id = f"t-{n:03}"
    row = TableRow(table_id, variant, "{}", n, 40, "greedy", True, status, float(n), float(n))
    seats = [
        SeatRow(table_id, 0, f"Anna {n}", "human", "", 1),
        SeatRow(table_id, 1, "greedy bot 1", "bot", ""),
    ]
    store.create_table(row, seats)
    return table_id


def _results(store: Store, table_id: str, finished_at: float, *, anna: bool = True) -> None:
    def result(seat: int, user_id: int | None, outcome: str, points: int) -> ResultRow:
        return ResultRow(
            table_id, seat, user_id, f"seat {seat}", "italian-2", seat, outcome, points,
            3, 1, 0, 0, 1, 1, False, False, None, None, finished_at,
        )  # fmt: skip

    rows = [result(1, None, "loss", 410)]
    if anna:
        rows.insert(0, result(0, 1, "win", 1230))
    store.save_results(rows)


@contextmanager
def _queries(store: Store) -> Iterator[list[str]]:
    said: list[str] = []

    def heard(*args: Any) -> None:
        said.append(str(args[2]))

    event.listen(store.engine, "before_cursor_execute", heard)
    try:
        yield said
    finally:
        event.remove(store.engine, "before_cursor_execute", heard)


def _store() -> Store:
    store = Store("sqlite://")
    store.create_user("Anna", "x")
    return store


def test_a_page_of_the_room_s_history_is_one_query_the_latest_first() -> None:
    store = _store()
    for n in range(1, 31):
        _table(store, n, variant="italian" if n % 3 else "buraco")
        if n % 4:  # some matches ended before results were stored: their seats still show
            _results(store, f"t-{n:03}", n)
    _table(store, 40, status="playing")
    with _queries(store) as said:
        page = store.finished_page(20, 0)
    assert len(said) == 1
    assert [f.table.id for f in page] == [f"t-{n:03}" for n in range(30, 10, -1)]
    assert all([s.seat for s in f.seats] == [0, 1] for f in page)
    assert page[0].seats[0] == SeatRow("t-030", 0, "Anna 30", "human", "", 1)
    assert page[0].results[0].outcome == "win" and page[0].results[1].points == 410
    assert page[2].table.id == "t-028" and page[2].results == {}
    rest = store.finished_page(20, 20)
    assert [f.table.id for f in rest] == [f"t-{n:03}" for n in range(10, 0, -1)]
    buraco = store.finished_page(20, 0, variant="buraco")
    assert [f.table.id for f in buraco] == [f"t-{n:03}" for n in range(30, 0, -3)]


def test_a_player_s_matches_are_a_page_of_their_results_tables_in_one_query() -> None:
    store = _store()
    for n in range(1, 26):
        _table(store, n)
        _results(store, f"t-{n:03}", 100 - n, anna=n % 5 != 0)
    with _queries(store) as said:
        page = store.finished_page(10, 0, user_id=1)
    assert len(said) == 1
    # Anna's latest result first (finished_at falls as n grows); t-005, t-010... had no Anna.
    mine = [n for n in range(1, 26) if n % 5]
    assert [f.table.id for f in page] == [f"t-{n:03}" for n in mine[:10]]
    assert all(set(f.results) == {0, 1} for f in page)
    assert [f.table.id for f in store.finished_page(10, 10, user_id=1)] == [
        f"t-{n:03}" for n in mine[10:]
    ]
    assert store.finished_page(10, 0, user_id=99) == []


def test_the_tables_of_a_player_s_last_matches_are_read_together() -> None:
    store = _store()
    for n in range(1, 6):
        _table(store, n)
        _results(store, f"t-{n:03}", n)
    with _queries(store) as said:
        rows = store.results(table_ids=["t-002", "t-004"])
    assert len(said) == 1
    assert [(r.table_id, r.seat) for r in rows] == [
        ("t-002", 0),
        ("t-002", 1),
        ("t-004", 0),
        ("t-004", 1),
    ]


def test_a_match_s_finish_time_stays_when_its_replay_is_reopened() -> None:
    """History showed a table's last change as its finish time: reopening the replay of a
    table let go of reloaded it, and reloading finished it a second time (and told its
    listeners again). Its finish time is the end of its match, whoever reopens it."""
    import asyncio
    import time

    from burraco.server.accounts.api import finished
    from burraco.server.room import Room

    async def play() -> tuple[float, float, list[int], int]:
        store = Store("sqlite://")
        room = Room(store, bot_delay=0, next_deal_seconds=0)
        heard: list[str] = []

        async def listener(table: Any) -> None:
            heard.append(table.id)

        room.finish_listeners.append(listener)
        table, _ = await room.create_seated(
            "italian", {"deals": 1, "target": None}, [("Anna", "human"), ("greedy bot 1", "bot")]
        )
        before = time.time()
        await room.abandon(table, 0)
        after = time.time()
        shown = [finished(f)["finished_at"] for f in store.finished_page(20, 0)]
        # Let go of (nobody has it open), then reopened by its replay, as after a while.
        assert room.reap(now=time.time() + 10**6) == [table.id]
        room.replay(table.id)
        await asyncio.sleep(0)  # what a reload would announce, announced
        shown += [finished(f)["finished_at"] for f in store.finished_page(20, 0)]
        await room.shutdown()
        return before, after, shown, len(heard)

    before, after, shown, told = asyncio.run(play())
    assert shown[0] == shown[1], "reopening the replay changed the finish time"
    assert int(before * 1000) <= shown[0] <= int(after * 1000) + 1
    assert told == 1, "the match's end was told again when its replay was reopened"
