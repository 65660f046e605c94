"""Results and ratings of finished tables (burraco.server.results.record), the bots' rating
matches (``burraco ratings``), and the leaderboard and player API."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import websockets
from roomserver import RoomServer
from sqlalchemy import text
from typer.testing import CliRunner
from waits import seconds

from burraco.bots.arena import make_bot
from burraco.bots.learned import LearnedBot
from burraco.cli import app
from burraco.match import Match
from burraco.server.absence import SeatTurns, Tally, absent_seats
from burraco.server.door.capacity import Capacity
from burraco.server.results.ratings import BOT_LEVELS, displayed, game_variant
from burraco.server.results.record import (
    bot_accounts,
    default_bot_ratings,
    match_results,
    rated_results,
    save_table_results,
    seed_bot_ratings,
)
from burraco.server.room import LiveTable, Room
from burraco.server.table.views import match_over
from burraco.storage import Store
from burraco.variants import Variant, variant

T = TypeVar("T")
ONE_DEAL = {"deals": 1, "target": None}


def _run(
    scenario: Callable[[Room, Store], Awaitable[T]], url: str = "sqlite://", **capacity: Any
) -> T:
    """Run a scenario on a room over a database (a fresh one in memory by default), its
    bots without delay; ``capacity``: the room's :class:`Capacity` options."""

    async def main() -> T:
        store = Store(url)
        room = Room(store, bot_delay=0, next_deal_seconds=0, capacity=Capacity(**capacity))
        room.bot_accounts.update(bot_accounts(store))
        try:
            return await scenario(room, store)
        finally:
            await room.shutdown()

    return asyncio.run(main())


async def rated_against_greedy(room: Room, store: Store, language: str = "en") -> str:
    """Anna's rated one-deal match against the greedy level, played by bots to its end and
    its results stored by the finish listener: the table's id (``language``: her
    account's)."""
    anna = store.create_user("Anna", "x", language=language)
    table, _ = await room.create_seated(
        "italian",
        ONE_DEAL,
        [("Anna", "bot"), ("greedy bot 1", "bot")],
        users={0: anna.id, 1: room.bot_accounts["greedy"]},
        rated=True,
    )
    await _stored(store, table)
    return table.id


async def _stored(store: Store, table: LiveTable, timeout: float = 60) -> None:
    """Wait until the table's results are stored."""
    deadline = time.monotonic() + seconds(timeout)
    while time.monotonic() < deadline:
        if store.results(table_id=table.id, limit=1):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"table {table.id} has no results after {timeout} s")


