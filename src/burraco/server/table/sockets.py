"""A seat's sockets: opening, closing, and each message a seat sends, to its part.

Past the cap of sockets a seat may hold, the oldest is told why and closed. Each socket
pays for its messages from a budget of work (server/door/limits.py, :class:`Budget`): a sync
costs by the events it resends, and a sync of what the socket was sent already is
refused, so that no socket takes more than its share of the loop (issue 32).
"""

from __future__ import annotations

import contextlib
import time
from bisect import bisect_right
from dataclasses import replace
from typing import Any

from burraco.server.door.capacity import Capacity
from burraco.server.door.limits import Budget, Limits
from burraco.server.messages import BadMessage, read_message
from burraco.server.table.chat import TableChat
from burraco.server.table.errors import RoomError, error_message, too_fast
from burraco.server.table.live import Close, LiveTable, Send, Shared, safe_send
from burraco.server.table.pause import Pauser, waiting_for
from burraco.server.table.step import Step
from burraco.server.table.turns import Turns
from burraco.server.table.views import Views, state

__all__ = ["REPLACED", "SeatSockets", "seat_position"]

#: The close code of a socket replaced by a newer one on the same seat; the page does not
#: reconnect by itself after it (the seat is open in another window).
REPLACED = 4409


class SeatSockets:
    """The sockets of the seats of every table: who is online, and what they send."""

    def __init__(
        self,
        shared: Shared,
        capacity: Capacity,
        chat: TableChat,
        turns: Turns,
        step: Step,
        limits: Limits | None = None,
    ) -> None:
        self.shared = shared
        self.capacity = capacity
        self.chat = chat
        #: The hint (a question, no change of the table).
        self.turns = turns
        #: Every change a seat asks for (an action, next deal, abandoning) goes through it.
        self.step = step
        self.limits = limits or Limits()
        #: Each open socket's budget of work, by its send (a socket's own, on the process
        #: that holds its table, relayed or not).
        self.budgets: dict[Send, Budget] = {}

    async def connect(
        self, table: LiveTable, seat: int, send: Send, close: Close | None = None
    ) -> None:
        """A socket opens on a seat. Past ``capacity.sockets_per_seat`` the oldest socket of
        the seat is told why and closed; the others hear of it only when the seat comes
        online (so opening sockets costs the table nothing)."""
        seat_state = table.seats[seat]
        while len(seat_state.connections) >= max(1, self.capacity.sockets_per_seat):
            oldest = seat_state.connections.pop(0)
            closer = seat_state.closers.pop(oldest, None)
            self.budgets.pop(oldest, None)
            self.shared.sockets -= 1
            await safe_send(
                oldest, error_message("replaced", "this seat was opened in another window")
            )
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer(REPLACED, "replaced by a newer connection")
        came_online = not seat_state.connections
        table.seen = time.time()
        seat_state.connections.append(send)
        if close is not None:
            seat_state.closers[send] = close
        self.shared.sockets += 1
        clock_started = Pauser.sees_deal(table, seat)
        if clock_started:
            self.step.schedule(table)
        await send(state(table, seat))
        history = self.chat.history(table, "players")
        if history is not None:
            await send(history)
        if came_online or clock_started:
            await self.step.show(table, skip=send)

    async def disconnect(self, table: LiveTable, seat: int, send: Send) -> None:
        seat_state = table.seats[seat]
        if send not in seat_state.connections:
            return  # replaced earlier
        seat_state.connections.remove(send)
        seat_state.closers.pop(send, None)
        self.budgets.pop(send, None)
        self.shared.sockets -= 1
        table.seen = time.time()
        if not seat_state.connections:
            if table.pause_until is not None and table.ready and not waiting_for(table):
                await self.step.end_pause(table)
                return
            await self.step.show(table)

    async def message(self, table: LiveTable, seat: int, send: Send, raw: str) -> None:
        """Handle one message from a seat's socket; errors go back to that socket only."""
        try:
            message = read_message(raw)
        except BadMessage as error:
            await send(error_message("bad_message", str(error)))
            return
        kind = message["type"]
        if not await self._pay(table, seat, send, message):
            return
        try:
            if kind == "action":
                text = message.get("action")
                version = message.get("version")
                if not isinstance(text, str) or not isinstance(version, int):
                    raise RoomError("bad_message", "an action needs its text and the version seen")
                await self.step.act(table, seat, text, version)
            elif kind == "sync":
                since = message.get("since", 0)
                if not isinstance(since, int):
                    raise RoomError("bad_message", "sync needs the last version seen")
                budget = self.budgets.get(send)
                if budget is not None and _repeated(budget, since):
                    raise RoomError(
                        "sync_repeated",
                        f"this connection was sent the events up to version {budget.synced} "
                        "already: sync since that version or later",
                        params={"version": budget.synced},
                    )
                for event in table.events[_first_after(table, since) :]:
                    await send({k: v for k, v in event.items() if k != "sent"})
                synced, said = table.version, state(table, seat)
                budget = self.budgets.get(send)
                if budget is not None:
                    self.budgets[send] = replace(budget, synced=max(budget.synced, synced))
                await send(said)
            elif kind == "next_deal":
                await self.step.next_deal(table, seat)
            elif kind == "take_back":
                await self.step.take_back(table, seat)
            elif kind == "hint":
                if table.seats[seat].program:
                    raise RoomError("bot_no_hint", "a bot account plays without the room's hints")
                await send(await self.turns.hint(table, seat))
            elif kind == "abandon":
                await self.step.abandon(table, seat)
            elif kind == "ping":
                await send({"type": "pong"})
            elif kind == "position":
                await send(seat_position(table, seat))
            elif kind == "chat":
                said = self.chat.say(table, "players", seat, table.seats[seat].name, message)
                await Views.send_all(table, said)
            else:
                raise RoomError("bad_message", f"unknown message type {kind!r}")
        except RoomError as error:
            await send(error_message(error.code, error.message, error.params, error.rule))

    async def _pay(self, table: LiveTable, seat: int, send: Send, message: dict[str, Any]) -> bool:
        """Whether the socket's budget pays for ``message`` (a sync: by the events it
        would resend); else the message is dropped, with one ``too_fast`` a burst."""
        now = time.monotonic()
        budget = self.budgets.get(send)
        if budget is None:
            limits = self.limits
            rate = limits.bot_messages if table.seats[seat].program else limits.socket_messages
            budget = Budget.of(rate, now, limits.socket_messages)
        cost = 1
        since = message.get("since", 0)
        # A sync refused as repeated costs as little as any message (its answer is small).
        if message["type"] == "sync" and isinstance(since, int) and not _repeated(budget, since):
            cost = budget.sync_cost(len(table.events) - _first_after(table, since))
        paid = budget.pay(cost, now)
        if paid is not None:
            self.budgets[send] = paid
            return True
        if not budget.short:
            await send(too_fast(budget.wait(cost, now)))
        self.budgets[send] = replace(budget, short=True)
        return False


def _first_after(table: LiveTable, since: int) -> int:
    """The index of the log's first event after version ``since`` (the log is in order)."""
    return bisect_right(table.events, since, key=lambda event: int(event["version"]))


def _repeated(budget: Budget, since: int) -> bool:
    """Whether a sync asks again for events its socket was sent: those up to the version a
    sync brought it to. (A sync since that version is answered: the state alone, which a
    page asks for after a stale action, at the cost of one message.)"""
    return since < budget.synced


def seat_position(table: LiveTable, seat: int) -> dict[str, Any]:
    """The seat's view of the deal in play as a position (docs/position.md): exactly what
    the seat may see, in the form a program rebuilds the engine's view from
    (``DealView.from_position``; burraco.client asks it for the house bots)."""
    match = table.match
    if match is None:
        raise RoomError("forbidden", "the match has not started", 409)
    return {
        "type": "position",
        "version": table.version,
        "seat": seat,
        "position": match.deal.view(seat).position(),
    }
