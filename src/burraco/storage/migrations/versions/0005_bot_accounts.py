"""Bot accounts: a person's bot (users.owner_id) and its API tokens (bot_tokens, hashed).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN, not a batch: SQLite's batch copies and drops `users`, which the
    # sessions, ratings, results and seats of a live database refer to (foreign keys on),
    # and Alembic adds no foreign key to SQLite but by a batch: SQLite takes it inline.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE users ADD COLUMN owner_id INTEGER REFERENCES users (id)")
    else:
        column = sa.Column("owner_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True)
        op.add_column("users", column)
    op.create_index("ix_users_owner_id", "users", ["owner_id"])
    op.create_table(
        "bot_tokens",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("hint", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("bot_tokens")
    op.drop_index("ix_users_owner_id", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("owner_id")
