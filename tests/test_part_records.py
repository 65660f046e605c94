"""What a table leaves behind (server/table/records.py): its record once the match is over,
a deal once it has ended, the replay of every position."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from parts import closed, play_deal, seated, step_on, store_in

from burraco.record import read_record
from burraco.server.table.errors import RoomError
from burraco.server.table.records import Records


def test_nothing_is_published_of_a_match_or_a_deal_in_play(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = store_in(tmp_path)
        step, records = step_on(store), Records(store)
        table, _ = await seated(step)
        with pytest.raises(RoomError, match="when the match is over"):
            records.record(table)
        with pytest.raises(RoomError, match="deal 1 has not ended"):
            records.finished_deal(table, 1)
        play_deal(step, table)
        deal = records.finished_deal(table, 1)
        assert table.match is not None
        assert deal["deal"] == 1 and deal["score"]["points"] == list(table.match.scores[0].points)
        await closed(step)

    asyncio.run(scenario())


def test_a_finished_match_has_its_record_and_its_replay(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = store_in(tmp_path)
        step, records = step_on(store), Records(store)
        table, _ = await seated(step)
        moves = play_deal(step, table)
        await step.abandon(table, 1)
        text = records.record(table)
        assert list(read_record(text).names) == ["Player 0", "Player 1"]
        replay = records.replay(table)
        assert replay["record"] == text and len(replay["frames"]) >= moves
        assert all(len(f["view"]["hands"]) == 2 for f in replay["frames"])
        await closed(step)

    asyncio.run(scenario())
