"""A stored event applied to a live table: one function for live play and for the replay.

Live play stores an event first, then applies it here; after a restart the log's events
are applied here one by one into a match dealt from the same seed, so a rebuilt table
is the table that was live. What depends on the clock (the pause after a deal, the move
clock) is each caller's: live play reads the time now, the replay the time stored.
"""

from __future__ import annotations

from typing import Any

from burraco.actions import Action
from burraco.server.table.live import LiveTable, Rematch, begin
from burraco.server.table.views import deal_over, public_event

__all__ = ["apply_event"]


def apply_event(
    table: LiveTable, version: int, kind: str, seat: int | None, payload: dict[str, Any]
) -> int | None:
    """Apply the event stored at ``version`` (start, action, time-out, abandon, a
    finished table's rematch) to the table, and add it to the table's public events (with the score of a deal it ended);
    the index of the deal it ended, or None. Raises what the engine raises for an event
    that does not apply."""
    ended: int | None = None
    match = table.match
    if kind == "start":
        begin(table)
    elif kind == "action":
        assert match is not None and seat is not None
        action = Action.parse(payload["action"])
        deals_before = len(match.scores)
        match.apply(action)
        by_bot = bool(payload.get("bot"))
        table.turns = table.turns.add(deals_before, seat, by_bot)
        state = table.seats[seat]
        # A bot's move in a person's seat: the seat is the bot's until its person acts.
        state.taken_over = by_bot and state.kind == "human"
        table.last = {"seat": seat, "action": str(action)}
        if len(match.scores) > deals_before:
            ended = deals_before
    elif kind == "time-out":
        assert match is not None
        match.call_time_out()
    elif kind == "abandon":
        assert match is not None and seat is not None
        match.abandon(seat)
    elif kind == "rematch":
        # The offer of a finished table's rematch, and who has joined it: no move, so
        # nothing for the moves' list.
        table.rematch = Rematch.of(payload)
        table.version = version
        return None
    table.version = version
    table.events.append(public_event(version, seat, kind, payload))
    if ended is not None:
        # The deal's score follows the action that ended it.
        table.events.append(deal_over(table, ended, version))
    return ended
