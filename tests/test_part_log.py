"""The event log (server/table/log.py): each event stored before it is applied, a refused
write changing nothing, and a table rebuilt from its log as it was live."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from parts import accept_writes, greedy_move, play_deal, refuse_writes, room_in, seated

from burraco.server.table.errors import RoomError


def _without_sent(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in e.items() if k != "sent"} for e in events]


def test_an_event_is_stored_at_the_next_version(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        table.backoff = 4.0
        version = table.version
        room.event_log.store_event(table, "abandon", 0, {})
        assert table.version == version + 1 and table.backoff == 0.0
        assert room.store.events(table.id)[-1].kind == "abandon"
        await room.shutdown()

    asyncio.run(scenario())


def test_a_version_stored_elsewhere_first_is_stale_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        version = table.version
        room.store.append_event(table.id, version + 1, "time-out", None, "{}")
        with pytest.raises(RoomError) as refused:
            room.event_log.store_event(table, "abandon", 0, {})
        assert refused.value.code == "stale" and table.version == version
        await room.shutdown()

    asyncio.run(scenario())


def test_a_refused_write_is_unavailable_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        version = table.version
        refuse_writes(room.store)
        with pytest.raises(RoomError) as refused:
            room.event_log.store_event(table, "abandon", 0, {})
        assert refused.value.code == "unavailable" and refused.value.status == 503
        assert table.version == version
        accept_writes(room.store)
        room.event_log.store_event(table, "abandon", 0, {})
        assert table.version == version + 1
        await room.shutdown()

    asyncio.run(scenario())


def test_a_table_rebuilt_from_its_log_is_the_table_that_was_live(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, ("human", "human"))
        play_deal(room.turns, table)
        for _ in range(5):
            assert table.match is not None
            room.turns.apply(table, table.match.deal.turn, greedy_move(table), table.version, True)
        row = room.store.table(table.id)
        assert row is not None
        again = room.event_log.load(row)
        assert again.match is not None and table.match is not None
        assert again.version == table.version and again.last == table.last
        assert again.match.deal.turn == table.match.deal.turn
        assert list(again.match.totals) == list(table.match.totals)
        assert _without_sent(again.events) == _without_sent(table.events)
        assert again.turns == table.turns
        # The bot's moves of the log: the seat is the bot's until its person acts again.
        assert again.last is not None and again.seats[again.last["seat"]].taken_over
        await room.shutdown()

    asyncio.run(scenario())


def test_a_log_that_ends_the_match_finishes_the_table_on_loading(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        # The process stopped after the last event was stored, before the record.
        room.event_log.store_event(table, "abandon", 1, {})
        row = room.store.table(table.id)
        assert row is not None and row.status == "playing"
        again = room.event_log.load(row)
        assert again.status == "over" and room.store.record(table.id)
        assert room.finisher.unannounced == [again]
        await room.shutdown()

    asyncio.run(scenario())
