"""The turn: whether an action, an abandonment, a hint may be made now; a seat taken back.

The turn checks and computes; the step stores each change first, applies it, then tells
it and starts what waits on it (:class:`Step`), whoever makes the move: a person, a bot,
a clock.
"""

from __future__ import annotations

import logging
from typing import Any

from burraco.actions import Action
from burraco.errors import IllegalMove
from burraco.server.process.thinking import Busy, Thinking
from burraco.server.table.errors import RoomError
from burraco.server.table.live import LiveTable, fair_play_refusal
from burraco.server.table.pause import set_clock

__all__ = ["Turns"]

log = logging.getLogger("burraco.room")


class Turns:
    """Checks each move at a table, whoever makes it, and answers a hint."""

    def __init__(self, thinking: Thinking, *, hint_seconds: float = 0.5) -> None:
        self.thinking = thinking
        self.hint_seconds = hint_seconds

    def check(
        self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool
    ) -> tuple[Action, dict[str, Any]]:
        """The action of ``text`` if ``seat`` may make it now, and its event's payload;
        else :class:`RoomError` naming the broken rule."""
        match = table.match
        if table.status == "waiting" or match is None:
            raise RoomError("forbidden", "the match has not started")
        if table.status == "over" or match.is_over:
            raise RoomError("over", "the match is over")
        if table.status == "expired":
            raise RoomError("over", "the table ended: nobody played at it for a long time")
        if version != table.version:
            raise RoomError(
                "stale", f"stale action: the table is at version {table.version}, not {version}"
            )
        if table.pause_until is not None:
            raise RoomError(
                "between_deals",
                "the next deal has not begun: it begins when every player has pressed "
                "next deal, or when its countdown ends",
            )
        if seat != match.deal.turn:
            turn = match.deal.turn
            raise RoomError(
                "not_your_turn", f"it is seat {turn}'s turn, not yours", params={"seat": turn}
            )
        try:
            action = Action.parse(text)
        except ValueError as error:
            raise RoomError("unknown_action", str(error)) from error
        try:
            match.check(action)
        except IllegalMove as error:
            raise RoomError("illegal", str(error), params=error.params, rule=error.code) from error
        return action, {"action": str(action)} | ({"bot": True} if by_bot else {})

    @staticmethod
    def take_back(table: LiveTable, seat: int) -> bool:
        """A player whose seat a bot took over after a time-out takes it back: at once,
        before the bot's next move, with a whole move clock if it is their turn. Whether
        the seat was the bot's."""
        state = table.seats[seat]
        if not state.taken_over:
            return False
        state.taken_over = False
        match = table.match
        if match is not None and not match.is_over and match.deal.turn == seat:
            set_clock(table)
        return True

    @staticmethod
    def may_abandon(table: LiveTable) -> None:
        """Raise :class:`RoomError` unless a seat may abandon the match now."""
        match = table.match
        if match is None or table.status != "playing":
            raise RoomError("forbidden", "there is no match in play to abandon")
        if match.v.lines != 2:
            raise RoomError("forbidden", "the abandonment rule is for tables of two lines")

    async def hint(self, table: LiveTable, seat: int) -> dict[str, Any]:
        match = table.match
        refusal = fair_play_refusal(table.row, "hint")
        if refusal is not None:
            raise refusal  # the coach asks with this message too
        if table.pause_until is not None:
            raise RoomError("between_deals", "the next deal has not begun")
        if match is None or match.is_over or match.deal.turn != seat:
            on_turn = {} if match is None or match.is_over else {"seat": match.deal.turn}
            raise RoomError("not_your_turn", "a hint is for the player on turn", params=on_turn)
        view = match.view(seat)
        from burraco.bots.hints import suggest

        try:
            hint = await self.thinking.think(table.id, suggest, view, self.hint_seconds, hint=True)
        except Busy as error:
            raise RoomError("busy", f"no hint now: {error}; try again in a moment", 503) from error
        except Exception as error:
            log.exception("a hint at %s failed", table.id)
            raise RoomError("busy", "no hint now: try again in a moment", 503) from error
        # A quick hint (its time ran out before the review's width) says how many sampled
        # deals it rests on; the page adds it to the reason.
        params = {**hint.params, "quick": hint.worlds} if hint.quick else hint.params
        return {
            "type": "hint",
            "action": str(hint.action),
            "reason": hint.reason,
            "why": hint.why,
            "params": params,
            "quick": hint.quick,
        }
