"""The sockets' route: ``/ws/{table_id}``, a seat's loop and a spectator's loop.

A socket opens a seat with its token (``?token=``), its account's session or a bot's
token (``Authorization: Bearer``), or watches with ``?watch=1`` (public information
only, docs/protocol.md). In a cluster a socket that reached a process not owning its table
is relayed to the owner (``Relays.relay``, ``cluster.relays``). Every socket's messages are
paced (:func:`paced`): a flood from one costs the room no more than a person's pace, or a
program's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from burraco.server.accounts.bots import BotAccounts
from burraco.server.accounts.people import BAD_TOKEN, Accounts, by_token, same_origin, user_of
from burraco.server.desk import Desk
from burraco.server.door.capacity import BUSY
from burraco.server.door.limits import TRY_LATER, Limits, Rates
from burraco.server.messages import text_of
from burraco.server.room import Room, RoomError, error_message, too_fast
from burraco.server.watching import spectator_name
from burraco.storage import Store

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["paced", "routes", "texts", "too_many_sockets", "watch"]

Receive = Callable[[], Awaitable[str]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def routes(
    room: Room,
    store: Store,
    accounts: Accounts,
    bot_accounts: BotAccounts,
    desk: Desk,
    cluster: Cluster | None,
    rates: Rates,
    limits: Limits,
) -> APIRouter:
    """The socket route; ``rates`` paces each socket's messages, ``limits`` caps their size."""
    router = APIRouter()

    @router.websocket("/ws/{table_id}")
    async def play(socket: WebSocket, table_id: str) -> None:
        await socket.accept()
        bot = user_of(socket) if by_token(socket) else None
        if bot is None:
            await seat_socket(socket, table_id)
            return

        async def revoked(code: int, reason: str) -> None:
            # What a socket opened with a revoked token hears (accounts.Sessions).
            error = {"type": "error", "code": "bad_token", "message": BAD_TOKEN, "params": {}}
            with contextlib.suppress(Exception):
                await socket.send_json(error)
            await socket.close(code=code, reason=reason)

        # Known to the bot accounts while open: its token revoked, it is closed at once.
        token = socket.headers.get("authorization", "")[7:].strip()
        bot_accounts.opened(bot.id, token, revoked)
        try:
            await seat_socket(socket, table_id)
        finally:
            bot_accounts.closed(bot.id, revoked)

    async def seat_socket(socket: WebSocket, table_id: str) -> None:
        """A seat's (or a spectator's) socket, accepted, to its table until it closes."""
        token = socket.query_params.get("token", "")
        user = user_of(socket)
        # A socket that would open a seat by its session alone must come from this room (a
        # bot's token is no cookie: any program may send it).
        bearer = by_token(socket)
        user_id = user.id if user is not None and (token or bearer or same_origin(socket)) else None
        if user_id is not None and await too_many_sockets(socket, rates, user_id):
            return
        pace = "bot_messages" if bearer else "socket_messages"
        # A spectator (?watch=1) needs no token: it hears public information only.
        watching = socket.query_params.get("watch") == "1"
        spectator = socket.query_params.get("name", "")[:200] if watching else None
        registered = accounts.names.look_alike(spectator) if spectator else None
        if registered is not None and (user is None or user.name != registered):
            # Nobody chats under a registered person's name, nor under a look-alike of it,
            # but that person: the others are "Spectator" (as without a name).
            spectator = ""
        known = cluster is not None and await cluster.leases.known(table_id)
        owner = await cluster.owners.owner(table_id) if cluster is not None and known else None
        if cluster is not None and owner is not None and owner != cluster.node:
            receive = paced(rates, texts(socket), socket.send_json, pace)
            await relay(cluster, socket, table_id, owner, token, receive, user_id, spectator)
        elif spectator is not None:
            receive = paced(rates, texts(socket), socket.send_json)
            await watch(room, socket, table_id, spectator, receive, limits.message_bytes)
        else:
            await seat_loop(socket, table_id, token, user_id, bearer, pace)

    async def seat_loop(
        socket: WebSocket, table_id: str, token: str, user_id: int | None, bearer: bool, pace: str
    ) -> None:
        """A seat's socket on this process, from its first state to its close."""
        try:
            table = room.table(table_id)
            if bearer and table.row.tournament:
                desk.admit_bot(table.row.tournament)
            seat = room.seat_of(table, token, user_id)
        except RoomError as error:
            await socket.send_json(
                {"type": "error", "code": "forbidden", "message": error.message, "params": {}}
            )
            await socket.close(code=4403)
            return

        try:
            # A seat is never refused for spectators: the newest are shed to make room.
            room.admit_seat()
        except RoomError:
            await socket.send_json({"type": "error", "code": "busy", "message": BUSY, "params": {}})
            await socket.close(code=1013)  # try again later
            return

        async def send(message: dict[str, Any]) -> None:
            await socket.send_text(text_of(message))

        async def close(code: int, reason: str) -> None:
            await socket.close(code=code, reason=reason)

        await room.connect(table, seat, send, close)
        receive = paced(rates, texts(socket), send, pace)
        try:
            while True:
                raw = await receive()
                if len(raw) > limits.message_bytes:
                    await send(
                        {
                            "type": "error",
                            "code": "bad_message",
                            "message": f"a message has at most {limits.message_bytes} bytes",
                        }
                    )
                    continue
                await room.message(table, seat, send, raw)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the player closed the page or lost the connection
        except asyncio.CancelledError:
            # The room is stopping: past its graceful timeout uvicorn cancels what is left
            # (a hint waiting for a worker, say); the socket goes quietly, not as an error.
            pass
        finally:
            await room.disconnect(table, seat, send)

    return router


