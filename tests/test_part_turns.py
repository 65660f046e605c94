"""The turn (server/table/turns.py): an action is refused with the rule it breaks and the
table unchanged, or stored, applied and told; a seat taken back; an abandonment; a hint."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from parts import Socket, greedy_move, room_in, seated

from burraco.server.table.errors import RoomError


def _refused(code: str, call: object) -> None:
    assert callable(call)
    with pytest.raises(RoomError) as refused:
        call()
    assert refused.value.code == code


def test_a_refused_action_names_its_rule_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        assert table.match is not None
        turn, version = table.match.deal.turn, table.version
        move = greedy_move(table)
        turns = room.turns
        _refused("not_your_turn", lambda: turns.apply(table, 1 - turn, move, version, False))
        _refused("stale", lambda: turns.apply(table, turn, move, version - 1, False))
        _refused("unknown_action", lambda: turns.apply(table, turn, "juggle", version, False))
        illegal = f"discard {table.match.view(turn).hand[0]}"  # before drawing
        _refused("illegal", lambda: turns.apply(table, turn, illegal, version, False))
        assert table.version == version and len(room.store.events(table.id)) == version
        assert table.match.deal.turn == turn
        await room.shutdown()

    asyncio.run(scenario())


def test_an_action_is_stored_applied_and_told_to_each_seat(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        assert table.match is not None
        anna = Socket()
        table.seats[0].connections.append(anna.send)
        turn, move = table.match.deal.turn, greedy_move(table)
        await room.turns.act(table, turn, move, table.version)
        assert table.last == {"seat": turn, "action": move}
        stored = room.store.events(table.id)[-1]
        assert (stored.version, stored.kind, stored.seat) == (table.version, "action", turn)
        assert anna.heard[-1]["version"] == table.version
        assert table.turns.of(turn).turns == 1
        await room.shutdown()

    asyncio.run(scenario())


def test_no_action_between_two_deals(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        assert table.match is not None
        table.pause_until = 1e12
        move, turn = greedy_move(table), table.match.deal.turn
        _refused("between_deals", lambda: room.turns.apply(table, turn, move, table.version, False))
        with pytest.raises(RoomError, match="next deal"):
            await room.turns.hint(table, turn)
        table.pause_until = None
        with pytest.raises(RoomError) as refused:
            await room.turns.hint(table, 1 - turn)
        assert refused.value.code == "not_your_turn" and refused.value.params == {"seat": turn}
        await room.shutdown()

    asyncio.run(scenario())


def test_a_player_takes_their_seat_back_from_the_bot(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room, move_seconds=60)
        assert table.match is not None
        turn = table.match.deal.turn
        table.seats[turn].taken_over = True
        table.deadline = None
        await room.turns.take_back(table, turn)
        assert not table.seats[turn].taken_over
        assert table.deadline is not None  # a whole clock, as it is their turn
        await room.shutdown()

    asyncio.run(scenario())


def test_an_abandonment_ends_a_match_of_two_lines_and_finishes_the_table(tmp_path: Path) -> None:
    async def scenario() -> None:
        room = room_in(tmp_path)
        table, _ = await seated(room)
        await room.turns.abandon(table, 1)
        assert table.match is not None and table.match.abandoned_by == 1
        assert table.status == "over" and room.store.record(table.id)
        _refused("over", lambda: room.turns.apply(table, 0, "draw", table.version, False))
        await room.shutdown()

    asyncio.run(scenario())
