"""The pause between two deals, and the absence wait of a person's first turn in a deal.

The score stays up until every person online has pressed "next deal" or its countdown
ends; a person away when a deal begins is waited for before their first clock runs.
"""

from __future__ import annotations

import asyncio
import time

from burraco.server.table.live import LiveTable

__all__ = ["NEXT_DEAL_SECONDS", "Pauser", "move_deadline", "set_clock", "waiting_for"]

#: Seconds the score of a deal stays up before the next deal begins by itself, unless
#: every person at the table presses "next deal" sooner.
NEXT_DEAL_SECONDS = 30.0


def waiting_for(table: LiveTable) -> list[int]:
    """The seats of the people at the table, online, who have not pressed next deal."""
    return [
        i
        for i, s in enumerate(table.seats)
        if s.kind == "human" and s.connections and i not in table.ready
    ]


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


def set_clock(table: LiveTable) -> None:
    """Set the move clock of the seat on turn from now."""
    table.deadline = move_deadline(table, time.time())


class Pauser:
    """Starts, shortens and ends the pause between two deals; keeps who has seen a deal
    begin (whose first turn's clock waits for them). It changes the table only: the step
    tells the change and starts what waits on it (:class:`Step`)."""

    def __init__(self, seconds: float = NEXT_DEAL_SECONDS) -> None:
        #: The pause after a deal, and the absence wait of a person away when it begins.
        self.seconds = seconds

    def seconds_after(self, table: LiveTable, online: bool = False) -> float:
        """The pause after a deal: none at a table where no person sits (or, with
        ``online``, where no person is connected to read the score)."""
        people = any(s.kind == "human" and (s.connections or not online) for s in table.seats)
        return self.seconds if people else 0.0

    def pause(self, table: LiveTable, ended_at: float) -> None:
        """A deal has just ended: the score stays up until every person has pressed "next
        deal" or the pause is over. The next deal's clocks start when it begins."""
        assert table.match is not None
        seconds = self.seconds_after(table, online=True)
        table.deal_started = ended_at + seconds
        if table.match.is_over:
            return
        if not seconds:
            # Nobody online reads the score: the next deal begins at once, and the
            # people away have the absence wait before their first turn's clock.
            self.deal_begins(table, ended_at, self.seconds)
            return
        table.pause_until = ended_at + seconds
        table.ready = set()

    @staticmethod
    def press(table: LiveTable, seat: int) -> bool | None:
        """A player pressed "next deal": whether the deal begins now (everyone online has
        pressed); None for a late press (the deal has begun)."""
        if table.pause_until is None:
            return None
        table.ready.add(seat)
        return not waiting_for(table)

    @staticmethod
    async def countdown(table: LiveTable) -> bool:
        """The pause's own timer: whether the next deal begins at its end (False when it
        began sooner)."""
        until = table.pause_until
        if until is None:
            return False
        await asyncio.sleep(max(0.0, until - time.time()))
        return table.pause_until == until

    def end(self, table: LiveTable, now: float) -> bool:
        """The pause is over: the deal in play begins, its move clock set; False when no
        pause was on. Its own timer, if another task ends it, is stopped."""
        if table.pause_until is None:
            return False
        task = table.pause_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        table.pause_until = None
        table.ready = set()
        table.deal_started = now
        self.deal_begins(table, now, self.seconds)
        set_clock(table)
        return True

    @staticmethod
    def deal_begins(table: LiveTable, now: float, wait: float) -> None:
        """A deal begins: the people with no open socket have not seen it begin, so their
        first turn's clock waits ``wait`` seconds for them (it starts whole when they come)."""
        table.unseen = {
            i for i, s in enumerate(table.seats) if s.kind == "human" and not s.connections
        }
        table.absent_until = now + wait

    @staticmethod
    def keep_grace(table: LiveTable, until: float) -> bool:
        """After a restart, a table still in its first deal waits until ``until`` (a
        tournament's grace, which its log does not keep) for the people who have not
        played a move yet and have no open socket. True when the clock of the seat on turn
        was set again (the step starts it)."""
        match = table.match
        if match is None or match.is_over or table.status != "playing" or len(match.deals) != 1:
            return False
        if until <= time.time():
            return False
        played = {e.get("seat") for e in table.events} - {None}
        table.unseen = {
            i
            for i, s in enumerate(table.seats)
            if s.kind == "human" and not s.connections and i not in played
        }
        table.absent_until = until
        if match.deal.turn in table.unseen and table.pause_until is None:
            set_clock(table)
            return True
        return False

    @staticmethod
    def sees_deal(table: LiveTable, seat: int) -> bool:
        """A socket of ``seat`` is about to receive the deal in play: the person has seen
        it begin. True when their first turn's clock is set now, whole (the step starts it)."""
        if seat not in table.unseen or table.pause_until is not None:
            return False
        table.unseen.discard(seat)
        match = table.match
        if match is None or match.is_over or match.deal.turn != seat or table.deadline is None:
            return False
        if table.seats[seat].taken_over:
            return False
        set_clock(table)
        return True
