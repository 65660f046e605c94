"""The spectators (server/table/spectators.py): who may watch, the frames they are shown
``watch_delay`` moves behind, shedding them for the players, and their messages."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
from parts import closed, dealt, greedy_move, play_deal, seated, step_on, store_in, until

from burraco.server.door.capacity import Capacity
from burraco.server.table.errors import RoomError
from burraco.server.table.spectators import Spectators, shown_frame, watch_target


class Screen:
    """A spectator's socket: the texts written to it, and its close."""

    def __init__(self) -> None:
        self.texts: list[dict[str, object]] = []
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        self.texts.append(json.loads(text))

    async def close(self, code: int, reason: str) -> None:
        self.closed = code


def test_spectators_are_shown_the_delay_behind_but_never_before_the_deal_began() -> None:
    table = dealt(watch_delay=3)
    table.events = [{"type": "event", "version": 1, "seat": None, "action": "start"}]
    table.version = 10
    assert watch_target(table) == 7
    table.events.append({"type": "deal_over", "version": 9})
    assert watch_target(table) == 9  # the finished deal hides nothing
    table.row = dataclasses.replace(table.row, watch_delay=0)
    assert watch_target(table) == 10


def test_the_frames_kept_are_as_many_as_the_delay_needs() -> None:
    table = dealt(watch_delay=2)
    for version in range(1, 6):
        table.version = version
        Spectators.remember(table)
    Spectators.remember(table)  # the same version again replaces its frame
    assert [f.version for f in table.frames] == [3, 4, 5]
    frame = shown_frame(table)
    assert frame is not None and frame.version == 3


def test_who_may_watch(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), capacity=Capacity(watchers_per_address=1))
        private, _ = await seated(step)
        with pytest.raises(RoomError) as refused:
            await step.spectators.watch(private, "Zoe", Screen().send_text)
        assert refused.value.code == "not_watchable" and refused.value.status == 403
        table, _ = await seated(step, watchable=True)
        await step.spectators.watch(table, "Zoe", Screen().send_text, address="1.2.3.4")
        with pytest.raises(RoomError) as refused:
            await step.spectators.watch(table, "Ugo", Screen().send_text, address="1.2.3.4")
        assert refused.value.code == "watching_too_many" and refused.value.params == {"n": 1}
        assert step.shared.sockets == 1 and len(table.watchers) == 1
        await closed(step)

    asyncio.run(scenario())


def test_the_newest_spectators_make_room_for_a_seat(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), capacity=Capacity(max_sockets=2))
        table, _ = await seated(step, watchable=True)
        old, new = Screen(), Screen()
        await step.spectators.watch(table, "Old", old.send_text, old.close)
        await step.spectators.watch(table, "New", new.send_text, new.close)
        step.spectators.admit_seat()
        assert [w.name for w in table.watchers] == ["Old"] and step.shared.sockets == 1
        await until(lambda: new.closed == 1013, "the newest spectator closed")
        assert old.closed is None
        await closed(step)

    asyncio.run(scenario())


def test_a_spectator_hears_each_move_and_may_not_act(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, watchable=True)
        zoe = Screen()
        watcher = await step.spectators.watch(table, "Zoe", zoe.send_text)
        assert table.match is not None
        await step.act(table, table.match.deal.turn, greedy_move(table), table.version)
        told = table.version
        await until(lambda: bool(zoe.texts) and zoe.texts[-1].get("version") == told, "the move")
        assert zoe.texts[-1]["watching"] is True
        await step.spectators.message(table, watcher, json.dumps({"type": "abandon"}))
        await until(lambda: zoe.texts[-1]["type"] == "error", "the refusal")
        assert zoe.texts[-1]["code"] == "spectator" and table.status == "playing"
        await closed(step)

    asyncio.run(scenario())


def test_a_spectator_some_moves_behind_hears_the_past_state(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, watchable=True, watch_delay=2)
        play_deal(step, table)  # the first deal is over: nothing is hidden of it
        zoe = Screen()
        watcher = await step.spectators.watch(table, "Zoe", zoe.send_text)
        for _ in range(4):
            assert table.match is not None
            await step.act(table, table.match.deal.turn, greedy_move(table), table.version)
        assert table.shown == table.version - 2
        await until(lambda: len(zoe.texts) >= 2, "the first states")
        zoe.texts.clear()
        sync = json.dumps({"type": "sync", "since": 0})
        await step.spectators.message(table, watcher, sync)
        await until(lambda: bool(zoe.texts) and zoe.texts[-1]["type"] == "state", "a state")
        assert zoe.texts[-1]["version"] == table.version - 2 and zoe.texts[-1]["clock"] is None
        events = [t for t in zoe.texts if t["type"] == "event"]
        assert events and all(int(str(e["version"])) <= table.shown for e in events)
        await closed(step)

    asyncio.run(scenario())


def test_a_spectator_is_sent_the_log_once_a_socket(tmp_path: Path) -> None:
    """Issue 32: as a seat's socket, a spectator's ``sync since 0`` sent again is refused
    (``sync_repeated``), not answered with the whole log each time."""

    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, watchable=True)
        play_deal(step, table)
        zoe = Screen()
        watcher = await step.spectators.watch(table, "Zoe", zoe.send_text)
        sync = json.dumps({"type": "sync", "since": 0})
        for _ in range(20):
            await step.spectators.message(table, watcher, sync)
        await until(lambda: sum(t["type"] == "error" for t in zoe.texts) == 19, "the refusals")
        events = [t for t in zoe.texts if t["type"] == "event"]
        assert 0 < len(events) <= len(table.events)
        assert {t["code"] for t in zoe.texts if t["type"] == "error"} == {"sync_repeated"}
        await closed(step)

    asyncio.run(scenario())
