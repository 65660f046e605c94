"""What a table leaves behind (server/table/records.py): its record once the match is over,
a deal once it has ended, the replay of every position."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from parts import play_deal, room_in, seated

from burraco.record import read_record
from burraco.server.table.errors import RoomError


def test_nothing_is_published_of_a_match_or_a_deal_in_play(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        with pytest.raises(RoomError, match="when the match is over"):
            room.records.record(table)
        with pytest.raises(RoomError, match="deal 1 has not ended"):
            room.records.finished_deal(table, 1)
        play_deal(room.turns, table)
        deal = room.records.finished_deal(table, 1)
        assert table.match is not None
        assert deal["deal"] == 1 and deal["score"]["points"] == list(table.match.scores[0].points)
        await room.shutdown()

    asyncio.run(scenario())


def test_a_finished_match_has_its_record_and_its_replay(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        moves = play_deal(room.turns, table)
        await room.turns.abandon(table, 1)
        text = room.records.record(table)
        assert list(read_record(text).names) == ["Player 0", "Player 1"]
        replay = room.records.replay(table)
        assert replay["record"] == text and len(replay["frames"]) >= moves
        assert all(len(f["view"]["hands"]) == 2 for f in replay["frames"])
        await room.shutdown()

    asyncio.run(scenario())