def test_a_rated_match_stores_every_seats_figures_and_moves_ratings() -> None:
    async def scenario(room: Room, store: Store) -> dict[str, Any]:
        anna = store.create_user("Anna", "x")
        bruno = store.create_user("Bruno", "x")
        table, _ = await room.create_seated(
            "italian",
            ONE_DEAL | {"players": 4},
            [("Anna", "bot"), ("Bruno", "bot"), ("greedy bot 2", "bot"), ("Carla", "bot")],
            users={0: anna.id, 1: bruno.id, 2: room.bot_accounts["greedy"]},
            rated=True,
        )
        await _stored(store, table)
        rows = store.results(table_id=table.id)
        ratings = store.ratings_for("italian-4", [anna.id, bruno.id, room.bot_accounts["greedy"]])
        again = save_table_results(store, table)
        after = store.ratings_for("italian-4", [anna.id, bruno.id])
        assert table.match is not None
        return {
            "rows": rows,
            "ratings": ratings,
            "again": again,
            "after": after,
            "match": table.match,
            "ids": (anna.id, bruno.id),
        }

    got = _run(scenario)
    rows, match = got["rows"], got["match"]
    anna_id, bruno_id = got["ids"]
    assert [r.seat for r in rows] == [0, 1, 2, 3]
    assert [r.user_id for r in rows][:2] == [anna_id, bruno_id] and rows[3].user_id is None
    assert {r.game for r in rows} == {"italian-4"}
    assert [r.points for r in rows] == [match.totals[s % 2] for s in range(4)]
    winner = match.winner()
    for r in rows:
        expected = "draw" if winner is None else ("win" if r.line == winner else "loss")
        assert r.outcome == expected
        assert r.deals == 1 and not r.abandoned
    # Partners share their line's figures, taken from the deal's own score.
    score = match.scores[0]
    for line in (0, 1):
        part = next(ls for ls in score.lines if ls.line == line)
        pair = [r for r in rows if r.line == line]
        grades = [g for g, _ in part.burracos]
        for r in pair:
            assert r.burracos_clean + r.burracos_semi + r.burracos_dirty == len(grades)
            assert r.burracos_semi == grades.count("semi-clean")
            assert r.closes == int(score.closer in part.seats)
            assert r.pozzetti == int(match.deals[0].has_pozzetto[line])
    # Accounts are rated (a guest seat is not), from a newcomer's 1000.
    assert [r.rated for r in rows] == [True, True, True, False]
    assert all(r.rating_before == 1000 for r in rows[:3]) and rows[3].rating_before is None
    ratings = got["ratings"]
    assert set(ratings) == {anna_id, bruno_id, *[r.user_id for r in rows[2:3]]}
    assert all(r.matches == 1 for r in ratings.values())
    for r in rows[:3]:
        assert r.user_id is not None
        rating = ratings[r.user_id]
        assert r.rating_after == displayed(rating.mu, rating.sigma)
        if r.outcome == "win":
            assert rating.mu > 25
        elif r.outcome == "loss":
            assert rating.mu < 25
    # A table finished again (a restart) is neither stored nor rated twice.
    assert got["again"] is False
    assert got["after"][anna_id] == ratings[anna_id]


def test_an_unrated_table_stores_results_of_guests_and_rates_nobody() -> None:
    async def scenario(room: Room, store: Store) -> tuple[list[Any], int]:
        table, _ = await room.create_seated(
            "italian", ONE_DEAL, [("Anna", "bot"), ("Bruno", "bot")], rated=False
        )
        await _stored(store, table)
        greedy = room.bot_accounts["greedy"]
        return store.results(table_id=table.id), len(store.ratings(greedy))

    rows, bot_ratings = _run(scenario)
    assert [(r.name, r.user_id, r.rated, r.rating_after) for r in rows] == [
        ("Anna", None, False, None),
        ("Bruno", None, False, None),
    ]
    assert bot_ratings == 0


def test_a_table_of_three_lines_rates_three_sides() -> None:
    async def scenario(room: Room, store: Store) -> tuple[list[Any], Any, dict[int, Any]]:
        people = [store.create_user(name, "x") for name in ("Anna", "Bruno", "Carla")]
        table, _ = await room.create_seated(
            "italian",
            ONE_DEAL | {"players": 3},
            [(p.name, "bot") for p in people],
            users={i: p.id for i, p in enumerate(people)},
            rated=True,
        )
        await _stored(store, table)
        ids = [p.id for p in people]
        return store.results(table_id=table.id), table.match, store.ratings_for("italian-3", ids)

    rows, match, ratings = _run(scenario)
    assert [r.points for r in rows] == list(match.totals)
    assert {r.game for r in rows} == {"italian-3"}
    best = max(match.totals)
    for r in rows:
        assert r.user_id is not None
        mu = ratings[r.user_id].mu
        if r.points == best and match.totals.count(best) == 1:
            assert r.outcome == "win" and mu > 25
        elif r.points == min(match.totals) and match.totals.count(r.points) == 1:
            assert r.outcome == "loss" and mu < 25


