"""A person's challenges to a bot, in the database: every process of a cluster sees the
same ones, and a restart keeps those still waiting.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("challenger", sa.String(64), nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("bot", sa.String(64), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("answered_at", sa.Float, nullable=True),
    )
    op.create_index("ix_challenges_bot_id", "challenges", ["bot_id"])
    op.create_index("ix_challenges_table_id", "challenges", ["table_id"])
    op.create_index("ix_challenges_created_at", "challenges", ["created_at"])


def downgrade() -> None:
    op.drop_table("challenges")
