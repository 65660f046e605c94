"""A table's chat (server/table/chat.py): a message checked, rated and stored; the history a
socket hears when it connects."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from parts import store_in, stored

from burraco.server.chat import HISTORY, LONGEST
from burraco.server.door.limits import Limits, Rates
from burraco.server.table.chat import TableChat
from burraco.server.table.errors import RoomError
from burraco.server.table.live import LiveTable


def _refused(chat: TableChat, table: LiveTable, seat: int, said: dict[str, Any]) -> RoomError:
    with pytest.raises(RoomError) as refused:
        chat.say(table, "players", seat, "Anna", said)
    return refused.value


def test_a_message_is_cleaned_stored_and_said_on_its_channel(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    table = stored(store)
    chat = TableChat(store, Rates(Limits()))
    said = chat.say(table, "players", 0, "Anna", {"text": "  ciao   a tutti "})
    assert said["text"] == "ciao a tutti" and said["seat"] == 0 and said["channel"] == "players"
    assert [row.text for row in store.chat(table.id, "players")] == ["ciao a tutti"]
    assert store.chat(table.id, "watchers") == []


def test_a_message_breaking_a_rule_is_refused_and_not_stored(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    table = stored(store)
    chat = TableChat(store, Rates(Limits()))
    assert _refused(chat, table, 0, {"text": "x" * (LONGEST + 1)}).code == ("chat_too_long")
    assert _refused(chat, table, 0, {"text": " \t"}).code == "chat_empty"
    assert _refused(chat, table, 0, {"quick": "nonsense"}).code == ("bad_message")
    table.row = dataclasses.replace(table.row, chat=False)
    assert _refused(chat, table, 0, {"text": "ciao"}).code == "chat_off"
    assert store.chat(table.id, "players") == []


def test_a_seat_that_chats_too_fast_is_told_how_long_to_wait(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    table = stored(store)
    chat = TableChat(store, Rates(Limits(chat_messages="2 per minute")))
    for _ in range(2):
        chat.say(table, "players", 0, "Anna", {"text": "ciao"})
    refused = _refused(chat, table, 0, {"text": "ciao"})
    assert refused.code == "chat_too_fast" and refused.status == 429
    assert refused.retry_after is not None and refused.params["seconds"] >= 1
    chat.say(table, "players", 1, "Bruno", {"text": "ciao"})  # another seat's own rate


def test_a_socket_that_connects_hears_the_last_messages_of_its_channel(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    table = stored(store)
    chat = TableChat(store, Rates(Limits(chat_messages="1000 per minute")))
    assert chat.history(table, "players") is None
    for i in range(HISTORY + 5):
        chat.say(table, "players", 0, "Anna", {"text": f"m{i}"})
    history = chat.history(table, "players")
    assert history is not None and history["channel"] == "players"
    texts = [m["text"] for m in history["messages"]]
    assert len(texts) == HISTORY and texts[-1] == f"m{HISTORY + 4}"


def test_the_history_is_read_from_the_store_once_a_table(tmp_path: Path) -> None:
    """Issue 32: every socket that opened read the chat from the database on the event
    loop, and hundreds of pages reconnecting after a failover held the tables in play. It
    is read when the first socket asks, then kept with the table, the new messages added."""
    from sqlalchemy import event

    store = store_in(tmp_path)
    table = stored(store)
    chat = TableChat(store, Rates(Limits(chat_messages="1000 per minute")))
    chat.say(table, "players", 0, "Anna", {"text": "before anyone asked"})
    reads: list[str] = []

    def counted(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "FROM chat" in statement:
            reads.append(statement)

    event.listen(store.engine, "before_cursor_execute", counted)
    first = chat.history(table, "players")
    assert first is not None and [m["text"] for m in first["messages"]] == ["before anyone asked"]
    assert len(reads) == 1
    chat.say(table, "players", 1, "Bruno", {"text": "ciao"})
    for _ in range(3):
        again = chat.history(table, "players")
        assert again is not None
        assert [m["text"] for m in again["messages"]] == ["before anyone asked", "ciao"]
    assert len(reads) == 1
    # The other channel is read once too, on its own.
    assert chat.history(table, "watchers") is None and len(reads) == 2
    assert chat.history(table, "watchers") is None and len(reads) == 2
