"""Tournaments, and the deal clock and tournament link of a table.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("deal_seconds", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("tournament", sa.String(64), nullable=True))
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("director_hash", sa.String(64), nullable=False),
        sa.Column("entrant_hashes", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournaments")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("tournament")
        batch.drop_column("deal_seconds")
