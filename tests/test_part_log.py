"""The event log (server/table/log.py): each event stored before it is applied, a refused
write changing nothing, and a table rebuilt from its log as it was live (each event
applied by the one apply of live play: server/table/event.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from parts import (
    accept_writes,
    closed,
    greedy_move,
    play_deal,
    refuse_writes,
    seated,
    step_on,
    store_in,
)

from burraco.server.table.errors import RoomError


def _without_sent(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in e.items() if k != "sent"} for e in events]


def test_an_event_is_stored_at_the_next_version(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        table.backoff = 4.0
        version = table.version
        step.log.store_event(table, "abandon", 0, {})
        assert table.version == version + 1 and table.backoff == 0.0
        assert step.log.store.events(table.id)[-1].kind == "abandon"
        await closed(step)

    asyncio.run(scenario())


def test_a_version_stored_elsewhere_first_is_stale_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        version = table.version
        step.log.store.append_event(table.id, version + 1, "time-out", None, "{}")
        with pytest.raises(RoomError) as refused:
            step.log.store_event(table, "abandon", 0, {})
        assert refused.value.code == "stale" and table.version == version
        await closed(step)

    asyncio.run(scenario())


def test_a_refused_write_is_unavailable_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        version = table.version
        refuse_writes(step.log.store)
        with pytest.raises(RoomError) as refused:
            step.log.store_event(table, "abandon", 0, {})
        assert refused.value.code == "unavailable" and refused.value.status == 503
        assert table.version == version
        accept_writes(step.log.store)
        step.log.store_event(table, "abandon", 0, {})
        assert table.version == version + 1
        await closed(step)

    asyncio.run(scenario())


def test_a_table_rebuilt_from_its_log_is_the_table_that_was_live(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, ("human", "human"))
        play_deal(step, table)
        for _ in range(5):
            assert table.match is not None
            step.apply(table, table.match.deal.turn, greedy_move(table), table.version, True)
        row = step.log.store.table(table.id)
        assert row is not None
        again = step.log.load(row)
        assert again.match is not None and table.match is not None
        assert again.version == table.version and again.last == table.last
        assert again.match.deal.turn == table.match.deal.turn
        assert list(again.match.totals) == list(table.match.totals)
        assert _without_sent(again.events) == _without_sent(table.events)
        assert again.turns == table.turns
        # The bot's moves of the log: the seat is the bot's until its person acts again.
        assert again.last is not None and again.seats[again.last["seat"]].taken_over
        await closed(step)

    asyncio.run(scenario())


def test_a_rebuilt_table_in_its_pause_waits_as_it_did_live(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), next_deal_seconds=30.0)
        table, _ = await seated(step, ("human", "human"))
        play_deal(step, table)
        row = step.log.store.table(table.id)
        assert row is not None
        again = step.log.load(row)
        assert again.pause_until is not None and again.pause_until > time.time() + 20
        assert again.events[-1]["type"] == "deal_over" and again.events[-1]["sent"]
        assert _without_sent(again.events) == _without_sent(table.events)
        await closed(step)

    asyncio.run(scenario())
