"""The finish (server/table/finish.py): the record and the status stored, the players and
the listeners told once; while the database refuses, the end waits and comes by itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parts import Socket, accept_writes, refuse_writes, room_in, seated, until

from burraco.server.table.live import LiveTable


def test_the_end_is_stored_and_told_to_the_players_and_every_listener(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        heard: list[str] = []

        async def listener(table: LiveTable) -> None:
            heard.append(table.id)

        async def broken(table: LiveTable) -> None:
            raise RuntimeError("a listener that fails does not stop the others")

        room.finisher.listeners += [broken, listener]
        table, _ = await seated(room)
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        assert table.match is not None
        table.match.abandon(1)
        await room.finisher.ended(table)
        assert table.status == "over" and table.deadline is None and table.over_at > 0
        row = room.store.table(table.id)
        assert room.store.record(table.id) and row is not None and row.status == "over"
        assert heard == [table.id]
        assert [m["abandoned_by"] for m in anna.of("match_over")] == [1]
        await room.shutdown()

    asyncio.run(scenario())


def test_while_the_database_refuses_the_end_waits_then_comes_by_itself(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        heard: list[str] = []

        async def listener(table: LiveTable) -> None:
            heard.append(table.id)

        room.finisher.listeners.append(listener)
        table, _ = await seated(room)
        assert table.match is not None
        table.match.abandon(1)
        refuse_writes(room.store)
        await room.finisher.ended(table)
        assert table.status == "playing" and heard == [] and room.shared.tasks
        accept_writes(room.store)
        await until(lambda: heard == [table.id], "the end told once the database accepts")
        assert table.status == "over" and table.backoff == 0.0
        await room.shutdown()

    asyncio.run(scenario())


def test_the_ends_the_log_alone_finished_are_told_to_the_listeners(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        heard: list[str] = []

        async def listener(table: LiveTable) -> None:
            heard.append(table.id)

        room.finisher.listeners.append(listener)
        first, _ = await seated(room)
        second, _ = await seated(room)
        room.finisher.unannounced += [first, second]
        await room.finisher.announce_unannounced()
        assert heard == [first.id, second.id] and room.finisher.unannounced == []
        await room.shutdown()

    asyncio.run(scenario())
