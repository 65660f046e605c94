"""Fair play of rated matches: why a table plays unrated, accounts' roles (moderators,
banned), the farm detector's flags and the moderators' audit log.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs, not batches (0005 says why: SQLite's batch copies `users`).
    op.add_column("tables", sa.Column("unrated", sa.String(16), nullable=True))
    op.add_column("users", sa.Column("role", sa.String(16), nullable=False, server_default=""))
    op.create_table(
        "flags",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("flagged_at", sa.Float, nullable=False),
        sa.Column("decided_at", sa.Float, nullable=True),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("moderator", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("note", sa.String(200), nullable=False, server_default=""),
    )
    op.create_index("ix_moderation_log_created_at", "moderation_log", ["created_at"])
    op.create_index("ix_moderation_log_user_id", "moderation_log", ["user_id"])


def downgrade() -> None:
    op.drop_table("moderation_log")
    op.drop_table("flags")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("role")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("unrated")
