"""Seats and tokens (server/table/seats.py): a new table, joining, starting, the seat a
token or an account opens, and the cap on a creator's open tables."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from parts import closed, seats_on, step_on, store_in, stored

from burraco.server.table.errors import RoomError
from burraco.server.table.seats import Seats, hash_token


def test_a_token_opens_its_seat_and_an_accounts_seat_only_for_that_account(
    tmp_path: Path,
) -> None:
    table = stored(store_in(tmp_path), ("human", "human"))
    assert Seats.seat_of(table, "token-1") == 1
    with pytest.raises(RoomError, match="holds no seat"):
        Seats.seat_of(table, "token-9")
    table.seats[1].user_id = 7
    with pytest.raises(RoomError, match="registered player"):
        Seats.seat_of(table, "token-1")  # the token alone, without the account's session
    assert Seats.seat_of(table, "token-1", user_id=7) == 1
    assert Seats.seat_of(table, "", user_id=7) == 1


def test_a_new_table_keeps_only_the_hash_of_its_creators_token(tmp_path: Path) -> None:
    seats = seats_on(step_on(store_in(tmp_path)))
    table, seat, token = seats.create({"name": "Anna", "players": 2}, creator="user-1")
    stored_seats = seats.store.seats(table.id)
    assert seat == 0 and stored_seats[0].token_hash == hash_token(token) != token
    assert [s.kind for s in stored_seats] == ["human", "empty"]
    assert seats.tables[table.id] is table and table.status == "waiting"
    with pytest.raises(RoomError) as refused:
        seats.create({"name": "Anna", "bot": "genius"})
    assert refused.value.code == "bad_message"


def test_a_creator_holds_only_so_many_open_tables(tmp_path: Path) -> None:
    seats = seats_on(step_on(store_in(tmp_path)))
    most = seats.capacity.tables_per_creator
    made = [seats.create({"name": "Anna"}, creator="user-1")[0] for _ in range(most)]
    with pytest.raises(RoomError) as refused:
        seats.create({"name": "Anna"}, creator="user-1")
    assert refused.value.code == "too_many_tables" and refused.value.status == 429
    seats.create({"name": "Bruno"}, creator="user-2")
    del seats.tables[made[0].id]  # one of Anna's went: she may make another
    assert seats.open_by("user-1") == most - 1
    seats.create({"name": "Anna"}, creator="user-1")


def test_a_guest_is_told_the_limit_of_an_address_and_why(tmp_path: Path) -> None:
    """Issue 31: a guest is counted by address; the refusal says the limit, why, and what
    to do, and tells a guest blocked by others' tables at a shared address so."""
    seats = seats_on(step_on(store_in(tmp_path)))
    most = seats.capacity.tables_per_creator
    for _ in range(most):
        seats.create({"name": "Anna"}, creator="address-10.0.0.1")
    with pytest.raises(RoomError) as mine:
        seats.create({"name": "Anna"}, creator="address-10.0.0.1")
    assert mine.value.params == {"n": most, "guest": True, "others": 0}
    assert mine.value.message == (
        f"a guest can keep {most} tables open at a time from one address, to keep room for "
        "everyone: close one of yours (a waiting table nobody has open goes by itself in "
        "a few minutes) or log in, and your account has its own tables"
    )
    # Bruno, at the same club's address, made none of them.
    with pytest.raises(RoomError) as shared:
        seats.create({"name": "Bruno"}, creator="address-10.0.0.1")
    assert shared.value.code == "too_many_tables" and shared.value.status == 429
    assert shared.value.params == {"n": most, "guest": True, "others": most}
    assert f"others playing from your address hold {most} of them" in shared.value.message
    # An account is told its own limit, as before.
    for _ in range(most):
        seats.create({"name": "Carla"}, creator="user-3")
    with pytest.raises(RoomError) as account:
        seats.create({"name": "Carla"}, creator="user-3")
    assert account.value.params == {"n": most}


def test_the_last_seat_taken_starts_the_match(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        seats = seats_on(step)
        table, _, _ = seats.create({"name": "Anna", "players": 2})
        with pytest.raises(RoomError, match="seat 0 is not free"):
            await seats.join(table, {"name": "Bruno", "seat": 0})
        _, seat, token = await seats.join(table, {"name": "Bruno"})
        assert seat == 1 and Seats.seat_of(table, token) == 1
        assert table.status == "playing" and table.match is not None
        assert step.log.store.events(table.id)[0].kind == "start"
        with pytest.raises(RoomError, match="has started"):
            await seats.join(table, {"name": "Carla"})
        await closed(step)

    asyncio.run(scenario())


def test_only_the_creator_starts_and_the_empty_seats_get_bots(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), bot_delay=60.0)
        seats = seats_on(step)
        table, _, token = seats.create({"name": "Anna", "players": 4, "lines": 2})
        _, _, bruno = await seats.join(table, {"name": "Bruno"})
        with pytest.raises(RoomError, match="creator"):
            await seats.start(table, bruno)
        await seats.start(table, token)
        assert [s.kind for s in table.seats] == ["human", "human", "bot", "bot"]
        assert table.status == "playing" and table.version == 1
        await closed(step)

    asyncio.run(scenario())


def test_a_tournaments_table_is_seated_and_started_at_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        seats = seats_on(step)
        mine = hash_token("anna's own")
        table, tokens = await seats.create_seated(
            "italian",
            {"players": 2, "deals": 1, "target": None},
            [("Anna", "human"), ("Bruno", "human")],
            hashes={0: mine},
            tournament="t:1:1",
        )
        assert list(tokens) == [1] and Seats.seat_of(table, "anna's own") == 0
        assert table.status == "playing" and not table.row.takeover
        await closed(step)

    asyncio.run(scenario())
