"""The move clock and the deal clock, and which timers a table waits on after a change.

:func:`wakes` says what the table waits on now (the bot on turn, the clock of a person on
turn, the deal's clock, the pause's countdown); the step starts those timers
(:meth:`Step.schedule`), and each timer reports to the step what happened at its end.
When the move clock runs out is the pause's to say (:func:`move_deadline`, pause.py): no
clock runs between two deals, and a person away is waited for first.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Literal

from burraco.server.table.bots import Bots
from burraco.server.table.live import LiveTable

__all__ = ["Clocks", "Wakes", "wakes"]


@dataclass(frozen=True)
class Wakes:
    """The timers a table starts after a change."""

    #: The pause's countdown (between two deals nothing else runs).
    countdown: bool = False
    #: The bot on turn.
    bot: bool = False
    #: The move clock of the person on turn (started again: the deadline moved).
    move_clock: bool = False
    #: The deal whose deal clock starts, if one does.
    deal_clock: int | None = None


def wakes(table: LiveTable, closing: bool) -> Wakes:
    """What ``table`` waits on after a change (nothing while the room closes)."""
    match = table.match
    if match is None or match.is_over or table.status != "playing" or closing:
        return Wakes()
    if table.pause_until is not None:
        return Wakes(countdown=table.pause_task is None or table.pause_task.done())
    seat = match.deal.turn
    running = table.bot_task
    # A bot's turn that looks again schedules from its own task.
    idle = running is None or running.done() or running is asyncio.current_task()
    bot_plays = table.seats[seat].bot_plays
    deal = len(match.deals)
    deal_clock = (
        table.row.deal_seconds and match.deal.timeout_turns < 0 and table.deal_clocked != deal
    )
    return Wakes(
        bot=bot_plays and idle,
        move_clock=table.deadline is not None and not bot_plays,
        deal_clock=deal if deal_clock else None,
    )


class Clocks:
    """The move clock's and the deal clock's waits, and what their end means."""

    def __init__(self, bots: Bots) -> None:
        self.bots = bots

    async def move_clock(
        self, table: LiveTable, version: int
    ) -> tuple[Literal["takeover", "abandon"], int] | None:
        """Wait for the move clock of the table at ``version`` to run out: then a bot takes
        the seat on turn over, or its player abandons (which, and the seat); None if the
        table moved meanwhile."""
        deadline = table.deadline
        if deadline is None:
            return None
        await asyncio.sleep(max(0.0, deadline - time.time()))
        match = table.match
        if match is None or match.is_over or table.version != version:
            return None
        seat = match.deal.turn
        # Past max_bot_tables a table its people left is not played on by bots alone: the
        # clock's end is then what it is without takeover (002's abandonment).
        if table.row.takeover and self.bots.may_take_over(table, seat):
            return "takeover", seat
        return "abandon", seat

    @staticmethod
    async def deal_clock(table: LiveTable) -> None:
        """Wait for the tournament's time limit of the deal in play (000's time-out)."""
        deadline = table.deal_started + table.row.deal_seconds
        await asyncio.sleep(max(0.0, deadline - time.time()))
