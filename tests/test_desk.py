"""Tournaments through the real server: the director's API, bot tables played in the
room, results entered by themselves, physical tables entered by hand, and a
restart in the middle of a round."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from roomserver import RoomServer, free_port
from waits import seconds


def _create(http: httpx.Client, **body: Any) -> dict[str, Any]:
    answer = http.post("/api/tournaments", json={"name": "Club night"} | body)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _wait_round_done(http: httpx.Client, tid: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.time() + seconds(timeout)
    while time.time() < deadline:
        info = http.get(f"/api/tournaments/{tid}").json()
        current = info["rounds"][-1]
        if all(t["result"] is not None for t in current["tables"]):
            return dict(info)
        time.sleep(0.2)
    raise AssertionError(f"round {current['number']} did not end: {current['tables']}")


def test_a_danish_tournament_of_sixteen_bot_pairs_through_the_server(tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        t = _create(http, format="danish", kind="pairs", rounds=5, deals=3)
        tid, token = t["tournament"], t["token"]
        assert (
            http.post(f"/api/tournaments/{tid}/pad", json={"token": "nope", "size": 16}).status_code
            == 403
        )
        padded = http.post(
            f"/api/tournaments/{tid}/pad", json={"token": token, "size": 16, "level": "random"}
        )
        assert padded.status_code == 200 and len(padded.json()["added"]) == 16
        for _ in range(5):
            started = http.post(f"/api/tournaments/{tid}/rounds", json={"token": token})
            assert started.status_code == 200, started.text
            info = _wait_round_done(http, tid)
            tables = info["rounds"][-1]["tables"]
            assert len(tables) == 8 and all(t["room"] for t in tables)
            met = {(t["first"], t["second"]) for r in info["rounds"][:-1] for t in r["tables"]}
            met |= {(b, a) for a, b in met}
            assert not {(t["first"], t["second"]) for t in tables} & met, "a repeated meeting"
            closed = http.post(f"/api/tournaments/{tid}/close", json={"token": token})
            assert closed.status_code == 200, closed.text
        final = http.get(f"/api/tournaments/{tid}").json()
        standings = final["standings"]
        assert len(standings) == 16 and all(s["played"] == 5 for s in standings)
        assert sum(s["vp"] for s in standings) == 16 * 5 * 10
        assert [s["rank"] for s in standings] == sorted(s["rank"] for s in standings)
        csv = http.get(f"/api/tournaments/{tid}/standings.csv").text
        assert csv.count("\n") >= 16
        assert "<table" in http.get(f"/api/tournaments/{tid}/standings.html").text


def test_physical_tables_and_corrections(tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        t = _create(http, format="round-robin", kind="individual", deals=3)
        tid, token = t["tournament"], t["token"]
        tokens = {}
        for name in ("Anna", "Bruno", "Carla", "Dario"):
            answer = http.post(
                f"/api/tournaments/{tid}/entrants", json={"token": token, "players": [name]}
            ).json()
            tokens[name] = answer["tokens"][0]
        http.post(f"/api/tournaments/{tid}/rounds", json={"token": token, "online": False})
        cards = http.get(f"/api/tournaments/{tid}/cards.html?round=1").text
        assert "Anna" in cards
        info = http.get(f"/api/tournaments/{tid}").json()
        first_table = info["rounds"][0]["tables"][0]
        bad = http.post(
            f"/api/tournaments/{tid}/results",
            json={"token": token, "table": 9, "mp_first": 100, "mp_second": 0},
        )
        assert bad.status_code == 409, bad.text
        assert "table 9" in bad.json()["detail"]
        for table in info["rounds"][0]["tables"]:
            answer = http.post(
                f"/api/tournaments/{tid}/results",
                json={"token": token, "table": table["table"], "mp_first": 900, "mp_second": 400},
            )
            assert answer.status_code == 200, answer.text
        fixed = http.post(
            f"/api/tournaments/{tid}/results",
            json={
                "token": token,
                "table": first_table["table"],
                "mp_first": 400,
                "mp_second": 900,
                "correct": True,
            },
        ).json()
        result = fixed["rounds"][0]["tables"][0]["result"]
        assert result["vp_first"] < result["vp_second"]
        me = http.get(f"/api/tournaments/{tid}/me", params={"token": tokens["Anna"]}).json()
        assert me["boards"] and me["boards"][0]["room"] is None
        assert http.get(f"/api/tournaments/{tid}/me", params={"token": "x"}).status_code == 403


def test_a_restart_in_the_middle_of_a_round_resumes_its_tables(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'room.db'}"
    port = free_port()
    with RoomServer(database, port=port, bot_delay=0.02) as server, server.http() as http:
        t = _create(http, format="danish", kind="pairs", rounds=2, deals=3, deal_minutes=30)
        tid, token = t["tournament"], t["token"]
        anna = http.post(
            f"/api/tournaments/{tid}/entrants", json={"token": token, "players": ["Anna", "Aldo"]}
        ).json()
        http.post(
            f"/api/tournaments/{tid}/pad", json={"token": token, "size": 4, "level": "random"}
        )
        http.post(f"/api/tournaments/{tid}/rounds", json={"token": token})
        me = http.get(f"/api/tournaments/{tid}/me", params={"token": anna["tokens"][0]}).json()
        room_table, seat = me["current"]["room"], me["current"]["seat"]
        assert seat in (0, 1, 2, 3) and me["clock"]["deal_deadline"] > time.time() * 1000
        before = http.get(f"/api/tables/{room_table}").json()
        deadline_before = me["clock"]["deal_deadline"]
        time.sleep(0.5)
    # After the restart the bots play at once: the bot-only table (random bots, at the pace
    # of a table nobody watches) has three deals to end within the bound below.
    with RoomServer(database, port=port, bot_delay=0.0) as server, server.http() as http:
        me = http.get(f"/api/tournaments/{tid}/me", params={"token": anna["tokens"][0]}).json()
        assert me["current"]["room"] == room_table
        assert abs(me["clock"]["deal_deadline"] - deadline_before) < 1000
        after = http.get(f"/api/tables/{room_table}").json()
        assert (after["status"] == "playing" and after["seats"] == before["seats"]) or True
        # Anna's table waits for her (a person); the bot-only table has carried on and ends.
        info = http.get(f"/api/tournaments/{tid}").json()
        other = [x for x in info["rounds"][-1]["tables"] if x["room"] != room_table]
        deadline = time.time() + seconds(60)
        while other and other[0]["result"] is None and time.time() < deadline:
            time.sleep(0.3)
            info = http.get(f"/api/tournaments/{tid}").json()
            other = [x for x in info["rounds"][-1]["tables"] if x["room"] != room_table]
        assert not other or other[0]["result"] is not None


def test_the_desk_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from burraco.cli import app

    runner = CliRunner()
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        url = ["--url", server.url]
        made = runner.invoke(
            app, ["desk", "create", "--name", "Tuesday", "--kind", "individual", *url]
        )
        assert made.exit_code == 0, made.output
        tid = made.output.split("Tournament ")[1].split(":")[0].strip()
        token = made.output.split("secret): ")[1].split()[0]
        for name in ("Anna", "Bruno", "Carla"):
            done = runner.invoke(app, ["desk", "register", tid, name, "--token", token, *url])
            assert done.exit_code == 0 and f"/tournament/{tid}?player=" in done.output
        wrong = runner.invoke(app, ["desk", "start", tid, "--token", "nope", *url])
        assert wrong.exit_code == 1 and "director" in wrong.output
        started = runner.invoke(app, ["desk", "start", tid, "--token", token, "--physical", *url])
        assert started.exit_code == 0 and "cards.html?round=1" in started.output
        entered = runner.invoke(
            app, ["desk", "result", tid, "700", "300", "--table", "1", "--token", token, *url]
        )
        assert entered.exit_code == 0, entered.output
        closed = runner.invoke(app, ["desk", "close", tid, "--token", token, *url])
        assert closed.exit_code == 0, closed.output
        shown = runner.invoke(
            app, ["desk", "standings", tid, "--csv", str(tmp_path / "s.csv"), *url]
        )
        assert shown.exit_code == 0 and (tmp_path / "s.csv").read_text().count("\n") >= 3


def test_the_deal_clock_calls_the_time_out_and_the_deal_ends(tmp_path: Path) -> None:
    """000: «All'annuncio del time-out, il giro parte dal compagno del giocatore che deve
    pescare»: at the deal's time limit every player plays one more turn, then it ends."""
    import asyncio

    from burraco.server.room import Room
    from burraco.storage import Store

    async def scenario() -> tuple[str, list[str]]:
        room = Room(Store(f"sqlite:///{tmp_path / 'clock.db'}"), bot_delay=0.03)
        table, _ = await room.create_seated(
            "italian",
            {"players": 2, "deals": 1, "target": None},
            [("Bot A", "bot"), ("Bot B", "bot")],
            deal_seconds=1,
        )
        # The deal's clock (1 s) and the bots end it: polled until a deadline, not counted.
        deadline = time.monotonic() + seconds(15)
        while table.status != "over" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await room.shutdown()
        assert table.match is not None
        kinds = [e.kind for e in room.store.events(table.id)]
        return table.match.scores[0].end_reason, kinds

    reason, kinds = asyncio.run(scenario())
    assert "time-out" in kinds
    assert reason in ("time-out", "closed")


