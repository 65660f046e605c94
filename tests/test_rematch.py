"""The end of a match through the room's API (issue 31): each seat's rating change for the
final sheet, and the rematch a seat of a finished table asks for (one new table for all its
people, the same game, options and bots, counted in the asker's tables)."""

from __future__ import annotations

import asyncio
from typing import Any

from roomserver import Player, RoomServer, create_table, start_table
from test_results import _run, rated_against_greedy

from burraco.server.door.capacity import Capacity


async def _play_out(player: Player) -> None:
    """The seat draws, then discards its last legal card, until the match is over (every
    deal so ends at the stock's end at the latest)."""
    while True:
        message = await player.next(60)
        if message["type"] == "match_over":
            return
        legal = message.get("legal") if message["type"] == "state" else None
        if legal:
            draws = [a for a in legal if a.startswith("draw")]
            discards = [a for a in legal if a.startswith("discard ")]
            action = draws[0] if draws else (discards[-1] if discards else legal[0])
            await player.send({"type": "action", "action": action, "version": message["version"]})


async def _finish(server: RoomServer, tables: list[tuple[str, str]]) -> list[Player]:
    """Every seat (table id, token) plays to the end; their sockets stay open."""
    players = [Player(server, table, token) for table, token in tables]
    for p in players:
        await p.__aenter__()
    await asyncio.gather(*(_play_out(p) for p in players))
    return players


def _rematch(http: Any, table: str, token: str = "") -> Any:
    return http.post(f"/api/tables/{table}/rematch", json={"token": token})


def test_a_rematch_against_a_bot_starts_at_once_and_is_asked_once(db: str) -> None:
    # One open table a creator: the rematch is counted in the asker's tables.
    with RoomServer(db, capacity=Capacity(tables_per_creator=1)) as server:
        table = create_table(server, variant="buraco", deals=1, move_seconds=0, bot="random")
        tid, token = table["table"], table["token"]
        start_table(server, table)
        with server.http() as http:
            early = _rematch(http, tid, token)
            assert early.status_code == 409 and "once the match is over" in early.json()["detail"]

        async def play() -> None:
            for p in await _finish(server, [(tid, token)]):
                await p.__aexit__()

        asyncio.run(play())
        with server.http() as http:
            stranger = _rematch(http, tid, "not-a-seat")
            assert stranger.status_code == 403
            assert stranger.json()["detail"] == "this token holds no seat at this table"
            missing = _rematch(http, "t-nothere", token)
            assert missing.status_code == 404
            answer = _rematch(http, tid, token)
            assert answer.status_code == 200, answer.text
            new = answer.json()
            assert new["seat"] == 0 and new["token"] and new["table"] != tid
            info = http.get(f"/api/tables/{new['table']}").json()
            # The same game, options and bot; nobody else to wait for: it has started.
            assert (info["variant"], info["deals"], info["bot"], info["move_seconds"]) == (
                "buraco",
                1,
                "random",
                0,
            )
            assert info["status"] == "playing"
            assert [s["kind"] for s in info["seats"]] == ["human", "bot"]
            assert info["seats"][0]["name"] == "Anna"
            # Asked again (a second press): the same table, no second seat.
            again = _rematch(http, tid, token).json()
            assert (again["table"], again["seat"]) == (new["table"], None)
            old = http.get(f"/api/tables/{tid}").json()
            assert old["rematch"] == {"table": new["table"], "seat": 0, "name": "Anna"}
            # The rematch is the creator's one open table.
            refused = http.post(
                "/api/tables", json={"variant": "italian", "players": 2, "name": "Anna"}
            )
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_tables"


