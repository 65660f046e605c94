"""The database schema, as SQLAlchemy tables (Alembic's migrations build the same)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
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
    #: A finished match here updates its players' ratings (every person registered).
    Column("rated", Boolean, nullable=False, server_default="0"),
    #: Anyone may watch (public information only), this many moves behind.
    Column("watchable", Boolean, nullable=False, server_default="0"),
    Column("watch_delay", Integer, nullable=False, server_default="0"),
    #: The players may chat (a tournament's director may turn it off).
    Column("chat", Boolean, nullable=False, server_default="1"),
    #: The table was made by quick play.
    Column("quick", Boolean, nullable=False, server_default="0"),
    #: Why a table made rated plays unrated (server/results/fairplay.py: "same_owner", "pair_cap");
    #: None for a table that plays as it was made (migration 0008).
    Column("unrated", String(16), nullable=True),
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
    #: The registered player (or bot) in the seat; None for a guest.
    Column("user_id", Integer, ForeignKey("users.id"), nullable=True),
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

users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    #: As the player wrote it; ``name_key`` (casefolded) is what must be unique.
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False, unique=True),
    #: Argon2 (PHC string); empty for a bot, which never logs in.
    Column("password_hash", String(255), nullable=False),
    #: person or bot.
    Column("kind", String(8), nullable=False),
    Column("language", String(8), nullable=False, server_default="en"),
    Column("created_at", Float, nullable=False),
    #: A bot account's person (who made it and holds its tokens); None for a person and
    #: for the room's own bot levels (migration 0005).
    Column("owner_id", Integer, ForeignKey("users.id"), nullable=True, index=True),
    #: "" for a player, "moderator" (``burraco moderator grant``), or "banned" (migration 0008).
    Column("role", String(16), nullable=False, server_default=""),
)

bot_tokens = Table(
    "bot_tokens",
    metadata,
    #: sha256 of the token, as for sessions and seats: the token itself is never stored.
    Column("id_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    #: The token's first characters, so that its person tells one token from another.
    Column("hint", String(16), nullable=False),
    Column("created_at", Float, nullable=False),
    #: When its person revoked it (None: it opens the bot's account).
    Column("revoked_at", Float, nullable=True),
)

sessions = Table(
    "sessions",
    metadata,
    #: sha256 of the session cookie's secret: the cookie itself is never stored.
    Column("id_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    #: The token every state-changing request with this session must carry.
    Column("csrf", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

ratings = Table(
    "ratings",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    #: The game and table size rated: "italian-2", "italian-4", "buraco-2", "canasta-6"...
    Column("game", String(24), primary_key=True),
    #: OpenSkill's belief about the player: mean and uncertainty.
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
    Index("ix_ratings_game_mu", "game", "mu"),
)

results = Table(
    "results",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=True, index=True),
    Column("name", String(64), nullable=False),
    Column("game", String(24), nullable=False),
    Column("line", Integer, nullable=False),
    #: win, loss or draw.
    Column("outcome", String(8), nullable=False),
    #: The line's match total, and its points deal by deal summed (for MP a deal).
    Column("points", Integer, nullable=False),
    Column("deals", Integer, nullable=False),
    Column("burracos_clean", Integer, nullable=False),
    Column("burracos_semi", Integer, nullable=False),
    Column("burracos_dirty", Integer, nullable=False),
    Column("closes", Integer, nullable=False),
    Column("pozzetti", Integer, nullable=False),
    Column("abandoned", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    #: The displayed rating before and after this match (None: not rated).
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("finished_at", Float, nullable=False, index=True),
    #: The seat's turns, and how many a bot played for its person (migration 0004).
    Column("turns", Integer, nullable=False, server_default="0"),
    Column("bot_turns", Integer, nullable=False, server_default="0"),
)

chat = Table(
    "chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    #: players or watchers: the two never mix.
    Column("channel", String(8), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("name", String(64), nullable=False),
    Column("text", String(400), nullable=False),
    #: A quick message's code ("ciao", "grazie"...), shown in each reader's language.
    Column("quick", String(24), nullable=True),
    Column("created_at", Float, nullable=False),
)

reviews = Table(
    "reviews",
    metadata,
    #: One review of a seat's decisions in one finished deal (burraco.bots.review).
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("deal", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    #: The review as JSON (DealReview.to_json).
    Column("data", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

challenges = Table(
    "challenges",
    metadata,
    #: A person's challenge to a bot: a table that keeps a seat for the bot (migration 0007).
    Column("id", String(40), primary_key=True),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    #: The seat kept for the bot.
    Column("seat", Integer, nullable=False),
    #: The challenger's name, and the bot's account and name.
    Column("challenger", String(64), nullable=False),
    Column("bot_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("bot", String(64), nullable=False),
    #: The table's options as the challenger asked them, as JSON.
    Column("options", Text, nullable=False),
    #: pending, accepted or declined (a pending one past its time counts as gone).
    Column("status", String(8), nullable=False),
    Column("created_at", Float, nullable=False, index=True),
    Column("answered_at", Float, nullable=True),
)

flags = Table(
    "flags",
    metadata,
    #: An account the farm detector marked for review (server/results/fairplay.py; migration 0008).
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    #: flagged (its rating frozen until a moderator clears it), cleared or banned.
    Column("status", String(8), nullable=False),
    #: What the detector saw.
    Column("reason", String(200), nullable=False),
    Column("flagged_at", Float, nullable=False),
    #: When a moderator last cleared, reset or banned it (the detector then reads only the
    #: results after it).
    Column("decided_at", Float, nullable=True),
)

moderation_log = Table(
    "moderation_log",
    metadata,
    #: Every moderator's decision, and every grant of the role: who, what, whom, when.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", Float, nullable=False, index=True),
    #: The moderator's name, or "console" for the ``burraco`` command on the server.
    Column("moderator", String(64), nullable=False),
    #: grant, revoke, flag, clear, reset, ban.
    Column("action", String(16), nullable=False),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    Column("note", String(200), nullable=False, server_default=""),
)