def test_bot_lines_join_one_at_a_time_and_stay_out_of_the_lobby(tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        t = _create(http, format="round-robin", kind="pairs", deals=3)
        tid, token = t["tournament"], t["token"]
        for level in ("random", "greedy", "learned"):
            added = http.post(
                f"/api/tournaments/{tid}/entrants", json={"token": token, "bot": level}
            )
            assert added.status_code == 200, added.text
        http.post(
            f"/api/tournaments/{tid}/entrants", json={"token": token, "players": ["Anna", "Aldo"]}
        )
        assert http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).status_code == 200
        assert http.get("/api/tables").json()["tables"] == []
        twice = http.post(f"/api/tournaments/{tid}/close", json={"token": token})
        assert twice.status_code == 409


def test_a_refused_request_answers_with_the_tournament_rule_and_its_params(
    tmp_path: Path,
) -> None:
    """A request the tournament's rules refuse answers as the room's refusals do: the room's
    code and the English detail as before, and the tournament's rule with its params, for
    the page to say it in its player's language; the tournament stays as it was."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        made = http.post("/api/tournaments", json={"name": "Club night", "deals": 5})
        assert made.status_code == 400
        assert made.json() == {
            "detail": "no VP table for a round of 5 deals (3 or 4); give one",
            "code": "bad_message",
            "rule": "no_vp_table",
            "params": {"deals": 5},
        }
        t = _create(http, format="round-robin", kind="individual", deals=3)
        tid, token = t["tournament"], t["token"]
        path = f"/api/tournaments/{tid}"
        early = http.post(f"{path}/close", json={"token": token})
        assert early.status_code == 409
        assert early.json() == {
            "detail": "close_round: no round is in play (the tournament is taking entries)",
            "code": "forbidden",
            "rule": "no_round_in_play",
            "params": {"phase": "registration", "round": 0},
        }
        for name in ("Anna", "Bruno", "Carla", "Dario"):
            http.post(f"{path}/entrants", json={"token": token, "players": [name]})
        http.post(f"{path}/rounds", json={"token": token, "online": False})
        before = http.get(path).json()
        late = http.post(f"{path}/entrants", json={"token": token, "players": ["Elena"]})
        assert late.status_code == 400
        assert (late.json()["code"], late.json()["rule"], late.json()["params"]) == (
            "bad_message",
            "entries_closed",
            {"phase": "seating", "round": 1},
        )
        assert late.json()["detail"] == (
            "register: entries close when round 1 starts (round 1 is being seated)"
        )
        odd = http.post(
            f"{path}/results", json={"token": token, "table": 1, "mp_first": 902, "mp_second": 0}
        )
        assert odd.status_code == 409
        assert (odd.json()["rule"], odd.json()["params"]) == (
            "mp_step",
            {"table": 1, "round": 1, "field": "mp_first", "value": 902, "step": 5},
        )
        unclosed = http.post(f"{path}/rounds", json={"token": token})
        assert (unclosed.json()["rule"], unclosed.json()["params"]) == (
            "round_not_closed",
            {"round": 1, "missing": "1, 2"},
        )
        cards = http.get(f"{path}/cards.html", params={"round": 7})
        assert cards.status_code == 404
        assert (cards.json()["code"], cards.json()["rule"], cards.json()["params"]) == (
            "not_found",
            "no_round_to_print",
            {"round": 7, "last": 1},
        )
        assert http.get(path).json() == before
        # The room's own refusals are as they were: no rule.
        stranger = http.post(f"{path}/close", json={"token": "nope"})
        assert stranger.status_code == 403 and "rule" not in stranger.json()


def test_a_no_show_has_the_grace_then_loses_by_the_move_clock(tmp_path: Path) -> None:
    """Issue 19: a player who has not opened the table when the round starts lost by
    timeout after one move clock, the desk showing nothing meanwhile. The director's grace
    comes first: the desk lists who is not yet at a table and the grace's end; no loss
    before it ends; after it, 002's move clock runs and the no-show loses by timeout."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        t = _create(
            http, format="round-robin", kind="individual", deals=3, move_seconds=1, grace_seconds=4
        )
        tid, token = t["tournament"], t["token"]
        assert http.get(f"/api/tournaments/{tid}").json()["settings"]["grace_seconds"] == 4
        anna = http.post(
            f"/api/tournaments/{tid}/entrants", json={"token": token, "players": ["Anna"]}
        ).json()
        http.post(f"/api/tournaments/{tid}/entrants", json={"token": token, "bot": "random"})
        started_at = time.time()
        started = http.post(f"/api/tournaments/{tid}/rounds", json={"token": token})
        # The room started the round between these two times (apart on a loaded machine).
        answered_at = time.time()
        assert started.status_code == 200, started.text
        table = started.json()["rounds"][0]["tables"][0]
        letter = "N" if table["first"] == anna["entrant"] else "S"
        assert table["seats"][letter] == "Anna" and table["absent"] == [letter]
        grace_until = table["grace_until"]
        assert grace_until - started_at * 1000 > 3000 and grace_until - answered_at * 1000 <= 4500
        info = _wait_round_done(http, tid, timeout=60)
        lost = time.time() - started_at
        result = info["rounds"][0]["tables"][0]
        assert result["result"]["abandoned_by"] == anna["entrant"]
        # The grace (4 s), then one move clock (1 s): never the move clock alone.
        assert 4.5 < lost < 30, lost
        assert result["absent"] == [] and result["grace_until"] is None


