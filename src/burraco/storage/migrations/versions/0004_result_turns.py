"""A result's turns, and how many of them a bot played for the seat's person (a person
a bot played for most of the match counts as having abandoned it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("turns", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("bot_turns", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("bot_turns")
        batch.drop_column("turns")
