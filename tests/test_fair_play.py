"""Fair play (issue 33 §3): no hint, coach or analysis of a seat during a rated match or a
tournament match, refused by the room itself with a code the page says in its language;
unrated tables keep their hints, and once the match is over the analysis is open again.

The coach asks with the hint message, so the refused hint covers it too.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from roomserver import Player, RoomServer, create_table, start_table
from test_accounts import cookie_header, sign_up
from test_review_room import QUICK, _play_until


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'room.db'}"


class AccountPlayer(Player):
    """A seat held by an account: its socket opens with the account's session cookie."""

    def __init__(self, server: RoomServer, table: str, token: str, client: httpx.Client) -> None:
        super().__init__(server, table, token)
        self.cookie = cookie_header(client)

    async def __aenter__(self) -> AccountPlayer:
        self.socket = await websockets.connect(self.url, additional_headers={"Cookie": self.cookie})
        return self


async def _hint_answer(player: Player) -> dict[str, Any]:
    await player.send({"type": "hint"})
    while True:
        message = await player.next(timeout=60)
        if message["type"] in ("hint", "error"):
            return message


def test_a_rated_match_refuses_hints_and_analysis_until_it_is_over(db: str) -> None:
    rng = random.Random(3)
    with RoomServer(db, reviews=QUICK, hint_seconds=0.1) as server:
        anna = sign_up(server, "Anna")
        made = anna.post(
            "/api/tables",
            json={"name": "Anna", "players": 2, "deals": 2, "move_seconds": 0} | {"rated": True},
        )
        assert made.status_code == 200, made.text
        table = made.json()
        tid = table["table"]
        url = f"/api/tables/{tid}/reviews"

        async def deal_one() -> None:
            async with AccountPlayer(server, tid, table["token"], anna) as player:
                first = await player.until("state")
                assert first["table"]["hints_closed"] == "rated"
                assert anna.post(f"/api/tables/{tid}/start", json={}).status_code == 200
                state = await _play_until(
                    player, lambda m: m["type"] == "state" and m["legal"], rng
                )
                refused = await _hint_answer(player)
                assert refused["type"] == "error" and refused["code"] == "no_hints_rated"
                assert "rated match" in refused["message"]
                move = {"action": rng.choice(state["legal"]), "version": state["version"]}
                await player.send({"type": "action"} | move)
                await _play_until(
                    player, lambda m: m["type"] == "state" and m["view"]["deal"] == 2, rng
                )

        asyncio.run(deal_one())
        # Deal 1 is over, the match is not: her own seat's analysis is refused too.
        asked = anna.post(url, json={"deal": 1, "seat": 0, "token": table["token"]})
        assert asked.status_code == 403 and asked.json()["code"] == "no_hints_rated", asked.text
        listed = anna.get(url, params={"token": table["token"]})
        assert listed.status_code == 403 and listed.json()["code"] == "no_hints_rated"

        async def to_the_end() -> None:
            async with AccountPlayer(server, tid, table["token"], anna) as player:
                await _play_until(player, lambda m: m["type"] == "match_over", rng)

        asyncio.run(to_the_end())
        # Over: the analysis is open as at any table.
        after = anna.post(url, json={"deal": 1, "seat": 0})
        assert after.status_code == 202, after.text
        assert anna.get(url).status_code == 200


def _tournament_table(http: httpx.Client) -> tuple[str, str]:
    """A round-robin's first table, in play: its room id and Anna's token."""
    body = {"name": "Club night", "format": "round-robin", "kind": "individual"}
    made = http.post("/api/tournaments", json=body).json()
    tid, token = made["tournament"], made["token"]
    tokens = {}
    for name in ("Anna", "Bruno"):
        answer = http.post(
            f"/api/tournaments/{tid}/entrants", json={"token": token, "players": [name]}
        )
        assert answer.status_code == 200, answer.text
        tokens[name] = answer.json()["tokens"][0]
    assert http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).status_code == 200
    info = http.get(f"/api/tournaments/{tid}").json()
    return str(info["rounds"][-1]["tables"][0]["room"]), tokens["Anna"]


def test_a_tournament_match_refuses_hints_and_analysis(db: str) -> None:
    with RoomServer(db, hint_seconds=0.1) as server:
        with server.http() as http:
            room, token = _tournament_table(http)

        async def ask() -> None:
            async with Player(server, room, token) as anna:
                state = await anna.until("state")
                assert state["table"]["hints_closed"] == "tournament"
                refused = await _hint_answer(anna)
                assert refused["type"] == "error" and refused["code"] == "no_hints_tournament"

        asyncio.run(ask())
        with server.http() as http:
            listed = http.get(f"/api/tables/{room}/reviews", params={"token": token})
            assert listed.status_code == 403 and listed.json()["code"] == "no_hints_tournament"


def test_an_unrated_table_keeps_its_hints(db: str) -> None:
    rng = random.Random(5)
    with RoomServer(db, hint_seconds=0.1) as server:
        table = create_table(server, move_seconds=0)

        async def ask() -> None:
            async with Player(server, table["table"], table["token"]) as anna:
                first = await anna.until("state")
                assert first["table"]["hints_closed"] is None
                start_table(server, table)
                state = await _play_until(anna, lambda m: m["type"] == "state" and m["legal"], rng)
                hint = await _hint_answer(anna)
                assert hint["type"] == "hint" and hint["action"] in state["legal"]

        asyncio.run(ask())