@pytest.mark.parametrize("level", ["expert", "learned"])
def test_abandoning_a_rated_table_loses_to_the_bot_level_which_is_rated(level: str) -> None:
    async def scenario(room: Room, store: Store) -> dict[str, Any]:
        anna = store.create_user("Anna", "x")
        table, _, token = room.create(
            {"name": "Anna", "rated": True, "deals": 1, "bot": level}, user_id=anna.id
        )
        await room.start(table.id, token, anna.id)
        bot_seat = table.seats[1]
        await room.abandon(table, 0)
        await _stored(store, table)
        return {
            "bot_user": bot_seat.user_id,
            "seat_row": store.seats(table.id)[1].user_id,
            "rows": store.results(table_id=table.id),
            "anna": store.ratings_for("italian-2", [anna.id])[anna.id],
            "bot": room.bot_accounts[level],
            "bot_rating": store.ratings_for("italian-2", [room.bot_accounts[level]]),
        }

    got = _run(scenario)
    assert got["bot_user"] == got["seat_row"] == got["bot"]
    rows = got["rows"]
    assert [(r.outcome, r.abandoned, r.rated) for r in rows] == [
        ("loss", True, True),
        ("win", False, True),
    ]
    assert got["anna"].mu < 25 < got["bot_rating"][got["bot"]].mu
    assert rows[0].rating_after is not None and rows[0].rating_before is not None
    assert rows[0].rating_after < rows[0].rating_before


def test_a_tournament_table_is_never_rated() -> None:
    async def scenario(room: Room, store: Store) -> list[Any]:
        anna = store.create_user("Anna", "x")
        table, _ = await room.create_seated(
            "italian",
            ONE_DEAL,
            [("Anna", "bot"), ("Bruno", "bot")],
            users={0: anna.id},
            rated=True,
            tournament="cup",
        )
        await _stored(store, table)
        assert store.ratings(anna.id) == []
        return store.results(table_id=table.id)

    rows = _run(scenario)
    assert [r.rated for r in rows] == [False, False]


def test_bot_accounts_are_made_once_and_seeded_with_the_shipped_ratings() -> None:
    store = Store("sqlite://")
    accounts = bot_accounts(store)
    assert sorted(accounts) == sorted(BOT_LEVELS)
    assert bot_accounts(store) == accounts
    assert all(store.user(i).kind == "bot" for i in accounts.values())  # type: ignore[union-attr]
    defaults = {"italian-2": {"greedy": {"mu": 30.0, "sigma": 2.0, "matches": 40}}}
    assert seed_bot_ratings(store, accounts, defaults) == 1
    assert seed_bot_ratings(store, accounts, defaults) == 0  # rated already: kept
    rating = store.ratings_for("italian-2", [accounts["greedy"]])[accounts["greedy"]]
    assert (rating.mu, rating.sigma, rating.matches) == (30.0, 2.0, 40)
    # The shipped file rates every level in the games it holds.
    shipped = default_bot_ratings()
    assert shipped, "bot_ratings.json is shipped"
    for game, levels in shipped.items():
        assert set(levels) == set(BOT_LEVELS)
        # Where the learned bot plays the greedy bot's moves, it has greedy's rating; at
        # Italian Burraco for two it was rated from its own matches.
        same = levels["learned"] == levels["greedy"]
        assert same is not LearnedBot.plays(game_variant(game)), game