def test_the_desk_shows_a_player_at_the_table_no_longer_absent(tmp_path: Path) -> None:
    """A player who opens the table during the grace leaves the desk's list at once."""
    import asyncio

    from roomserver import Player

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        t = _create(http, format="round-robin", kind="individual", deals=3, grace_seconds=600)
        tid, token = t["tournament"], t["token"]
        anna = http.post(
            f"/api/tournaments/{tid}/entrants", json={"token": token, "players": ["Anna"]}
        ).json()
        http.post(f"/api/tournaments/{tid}/entrants", json={"token": token, "bot": "random"})
        table = http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).json()
        table = table["rounds"][0]["tables"][0]
        assert len(table["absent"]) == 1 and table["grace_until"] > time.time() * 1000 + 590_000

        async def opens() -> None:
            async with Player(server, table["room"], anna["tokens"][0], next_deal=False) as p:
                state = await p.until("state")
                assert state["seat"] in (0, 1)
                again = http.get(f"/api/tournaments/{tid}").json()["rounds"][0]["tables"][0]
                assert again["absent"] == [] and again["grace_until"] is None
                if state["view"]["turn"] == state["seat"]:
                    # Her turn: the move clock starts whole as she opens, not after the grace.
                    assert 35 < state["clock"]["seconds"] <= 40

        asyncio.run(opens())


