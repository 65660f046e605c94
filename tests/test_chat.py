"""Table chat through the real WebSocket API, on 127.0.0.1.

A message is plain text (an HTML payload stays the same text: the pages show it as
text), cleaned, capped and rate-limited; quick messages travel as codes; the players'
and the spectators' channels never mix; a table or a tournament with chat off refuses
it; a socket that connects hears the last messages of its channel, after a restart too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from roomserver import Player, RoomServer, create_table, start_table
from test_watch import Spectator, assert_no_hand, two_people

from burraco.server.chat import LONGEST, QUICK, ChatEmpty, ChatTooLong, clean_chat

PAYLOAD = "<img src=x onerror=alert(1)><b>hi</b>"


async def said(player: Player | Spectator, message: dict[str, Any]) -> dict[str, Any]:
    """Send one chat message; the chat message or the error that answers it."""
    await player.send({"type": "chat"} | message)
    while True:
        answer = await player.next()
        if answer["type"] in ("chat", "error"):
            return answer


async def hear(player: Player | Spectator, text: str) -> dict[str, Any]:
    """Read until the chat message with ``text``."""
    while True:
        message = await player.next()
        if message["type"] == "chat" and message["text"] == text:
            return message


def test_clean_chat_drops_controls_and_caps_the_length() -> None:
    assert clean_chat(" a\tb\n\nc\x00\x1b[31m \u202eok ") == "a b c[31m ok"
    assert clean_chat(PAYLOAD) == PAYLOAD
    assert clean_chat("é" * LONGEST) == "é" * LONGEST
    for empty in ("", "   ", "\x00\x07", "\u200e\u202e"):
        try:
            clean_chat(empty)
        except ChatEmpty:
            pass
        else:
            raise AssertionError(f"{empty!r} was taken")
    try:
        clean_chat("x" * (LONGEST + 1))
    except ChatTooLong as error:
        assert str(LONGEST) in str(error)
    else:
        raise AssertionError("a long message was taken")


def test_two_players_chat_in_text_capped_and_rate_limited(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table_id, tokens = two_people(server)
        async with (
            Player(server, table_id, tokens[0]) as anna,
            Player(server, table_id, tokens[1]) as bruno,
        ):
            await anna.until("state")
            await bruno.until("state")
            sent = await said(anna, {"text": PAYLOAD})
            heard = await bruno.until("chat")
            assert sent == heard
            assert heard["text"] == PAYLOAD and heard["quick"] is None
            assert heard["channel"] == "players" and heard["seat"] == 0
            assert heard["name"] == "Anna" and isinstance(heard["at"], int)
            quick = await said(bruno, {"quick": "buona_fortuna"})
            assert quick["quick"] == "buona_fortuna" and quick["text"] is None
            assert (await anna.until("chat"))["quick"] == "buona_fortuna"
            refused = {
                "too long": await said(anna, {"text": "x" * (LONGEST + 1)}),
                "empty": await said(anna, {"text": " \x00 "}),
                "no quick": await said(anna, {"quick": "<b>"}),
                "no text": await said(anna, {"text": 5}),
            }
            assert refused["too long"]["code"] == "chat_too_long"
            assert refused["too long"]["params"] == {"max": LONGEST}
            assert f"at most {LONGEST} characters" in refused["too long"]["message"]
            assert refused["empty"]["code"] == "chat_empty"
            assert refused["no quick"]["code"] == "bad_message"
            assert refused["no text"]["code"] == "bad_message"
            # Five messages in ten seconds, then a clear refusal (Anna sent one already).
            for i in range(4):
                assert (await said(anna, {"text": f"message {i}"}))["type"] == "chat"
            fast = await said(anna, {"text": "one too many"})
            assert fast["code"] == "chat_too_fast", fast
            assert "5 per 10 seconds" in fast["message"] and fast["params"]["seconds"] >= 1
            # Bruno's own count is apart from Anna's.
            await bruno.send({"type": "chat", "text": "ok"})
            await hear(bruno, "ok")
            texts = [m["text"] for m in bruno.received if m["type"] == "chat" and m["seat"] == 0]
            assert "one too many" not in texts and len(texts) == 5

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_the_players_and_the_spectators_chat_apart(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0, watchable=True)
        table_id = table["table"]
        async with Player(server, table_id, table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            async with Spectator(server, table_id, "Zoe") as zoe, Spectator(server, table_id) as x:
                await zoe.until("state")
                await x.until("state")
                from_zoe = await said(zoe, {"text": "forza Anna"})
                assert from_zoe["channel"] == "watchers" and from_zoe["name"] == "Zoe"
                assert from_zoe["seat"] is None
                assert (await x.until("chat"))["text"] == "forza Anna"
                anonymous = await said(x, {"quick": "ciao"})
                assert anonymous["name"] == ""  # each page says "Spectator" in its language
                from_anna = await said(anna, {"text": "grazie"})
                assert from_anna["channel"] == "players"
                await anna.send({"type": "ping"})
                await anna.until("pong")
                await zoe.send({"type": "ping"})
                await zoe.until("pong")
                await x.send({"type": "ping"})
                await x.until("pong")
                players_heard = [m for m in anna.received if m["type"] == "chat"]
                assert [m["text"] for m in players_heard] == ["grazie"]
                for spectator in (zoe, x):
                    heard = [m for m in spectator.received if m["type"] == "chat"]
                    assert {m["channel"] for m in heard} == {"watchers"}
                    assert "grazie" not in [m["text"] for m in heard]
                    for message in spectator.received:
                        assert_no_hand(message)

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_table_with_chat_off_refuses_it_to_players_and_spectators(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0, watchable=True, chat=False)
        async with Player(server, table["table"], table["token"]) as anna:
            state = await anna.until("state")
            assert state["table"]["chat"] is False
            refused = await said(anna, {"text": "ciao"})
            assert refused["code"] == "chat_off" and "chat is off" in refused["message"]
            start_table(server, table)
            async with Spectator(server, table["table"]) as zoe:
                await zoe.until("state")
                assert (await said(zoe, {"quick": "ciao"}))["code"] == "chat_off"
        assert server.room.store.chat(table["table"], "players") == []

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_director_turns_off_chat_or_spectators_for_a_tournament(db: str) -> None:
    def round_table(http: httpx.Client, **settings: Any) -> str:
        body = {"name": "Club night", "format": "round-robin", "kind": "individual"}
        made = http.post("/api/tournaments", json=body | settings).json()
        tid, token = made["tournament"], made["token"]
        for name in ("Anna", "Bruno"):
            answer = http.post(
                f"/api/tournaments/{tid}/entrants", json={"token": token, "players": [name]}
            )
            assert answer.status_code == 200, answer.text
        assert http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).status_code == 200
        info = http.get(f"/api/tournaments/{tid}").json()
        assert info["settings"]["chat"] is settings.get("chat", True)
        assert info["settings"]["spectators"] is settings.get("spectators", True)
        return str(info["rounds"][-1]["tables"][0]["room"])

    async def scenario(server: RoomServer) -> None:
        with server.http() as http:
            quiet = round_table(http, chat=False)
            private = round_table(http, spectators=False)
            watched = [t["table"] for t in http.get("/api/tables?watch=true").json()["tables"]]
            # Tournament tables are watched, not joined: the lobby's open tables skip them.
            assert watched == [quiet]
            assert http.get("/api/tables").json()["tables"] == []
        async with Spectator(server, quiet) as zoe:
            await zoe.until("state")
            assert (await said(zoe, {"text": "ciao"}))["code"] == "chat_off"
        async with Spectator(server, private) as zoe:
            assert (await zoe.next())["code"] == "not_watchable"
        assert server.room.table(quiet).row.chat is False
        assert server.room.table(private).row.chat is True

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_socket_hears_its_channels_last_messages_after_a_restart_too(db: str) -> None:
    table_id, tokens = "", []

    async def chat(server: RoomServer) -> None:
        nonlocal table_id, tokens
        table_id, tokens = two_people(server, watchable=True)
        async with Player(server, table_id, tokens[0]) as anna:
            await anna.until("state")
            for quick in QUICK[:3]:
                await said(anna, {"quick": quick})
            await said(anna, {"text": PAYLOAD})
        async with Spectator(server, table_id, "Zoe") as zoe:
            await zoe.until("state")
            await said(zoe, {"text": "da qui si vede tutto"})

    async def reconnect(server: RoomServer) -> None:
        async with Player(server, table_id, tokens[1]) as bruno:
            await bruno.until("state")
            history = await bruno.next()
            assert history["type"] == "chat_history" and history["channel"] == "players"
            got = [(m["quick"], m["text"]) for m in history["messages"]]
            assert got == [(q, None) for q in QUICK[:3]] + [(None, PAYLOAD)]
        async with Spectator(server, table_id) as x:
            history = await x.until("chat_history")
            assert [m["text"] for m in history["messages"]] == ["da qui si vede tutto"]
            assert history["channel"] == "watchers"

    with RoomServer(db) as server:
        asyncio.run(chat(server))
        asyncio.run(reconnect(server))
    with RoomServer(db) as server:
        asyncio.run(reconnect(server))


def test_the_chat_history_is_the_last_fifty(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table_id, tokens = two_people(server)
        from burraco.storage.store import ChatRow

        for i in range(60):
            server.room.store.add_chat(ChatRow(table_id, "players", 0, "Anna", f"m{i}", None, i))
        async with Player(server, table_id, tokens[0]) as anna:
            await anna.until("state")
            history = await anna.next()
            assert [m["text"] for m in history["messages"]] == [f"m{i}" for i in range(10, 60)]
            assert json.dumps(history).count("m59") == 1

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_spectator_does_not_chat_under_a_registered_persons_name(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        with httpx.Client(base_url=server.url) as http:
            made = http.post(
                "/api/account/signup", json={"name": "Giulia", "password": "a long passphrase 7"}
            )
            assert made.status_code == 200, made.text
        table = create_table(server, move_seconds=0, watchable=True)
        table_id = table["table"]
        async with Player(server, table_id, table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            # The same name, and one that looks like it (a Cyrillic а, a 1 for an l).
            for name in ("Giulia", "Giuliа", "Giu1ia"):
                async with Spectator(server, table_id, name) as fake:
                    await fake.until("state")
                    assert (await said(fake, {"text": "ciao"}))["name"] == ""
            async with Spectator(server, table_id, "Zoe") as zoe:
                await zoe.until("state")
                assert (await said(zoe, {"text": "ciao"}))["name"] == "Zoe"

    with RoomServer(db) as server:
        asyncio.run(scenario(server))
