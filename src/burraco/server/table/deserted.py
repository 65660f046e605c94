"""Tables nobody is at: a match in play no person has open, where nobody moved for a while, ends.

A table with no move clock waits for ever for the player on turn: one who never opens it
(a script's tables, a challenger who walked off) held a place of the room's ``max_tables``,
or a bot's slots, for hours, and the one who stayed had only abandoning, a loss, for a way
out. A table in play where no person (a program's seat is not one) has a socket open and
no move was made for ``capacity.deserted_seconds`` ends, whatever its clock: its status
becomes "expired", as a waiting table nobody opened, and no result is stored, so it is
rated for nobody and is nobody's loss. The sockets still open on it (a program's) hear
why, and are closed. A tournament's tables are the director's to end.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Final

from burraco.server.door.capacity import Capacity
from burraco.server.table.errors import error_message
from burraco.server.table.live import Close, LiveTable, Send, Shared, with_row
from burraco.storage import Store
from burraco.storage.store import StorageUnavailable

__all__ = ["DESERTED", "Deserted", "nobody_at"]

#: What the sockets still open on a table that ends so hear.
DESERTED: Final = "the table ended: nobody played at it for {minutes} minutes (not rated)"


def nobody_at(table: LiveTable) -> bool:
    """No person has the table open: no socket on a person's seat (a program's seat, a bot,
    a spectator do not count)."""
    return not any(s.connections for s in table.seats if s.kind == "human" and not s.program)


@dataclass
class Deserted:
    """Ends the tables in play that nobody is at (:func:`nobody_at`) and where nobody has
    moved for ``capacity.deserted_seconds``."""

    store: Store
    shared: Shared
    capacity: Capacity
    #: Each table nobody is at: its version when that was first seen, and since when it
    #: has stood at that version.
    still: dict[str, tuple[int, float]] = field(default_factory=dict)

    def due(self, table: LiveTable, now: float) -> bool:
        """Whether the table has stood deserted long enough to end (and note it if not)."""
        if (
            table.status != "playing"
            or table.row.tournament
            or table.match is None
            or table.match.is_over
            or not nobody_at(table)
        ):
            self.still.pop(table.id, None)
            return False
        version, since = self.still.get(table.id, (table.version, now))
        if version != table.version:
            version, since = table.version, now  # somebody moved: a fresh wait
        self.still[table.id] = (version, since)
        return now - since >= self.capacity.deserted_seconds

    def end(self, table: LiveTable) -> bool:
        """End a deserted table (no result, no rating); False if the database refused."""
        try:
            self.store.set_status(table.id, "expired")
        except StorageUnavailable:
            return False
        self.still.pop(table.id, None)
        table.row = with_row(table.row, status="expired")
        for task in (table.clock_task, table.bot_task, table.deal_task, table.pause_task):
            if task is not None:
                task.cancel()
        minutes = round(self.capacity.deserted_seconds / 60)
        message = error_message("over", DESERTED.format(minutes=minutes), {"minutes": minutes})
        for seat in table.seats:
            for send, close in list(seat.closers.items()):
                with contextlib.suppress(RuntimeError):  # no loop: no socket either
                    loop = asyncio.get_running_loop()
                    self.shared.keep(loop.create_task(_tell_and_close(send, close, message)))
        return True


async def _tell_and_close(send: Send, close: Close, message: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):  # the socket went meanwhile
        await send(message)
        await close(1000, "the table ended")
