"""The turn: an action checked, stored, applied and told; take back, abandon, hint.

Every move goes through here, whoever makes it: a person, a bot, a clock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from burraco.actions import Action
from burraco.errors import IllegalMove
from burraco.server.table.clocks import Clocks
from burraco.server.table.errors import RoomError
from burraco.server.table.event import apply_event
from burraco.server.table.finish import Finisher
from burraco.server.table.live import LiveTable, fair_play_refusal
from burraco.server.table.log import EventLog
from burraco.server.table.pause import Pauser
from burraco.server.table.views import Views
from burraco.server.thinking import Busy, Thinking

__all__ = ["Turns"]

log = logging.getLogger("burraco.room")


class Turns:
    """Every move at a table goes through here, whoever makes it (a person, a bot, a clock)."""

    def __init__(
        self,
        log: EventLog,
        pauser: Pauser,
        clocks: Clocks,
        views: Views,
        finisher: Finisher,
        thinking: Thinking,
        *,
        hint_seconds: float = 0.5,
    ) -> None:
        self.log = log
        self.pauser = pauser
        self.clocks = clocks
        self.views = views
        self.finisher = finisher
        self.thinking = thinking
        self.hint_seconds = hint_seconds
        #: The telling of actions whose callers were cancelled (kept from the collector).
        self._telling: set[asyncio.Future[None]] = set()

    async def act(
        self, table: LiveTable, seat: int, text: str, version: int, *, by_bot: bool = False
    ) -> None:
        """One action for a seat: checked, stored, applied, told. Raises :class:`RoomError`."""
        # Once its event is handed to the store, the action is applied when it is stored
        # even if the caller is cancelled meanwhile: the table never stays behind its log.
        stored = asyncio.ensure_future(self._store(table, seat, text, version, by_bot))
        try:
            await asyncio.shield(stored)
        except asyncio.CancelledError:
            stored.add_done_callback(lambda done: self._tell_later(table, done))
            raise
        # Told from the caller's task (a bot's turn schedules the next from its own).
        await self.after_change(table)

    async def _store(
        self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool
    ) -> None:
        async with table.lock:
            _, payload = self.check(table, seat, text, version, by_bot)
            # The table's group commit: nobody hears of the action before it is stored.
            await self.log.commit_event(table, "action", seat, payload)
            self.applied(table, seat, payload)

    def _tell_later(self, table: LiveTable, stored: asyncio.Future[None]) -> None:
        """An action stored after its caller was cancelled is told all the same."""
        if stored.cancelled() or stored.exception() is not None:
            return
        telling = asyncio.ensure_future(self.after_change(table))
        self._telling.add(telling)
        telling.add_done_callback(self._telling.discard)

    def apply(self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool) -> None:
        """Check, store and apply one action under the table's lock (nothing told yet);
        a refusal raises :class:`RoomError` and leaves the table as it was."""
        _, payload = self.check(table, seat, text, version, by_bot)
        self.log.store_event(table, "action", seat, payload)
        self.applied(table, seat, payload)

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

    def applied(self, table: LiveTable, seat: int, payload: dict[str, Any]) -> None:
        """A stored action applied to the table (nothing told yet)."""
        ended = apply_event(table, table.version, "action", seat, payload)
        if ended is not None:
            self.pauser.pause(table, time.time())
        self.clocks.set_clock(table)

    async def take_back(self, table: LiveTable, seat: int) -> None:
        """A player whose seat a bot took over after a time-out takes it back: at once,
        before the bot's next move, with a whole move clock if it is their turn."""
        state = table.seats[seat]
        if not state.taken_over:
            return
        state.taken_over = False
        match = table.match
        if match is not None and not match.is_over and match.deal.turn == seat:
            self.clocks.set_clock(table)
        await self.views.broadcast(table)
        self.clocks.schedule(table)

    async def abandon(self, table: LiveTable, seat: int) -> None:
        async with table.lock:
            match = table.match
            if match is None or table.status != "playing":
                raise RoomError("forbidden", "there is no match in play to abandon")
            if match.v.lines != 2:
                raise RoomError("forbidden", "the abandonment rule is for tables of two lines")
            self.log.store_event(table, "abandon", seat, {})
            apply_event(table, table.version, "abandon", seat, {})
        await self.after_change(table)

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

    async def after_change(self, table: LiveTable) -> None:
        """After a stored change: the scores of deals just ended, the end of the match,
        every seat's new state, and what wakes next."""
        match = table.match
        assert match is not None
        for event in table.events[-3:]:
            if event["type"] == "deal_over" and event.get("sent") is None:
                event["sent"] = True
                await self.views.send_all(table, {k: v for k, v in event.items() if k != "sent"})
        if match.is_over and table.status != "over":
            await self.finisher.ended(table)
        await self.views.broadcast(table)
        self.clocks.schedule(table)
