"""The store's reads (``burraco.storage.Store``): each gives back the rows written, as its
row type, in its order, and None or nothing where there is none."""

from __future__ import annotations

from dataclasses import replace

from burraco.storage import Store
from burraco.storage.store import (
    RatingRow,
    ResultRow,
    SeatRow,
    TableRow,
    TournamentRow,
)


def _table(table_id: str, status: str, at: float) -> TableRow:
    return TableRow(table_id, "italian", "", 7, 0, "greedy", False, status, at, at)


def _result(table_id: str, seat: int, user_id: int, at: float) -> ResultRow:
    return ResultRow(
        table_id, seat, user_id, f"P{seat}", "italian-2", seat % 2, "win", 900, 3,
        1, 0, 0, 1, 0, False, True, 1000.0, 1010.0, at, turns=20, bot_turns=2,
    )  # fmt: skip


def test_the_reads_give_back_the_rows_written_in_their_order() -> None:
    store = Store("sqlite://")
    late, early = _table("t2", "waiting", 20.0), _table("t1", "playing", 10.0)
    seats = [SeatRow("t2", 1, "Bruno", "bot", "h1"), SeatRow("t2", 0, "Anna", "human", "h0")]
    store.create_table(late, seats)
    store.create_table(early)
    store.create_table(over := replace(_table("t3", "over", 5.0), updated_at=30.0))
    assert store.table("t2") == late and store.table("nope") is None
    assert store.tables() == [early, late]
    assert store.tables(("over",)) == [over]
    assert [f.table for f in store.finished_page()] == [over]
    assert store.seats("t2") == sorted(seats, key=lambda s: s.seat) and store.seats("t1") == []

    first = TournamentRow("u2", "Tuesday", "{}", "d", "{}", 2.0, 2.0)
    second = TournamentRow("u1", "Friday", "{}", "d", "{}", 1.0, 1.0)
    store.save_tournament(first)
    store.save_tournament(second)
    assert store.tournament("u2") == first and store.tournament("u9") is None
    assert store.tournaments() == [second, first]

    anna = store.create_user("Anna", "hash")
    bruno = store.create_user("Bruno", "hash", language="it")
    assert store.user(anna.id) == anna and store.user(999) is None
    assert store.user_by_name("BRUNO") == bruno and store.user_by_name("Carla") is None
    assert store.users([bruno.id, anna.id, 999]) == {anna.id: anna, bruno.id: bruno}
    assert store.users([]) == {}

    ratings = [
        RatingRow(anna.id, "italian-2", 25.0, 8.0, 3, 1.0),
        RatingRow(anna.id, "buraco-2", 27.0, 7.5, 4, 2.0),
        RatingRow(bruno.id, "italian-2", 24.0, 8.1, 3, 1.0),
    ]
    store.put_ratings(ratings)
    assert store.ratings(anna.id) == [ratings[1], ratings[0]]
    assert store.ratings_for("italian-2", [anna.id, bruno.id]) == {
        anna.id: ratings[0],
        bruno.id: ratings[2],
    }
    assert store.ratings_for("italian-2", []) == {}

    results = [_result("t3", 1, bruno.id, 30.0), _result("t3", 0, anna.id, 30.0)]
    store.save_results(results)
    older = _result("t1", 0, anna.id, 10.0)
    store.save_results([older])
    assert store.results(table_id="t3") == [results[1], results[0]]
    assert store.results(user_id=anna.id) == [results[1], older]
    assert store.results(user_id=anna.id, limit=1, offset=1) == [older]


def test_a_rating_is_replaced_or_added_by_results_and_by_the_bots_matches() -> None:
    """put_ratings and save_results write a rating the same way: the account's rating in
    that game replaced, else added; a match's results stored twice change nothing."""
    store = Store("sqlite://")
    anna = store.create_user("Anna", "hash")
    bruno = store.create_user("Bruno", "hash")
    old = RatingRow(anna.id, "italian-2", 25.0, 8.0, 3, 1.0)
    store.put_ratings([old, RatingRow(anna.id, "buraco-2", 20.0, 8.0, 1, 1.0)])
    newer = replace(old, mu=26.0, matches=4, updated_at=2.0)
    store.put_ratings([newer])
    assert store.ratings_for("italian-2", [anna.id]) == {anna.id: newer}
    after = [
        replace(newer, mu=27.0, matches=5),
        RatingRow(bruno.id, "italian-2", 23.0, 8.2, 1, 3.0),
    ]
    results = [_result("t1", 0, anna.id, 3.0), _result("t1", 1, bruno.id, 3.0)]
    store.create_table(_table("t1", "over", 3.0))
    assert store.save_results(results, after)
    assert store.ratings_for("italian-2", [anna.id, bruno.id]) == {
        anna.id: after[0],
        bruno.id: after[1],
    }
    assert not store.save_results(results, [replace(after[0], mu=99.0)])
    assert store.ratings(anna.id)[1] == after[0]
    assert [r.game for r in store.ratings(anna.id)] == ["buraco-2", "italian-2"]