def test_the_ratings_command_rates_the_levels_and_writes_the_defaults(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    defaults = tmp_path / "bots.json"
    result = CliRunner().invoke(
        app,
        [
            "ratings",
            "--game",
            "italian-2",
            "--matches",
            "4",
            "--levels",
            "random,greedy",
            "--workers",
            "1",
            "--database",
            url,
            "--defaults-file",
            str(defaults),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "greedy" in result.output and "random" in result.output and "rating" in result.output
    store = Store(url)
    accounts = bot_accounts(store)
    stored = store.ratings_for("italian-2", [accounts["greedy"], accounts["random"]])
    assert {r.matches for r in stored.values()} == {4}
    written = json.loads(defaults.read_text())
    assert written["games"]["italian-2"]["greedy"]["matches"] == 4
    assert written["runs"]["italian-2"]["matches"] == 4
    bad = CliRunner().invoke(app, ["ratings", "--game", "chess-2", "--no-database"])
    assert bad.exit_code == 2 and "no game 'chess-2'" in bad.output


def test_the_leaderboard_and_player_api(db: str) -> None:
    # A room plays a rated match, then stops; the server opens the same database.
    table_id = _run(functools.partial(rated_against_greedy, language="it"), db)
    with RoomServer(db) as server, server.http() as http:
        games = http.get("/api/leaderboard").json()["games"]
        assert {"game": "italian-4", "variant": "italian", "players": 4, "lines": 2} in games
        board = http.get("/api/leaderboard/italian-2").json()
        names = [row["name"] for row in board["rows"]]
        assert "Anna" in names and "greedy" in names and "expert" in names
        assert [row["rank"] for row in board["rows"]] == list(range(1, len(names) + 1))
        ratings = [row["rating"] for row in board["rows"]]
        assert ratings == sorted(ratings, reverse=True)
        assert {row["name"] for row in board["bots"]} == set(BOT_LEVELS)
        assert all(row["bot"] for row in board["bots"])
        people = http.get("/api/leaderboard/italian-2", params={"kind": "person"}).json()
        assert [row["name"] for row in people["rows"]] == ["Anna"]
        missing = http.get("/api/leaderboard/chess-2")
        assert missing.status_code == 404 and missing.json()["code"] == "no_game"

        me = http.get("/api/players/anna").json()
        assert (me["name"], me["kind"], me["language"]) == ("Anna", "person", "it")
        assert [r["game"] for r in me["ratings"]] == ["italian-2"]
        stats = me["statistics"]["games"]["italian-2"]
        assert stats["matches"] == 1 and stats == me["statistics"]["overall"]
        assert stats["wins"] + stats["draws"] + stats["losses"] == 1
        assert stats["points_per_deal"] == me["matches"][0]["points"] / me["matches"][0]["deals"]
        last = me["matches"][0]
        assert last["table"] == table_id and last["rated"] is True
        assert last["change"] == round(last["rating_after"] - last["rating_before"])
        assert [p["account"] for p in last["players"]] == ["Anna", "greedy"]
        assert http.get(last["replay"]).status_code == 200
        assert http.get(last["record"]).status_code == 200
        bot = http.get("/api/players/greedy").json()
        assert bot["kind"] == "bot" and bot["statistics"]["overall"]["matches"] == 1
        nobody = http.get("/api/players/nobody")
        assert nobody.status_code == 404 and nobody.json()["code"] == "no_player"
        assert http.get("/leaderboard").status_code == 200
        assert http.get("/leaderboard/italian-2").status_code == 200
        assert http.get("/leaderboard/chess-2").status_code == 404
        assert http.get("/player/Anna").status_code == 200
        assert http.get("/player/nobody").status_code == 404


def test_a_match_the_log_alone_finishes_gets_its_results_on_restart(tmp_path: Path) -> None:
    """The process stopped between a match's last action and its end (the record, the
    status): the room that rebuilds the table finishes it and stores its results then."""
    url = f"sqlite:///{tmp_path / 'room.db'}"

    table_id = _run(rated_against_greedy, url)
    # As if the process had died before the end: no record, no results, still playing.
    with Store(url).engine.begin() as c:
        for sql in (
            "DELETE FROM results WHERE table_id = :t",
            "DELETE FROM records WHERE table_id = :t",
            "DELETE FROM ratings WHERE user_id IN (SELECT id FROM users WHERE kind = 'person')",
            "UPDATE tables SET status = 'playing' WHERE id = :t",
        ):
            c.execute(text(sql), {"t": table_id})

    async def restart(room: Room, store: Store) -> list[str]:
        await room.startup()
        return [r.outcome for r in store.results(table_id=table_id)]

    outcomes = _run(restart, url)
    assert sorted(outcomes) in (["loss", "win"], ["draw", "draw"])
    store = Store(url)
    assert store.table(table_id).status == "over"  # type: ignore[union-attr]
    anna = store.user_by_name("Anna")
    assert anna is not None and store.ratings(anna.id)[0].matches == 1


# --- ratings only for what the person played (issue 19) ---------------------------------


def test_a_turn_is_a_seats_run_of_moves_in_a_deal_and_the_bots_if_it_made_one() -> None:
    tally = Tally()
    for deal, seat, by_bot in [
        (0, 0, False),  # seat 0 draws and discards: its own turn
        (0, 0, False),
        (0, 1, True),  # seat 1: a bot's turn
        (0, 1, True),
        (0, 0, False),  # seat 0 draws, then its clock runs out and the bot discards
        (0, 0, True),
        (0, 1, False),  # seat 1's person is back; the deal ends on its move
        (1, 1, False),  # and begins with its move: another turn
        (1, 0, True),  # a bot's move after the person's within a turn counts once
        (1, 0, False),
    ]:
        tally = tally.add(deal, seat, by_bot)
    assert tally.seats == (SeatTurns(3, 2), SeatTurns(3, 1))
    assert [s.absent for s in tally.seats] == [True, False]
    # "Most" is more than half; a seat with no turn at all is not absent.
    assert not SeatTurns(40, 20).absent and SeatTurns(40, 21).absent
    assert SeatTurns(1, 1).absent and not SeatTurns(0, 0).absent
    # Only a person's seat can be absent: a bot's own seat is the bot playing.
    assert absent_seats(["human", "bot", "human"], Tally().add(0, 1, True)) == frozenset()
    kinds = ["human", "bot"]
    assert absent_seats(kinds, Tally().add(0, 0, True).add(0, 1, True)) == {0}


def _played(v: Variant, seed: int) -> Match:
    match = Match(v, seed=seed)
    bots = [make_bot("greedy", seed=seat) for seat in range(v.players)]
    while not match.is_over:
        seat = match.deal.turn
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions()))
    return match


def test_an_absent_seat_loses_for_its_line_and_the_lines_that_played_win() -> None:
    match = _played(variant("italian", players=4, deals=1, target=None), 3)
    turns = [SeatTurns(30, 0), SeatTurns(30, 25), SeatTurns(30, 0), SeatTurns(30, 0)]
    rows = match_results(
        match,
        table_id="t",
        names=["Anna", "Bruno", "Carla", "Dino"],
        user_ids=[1, 2, 3, 4],
        finished_at=0.0,
        turns=turns,
        absent={1},
    )
    # Bruno (line 1) let a bot play: he abandoned, his partner Dino loses with him.
    assert [(r.outcome, r.abandoned) for r in rows] == [
        ("win", False),
        ("loss", True),
        ("win", False),
        ("loss", False),
    ]
    assert [(r.turns, r.bot_turns) for r in rows] == [(t.turns, t.bot) for t in turns]
    assert [r.points for r in rows] == [match.totals[s % 2] for s in range(4)]  # as played
    rated, ratings = rated_results(match, rows, {}, 0.0, {1})
    after = {r.user_id: r.mu for r in ratings}
    assert after[1] > 25 and after[3] > 25 and after[2] < 25 and after[4] < 25
    assert all(r.rated for r in rated)
    # Absent on both lines: both lose, and no rating moves (nobody gains from the bots).
    both = match_results(
        match,
        table_id="t",
        names=["Anna", "Bruno", "Carla", "Dino"],
        user_ids=[1, 2, 3, 4],
        finished_at=0.0,
        turns=turns,
        absent={0, 1},
    )
    assert {r.outcome for r in both} == {"loss"}
    assert rated_results(match, both, {}, 0.0, {0, 1}) == (both, [])


async def _absent_anna(room: Room, store: Store) -> tuple[LiveTable, int]:
    """Anna makes a rated table against the greedy bot, starts it, and never plays: her
    clock runs out at once and a bot plays her seat to the end."""
    anna = store.create_user("Anna", "x")
    table, _, token = room.create(
        {"name": "Anna", "rated": True, "deals": 1, "move_seconds": 1}, user_id=anna.id
    )
    await room.start(table.id, token, anna.id)
    await _stored(store, table)
    return table, anna.id


def test_a_person_a_bot_played_for_is_counted_as_abandoned_also_after_a_restart(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"

    async def play(room: Room, store: Store) -> dict[str, Any]:
        table, anna = await _absent_anna(room, store)
        return {
            "id": table.id,
            "turns": table.turns,
            "rows": store.results(table_id=table.id),
            "over": match_over(table),
            "ratings": store.ratings_for("italian-2", [anna, room.bot_accounts["greedy"]]),
            "bot": room.bot_accounts["greedy"],
        }

    got = _run(play, url)
    rows, turns = got["rows"], got["turns"]
    anna, bot = rows
    assert (anna.outcome, anna.abandoned, anna.rated) == ("loss", True, True)
    assert anna.turns == anna.bot_turns == turns.of(0).turns > 0
    assert (bot.outcome, bot.abandoned, bot.turns) == ("win", False, turns.of(1).turns)
    assert anna.rating_after is not None and anna.rating_before is not None
    assert anna.rating_after < anna.rating_before
    assert got["ratings"][anna.user_id].mu < 25 < got["ratings"][got["bot"]].mu
    over = {"seat": 0, "turns": anna.turns, "bot_turns": anna.bot_turns}
    assert got["over"]["absent"] == [over]
    # As if the process had died before the end: the count comes back from the log.
    with Store(url).engine.begin() as c:
        for sql in (
            "DELETE FROM results WHERE table_id = :t",
            "DELETE FROM records WHERE table_id = :t",
            "UPDATE tables SET status = 'playing' WHERE id = :t",
        ):
            c.execute(text(sql), {"t": got["id"]})

    async def restart(room: Room, store: Store) -> tuple[Any, list[Any]]:
        await room.startup()
        return room.table(got["id"]).turns, store.results(table_id=got["id"])

    again, rows = _run(restart, url)
    assert again == turns
    assert [(r.outcome, r.abandoned, r.turns, r.bot_turns) for r in rows] == [
        ("loss", True, anna.turns, anna.bot_turns),
        ("win", False, bot.turns, bot.turns),
    ]


def test_a_person_who_plays_every_turn_is_rated_on_the_match() -> None:
    async def scenario(room: Room, store: Store) -> tuple[list[Any], Match]:
        anna = store.create_user("Anna", "x")
        table, _, token = room.create(
            {"name": "Anna", "rated": True, "deals": 1, "move_seconds": 0}, user_id=anna.id
        )
        await room.start(table.id, token, anna.id)
        me = make_bot("greedy", seed=7)
        match = table.match
        assert match is not None
        deadline = time.monotonic() + seconds(120)
        while not match.is_over and time.monotonic() < deadline:
            if match.deal.turn == 0 and table.pause_until is None:
                action = me.choose(match.view(0), match.legal_actions())
                await room.act(table, 0, str(action), table.version)
            else:
                await asyncio.sleep(0.005)
        await _stored(store, table)
        return store.results(table_id=table.id), match

    rows, match = _run(scenario)
    anna = rows[0]
    assert not anna.abandoned and anna.bot_turns == 0 and anna.turns > 0
    assert anna.rated and anna.outcome == ("win" if match.winner() == 0 else "loss")


@contextlib.contextmanager
def _account(server: RoomServer, name: str) -> Iterator[httpx.Client]:
    """A client logged in to a new account (its session cookie and CSRF token)."""
    with server.http() as client:
        signed = client.post(
            "/api/account/signup", json={"name": name, "password": "cuori e picche"}
        )
        assert signed.status_code == 200, signed.text
        client.headers["X-CSRF-Token"] = signed.json()["csrf"]
        yield client


def _last_match(client: httpx.Client, name: str, timeout: float = 120) -> dict[str, Any]:
    """The player's last finished match, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        matches = client.get(f"/api/players/{name}").json()["matches"]
        if matches:
            return dict(matches[0])
        time.sleep(0.05)
    raise AssertionError(f"{name} has no finished match after {timeout} s")


def _socket(server: RoomServer, client: httpx.Client, table: str, token: str) -> Any:
    """A seat's socket, opened with the account's session."""
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    url = f"{server.ws_url}/ws/{table}?token={token}"
    return websockets.connect(url, additional_headers={"Cookie": cookie})


async def _state(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == "state":
            return message


def test_two_accounts_who_never_open_a_rated_table_gain_nothing_from_the_bots(db: str) -> None:
    """Issue 19's report: two accounts sit at a rated table and never open it; after their
    clocks bots play both seats to the end. Both count as abandoned, a loss, and nobody's
    rating moves (before: one +69, one 901 -> 977, ``abandoned: false``)."""
    with (
        RoomServer(db) as server,
        _account(server, "Anna") as anna,
        _account(server, "Bruno") as bruno,
    ):
        made = anna.post(
            "/api/tables", json={"name": "Anna", "deals": 1, "rated": True, "move_seconds": 1}
        ).json()
        joined = bruno.post(f"/api/tables/{made['table']}/join", json={"name": "Bruno"})
        assert joined.status_code == 200, joined.text
        lines = {"Anna": _last_match(anna, "Anna"), "Bruno": _last_match(bruno, "Bruno")}
        for name, line in lines.items():
            assert line["table"] == made["table"]
            assert (line["outcome"], line["abandoned"]) == ("loss", True)
            assert (line["rated"], line["change"]) == (False, None)
            assert line["absent"] and line["turns"] == line["bot_turns"] > 0
            player = anna.get(f"/api/players/{name}").json()
            assert player["ratings"] == [] and player["statistics"]["overall"]["abandoned"] == 1
        # The bots that played for them played under their seats: no bot level is rated.
        greedy = anna.get("/api/players/greedy").json()
        assert all(m["table"] != made["table"] for m in greedy["matches"])

        async def sheet() -> dict[str, Any]:
            # Anna opens the table after the end: the score sheet says why she lost.
            async with _socket(server, anna, made["table"], made["token"]) as ws:
                return await _state(ws)

        over = asyncio.run(sheet())["match_over"]
        assert over["absent"] == [
            {"seat": seat, "turns": line["turns"], "bot_turns": line["bot_turns"]}
            for seat, line in enumerate(lines.values())
        ]


def test_a_person_who_leaves_after_a_few_turns_loses_to_the_bot_that_played(db: str) -> None:
    """Anna plays three turns of a rated match against the greedy bot, then closes the
    table; a bot plays the rest of her seat. She counts as abandoned and loses rating, the
    greedy bot (which played its own seat) wins, whatever the points."""
    played = 3
    with RoomServer(db) as server, _account(server, "Anna") as anna:
        made = anna.post(
            "/api/tables", json={"name": "Anna", "deals": 1, "rated": True, "move_seconds": 6}
        ).json()
        assert anna.post(f"/api/tables/{made['table']}/start", json={}).status_code == 200

        async def play_and_leave() -> None:
            async with _socket(server, anna, made["table"], made["token"]) as ws:
                turns = 0
                while turns < played:
                    state = await _state(ws)
                    legal = state["legal"]
                    if not legal:
                        continue
                    draws = [a for a in legal if a.startswith("draw")]
                    discards = [a for a in legal if a.startswith("discard ")]
                    action = draws[0] if draws else (discards[-1] if discards else legal[0])
                    await ws.send(
                        json.dumps(
                            {"type": "action", "action": action, "version": state["version"]}
                        )
                    )
                    turns += action.startswith("discard ")

        asyncio.run(play_and_leave())
        mine = _last_match(anna, "Anna")
        assert (mine["outcome"], mine["abandoned"]) == ("loss", True) and mine["absent"]
        assert mine["turns"] - mine["bot_turns"] == played and mine["bot_turns"] > played
        assert mine["rated"] and mine["change"] < 0
        greedy = anna.get("/api/players/greedy").json()["matches"][0]
        assert greedy["table"] == made["table"]
        assert (greedy["outcome"], greedy["abandoned"], greedy["absent"]) == ("win", False, False)
        assert greedy["rated"] and greedy["rating_after"] > greedy["rating_before"]
