"""The step (server/table/step.py): every change of a table stored, applied, then told once
(each seat its state, the deal's score, the match's end); the timers (the bot on turn, the
move clock, the deal clock, the pause) report what happened at their end to the step."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from parts import Socket, closed, greedy_move, play_deal, seated, step_on, store_in, until

from burraco.server.table.errors import RoomError
from burraco.server.table.live import LiveTable


def test_an_action_is_stored_applied_and_told_to_each_seat_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        assert table.match is not None
        anna, bruno = Socket(), Socket()
        table.seats[0].connections.append(anna.send)
        table.seats[1].connections.append(bruno.send)
        turn, move = table.match.deal.turn, greedy_move(table)
        await step.act(table, turn, move, table.version)
        assert table.last == {"seat": turn, "action": move}
        stored = step.log.store.events(table.id)[-1]
        assert (stored.version, stored.kind, stored.seat) == (table.version, "action", turn)
        assert [m["version"] for m in anna.heard] == [table.version]
        assert [m["seat"] for m in bruno.heard] == [1]
        assert table.turns.of(turn).turns == 1
        await closed(step)

    asyncio.run(scenario())


def test_a_refused_action_is_not_stored_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        assert table.match is not None
        turn, version = table.match.deal.turn, table.version
        with pytest.raises(RoomError) as refused:
            await step.act(table, 1 - turn, greedy_move(table), version)
        assert refused.value.code == "not_your_turn"
        assert table.version == version and len(step.log.store.events(table.id)) == version
        await closed(step)

    asyncio.run(scenario())


def test_the_deals_score_is_told_once_and_the_pause_begins(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step)
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        play_deal(step, table)  # nothing told yet
        await step.publish(table)
        await step.publish(table)
        assert [m["deal"] for m in anna.of("deal_over")] == [1]
        assert table.pause_until is not None and anna.heard[-1]["pause"] is not None
        await closed(step)

    asyncio.run(scenario())


def test_an_abandonment_is_stored_and_ends_the_match_with_its_results(tmp_path: Path) -> None:
    async def scenario() -> None:
        recorded: list[str] = []

        async def results(table: LiveTable) -> None:
            recorded.append(table.id)

        store = store_in(tmp_path)
        step = step_on(store, results=results)
        table, _ = await seated(step)
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        await step.abandon(table, 1)
        assert table.match is not None and table.match.abandoned_by == 1
        assert store.events(table.id)[-1].kind == "abandon"
        assert table.status == "over" and store.record(table.id)
        assert [m["abandoned_by"] for m in anna.of("match_over")] == [1]
        assert recorded == [table.id]  # the finisher recorded its results and ratings
        with pytest.raises(RoomError) as refused:
            await step.abandon(table, 0)
        assert refused.value.code == "forbidden"
        await closed(step)

    asyncio.run(scenario())


def test_the_bot_on_turn_plays_through_the_step_and_is_logged_as_a_bot(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, ("human", "human"))
        assert table.match is not None
        turn, version = table.match.deal.turn, table.version
        table.seats[turn].taken_over = True
        step.schedule(table)
        await until(lambda: table.version > version, "the bot's move")
        assert table.turns.of(turn).bot == 1
        assert json.loads(step.log.store.events(table.id)[version].payload)["bot"] is True
        await closed(step)

    asyncio.run(scenario())


def test_at_the_move_clocks_end_a_bot_plays_the_persons_turn(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, ("human", "bot"), move_seconds=60)
        assert table.match is not None
        match = table.match
        await until(lambda: match.deal.turn == 0, "the bot's turn played")
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        version = table.version
        table.deadline = time.time()
        step.schedule(table)
        await until(lambda: table.version > version, "the bot playing the person's turn")
        assert table.seats[0].taken_over or table.turns.of(0).bot
        assert anna.heard[0]["table"]["seats"][0]["taken_over"]  # told at once
        await closed(step)

    asyncio.run(scenario())


def test_at_a_tournaments_move_clock_end_the_player_abandons(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, move_seconds=60, tournament="t:1:1")
        assert table.match is not None and not table.row.takeover
        turn = table.match.deal.turn
        table.deadline = time.time()
        step.schedule(table)
        await until(lambda: table.status == "over", "the abandonment")
        assert table.match.abandoned_by == turn
        await closed(step)

    asyncio.run(scenario())


def test_the_deal_clocks_end_calls_the_time_out_and_stores_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, deal_seconds=600, tournament="t:1:1")
        assert table.match is not None
        table.deal_started = time.time() - 600
        table.deal_clocked = 0  # as if its deal clock had not started yet
        step.schedule(table)
        await until(lambda: table.match is not None and table.match.deal.timeout_turns >= 0, "")
        assert table.events[-1]["action"] == "time-out"
        assert step.log.store.events(table.id)[-1].kind == "time-out"
        await closed(step)

    asyncio.run(scenario())


def test_the_next_deal_begins_when_everyone_online_has_pressed(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), next_deal_seconds=30.0)
        table, _ = await seated(step)
        anna, bruno = Socket(), Socket()
        table.seats[0].connections.append(anna.send)
        table.seats[1].connections.append(bruno.send)
        play_deal(step, table)
        assert table.pause_until is not None
        await step.next_deal(table, 1)
        assert table.pause_until is not None and anna.heard[-1]["pause"]["ready"] == [1]
        await step.next_deal(table, 0)
        assert table.pause_until is None and table.ready == set()
        assert anna.heard[-1]["pause"] is None and anna.heard[-1]["view"]["deal"] == 2
        await step.next_deal(table, 0)  # a late press changes nothing
        await closed(step)

    asyncio.run(scenario())


def test_the_pause_ends_by_itself_when_its_countdown_does(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path), next_deal_seconds=0.05)
        table, _ = await seated(step)
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        play_deal(step, table)
        assert table.pause_until is not None
        step.schedule(table)
        await until(lambda: table.pause_until is None, "the countdown's end")
        await until(lambda: anna.heard and anna.heard[-1]["view"]["deal"] == 2, "the deal told")
        await closed(step)

    asyncio.run(scenario())


def test_a_player_takes_their_seat_back_from_the_bot(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, move_seconds=60)
        assert table.match is not None
        turn = table.match.deal.turn
        table.seats[turn].taken_over = True
        table.deadline = None
        anna = Socket()
        table.seats[turn].connections.append(anna.send)
        await step.take_back(table, turn)
        assert not table.seats[turn].taken_over
        assert table.deadline is not None  # a whole clock, as it is their turn
        assert anna.heard[-1]["clock"] is not None and table.clock_task is not None
        await closed(step)

    asyncio.run(scenario())


def test_the_players_hear_how_many_watch(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        table, _ = await seated(step, watchable=True)
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        watcher = await step.spectators.watch(table, "Carla", _text_sink)
        step.watchers_changed(table)
        await until(lambda: bool(anna.heard), "the count told")
        assert anna.heard[-1]["table"]["watchers"] == 1
        await step.spectators.unwatch(table, watcher)
        await closed(step)

    asyncio.run(scenario())


async def _text_sink(text: str) -> None:
    pass