async def relay(
    cluster: Cluster,
    socket: WebSocket,
    table_id: str,
    owner: str,
    token: str,
    receive: Receive,
    user_id: int | None,
    spectator: str | None,
) -> None:
    """Another process holds the table: carry this socket there and back, and close it as
    the owner says (or with 1012 if the owner dies: the page reconnects)."""
    code = 1000
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        code = await cluster.relays.relay(
            table_id,
            owner,
            token,
            socket.send_json,
            receive,
            user_id,
            watch=spectator,
            send_text=socket.send_text,
        )
    with contextlib.suppress(Exception):
        await socket.close(code=code)


async def too_many_sockets(socket: WebSocket, rates: Rates, user_id: int) -> bool:
    """Whether the account ``user_id`` opened too many sockets of late (one account's in a
    loop, from any address): then this one is told ``too_many_sockets`` with the seconds
    to wait and closed with :data:`TRY_LATER`. Counts this one."""
    wait = await rates.hit_anywhere("account_sockets", f"user-{user_id}")
    if wait is None:
        return False
    seconds = round(wait)
    reason = f"too many sockets opened by this account: try again in {seconds} s"
    await socket.send_json(error_message("too_many_sockets", reason, {"seconds": seconds}))
    await socket.close(code=TRY_LATER, reason=reason)
    return True


async def watch(
    room: Room,
    socket: WebSocket,
    table_id: str,
    name: str,
    receive: Receive,
    message_bytes: int,
) -> None:
    """A spectator's socket on this process, from its first state to its close (its
    outbox and writer: server/watching.py)."""

    async def close(code: int, reason: str) -> None:
        await socket.close(code=code, reason=reason)

    address = socket.client.host if socket.client else "unknown"
    try:
        table = room.table(table_id)
        watcher = await room.watch(table, spectator_name(name), socket.send_text, close, address)
    except RoomError as error:
        await socket.send_json(error_message(error.code, error.message, error.params))
        # 1013: try again later (the room or this address watches as much as it may);
        # 4403: this table is not to be watched.
        await socket.close(code=1013 if error.status in (429, 503) else 4403)
        return
    try:
        while True:
            raw = await receive()
            if len(raw) > message_bytes:
                watcher.say(
                    error_message("bad_message", f"a message has at most {message_bytes} bytes")
                )
                continue
            await room.watch_message(table, watcher, raw)
    except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        pass  # the spectator left, or the room is stopping
    finally:
        await room.unwatch(table, watcher)


def texts(socket: WebSocket) -> Receive:
    """``socket.receive_text`` that also takes a binary frame, as UTF-8 text: Starlette's
    own fails on one with a KeyError, which closed the socket with 1011 and no answer."""

    async def receive() -> str:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        text = message.get("text")
        if text is not None:
            return str(text)
        # Not UTF-8: the replacement character is no JSON, so the answer is bad_message.
        return bytes(message.get("bytes") or b"").decode("utf-8", "replace") or "\ufffd"

    return receive


#: Each socket's own count of messages.
_SOCKET_IDS = itertools.count()


def paced(rates: Rates, receive: Receive, send: Send, kind: str = "socket_messages") -> Receive:
    """``receive`` for one socket, dropping what comes faster than ``kind`` allows
    (``socket_messages``; a bot's token: ``bot_messages``), with one ``too_fast`` answer a
    burst: a flood from one socket costs the room no more than a person's pace (or a
    program's), whichever process it reaches."""
    key = f"socket-{next(_SOCKET_IDS)}"
    dropping = False

    async def paced() -> str:
        nonlocal dropping
        while True:
            raw = await receive()
            wait = rates.hit(kind, key)
            if wait is None:
                dropping = False
                return raw
            if not dropping:
                await send(too_fast(wait))
            dropping = True

    return paced
