"""A table's chat: a message checked, rated and stored; a channel's last messages.

The text rules (cleaning, the quick messages, the JSON): server/chat.py.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from burraco.server.chat import (
    HISTORY,
    LONGEST,
    QUICK,
    ChatEmpty,
    ChatTooLong,
    chat_json,
    clean_chat,
)
from burraco.server.door.limits import Rates
from burraco.server.table.errors import UNAVAILABLE, RoomError
from burraco.server.table.live import LiveTable
from burraco.storage import Store
from burraco.storage.store import ChatRow, StorageUnavailable

__all__ = ["TableChat"]

log = logging.getLogger("burraco.room")


class TableChat:
    """The players' channel and the spectators' channel of each table."""

    def __init__(self, store: Store, rates: Rates) -> None:
        self.store = store
        #: The per-visitor rates (the chat's among them): the app's own.
        self.rates = rates

    def say(
        self,
        table: LiveTable,
        channel: str,
        seat: int | None,
        name: str,
        message: dict[str, Any],
        key: str | None = None,
    ) -> dict[str, Any]:
        """One chat message of a seat (channel ``players``) or a spectator (``watchers``):
        checked, counted against its rate (``key``, by default the seat's), stored; its
        JSON for the channel. Raises :class:`RoomError`."""
        if not table.row.chat:
            raise RoomError(
                "chat_off",
                "chat is off at this table (its creator or the tournament's director chose so)",
                403,
            )
        quick, text = message.get("quick"), message.get("text")
        if seat is not None and table.seats[seat].program and quick is None:
            # A program talks only in the quick messages: no spam, nothing to moderate.
            raise RoomError(
                "chat_quick_only", "a bot account sends quick messages only, not text", 403
            )
        if quick is not None:
            if not isinstance(quick, str) or quick not in QUICK:
                raise RoomError(
                    "bad_message", f"no quick message {str(quick)[:24]!r}: {', '.join(QUICK)}"
                )
            text = ""
        elif isinstance(text, str):
            try:
                text = clean_chat(text)
            except ChatTooLong as error:
                raise RoomError("chat_too_long", str(error), params={"max": LONGEST}) from error
            except ChatEmpty as error:
                raise RoomError("chat_empty", str(error)) from error
        else:
            raise RoomError("bad_message", "a chat message needs its text or a quick code")
        wait = self.rates.hit("chat_messages", key or f"chat-{table.id}-{seat}")
        if wait is not None:
            raise RoomError(
                "chat_too_fast",
                f"too many chat messages (at most {self.rates.limits.chat_messages}): "
                f"wait {wait:.0f} s",
                429,
                retry_after=wait,
                params={"seconds": max(1, round(wait))},
            )
        row = ChatRow(table.id, channel, seat, name, text, quick, time.time())
        try:
            self.store.add_chat(row)
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        said = chat_json(row)
        if channel in table.chat:
            table.chat[channel].append(said)
        return said

    def history(self, table: LiveTable, channel: str) -> dict[str, Any] | None:
        """The last messages of a channel, for a socket that connects; None if there are
        none (or chat is off). Read from the store once a table (when the first socket
        asks), then kept with the table: hundreds of pages reconnecting at once after a
        restart or a failover each read the database on the event loop, and the tables
        in play waited for them."""
        if not table.row.chat:
            return None
        lines = table.chat.get(channel)
        if lines is None:
            try:
                rows = self.store.chat(table.id, channel, HISTORY)
            except SQLAlchemyError:
                log.warning("table %s: the chat's history cannot be read", table.id)
                return None
            lines = table.chat[channel] = deque(map(chat_json, rows), maxlen=HISTORY)
        if not lines:
            return None
        return {"type": "chat_history", "channel": channel, "messages": list(lines)}
