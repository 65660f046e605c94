"""Accounts, sessions, ratings, match results, chat; a table's rated, watch and chat
settings and a seat's registered player.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("language", sa.String(8), nullable=False, server_default="en"),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("game", sa.String(24), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_ratings_game_mu", "ratings", ["game", "mu"])
    op.create_table(
        "results",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True, index=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("game", sa.String(24), nullable=False),
        sa.Column("line", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("burracos_clean", sa.Integer, nullable=False),
        sa.Column("burracos_semi", sa.Integer, nullable=False),
        sa.Column("burracos_dirty", sa.Integer, nullable=False),
        sa.Column("closes", sa.Integer, nullable=False),
        sa.Column("pozzetti", sa.Integer, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True
        ),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("quick", sa.String(24), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default="0"))
        batch.add_column(sa.Column("watchable", sa.Boolean, nullable=False, server_default="0"))
        batch.add_column(sa.Column("watch_delay", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("chat", sa.Boolean, nullable=False, server_default="1"))
        batch.add_column(sa.Column("quick", sa.Boolean, nullable=False, server_default="0"))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("user_id", sa.Integer, nullable=True))
        batch.create_foreign_key("fk_seats_user", "users", ["user_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("fk_seats_user", type_="foreignkey")
        batch.drop_column("user_id")
    with op.batch_alter_table("tables") as batch:
        for column in ("quick", "chat", "watch_delay", "watchable", "rated"):
            batch.drop_column(column)
    op.drop_table("chat")
    op.drop_table("results")
    op.drop_index("ix_ratings_game_mu", "ratings")
    op.drop_table("ratings")
    op.drop_table("sessions")
    op.drop_table("users")
