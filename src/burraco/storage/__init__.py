"""Storage: tables, seats, the append-only log of every action, finished records.

SQLAlchemy over an embedded SQLite file by default, or PostgreSQL with the same
code; the schema is kept by Alembic migrations (``migrations/``).
"""

from burraco.storage.store import EventRow, SeatRow, Store, TableRow, TournamentRow

__all__ = ["EventRow", "SeatRow", "Store", "TableRow", "TournamentRow"]
