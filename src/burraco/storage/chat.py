"""A table's chat: each message stored with its channel (the players', the spectators'),
its seat and name, and a channel's latest messages read back oldest first (what a socket
that opens is shown). What may be said is the room's (``server/chat.py``,
``server/table/chat.py``).
"""

from __future__ import annotations

from sqlalchemy import insert, select

from burraco.storage import models
from burraco.storage.base import StoreBase
from burraco.storage.rows import ChatRow, values_of


class Chat(StoreBase):
    """A table's chat messages."""

    def add_chat(self, row: ChatRow) -> None:
        with self._write() as c:
            c.execute(insert(models.chat).values(**values_of(row)))

    def chat(self, table_id: str, channel: str, limit: int = 50) -> list[ChatRow]:
        """The last ``limit`` messages of a table's channel, oldest first."""
        ch = models.chat
        with self.engine.connect() as c:
            rows = c.execute(
                select(ch)
                .where((ch.c.table_id == table_id) & (ch.c.channel == channel))
                .order_by(ch.c.id.desc())
                .limit(limit)
            ).all()
        return [
            ChatRow(r.table_id, r.channel, r.seat, r.name, r.text, r.quick, r.created_at)
            for r in reversed(rows)
        ]