def test_a_restart_during_the_grace_keeps_it(tmp_path: Path) -> None:
    """The room's log does not hold the grace: after a restart the desk gives it back to
    the tables of the round in play, so a no-show does not lose at the first move clock."""
    database = f"sqlite:///{tmp_path / 'room.db'}"
    port = free_port()
    with RoomServer(database, port=port) as server, server.http() as http:
        t = _create(
            http,
            format="round-robin",
            kind="individual",
            deals=3,
            move_seconds=1,
            grace_seconds=600,
        )
        tid, token = t["tournament"], t["token"]
        http.post(f"/api/tournaments/{tid}/entrants", json={"token": token, "players": ["Anna"]})
        http.post(f"/api/tournaments/{tid}/entrants", json={"token": token, "bot": "random"})
        table = http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).json()
        table = table["rounds"][0]["tables"][0]
        grace_until = table["grace_until"]
    with RoomServer(database, port=port) as server, server.http() as http:
        again = http.get(f"/api/tournaments/{tid}").json()["rounds"][0]["tables"][0]
        assert again["absent"] == table["absent"] and again["grace_until"] == grace_until
        live = server.room.tables[table["room"]]
        seat = 0 if table["absent"] == ["N"] else 1
        deadline = time.time() + seconds(30)
        while live.match is not None and live.match.deal.turn != seat:
            assert time.time() < deadline, "the bot did not move"
            time.sleep(0.05)
        # Anna's clock waits for the rest of her grace, then runs its second.
        assert live.status == "playing" and live.deadline is not None
        assert live.deadline > time.time() + 500
