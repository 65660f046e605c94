"""The store: every write is committed before the caller goes on. :class:`Store` is the
one object the room, the desk and the command line hold; it is composed of one part per
thing stored, each a mixin over the plumbing of :class:`StoreBase` (``base.py``):
``tables.py`` (tables, seats, the event log, records), ``tournaments.py``,
``accounts.py`` (accounts, bot tokens, challenges, sessions), ``ratings.py`` (results,
ratings, flags, moderation), ``reviews.py`` and ``chat.py``. The rows are in
``rows.py``, the refusals in ``errors.py``, SQLite's file lock and pragmas in
``sqlite.py``; this module still names them all, as it did before the split.

>>> store = Store("sqlite://")
>>> store.create_table(TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "waiting", 0.0, 0.0))
>>> store.append_event("t-1", 1, "start", None, "{}")
>>> [e.kind for e in store.events("t-1")]
['start']
"""

from __future__ import annotations

from burraco.storage.accounts import Accounts, name_key
from burraco.storage.chat import Chat
from burraco.storage.errors import (
    NameTaken,
    SeatTaken,
    StaleVersion,
    StorageUnavailable,
    StoreInUse,
)
from burraco.storage.ratings import Ratings
from burraco.storage.reviews import Reviews
from burraco.storage.rows import (
    BotTokenRow,
    ChallengeRow,
    ChatRow,
    EventRow,
    FinishedTable,
    FlagRow,
    ModerationRow,
    RatingRow,
    ResultRow,
    ReviewRow,
    SeatRow,
    SessionRow,
    TableRow,
    TournamentRow,
    UserRow,
)
from burraco.storage.sqlite import sqlite_file
from burraco.storage.tables import Tables
from burraco.storage.tournaments import Tournaments

__all__ = [
    "BotTokenRow",
    "ChallengeRow",
    "ChatRow",
    "EventRow",
    "FinishedTable",
    "FlagRow",
    "ModerationRow",
    "NameTaken",
    "RatingRow",
    "ResultRow",
    "ReviewRow",
    "SeatRow",
    "SeatTaken",
    "SessionRow",
    "StaleVersion",
    "StorageUnavailable",
    "Store",
    "StoreInUse",
    "TableRow",
    "TournamentRow",
    "UserRow",
    "name_key",
    "sqlite_file",
]


class Store(Tables, Tournaments, Accounts, Ratings, Reviews, Chat):
    """Tables, seats, the event log and records in one database (a URL SQLAlchemy knows),
    with the accounts, ratings, results, reviews and chat: every part over one
    :class:`StoreBase`, so one engine and one writer's turn for all."""
