"""The database schema, as SQLAlchemy tables (Alembic's migrations build the same)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("variant", String(16), nullable=False),
    #: The variant's options as JSON (players, lines, deals, target, open_hands, ...).
    Column("options", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("move_seconds", Integer, nullable=False),
    Column("bot", String(16), nullable=False),
    Column("takeover", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    #: The tournament's time limit of a deal, in seconds (0: none).
    Column("deal_seconds", Integer, nullable=False, server_default="0"),
    #: "TOURNAMENT:ROUND:TABLE" for a table of a tournament round.
    Column("tournament", String(64), nullable=True),
)

tournaments = Table(
    "tournaments",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(120), nullable=False),
    #: The whole tournament as JSON (burraco.tournament.Tournament.to_json).
    Column("data", Text, nullable=False),
    #: sha256 of the director's secret token.
    Column("director_hash", String(64), nullable=False),
    #: Per entrant, sha256 of the entrant's secret token, as JSON {entrant id: hash}.
    Column("entrant_hashes", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    #: human, bot or empty.
    Column("kind", String(8), nullable=False),
    #: sha256 of the seat's secret token; empty for bots and empty seats.
    Column("token_hash", String(64), nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    Column("version", Integer, nullable=False),
    #: start, action, time-out, abandon, takeover, return.
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("payload", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("table_id", "version", name="uq_events_table_version"),
)

records = Table(
    "records",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("text", Text, nullable=False),
    Column("finished_at", DateTime(timezone=False), nullable=True),
)
