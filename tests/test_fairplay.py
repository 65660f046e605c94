"""Fair play of rated matches (server/results/fairplay.py): no rated match among one owner's
accounts, a daily cap of rated matches between the same opponents, and a farm detector
that flags an account and freezes its rating until a moderator decides."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, TypeVar
from unittest.mock import patch

import httpx
from roomserver import RoomServer
from test_accounts import sign_up
from test_results import ONE_DEAL, _run, _stored
from typer.testing import CliRunner

from burraco.cli import app
from burraco.server.results.fairplay import DAY, Game, farm_signal
from burraco.server.room import LiveTable, Room
from burraco.server.table.views import match_over
from burraco.storage import RatingRow, Store

T = TypeVar("T")


async def _match(room: Room, store: Store, ids: tuple[int, int], throw: bool = False) -> LiveTable:
    """A rated match of two accounts played by bots; with ``throw`` the second abandons
    at once (a farm's loser)."""
    table, _ = await room.create_seated(
        "italian",
        ONE_DEAL,
        [("A", "bot"), ("B", "bot")],
        users={0: ids[0], 1: ids[1]},
        rated=True,
    )
    if throw:
        await room.abandon(table, 1)
    await _stored(store, table)
    return table


def test_a_person_and_his_bot_and_two_bots_of_one_owner_play_unrated_and_are_told_why() -> None:
    async def scenario(room: Room, store: Store) -> list[Any]:
        owner = store.create_user("Owner", "x")
        one = store.create_user("OwnBotOne", "", kind="bot", owner_id=owner.id)
        two = store.create_user("OwnBotTwo", "", kind="bot", owner_id=owner.id)
        seen = []
        for pair in ((owner.id, one.id), (one.id, two.id)):
            table = await _match(room, store, pair, throw=True)
            rows = store.results(table_id=table.id)
            stored = store.table(table.id)
            assert stored is not None
            seen.append(
                (
                    table.info()["unrated"],
                    match_over(table)["unrated"],
                    stored.rated,
                    stored.unrated,
                    [r.rated for r in rows],
                )
            )
        seen.append([store.ratings(i) for i in (owner.id, one.id, two.id)])
        return seen

    first, second, ratings = _run(scenario)
    assert first == ("same_owner", "same_owner", False, "same_owner", [False, False])
    assert second == first
    assert ratings == [[], [], []]


def test_accounts_of_different_owners_and_the_house_bots_play_rated() -> None:
    async def scenario(room: Room, store: Store) -> tuple[Any, Any]:
        anna = store.create_user("Anna", "x")
        bot = store.create_user("BrunoBot", "", kind="bot", owner_id=store.create_user("B", "x").id)
        table = await _match(room, store, (anna.id, bot.id))
        house = await _match(room, store, (anna.id, room.bot_accounts["greedy"]))
        return table.row.unrated, [r.rated for r in store.results(table_id=house.id)]

    unrated, house_rated = _run(scenario)
    assert unrated is None and house_rated == [True, True]


def test_past_the_daily_cap_the_same_opponents_play_unrated() -> None:
    async def scenario(room: Room, store: Store) -> tuple[list[Any], int, list[Any]]:
        anna, bruno = store.create_user("Anna", "x"), store.create_user("Bruno", "x")
        carla = store.create_user("Carla", "x")
        tables = [await _match(room, store, (anna.id, bruno.id)) for _ in range(3)]
        other = await _match(room, store, (anna.id, carla.id))
        rating = store.ratings_for("italian-2", [anna.id])[anna.id]
        return (
            [(t.row.rated, t.row.unrated, match_over(t)["unrated"]) for t in tables],
            rating.matches,
            [r.rated for r in store.results(table_id=other.id)],
        )

    tables, anna_matches, other = _run(scenario, rated_pair_cap=2)
    assert tables == [(True, None, None), (True, None, None), (False, "pair_cap", "pair_cap")]
    # Two with Bruno and one with Carla, whose pair has its own count.
    assert anna_matches == 3 and other == [True, True]


def test_a_farm_of_accounts_made_together_who_lose_at_once_is_flagged_and_frozen() -> None:
    async def scenario(room: Room, store: Store) -> dict[str, Any]:
        farmer = store.create_user("Farmer", "x")
        feeders = [store.create_user(f"Feeder{i}", "x") for i in range(3)]
        for feeder in feeders:
            for _ in range(5):
                await _match(room, store, (farmer.id, feeder.id), throw=True)
        flag = store.flag_of(farmer.id)
        frozen = store.ratings_for("italian-2", [farmer.id])[farmer.id]
        # Flagged, the account's rating no longer moves, whatever it wins.
        late = store.create_user("Late", "x")
        await _match(room, store, (farmer.id, late.id), throw=True)
        after = store.ratings_for("italian-2", [farmer.id])[farmer.id]
        return {
            "flag": flag,
            "frozen": frozen,
            "after": after,
            "log": [(m.moderator, m.action, m.name) for m in store.moderation_log()],
        }

    got = _run(scenario)
    assert got["flag"] is not None and got["flag"].status == "flagged"
    assert "lost fast" in got["flag"].reason
    assert (got["after"].mu, got["after"].sigma) == (got["frozen"].mu, got["frozen"].sigma)
    assert got["log"] == [("detector", "flag", "Farmer")]


def test_honest_players_who_meet_often_are_not_flagged() -> None:
    """Two people who signed up on different days play five rated matches out. Whoever
    wins them (the bots play the seats, so either may win all five), no game is suspect:
    nobody threw one and the accounts were not made together."""

    async def scenario(room: Room, store: Store) -> list[Any]:
        anna = store.create_user("Anna", "x")
        # Bruno signed up two days before Anna (accounts made together are a farm's sign).
        with patch("burraco.storage.accounts.time.time", return_value=time.time() - 2 * DAY):
            bruno = store.create_user("Bruno", "x")
        for i in range(5):
            await _match(room, store, (anna.id, bruno.id) if i % 2 else (bruno.id, anna.id))
        return [store.flag_of(anna.id), store.flag_of(bruno.id)]

    assert _run(scenario) == [None, None]


def test_the_detector_reads_farms_and_honest_histories() -> None:
    thrown = [Game(f"t{i}", 30.0, (2 + i % 2,), thrown=True) for i in range(8)]
    assert farm_signal(thrown) is not None
    together = [Game(f"t{i}", 30.0, (2,), made_together=True) for i in range(8)]
    assert farm_signal(together) is not None
    # Many honest wins against many opponents, and a few thrown ones: not a farm.
    mixed = [Game(f"h{i}", 30.0, (10 + i,)) for i in range(12)] + thrown[:2]
    assert farm_signal(mixed) is None
    # Friends who meet every day and win and lose in turn.
    friends = [Game(f"f{i}", 25.0 if i % 2 else -24.0, (2,)) for i in range(40)]
    assert farm_signal(friends) is None
    # A small gain is no farm, however it came.
    assert farm_signal(thrown[:3]) is None


def _farm(store: Store) -> tuple[Any, Any]:
    """A farmer flagged by the detector, rated in italian-2, and one of his feeders."""
    farmer = store.create_user("Farmer", "x")
    feeder = store.create_user("Feeder", "x")
    store.put_ratings(
        [
            RatingRow(farmer.id, "italian-2", 40.0, 3.0, 20, 0.0),
            RatingRow(feeder.id, "italian-2", 20.0, 3.0, 20, 0.0),
        ]
    )
    assert store.flag(farmer, "gained 400 of 400 from 1 opponents", time.time())
    return farmer, feeder


def test_the_moderation_commands_list_clear_reset_and_ban_with_an_audit_log(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    store = Store(url)
    farmer, feeder = _farm(store)
    store.create_user("Mara", "x")
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, [*args, "--database-url", url])

    assert run("moderator", "grant", "mara").exit_code == 0
    assert store.user_by_name("Mara").role == "moderator"  # type: ignore[union-attr]
    listed = run("moderation", "list")
    assert listed.exit_code == 0 and "Farmer" in listed.stdout and "gained 400" in listed.stdout
    assert run("moderation", "clear", "Farmer", "--note", "a friend").exit_code == 0
    assert store.flag_of(farmer.id).status == "cleared"  # type: ignore[union-attr]
    assert store.frozen([farmer.id]) == set()
    assert run("moderation", "reset", "farmer").exit_code == 0
    assert store.ratings(farmer.id) == []
    assert run("moderation", "ban", "Feeder").exit_code == 0
    assert store.user(feeder.id).role == "banned"  # type: ignore[union-attr]
    assert [u.name for u, _ in store.leaderboard("italian-2")] == []
    unknown = run("moderation", "ban", "Nobody")
    assert unknown.exit_code == 2 and "no account named 'Nobody'" in unknown.stderr
    log = [(m.moderator, m.action, m.name, m.note) for m in reversed(store.moderation_log())]
    assert log == [
        ("detector", "flag", "Farmer", "gained 400 of 400 from 1 opponents"),
        ("console", "grant", "Mara", ""),
        ("console", "clear", "Farmer", "a friend"),
        ("console", "reset", "Farmer", ""),
        ("console", "ban", "Feeder", ""),
    ]


def test_the_moderation_page_is_a_moderators_and_the_leaderboard_marks_the_flagged(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    store = Store(url)
    farmer, _ = _farm(store)
    with RoomServer(url) as server:
        mara = sign_up(server, "Mara")
        assert mara.get("/api/moderation").status_code == 403
        assert httpx.get(f"{server.url}/api/moderation").status_code == 401
        assert CliRunner().invoke(app, ["moderator", "grant", "Mara", "--database-url", url])
        found = mara.get("/api/moderation").json()
        assert [f["name"] for f in found["flagged"]] == ["Farmer"]
        board = httpx.get(f"{server.url}/api/leaderboard/italian-2?kind=person").json()
        assert [(r["name"], r["review"]) for r in board["rows"]] == [
            ("Farmer", True),
            ("Feeder", False),
        ]
        # A decision without the session's CSRF token is refused; with it, made and logged.
        bare = httpx.post(
            f"{server.url}/api/moderation",
            json={"name": "Farmer", "action": "ban"},
            cookies=dict(mara.cookies),
        )
        assert bare.status_code == 403
        answer = mara.post("/api/moderation", json={"name": "Farmer", "action": "ban"})
        assert answer.status_code == 200 and answer.json()["flagged"] == []
        assert answer.json()["log"][0] | {"at": 0} == {
            "at": 0,
            "moderator": "Mara",
            "action": "ban",
            "name": "Farmer",
            "note": "",
        }
        assert mara.get("/moderation").status_code == 200
    assert store.user(farmer.id).role == "banned"  # type: ignore[union-attr]


def test_a_banned_account_may_not_log_in(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    with RoomServer(url) as server:
        sign_up(server, "Bruno")
        store = Store(url, migrate=False)
        assert CliRunner().invoke(app, ["moderation", "ban", "Bruno", "--database-url", url])
        answer = httpx.post(
            f"{server.url}/api/account/login",
            json={"name": "Bruno", "password": "cuori e picche"},
        )
        assert answer.status_code == 403 and answer.json()["code"] == "banned"
        assert store.user_by_name("Bruno").role == "banned"  # type: ignore[union-attr]
