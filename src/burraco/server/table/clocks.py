"""The move clock and the deal clock, and what wakes after any change at a table.

After a change :meth:`Clocks.schedule` starts what the table waits on: the bot on turn,
the clock of a person on turn, the deal's clock, the pause's countdown.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from burraco.server.table.errors import RoomError
from burraco.server.table.event import apply_event
from burraco.server.table.live import LiveTable, Shared
from burraco.server.table.views import Views

if TYPE_CHECKING:
    from burraco.server.table.bots import Bots
    from burraco.server.table.log import EventLog
    from burraco.server.table.pause import Pauser
    from burraco.server.table.turns import Turns

__all__ = ["Clocks", "move_deadline"]


def move_deadline(table: LiveTable, now: float) -> float | None:
    """When the move clock of the seat on turn runs out, counted from ``now``; None when
    no clock runs (no move clock, no match, the match over, between two deals)."""
    seconds = table.row.move_seconds
    match = table.match
    if not seconds or match is None or match.is_over or table.pause_until is not None:
        return None
    start = now
    if match.deal.turn in table.unseen:
        # Nobody's clock runs before they have seen the deal begin: a person away
        # is waited for first (when they come, :meth:`Pauser.sees_deal` restarts it whole).
        start = max(start, table.absent_until)
    return start + seconds


class Clocks:
    """Sets the move clock, and after each change starts the tasks the table waits on."""

    #: Wired by the room (the bots and the turn call the clocks back).
    bots: Bots
    turns: Turns

    def __init__(self, shared: Shared, views: Views, pauser: Pauser, log: EventLog) -> None:
        self.shared = shared
        self.views = views
        self.pauser = pauser
        self.log = log

    @staticmethod
    def set_clock(table: LiveTable) -> None:
        table.deadline = move_deadline(table, time.time())

    def schedule(self, table: LiveTable) -> None:
        """After any change: wake the bot on turn, and watch the clock of a person on turn."""
        match = table.match
        if match is None or match.is_over or table.status != "playing" or self.shared.closing:
            return
        if table.pause_until is not None:
            if table.pause_task is None or table.pause_task.done():
                table.pause_task = asyncio.create_task(self.pauser.countdown(table))
            return
        seat = match.deal.turn
        running = table.bot_task
        idle = running is None or running.done() or running is asyncio.current_task()
        if table.seats[seat].bot_plays and idle:
            table.bot_task = asyncio.create_task(self.bots.turn(table, table.version))
        if table.deadline is not None and not table.seats[seat].bot_plays:
            if table.clock_task is not None:
                table.clock_task.cancel()
            table.clock_task = asyncio.create_task(self.move_clock(table, table.version))
        deal = len(match.deals)
        if table.row.deal_seconds and match.deal.timeout_turns < 0 and table.deal_clocked != deal:
            if table.deal_task is not None:
                table.deal_task.cancel()
            table.deal_clocked = deal
            table.deal_task = asyncio.create_task(self.deal_clock(table, deal))

    async def move_clock(self, table: LiveTable, version: int) -> None:
        """The move clock's task: at its end a bot takes the seat over, or the player on
        turn abandons."""
        deadline = table.deadline
        if deadline is None:
            return
        await asyncio.sleep(max(0.0, deadline - time.time()))
        match = table.match
        if match is None or match.is_over or table.version != version:
            return
        seat = match.deal.turn
        # Past max_bot_tables a table its people left is not played on by bots alone: the
        # clock's end is then what it is without takeover (002's abandonment).
        if table.row.takeover and self.bots.may_take_over(table, seat):
            table.seats[seat].taken_over = True
            table.bot_task = asyncio.create_task(self.bots.turn(table, version))
            await self.views.broadcast(table)
            return
        while True:
            try:
                await self.turns.abandon(table, seat)
            except RoomError as error:
                if error.code != "unavailable":
                    return
                await asyncio.sleep(table.next_backoff())
                if table.version != version:
                    return
            else:
                return

    async def deal_clock(self, table: LiveTable, deal: int) -> None:
        """The tournament's time limit of a deal: at its end, 000's time-out procedure."""
        deadline = table.deal_started + table.row.deal_seconds
        await asyncio.sleep(max(0.0, deadline - time.time()))
        while True:
            async with table.lock:
                match = table.match
                if match is None or match.is_over or len(match.deals) != deal:
                    return
                if match.deal.timeout_turns >= 0:
                    return
                try:
                    self.log.store_event(table, "time-out", None, {})
                except RoomError as error:
                    if error.code != "unavailable":
                        return
                else:
                    apply_event(table, table.version, "time-out", None, {})
                    break
            await asyncio.sleep(table.next_backoff())
        await self.views.broadcast(table)
        self.schedule(table)
