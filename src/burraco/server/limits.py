"""What one visitor may ask of the room: sizes of requests and rates per address.

Every limit has a default that a person never meets and a script that floods the room
does; each is a ``burraco serve`` setting through a ``BURRACO_<NAME>`` variable (see
docs/operating.md). A rate is the ``limits`` library's notation: ``"20/minute"``,
``"5 per 10 seconds"``.

>>> Limits().create_table
'20/minute'
>>> rates = Rates(Limits(create_table="2/minute"))
>>> rates.hit("create_table", "10.0.0.1"), rates.hit("create_table", "10.0.0.1")
(None, None)
>>> 0 < rates.hit("create_table", "10.0.0.1") <= 60
True
>>> rates.hit("create_table", "10.0.0.2") is None   # another address has its own count
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from burraco.server.capacity import from_env

__all__ = ["Limits", "Rates"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-visitor limits of the room."""

    #: Bytes of an HTTP request's body (413 past it, before it is read whole).
    body_bytes: int = 64 * 1024
    #: Bytes of one WebSocket message.
    message_bytes: int = 16 * 1024
    #: Rates per client address.
    create_table: str = "20/minute"
    join_table: str = "60/minute"
    create_tournament: str = "5/minute"
    pad_tournament: str = "10/minute"
    start_round: str = "10/minute"
    #: Presses of quick play's "Play" per address.
    quick_play: str = "30/minute"
    #: Login attempts per address (a club's players may share one) and per account name
    #: (a guessed password is slow to find), and new accounts per address.
    log_in: str = "30/minute"
    log_in_name: str = "10 per 5 minutes"
    sign_up: str = "30/hour"
    #: Chat messages of one seat (all its sockets) or one spectator.
    chat_messages: str = "5 per 10 seconds"
    #: Messages one WebSocket may send (actions, hints, syncs, pings); past it they are
    #: dropped, with one "too_fast" answer, until the window allows more.
    socket_messages: str = "60 per 10 seconds"
    #: Entrants a tournament may be padded to with bots.
    pad_size: int = 128
    #: Tables one online round may seat.
    round_tables: int = 64

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, overridden by ``BURRACO_<NAME>`` variables."""
        return from_env(cls)


#: What each rate counts, for the message of a refusal.
_WHAT = {
    "create_table": "new tables",
    "join_table": "joins",
    "create_tournament": "new tournaments",
    "pad_tournament": "paddings",
    "start_round": "rounds started",
    "quick_play": "quick-play requests",
    "log_in": "login attempts",
    "log_in_name": "login attempts",
    "sign_up": "new accounts",
    "socket_messages": "messages",
    "chat_messages": "chat messages",
}


class Rates:
    """The per-address counts of one process (a moving window in memory)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items = {kind: parse(getattr(limits, kind)) for kind in _WHAT}

    def hit(self, kind: str, address: str) -> float | None:
        """Count one request of ``kind`` from ``address``: None if it may go on, else the
        seconds until it may."""
        item = self._items[kind]
        if self._limiter.hit(item, kind, address):
            return None
        reset = self._limiter.get_window_stats(item, kind, address).reset_time
        return max(1.0, round(reset - time.time(), 1))

    @staticmethod
    def what(kind: str) -> str:
        return _WHAT[kind]
