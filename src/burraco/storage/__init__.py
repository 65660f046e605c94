"""Storage: tables, seats, the append-only log of every action, finished records,
accounts and their sessions, ratings, results, chat, the reviews of deals and the
challenges to bots.

SQLAlchemy over an embedded SQLite file by default, or PostgreSQL with the same
code; the schema is kept by Alembic migrations (``migrations/``).
"""

from burraco.storage.store import (
    BotTokenRow,
    ChallengeRow,
    ChatRow,
    EventRow,
    NameTaken,
    RatingRow,
    ResultRow,
    ReviewRow,
    SeatRow,
    SessionRow,
    Store,
    TableRow,
    TournamentRow,
    UserRow,
)

__all__ = [
    "BotTokenRow",
    "ChallengeRow",
    "ChatRow",
    "EventRow",
    "NameTaken",
    "RatingRow",
    "ResultRow",
    "ReviewRow",
    "SeatRow",
    "SessionRow",
    "Store",
    "TableRow",
    "TournamentRow",
    "UserRow",
]
