"""Alembic's environment: runs the migrations on the connection the store hands it."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from burraco.storage.models import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite:///burraco.db")
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
