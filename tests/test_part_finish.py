"""The finish (server/table/finish.py): the record and the status stored, the players told,
then the listeners and what records the results and ratings, once; while the database
refuses, the step's retry brings the end by itself; a log that ends the match finishes
its table on loading."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parts import (
    Socket,
    accept_writes,
    closed,
    refuse_writes,
    room_in,
    seated,
    step_on,
    store_in,
    stored,
    until,
)

from burraco.server.table.finish import Finisher
from burraco.server.table.live import LiveTable, begin


class Heard:
    """What a listener, or what records the results, was told: the tables, in order."""

    def __init__(self, name: str, told: list[str]) -> None:
        self.name, self.told = name, told

    async def __call__(self, table: LiveTable) -> None:
        self.told.append(f"{self.name} {table.id}")


def test_the_end_is_stored_then_its_results_recorded(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = store_in(tmp_path)
        told: list[str] = []

        async def broken(table: LiveTable) -> None:
            raise RuntimeError("a listener that fails does not stop the others")

        finisher = Finisher(store, Heard("results", told))
        finisher.listeners += [broken, Heard("tournament", told)]
        table = stored(store, ("human", "human"))
        begin(table)
        assert table.match is not None
        table.match.abandon(1)
        finisher.finish(table)
        assert table.status == "over" and table.deadline is None and table.over_at > 0
        row = store.table(table.id)
        assert store.record(table.id) and row is not None and row.status == "over"
        await finisher.tell_listeners(table)
        # The listeners first, then the results and ratings (as the listener they were).
        assert told == [f"tournament {table.id}", f"results {table.id}"]

    asyncio.run(scenario())


def test_one_publish_tells_the_last_deals_score_the_end_and_the_state_then_the_listeners(
    tmp_path: Path,
) -> None:
    """The action that ends a match is told straight down, once: each socket hears the
    deal's score, the match's end, then its state; the results are recorded after (the
    finisher tells no socket itself; it told the end apart from the step, and each seat's
    view was entered twice)."""

    async def scenario() -> None:
        anna = Socket()
        heard_then: list[list[str]] = []

        async def results(table: LiveTable) -> None:
            heard_then.append([m["type"] for m in anna.heard])

        store = store_in(tmp_path)
        step = step_on(store, results=results)
        table, _ = await seated(step)
        table.seats[0].connections.append(anna.send)
        assert table.match is not None
        table.match.abandon(1)
        await step.publish(table)
        kinds = [m["type"] for m in anna.heard]
        assert kinds == ["match_over", "state"], kinds
        assert anna.heard[0]["abandoned_by"] == 1 and anna.heard[1]["match_over"] is not None
        # The results were recorded once the players had been told.
        assert heard_then == [["match_over", "state"]]
        await closed(step)

    asyncio.run(scenario())


def test_while_the_database_refuses_the_end_waits_then_comes_by_itself(tmp_path: Path) -> None:
    async def scenario() -> None:
        told: list[str] = []
        store = store_in(tmp_path)
        step = step_on(store, results=Heard("results", told))
        table, _ = await seated(step)
        assert table.match is not None
        table.match.abandon(1)
        refuse_writes(store)
        await step.publish(table)
        await step.publish(table)  # a second change meanwhile: still one retry
        assert table.status == "playing" and told == [] and len(step.shared.tasks) == 1
        accept_writes(store)
        await until(lambda: told == [f"results {table.id}"], "the end once the database accepts")
        assert table.status == "over" and table.backoff == 0.0
        await closed(step)

    asyncio.run(scenario())


def test_a_log_that_ends_the_match_finishes_the_table_on_loading(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = store_in(tmp_path)
        step = step_on(store)
        table, _ = await seated(step)
        # The process stopped after the last event was stored, before the record.
        step.log.store_event(table, "abandon", 1, {})
        row = store.table(table.id)
        assert row is not None and row.status == "playing"
        again = step.log.load(row)
        assert again.status == "playing"  # the log alone: the match is over
        told: list[str] = []
        finisher = Finisher(store, Heard("results", told))
        finisher.loaded(again)
        assert again.status == "over" and store.record(table.id)
        assert finisher.unannounced == [again] and told == []
        await finisher.announce_unannounced()
        assert told == [f"results {table.id}"] and finisher.unannounced == []
        finisher.loaded(again)  # finished already: nothing again
        assert finisher.unannounced == []
        await closed(step)

    asyncio.run(scenario())


def test_a_room_records_its_finished_matches_results_with_no_router_built(
    tmp_path: Path,
) -> None:
    """The results and ratings of a finished match are the finisher's to record, handed to
    it by the room; they were recorded only once the leaderboard's router had been built."""

    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        await room.abandon(table, 1)
        await until(lambda: bool(room.store.results(table_id=table.id)), "the results")
        assert [r.outcome for r in room.store.results(table_id=table.id)] == ["win", "loss"]
        await room.shutdown()

    asyncio.run(scenario())
