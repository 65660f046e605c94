"""One apply of a stored event (server/table/event.py): live play applies each event with
it once stored, and the replay after a restart applies the log with it, event by event."""

from __future__ import annotations

import pytest
from parts import dealt, greedy_move

from burraco.errors import RuleError
from burraco.server.table.event import apply_event


def test_an_action_moves_the_match_the_tally_and_the_public_events() -> None:
    table = dealt()
    assert table.match is not None
    turn, move = table.match.deal.turn, greedy_move(table)
    assert apply_event(table, 4, "action", turn, {"action": move, "bot": True}) is None
    assert table.version == 4 and table.last == {"seat": turn, "action": move}
    assert table.events == [{"type": "event", "version": 4, "seat": turn, "action": move}]
    assert table.turns.of(turn).bot == 1
    assert table.seats[turn].taken_over  # a bot played a person's seat: the bot's now


def test_the_action_that_ends_a_deal_is_followed_by_its_score() -> None:
    table = dealt()
    match = table.match
    assert match is not None
    ended = None
    while ended is None:
        ended = apply_event(
            table, table.version + 1, "action", match.deal.turn, {"action": greedy_move(table)}
        )
    assert ended == 0 and table.events[-1]["type"] == "deal_over"
    assert table.events[-1]["version"] == table.version == table.events[-2]["version"]


def test_a_time_out_and_an_abandonment_are_applied_as_the_engine_calls_them() -> None:
    table = dealt(deal_seconds=600)
    assert table.match is not None
    apply_event(table, 1, "time-out", None, {})
    assert table.match.deal.timeout_turns >= 0 and table.events[-1]["action"] == "time-out"
    apply_event(table, 2, "abandon", 1, {})
    assert table.match.is_over and table.match.abandoned_by == 1


def test_an_event_the_engine_refuses_raises_before_it_is_told() -> None:
    table = dealt()
    assert table.match is not None
    turn = table.match.deal.turn
    before_drawing = f"discard {table.match.view(turn).hand[0]}"
    with pytest.raises(RuleError):
        apply_event(table, 1, "action", turn, {"action": before_drawing})
    assert table.events == [] and table.version == 0
