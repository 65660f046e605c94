"""The turn (server/table/turns.py): an action is refused with the rule it breaks and the
table unchanged; a seat taken back; who may abandon; a hint only for the seat on turn.
(Stored, applied and told through the step: test_part_step.py.)"""

from __future__ import annotations

import asyncio

import pytest
from parts import dealt, greedy_move

from burraco.server.process.thinking import Thinking
from burraco.server.table.errors import RoomError
from burraco.server.table.turns import Turns


def _turns() -> Turns:
    return Turns(Thinking(None))


def _refused(code: str, call: object) -> None:
    assert callable(call)
    with pytest.raises(RoomError) as refused:
        call()
    assert refused.value.code == code


def test_a_refused_action_names_its_rule_and_changes_nothing() -> None:
    table = dealt()
    assert table.match is not None
    turn, version = table.match.deal.turn, table.version
    move = greedy_move(table)
    check = _turns().check
    _refused("not_your_turn", lambda: check(table, 1 - turn, move, version, False))
    _refused("stale", lambda: check(table, turn, move, version - 1, False))
    _refused("unknown_action", lambda: check(table, turn, "juggle", version, False))
    illegal = f"discard {table.match.view(turn).hand[0]}"  # before drawing
    with pytest.raises(RoomError) as refused:
        check(table, turn, illegal, version, False)
    assert refused.value.code == "illegal" and refused.value.rule
    assert table.version == version and table.match.deal.turn == turn and table.events == []


def test_no_action_nor_hint_between_two_deals() -> None:
    table = dealt()
    assert table.match is not None
    table.pause_until = 1e12
    move, turn = greedy_move(table), table.match.deal.turn
    turns = _turns()
    _refused("between_deals", lambda: turns.check(table, turn, move, table.version, False))
    with pytest.raises(RoomError, match="next deal"):
        asyncio.run(turns.hint(table, turn))
    table.pause_until = None
    with pytest.raises(RoomError) as refused:
        asyncio.run(turns.hint(table, 1 - turn))
    assert refused.value.code == "not_your_turn" and refused.value.params == {"seat": turn}


def test_a_player_takes_their_seat_back_from_the_bot() -> None:
    table = dealt(move_seconds=60)
    assert table.match is not None
    turn = table.match.deal.turn
    assert not Turns.take_back(table, turn)  # not the bot's: nothing changes
    table.seats[turn].taken_over = True
    table.deadline = None
    assert Turns.take_back(table, turn)
    assert not table.seats[turn].taken_over
    assert table.deadline is not None  # a whole clock, as it is their turn


def test_only_a_match_of_two_lines_in_play_may_be_abandoned() -> None:
    Turns.may_abandon(dealt())
    _refused("forbidden", lambda: Turns.may_abandon(dealt(("human",) * 3)))
    _refused("forbidden", lambda: Turns.may_abandon(dealt(status="over")))
