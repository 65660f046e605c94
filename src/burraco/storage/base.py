"""The store's plumbing, under every part of it: the engine of a database URL (SQLite
or PostgreSQL), the transaction every write goes through (one writer at a time on
SQLite, :class:`StorageUnavailable` when the database refuses), the reads that make rows
of a query, holding the database for this process alone, and the migrations. Each part
of the store (``tables.py``, ``accounts.py``, ``ratings.py``...) is a mixin over
:class:`StoreBase`; ``store.py`` composes them into the one :class:`Store`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, Select, create_engine, event, insert, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.pool import StaticPool

from burraco.storage import models
from burraco.storage.errors import StorageUnavailable, StoreInUse
from burraco.storage.sqlite import FileLock, sqlite_file, sqlite_pragmas

#: The event log's insert (``tables.py`` appends every event through it).
INSERT_EVENT = insert(models.events)
#: An event's columns, in :class:`EventRow`'s order.
EVENT_COLUMNS = ["table_id", "version", "kind", "seat", "payload", "created_at"]

_Row = TypeVar("_Row")


class StoreBase:
    """One database (a URL SQLAlchemy knows): its engine, its transactions and reads, its
    hold and its schema."""

    def __init__(self, url: str = "sqlite:///burraco.db", *, migrate: bool = True) -> None:
        self.url = url
        file = sqlite_file(url)
        if file is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        if url == "sqlite://":
            # One shared connection, or every connection would see its own empty database.
            self.engine: Engine = create_engine(
                url, poolclass=StaticPool, connect_args={"check_same_thread": False}
            )
        else:
            self.engine = create_engine(url)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", sqlite_pragmas)
        #: How long a rating update waits for another's hold on its players (PostgreSQL's
        #: lock_timeout; SQLite's busy_timeout is the same 10 s) before the database
        #: counts as refusing: StorageUnavailable, and the caller tries again later.
        self.wait_seconds = 10.0
        self._held: Any = None
        #: SQLite writes one transaction at a time. A write of the event loop's that met
        #: the event log's writer thread mid-transaction slept in SQLite's busy handler
        #: (1, 2, 5, 10 ms... the whole loop with it), or was refused outright when its
        #: transaction began as a read; taking turns here waits exactly as long as the
        #: other transaction lasts.
        self._one_writer = threading.Lock() if url.startswith("sqlite") else None
        #: The event log's insert as this database's own SQL, compiled once: every action
        #: of every table is appended through it, and a statement compiled again at each
        #: append (its cache key, its parameters) cost more than SQLite's insert itself.
        insert_event = INSERT_EVENT.compile(dialect=self.engine.dialect, column_keys=EVENT_COLUMNS)
        self._insert_event = str(insert_event)
        self._event_positional = insert_event.positiontup is not None
        if migrate:
            self.migrate()

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        """A transaction whose failure for want of the database (not a broken constraint)
        is :class:`StorageUnavailable`: the caller can say so and try again later."""
        try:
            with self._one_writer or contextlib.nullcontext(), self.engine.begin() as connection:
                yield connection
        except IntegrityError:
            raise
        except DBAPIError as error:
            raise StorageUnavailable(error.orig or error) from error

    def _all(self, query: Select[Any], row: Callable[..., _Row]) -> list[_Row]:
        """What ``query`` reads, each row made a ``row`` of its columns by name."""
        with self.engine.connect() as c:
            found = c.execute(query).all()
        return [row(**r._mapping) for r in found]

    def _first(self, query: Select[Any], row: Callable[..., _Row]) -> _Row | None:
        """The first row ``query`` reads made a ``row`` of its columns by name; None if none."""
        with self.engine.connect() as c:
            found = c.execute(query).first()
        return None if found is None else row(**found._mapping)

    def hold(self) -> None:
        """Hold this database for this process alone until :meth:`release`, or raise
        :class:`StoreInUse`. Two rooms without Redis on one database would each hold the
        same tables in memory and overwrite each other's seats; the lock goes with the
        process, even on kill -9 (a file lock for SQLite, an advisory lock for PostgreSQL)."""
        if self._held is not None or self.url == "sqlite://":
            return
        file = sqlite_file(self.url)
        if file is not None:
            self._held = FileLock.take(file)
        elif self.engine.dialect.name == "postgresql":
            connection = self.engine.connect()
            # Out of the pool: closing it must end the session, and with it the lock.
            connection.detach()
            got = connection.execute(text("SELECT pg_try_advisory_lock(4711001)")).scalar()
            if not got:
                connection.close()
                raise StoreInUse(
                    "this database is served by another process: stop it first, or run "
                    "several processes on one database with --redis-url (docs/cluster.md)"
                )
            connection.commit()
            self._held = connection

    def release(self) -> None:
        """Give up what :meth:`hold` took."""
        held, self._held = self._held, None
        if isinstance(held, FileLock):
            held.give_back()
        elif held is not None:
            with contextlib.suppress(Exception):
                held.close()

    def migrate(self) -> None:
        """Bring the schema to the newest migration (Alembic), or create it in memory."""
        if self.url == "sqlite://":
            models.metadata.create_all(self.engine)
            return
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        # Processes of a cluster start together: one migrates, the others wait for it.
        with self._migrating(), self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(4711002)"))
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    @contextlib.contextmanager
    def _migrating(self) -> Iterator[None]:
        path = sqlite_file(self.url)
        if path is None:
            yield
            return
        import fcntl

        with open(f"{path.resolve()}.migrate-lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