def test_two_people_press_rematch_and_sit_at_the_same_new_table(db: str) -> None:
    with RoomServer(db) as server:
        table = create_table(server, deals=1, move_seconds=0)
        tid = table["table"]
        with server.http() as http:
            bruno = http.post(f"/api/tables/{tid}/join", json={"name": "Bruno"}).json()

        async def scenario() -> dict[str, Any]:
            players = await _finish(server, [(tid, table["token"]), (tid, bruno["token"])])
            try:
                with server.http() as http:
                    anna_new = _rematch(http, tid, table["token"]).json()
                    # Bruno's socket at the old table hears the offer, with the table to join.
                    offer = await players[1].until("rematch")
                    assert offer == {
                        "type": "rematch",
                        "table": anna_new["table"],
                        "seat": 0,
                        "name": "Anna",
                    }
                    info = http.get(f"/api/tables/{anna_new['table']}").json()
                    # Bruno is a person: his seat waits for him.
                    assert info["status"] == "waiting"
                    bruno_new = _rematch(http, tid, bruno["token"]).json()
                    info = http.get(f"/api/tables/{anna_new['table']}").json()
            finally:
                for p in players:
                    await p.__aexit__()
            assert (bruno_new["table"], bruno_new["seat"]) == (anna_new["table"], 1)
            return dict(info)

        info = asyncio.run(scenario())
        assert [s["name"] for s in info["seats"]] == ["Anna", "Bruno"]
        assert info["status"] == "playing"  # every seat a person's: it started


def test_a_rematch_offer_outlives_a_restart(db: str) -> None:
    """Anna's offer was kept in memory only: after a restart (or once the finished table
    had left memory) Bruno's press made a second new table, and Anna waited alone at
    hers. The offer, and who joined it, are events of the finished table's log."""
    with RoomServer(db) as server:
        table = create_table(server, deals=1, move_seconds=0)
        tid = table["table"]
        with server.http() as http:
            bruno = http.post(f"/api/tables/{tid}/join", json={"name": "Bruno"}).json()

        async def play() -> None:
            for p in await _finish(server, [(tid, table["token"]), (tid, bruno["token"])]):
                await p.__aexit__()

        asyncio.run(play())
        with server.http() as http:
            anna_new = _rematch(http, tid, table["token"]).json()
    with RoomServer(db) as server, server.http() as http:
        old = http.get(f"/api/tables/{tid}").json()
        assert old["rematch"] == {"table": anna_new["table"], "seat": 0, "name": "Anna"}
        bruno_new = _rematch(http, tid, bruno["token"]).json()
        assert (bruno_new["table"], bruno_new["seat"]) == (anna_new["table"], 1)
        info = http.get(f"/api/tables/{anna_new['table']}").json()
        assert [s["name"] for s in info["seats"]] == ["Anna", "Bruno"]
    # Bruno's joining is kept too: a second press after another restart seats nobody again.
    with RoomServer(db) as server, server.http() as http:
        again = _rematch(http, tid, bruno["token"]).json()
        assert (again["table"], again["seat"]) == (anna_new["table"], None)


def test_the_ratings_of_a_table_arrive_when_its_results_are_stored(db: str) -> None:
    # A room plays a rated match to its end, its results stored by the finish listener.
    rated = _run(rated_against_greedy, db)
    with RoomServer(db) as server, server.http() as http:
        found = http.get(f"/api/tables/{rated}/ratings").json()
        assert found["ready"] and found["rated"]
        assert [s["name"] for s in found["seats"]] == ["Anna", "greedy bot 1"]
        anna, bot = found["seats"]
        assert anna["before"] == 1000 and anna["seat"] == 0
        for seat in (anna, bot):
            assert seat["change"] == seat["after"] - seat["before"]
        # A win raises and a loss lowers: one up, the other down.
        assert (anna["change"] > 0) != (bot["change"] > 0)
        # Not over yet: nothing to show; unrated: ready with no change; no table: 404.
        waiting = create_table(server, name="Bruno")["table"]
        assert http.get(f"/api/tables/{waiting}/ratings").json() == {
            "ready": False,
            "rated": False,
            "seats": [],
        }
        assert http.get("/api/tables/t-nothere/ratings").status_code == 404
