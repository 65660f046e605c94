"""A seat's sockets: opening, closing, and each message a seat sends, to its part.

Past the cap of sockets a seat may hold, the oldest is told why and closed.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from burraco.server.capacity import Capacity
from burraco.server.messages import BadMessage, read_message
from burraco.server.table.chat import TableChat
from burraco.server.table.errors import RoomError, error_message
from burraco.server.table.live import Close, LiveTable, Send, Shared, safe_send
from burraco.server.table.pause import Pauser, waiting_for
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
        pauser: Pauser,
        views: Views,
        chat: TableChat,
        turns: Turns,
    ) -> None:
        self.shared = shared
        self.capacity = capacity
        self.pauser = pauser
        self.views = views
        self.chat = chat
        self.turns = turns

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
        clock_started = self.pauser.sees_deal(table, seat)
        await send(state(table, seat))
        history = self.chat.history(table, "players")
        if history is not None:
            await send(history)
        if came_online or clock_started:
            await self.views.broadcast(table, skip=send)

    async def disconnect(self, table: LiveTable, seat: int, send: Send) -> None:
        seat_state = table.seats[seat]
        if send not in seat_state.connections:
            return  # replaced earlier
        seat_state.connections.remove(send)
        seat_state.closers.pop(send, None)
        self.shared.sockets -= 1
        table.seen = time.time()
        if not seat_state.connections:
            if table.pause_until is not None and table.ready and not waiting_for(table):
                await self.pauser.end(table)
                return
            await self.views.broadcast(table)

    async def message(self, table: LiveTable, seat: int, send: Send, raw: str) -> None:
        """Handle one message from a seat's socket; errors go back to that socket only."""
        try:
            message = read_message(raw)
        except BadMessage as error:
            await send(error_message("bad_message", str(error)))
            return
        kind = message["type"]
        try:
            if kind == "action":
                text = message.get("action")
                version = message.get("version")
                if not isinstance(text, str) or not isinstance(version, int):
                    raise RoomError("bad_message", "an action needs its text and the version seen")
                await self.turns.act(table, seat, text, version)
            elif kind == "sync":
                since = message.get("since", 0)
                if not isinstance(since, int):
                    raise RoomError("bad_message", "sync needs the last version seen")
                for event in table.events:
                    if event["version"] > since:
                        await send({k: v for k, v in event.items() if k != "sent"})
                await send(state(table, seat))
            elif kind == "next_deal":
                await self.pauser.next_deal(table, seat)
            elif kind == "take_back":
                await self.turns.take_back(table, seat)
            elif kind == "hint":
                if table.seats[seat].program:
                    raise RoomError("bot_no_hint", "a bot account plays without the room's hints")
                await send(await self.turns.hint(table, seat))
            elif kind == "abandon":
                await self.turns.abandon(table, seat)
            elif kind == "ping":
                await send({"type": "pong"})
            elif kind == "position":
                await send(seat_position(table, seat))
            elif kind == "chat":
                said = self.chat.say(table, "players", seat, table.seats[seat].name, message)
                await self.views.send_all(table, said)
            else:
                raise RoomError("bad_message", f"unknown message type {kind!r}")
        except RoomError as error:
            await send(error_message(error.code, error.message, error.params, error.rule))


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
