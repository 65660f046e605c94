"""The store: every write is committed before the caller goes on.

>>> store = Store("sqlite://")
>>> store.create_table(TableRow("t-1", "italian", "{}", 7, 40, "greedy", True, "waiting", 0.0, 0.0))
>>> store.append_event("t-1", 1, "start", None, "{}")
>>> [e.kind for e in store.events("t-1")]
['start']
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy import (
    Connection,
    Engine,
    Select,
    case,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.pool import StaticPool

from burraco.storage import models

__all__ = [
    "ChallengeRow",
    "ChatRow",
    "EventRow",
    "FinishedTable",
    "FlagRow",
    "ModerationRow",
    "NameTaken",
    "RatingRow",
    "ResultRow",
    "SeatRow",
    "SeatTaken",
    "SessionRow",
    "StorageUnavailable",
    "Store",
    "StoreInUse",
    "TableRow",
    "TournamentRow",
    "UserRow",
    "name_key",
    "sqlite_file",
]


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    variant: str
    options: str
    seed: int
    move_seconds: int
    bot: str
    takeover: bool
    status: str
    created_at: float
    updated_at: float
    deal_seconds: int = 0
    tournament: str | None = None
    rated: bool = False
    watchable: bool = False
    watch_delay: int = 0
    chat: bool = True
    quick: bool = False
    #: Why a table made rated plays unrated (server/results/fairplay.py), or None.
    unrated: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: str
    name: str
    data: str
    director_hash: str
    entrant_hashes: str
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class SeatRow:
    table_id: str
    seat: int
    name: str
    kind: str
    token_hash: str
    user_id: int | None = None


@dataclass(frozen=True, slots=True)
class EventRow:
    table_id: str
    version: int
    kind: str
    seat: int | None
    payload: str
    created_at: float


@dataclass(frozen=True, slots=True)
class UserRow:
    """A registered player, or a bot level (``kind`` "bot", which has no password)."""

    id: int
    name: str
    name_key: str
    password_hash: str
    kind: str
    language: str
    created_at: float
    #: A bot account's person; None for a person and for the room's own bot levels.
    owner_id: int | None = None
    #: "" for a player, "moderator", or "banned".
    role: str = ""

    @property
    def program(self) -> bool:
        """A person's bot account (a program that plays through the bot API)."""
        return self.kind == "bot" and self.owner_id is not None


@dataclass(frozen=True, slots=True)
class BotTokenRow:
    """A bot account's API token: its sha256 only, and its first characters."""

    id_hash: str
    user_id: int
    hint: str
    created_at: float
    revoked_at: float | None = None


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """A person's challenge to a bot: a table that keeps ``seat`` for the bot ``bot_id``.
    ``options``: the table's options as JSON; ``status``: pending, accepted or declined."""

    id: str
    table_id: str
    seat: int
    challenger: str
    bot_id: int
    bot: str
    options: str
    status: str
    created_at: float
    answered_at: float | None = None


@dataclass(frozen=True, slots=True)
class SessionRow:
    id_hash: str
    user_id: int
    csrf: str
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class RatingRow:
    user_id: int
    game: str
    mu: float
    sigma: float
    matches: int
    updated_at: float


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat's part in a finished match (the player page's statistics)."""

    table_id: str
    seat: int
    user_id: int | None
    name: str
    game: str
    line: int
    outcome: str
    points: int
    deals: int
    burracos_clean: int
    burracos_semi: int
    burracos_dirty: int
    closes: int
    pozzetti: int
    abandoned: bool
    rated: bool
    rating_before: float | None
    rating_after: float | None
    finished_at: float
    #: The seat's turns in the match, and how many of them a bot played (absence.py).
    turns: int = 0
    bot_turns: int = 0


@dataclass(frozen=True, slots=True)
class FinishedTable:
    """A finished table as the history lists it: its row, its seats and their results."""

    table: TableRow
    seats: tuple[SeatRow, ...]
    #: By seat; a seat with no result (a match stored before results were) has none.
    results: dict[int, ResultRow]


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """A stored review of one seat in one finished deal (``data``: DealReview's JSON)."""

    table_id: str
    deal: int
    seat: int
    data: str
    created_at: float


@dataclass(frozen=True, slots=True)
class FlagRow:
    """An account the farm detector marked: flagged (its rating frozen), cleared or banned."""

    user_id: int
    status: str
    reason: str
    flagged_at: float
    decided_at: float | None = None


@dataclass(frozen=True, slots=True)
class ModerationRow:
    """One line of the moderators' audit log."""

    id: int
    created_at: float
    moderator: str
    action: str
    user_id: int
    name: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class ChatRow:
    table_id: str
    channel: str
    seat: int | None
    name: str
    text: str
    quick: str | None
    created_at: float


_INSERT_EVENT = insert(models.events)
#: An event's columns, in :class:`EventRow`'s order.
_EVENT = ["table_id", "version", "kind", "seat", "payload", "created_at"]


class StaleVersion(Exception):
    """Another writer stored this version of the table first."""


class SeatTaken(Exception):
    """Another writer gave this seat to someone first."""


class StorageUnavailable(Exception):
    """The database refused a write (disk full, read-only, gone): nothing was stored."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"the database cannot store this now: {cause}")
        self.cause = cause


class NameTaken(Exception):
    """Another account has this name (names are unique whatever their case)."""


class StoreInUse(Exception):
    """Another process serves this database (one process per database without Redis)."""


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite database URL, whatever its query says (``?mode=rw``, a
    ``file:`` URI); None for another database or one in memory.

    >>> sqlite_file("sqlite:///rooms/a.db?mode=rw"), sqlite_file("sqlite://")
    (PosixPath('rooms/a.db'), None)
    >>> sqlite_file("sqlite:///file:rooms/a.db?mode=rw&uri=true")
    PosixPath('rooms/a.db')
    """
    found = make_url(url)
    if found.get_backend_name() != "sqlite":
        return None
    name = found.database or ""
    if name.startswith("file:"):
        name = urlsplit(name).path
    if name in ("", ":memory:") or found.query.get("mode") == "memory":
        return None
    return Path(name).expanduser()


@dataclass(frozen=True, slots=True)
class _FileLock:
    """A SQLite database held by this process: an flock on the database file itself, so
    that every name of the file (a symlink, a hard link, a URL with ``?mode=rw``) meets
    the same lock, which is the inode's (its device and number). It goes with the
    process, even on kill -9.

    The descriptor is never closed, only unlocked and kept for the next holder: closing
    any descriptor of a file drops every POSIX lock the process holds on it, and SQLite
    locks the same file that way (flock and POSIX locks are apart on Linux)."""

    descriptor: int
    inode: tuple[int, int]

    @classmethod
    def take(cls, file: Path) -> _FileLock:
        import fcntl

        real = file.resolve()
        try:
            seen = os.stat(real)
            spare = _SPARE.get((seen.st_dev, seen.st_ino), [])
        except FileNotFoundError:
            spare = []
        if spare:
            descriptor = spare.pop()
        else:
            # A new database is an empty file to SQLite: making it here changes nothing.
            descriptor = os.open(real, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        seen = os.fstat(descriptor)
        inode = (seen.st_dev, seen.st_ino)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            _SPARE.setdefault(inode, []).append(descriptor)
            named = str(file) if file == real else f"{file} (the file {real})"
            raise StoreInUse(
                f"{named} is served by {_holder(inode)}: stop it first, "
                "or run several processes on one database with --redis-url (docs/cluster.md)"
            ) from None
        return cls(descriptor, inode)

    def give_back(self) -> None:
        import fcntl

        fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        _SPARE.setdefault(self.inode, []).append(self.descriptor)


#: Unlocked descriptors of database files, by inode, for the next :class:`_FileLock`.
_SPARE: dict[tuple[int, int], list[int]] = {}


def _holder(inode: tuple[int, int]) -> str:
    """Who holds the flock on this inode, as /proc/locks tells (Linux), by its pid."""
    device, number = inode
    wanted = f"{os.major(device):02x}:{os.minor(device):02x}:{number}"
    with contextlib.suppress(OSError):
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if "->" not in fields and "FLOCK" in fields and wanted in fields:
                return f"process {fields[fields.index(wanted) - 1]}"
    return "another process"


_Row = TypeVar("_Row")


class Store:
    """Tables, seats, the event log and records in one database (a URL SQLAlchemy knows)."""

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
            event.listen(self.engine, "connect", _sqlite_pragmas)
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
        insert_event = _INSERT_EVENT.compile(dialect=self.engine.dialect, column_keys=_EVENT)
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
            self._held = _FileLock.take(file)
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
        if isinstance(held, _FileLock):
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

    # --- tables and seats -----------------------------------------------------------------

    def create_table(self, row: TableRow, seats: Sequence[SeatRow] = ()) -> None:
        with self._write() as c:
            c.execute(insert(models.tables).values(**_fields(row)))
            for seat in seats:
                c.execute(insert(models.seats).values(**_fields(seat)))

    def table(self, table_id: str) -> TableRow | None:
        return self._first(select(models.tables).where(models.tables.c.id == table_id), TableRow)

    def tables(self, statuses: Sequence[str] = ("waiting", "playing")) -> list[TableRow]:
        t = models.tables
        return self._all(
            select(t).where(t.c.status.in_(statuses)).order_by(t.c.created_at), TableRow
        )

    def set_status(self, table_id: str, status: str) -> None:
        with self._write() as c:
            c.execute(
                update(models.tables)
                .where(models.tables.c.id == table_id)
                .values(status=status, updated_at=time.time())
            )

    def seats(self, table_id: str) -> list[SeatRow]:
        s = models.seats
        return self._all(select(s).where(s.c.table_id == table_id).order_by(s.c.seat), SeatRow)

    def seated(self, user_id: int) -> list[str]:
        """The ids of the tables waiting or playing where this account holds a seat."""
        with self.engine.connect() as c:
            found = c.execute(
                select(models.seats.c.table_id)
                .join(models.tables, models.tables.c.id == models.seats.c.table_id)
                .where(
                    (models.seats.c.user_id == user_id)
                    & models.tables.c.status.in_(("waiting", "playing"))
                )
                .distinct()
            ).scalars()
            return list(found)

    def put_seat(self, seat: SeatRow) -> None:
        with self._write() as c:
            _update_seat(c, seat)

    # --- the log --------------------------------------------------------------------------

    def append_event(
        self,
        table_id: str,
        version: int,
        kind: str,
        seat: int | None,
        payload: str,
        created_at: float | None = None,
    ) -> None:
        """Store one event; raise :class:`StaleVersion` if that version is taken."""
        row = {
            "table_id": table_id,
            "version": version,
            "kind": kind,
            "seat": seat,
            "payload": payload,
            "created_at": time.time() if created_at is None else created_at,
        }
        try:
            with self._write() as c:
                # One statement built once: every action passes through here.
                c.execute(_INSERT_EVENT, row)
        except IntegrityError as error:
            raise StaleVersion(f"version {version} of table {table_id} exists") from error

    def append_events(self, rows: Sequence[EventRow]) -> list[Exception | None]:
        """Store a group of events in one transaction (a group commit): for each event,
        None once it is committed, else why not (:class:`StaleVersion`,
        :class:`StorageUnavailable`). A taken version fails its own event alone: the
        group is then written again one event to a transaction."""
        values: list[Any] = [_fields(row) for row in rows]
        if self._event_positional:
            values = [tuple(value[k] for k in _EVENT) for value in values]
        try:
            with self._write() as c:
                c.exec_driver_sql(self._insert_event, values)
            return [None] * len(rows)
        except StorageUnavailable as error:
            return [error] * len(rows)
        except IntegrityError:
            pass
        outcomes: list[Exception | None] = []
        for row in rows:
            try:
                self.append_event(
                    row.table_id, row.version, row.kind, row.seat, row.payload, row.created_at
                )
                outcomes.append(None)
            except (StaleVersion, StorageUnavailable) as error:
                outcomes.append(error)
        return outcomes

    def start_table(
        self, table_id: str, seats: Sequence[SeatRow], version: int, created_at: float
    ) -> None:
        """Seat the bots and store the start event, in one transaction: a table is
        waiting or started, never half of each."""
        try:
            with self._write() as c:
                for seat in seats:
                    _update_seat(c, seat)
                c.execute(
                    _INSERT_EVENT,
                    {
                        "table_id": table_id,
                        "version": version,
                        "kind": "start",
                        "seat": None,
                        "payload": "{}",
                        "created_at": created_at,
                    },
                )
                c.execute(
                    update(models.tables)
                    .where(models.tables.c.id == table_id)
                    .values(status="playing", updated_at=created_at)
                )
        except IntegrityError as error:
            raise StaleVersion(f"table {table_id} has started already") from error

    def claim_seat(self, seat: SeatRow) -> None:
        """Give an empty seat to a player; :class:`SeatTaken` if another writer was first
        (the check is in the database, so it holds across processes)."""
        with self._write() as c:
            done = c.execute(
                update(models.seats)
                .where(
                    (models.seats.c.table_id == seat.table_id)
                    & (models.seats.c.seat == seat.seat)
                    & (models.seats.c.kind == "empty")
                )
                .values(
                    name=seat.name,
                    kind=seat.kind,
                    token_hash=seat.token_hash,
                    user_id=seat.user_id,
                )
            )
        if done.rowcount != 1:
            raise SeatTaken(f"seat {seat.seat} of table {seat.table_id} is taken")

    def events(self, table_id: str, since: int = 0) -> list[EventRow]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(models.events)
                .where((models.events.c.table_id == table_id) & (models.events.c.version > since))
                .order_by(models.events.c.version)
            ).all()
        return [
            EventRow(r.table_id, r.version, r.kind, r.seat, r.payload, r.created_at) for r in rows
        ]

    # --- tournaments ----------------------------------------------------------------------

    def save_tournament(self, row: TournamentRow) -> None:
        """Insert or replace a tournament's row."""
        with self._write() as c:
            found = c.execute(
                select(models.tournaments.c.id).where(models.tournaments.c.id == row.id)
            ).first()
            if found is None:
                c.execute(insert(models.tournaments).values(**_fields(row)))
            else:
                c.execute(
                    update(models.tournaments)
                    .where(models.tournaments.c.id == row.id)
                    .values(**_fields(row))
                )

    def tournament(self, tournament_id: str) -> TournamentRow | None:
        t = models.tournaments
        return self._first(select(t).where(t.c.id == tournament_id), TournamentRow)

    def tournaments(self) -> list[TournamentRow]:
        t = models.tournaments
        return self._all(select(t).order_by(t.c.created_at), TournamentRow)

    # --- records --------------------------------------------------------------------------

    def save_record(self, table_id: str, text: str) -> None:
        with self._write() as c:
            existing = c.execute(
                select(models.records.c.table_id).where(models.records.c.table_id == table_id)
            ).first()
            if existing is None:
                c.execute(
                    insert(models.records).values(
                        table_id=table_id, text=text, finished_at=datetime.now()
                    )
                )

    def record(self, table_id: str) -> str | None:
        with self.engine.connect() as c:
            r = c.execute(
                select(models.records.c.text).where(models.records.c.table_id == table_id)
            ).first()
        return None if r is None else str(r[0])

    def finished_page(
        self,
        limit: int = 20,
        offset: int = 0,
        *,
        variant: str | None = None,
        user_id: int | None = None,
    ) -> list[FinishedTable]:
        """A page of finished tables with their seats and results, in one query: every
        table whose match is over, the latest first (``variant`` filters), or those of
        one account's results (``user_id``), its latest match first.

        A page is read by a join on a subquery of the page's tables, so it costs one
        round trip however many tables it lists (the history page asked three a table).
        """
        t, s, r_ = models.tables, models.seats, models.results
        if user_id is None:
            key: Any = t.c.updated_at
            page = select(t.c.id.label("id"), key.label("key")).where(t.c.status == "over")
            if variant is not None:
                page = page.where(t.c.variant == variant)
            page = page.order_by(key.desc(), t.c.id)
        else:
            key = func.max(r_.c.finished_at)
            page = (
                select(r_.c.table_id.label("id"), key.label("key"))
                .where(r_.c.user_id == user_id)
                .group_by(r_.c.table_id)
                .order_by(key.desc(), r_.c.table_id)
            )
        listed = page.limit(limit).offset(offset).subquery()
        columns = [
            *(c.label(f"t_{c.name}") for c in t.c),
            *(c.label(f"s_{c.name}") for c in s.c),
            *(c.label(f"r_{c.name}") for c in r_.c),
        ]
        query = (
            select(*columns)
            .select_from(
                listed.join(t, t.c.id == listed.c.id)
                .outerjoin(s, s.c.table_id == t.c.id)
                .outerjoin(r_, (r_.c.table_id == s.c.table_id) & (r_.c.seat == s.c.seat))
            )
            .order_by(listed.c.key.desc(), listed.c.id, s.c.seat)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        found: dict[str, tuple[TableRow, list[SeatRow], dict[int, ResultRow]]] = {}
        for row in rows:
            m = row._mapping
            table_id = m["t_id"]
            if table_id not in found:
                table = TableRow(**{k: m[f"t_{k}"] for k in TableRow.__slots__})
                found[table_id] = (table, [], {})
            _, seats, results = found[table_id]
            if m["s_seat"] is None:
                continue
            seats.append(SeatRow(**{k: m[f"s_{k}"] for k in SeatRow.__slots__}))
            if m["r_seat"] is not None:
                results[m["r_seat"]] = ResultRow(**{k: m[f"r_{k}"] for k in ResultRow.__slots__})
        return [FinishedTable(row, tuple(seats), results) for row, seats, results in found.values()]

    # --- accounts and sessions ------------------------------------------------------------

    def create_user(
        self,
        name: str,
        password_hash: str,
        kind: str = "person",
        language: str = "en",
        owner_id: int | None = None,
    ) -> UserRow:
        """A new account (``owner_id``: a bot account's person); :class:`NameTaken` if its
        name (whatever its case) is taken."""
        now = time.time()
        values = {
            "name": name,
            "name_key": name_key(name),
            "password_hash": password_hash,
            "kind": kind,
            "language": language,
            "created_at": now,
            "owner_id": owner_id,
        }
        try:
            with self._write() as c:
                result = c.execute(insert(models.users).values(**values))
                user_id = int(result.inserted_primary_key[0])  # type: ignore[index]
        except IntegrityError as error:
            raise NameTaken(f"the name {name!r} is taken") from error
        return UserRow(id=user_id, **values)  # type: ignore[arg-type]

    def user(self, user_id: int) -> UserRow | None:
        return self._first(select(models.users).where(models.users.c.id == user_id), UserRow)

    def user_by_name(self, name: str) -> UserRow | None:
        u = models.users
        return self._first(select(u).where(u.c.name_key == name_key(name)), UserRow)

    def user_names(self, after: int = 0) -> list[tuple[int, str, str]]:
        """The id, name and kind of every account made after account ``after`` (the room
        keeps their look-alike skeletons: server/accounts/names.py)."""
        t = models.users
        with self.engine.connect() as c:
            rows = c.execute(
                select(t.c.id, t.c.name, t.c.kind).where(t.c.id > after).order_by(t.c.id)
            ).all()
        return [(int(r.id), str(r.name), str(r.kind)) for r in rows]

    def users(self, user_ids: Sequence[int]) -> dict[int, UserRow]:
        if not user_ids:
            return {}
        found = self._all(select(models.users).where(models.users.c.id.in_(user_ids)), UserRow)
        return {u.id: u for u in found}

    def update_user(self, user_id: int, **values: str) -> None:
        """Change an account's ``password_hash`` or ``language``."""
        allowed = {"password_hash", "language"}
        if not values or set(values) - allowed:
            raise ValueError(f"an account's {sorted(allowed)} may change, not {sorted(values)}")
        with self._write() as c:
            c.execute(update(models.users).where(models.users.c.id == user_id).values(**values))

    def bots_of(self, owner_id: int) -> list[UserRow]:
        """The bot accounts a person made, the oldest first."""
        u = models.users
        query = select(u).where(u.c.owner_id == owner_id).order_by(u.c.id)
        return self._all(query, UserRow)

    def add_bot_token(self, row: BotTokenRow) -> None:
        with self._write() as c:
            c.execute(insert(models.bot_tokens).values(**_fields(row)))

    def bot_tokens(self, user_id: int) -> list[BotTokenRow]:
        """A bot account's tokens, revoked ones too, the oldest first."""
        t = models.bot_tokens
        query = select(t).where(t.c.user_id == user_id).order_by(t.c.created_at)
        return self._all(query, BotTokenRow)

    def revoke_bot_tokens(self, user_id: int, hint: str | None = None) -> int:
        """Revoke a bot account's live tokens (those starting with ``hint``; all of them
        with None); how many."""
        t = models.bot_tokens
        condition = (t.c.user_id == user_id) & t.c.revoked_at.is_(None)
        if hint is not None:
            condition = condition & (t.c.hint == hint)
        with self._write() as c:
            done = c.execute(update(t).where(condition).values(revoked_at=time.time()))
        return int(done.rowcount or 0)

    def bot_by_token(self, id_hash: str) -> UserRow | None:
        """The bot account a live token of this hash opens (one query: every request of a
        bot asks)."""
        t, u = models.bot_tokens, models.users
        query = (
            select(u)
            .join(t, t.c.user_id == u.c.id)
            .where((t.c.id_hash == id_hash) & t.c.revoked_at.is_(None))
        )
        return self._first(query, UserRow)

    # --- challenges ---------------------------------------------------------------------------

    def add_challenge(self, row: ChallengeRow) -> None:
        with self._write() as c:
            c.execute(insert(models.challenges).values(**_fields(row)))

    def challenge(self, challenge_id: str) -> ChallengeRow | None:
        ch = models.challenges
        return self._first(select(ch).where(ch.c.id == challenge_id), ChallengeRow)

    def pending_challenges(
        self, since: float, *, bot_id: int | None = None, table_id: str | None = None
    ) -> list[ChallengeRow]:
        """The challenges still pending made at ``since`` or later, of a bot or a table,
        the oldest first."""
        ch = models.challenges
        condition = (ch.c.status == "pending") & (ch.c.created_at >= since)
        if bot_id is not None:
            condition = condition & (ch.c.bot_id == bot_id)
        if table_id is not None:
            condition = condition & (ch.c.table_id == table_id)
        query = select(ch).where(condition).order_by(ch.c.created_at, ch.c.id)
        return self._all(query, ChallengeRow)

    def answer_challenge(
        self, challenge_id: str, bot_id: int, status: str, since: float
    ) -> ChallengeRow | None:
        """Mark the bot's pending challenge (made at ``since`` or later) ``status``; the
        challenge, or None if it is not pending. One UPDATE ... WHERE status = 'pending':
        of two processes answering the same challenge, only one changes it."""
        ch = models.challenges
        condition = (
            (ch.c.id == challenge_id)
            & (ch.c.bot_id == bot_id)
            & (ch.c.status == "pending")
            & (ch.c.created_at >= since)
        )
        with self._write() as c:
            done = c.execute(
                update(ch).where(condition).values(status=status, answered_at=time.time())
            )
            if done.rowcount != 1:
                return None
            found = c.execute(select(ch).where(ch.c.id == challenge_id)).first()
        return None if found is None else ChallengeRow(**found._mapping)

    def forget_challenges(self, before: float) -> int:
        """Delete the challenges made before ``before`` (answered or expired long ago)."""
        ch = models.challenges
        with self._write() as c:
            done = c.execute(delete(ch).where(ch.c.created_at < before))
        return int(done.rowcount or 0)

    def create_session(self, row: SessionRow) -> None:
        with self._write() as c:
            c.execute(insert(models.sessions).values(**_fields(row)))

    def session(self, id_hash: str) -> tuple[UserRow, SessionRow] | None:
        """The account and session of this hash, if the session has not expired (one query:
        every request of a logged-in page asks)."""
        s, u = models.sessions, models.users
        with self.engine.connect() as c:
            r = c.execute(
                select(u, s)
                .join(s, s.c.user_id == u.c.id)
                .where((s.c.id_hash == id_hash) & (s.c.expires_at > time.time()))
            ).first()
        if r is None:
            return None
        user = UserRow(**{k: r._mapping[u.c[k]] for k in UserRow.__slots__})
        return user, SessionRow(**{k: r._mapping[s.c[k]] for k in SessionRow.__slots__})

    def delete_sessions(self, user_id: int, keep: str | None = None) -> None:
        """End every session of an account (but ``keep``): after a password change, say."""
        s = models.sessions
        condition = s.c.user_id == user_id
        if keep is not None:
            condition = condition & (s.c.id_hash != keep)
        with self._write() as c:
            c.execute(delete(s).where(condition | (s.c.expires_at <= time.time())))

    def delete_session(self, id_hash: str) -> None:
        with self._write() as c:
            c.execute(delete(models.sessions).where(models.sessions.c.id_hash == id_hash))

    # --- ratings and results ----------------------------------------------------------------

    def ratings(self, user_id: int) -> list[RatingRow]:
        r_ = models.ratings
        return self._all(select(r_).where(r_.c.user_id == user_id).order_by(r_.c.game), RatingRow)

    def ratings_for(self, game: str, user_ids: Sequence[int]) -> dict[int, RatingRow]:
        if not user_ids:
            return {}
        r_ = models.ratings
        query = select(r_).where((r_.c.game == game) & r_.c.user_id.in_(user_ids))
        return {r.user_id: r for r in self._all(query, RatingRow)}

    def leaderboard(
        self, game: str, limit: int = 50, offset: int = 0, kind: str | None = None
    ) -> list[tuple[UserRow, RatingRow]]:
        """The rated of a game, the highest ``mu - 3 sigma`` first (OpenSkill's ordinal);
        banned accounts are left off."""
        r_, u = models.ratings, models.users
        query = (
            select(u, r_)
            .join(r_, r_.c.user_id == u.c.id)
            .where((r_.c.game == game) & (u.c.role != "banned"))
            .order_by((r_.c.mu - 3 * r_.c.sigma).desc(), u.c.id)
            .limit(limit)
            .offset(offset)
        )
        if kind is not None:
            query = query.where(u.c.kind == kind)
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        user_fields = UserRow.__slots__
        rating_fields = RatingRow.__slots__
        return [
            (
                UserRow(**{k: r._mapping[u.c[k]] for k in user_fields}),
                RatingRow(**{k: r._mapping[r_.c[k]] for k in rating_fields}),
            )
            for r in rows
        ]

    def save_results(self, rows: Sequence[ResultRow], ratings: Sequence[RatingRow] = ()) -> bool:
        """Store a finished match's results and the ratings they moved, in one transaction;
        False (and nothing written) if this match's results are stored already."""
        if not rows:
            return False
        try:
            with self._write() as c:
                _put_results(c, rows, ratings)
        except IntegrityError:
            return False
        return True

    def rate_results(
        self,
        rows: Sequence[ResultRow],
        game: str,
        rate: Callable[[Mapping[int, RatingRow]], tuple[Sequence[ResultRow], Sequence[RatingRow]]],
    ) -> bool:
        """Store a rated match's results and the ratings they move, in one transaction that
        holds its players first: their ratings in ``game`` are read inside it, ``rate`` makes
        the rows and the new ratings of them, and both are written before anyone else may
        read those ratings. Two matches of one player ending at once on two processes so
        apply one after the other, each to the rating the other left (no update lost).
        False (and nothing written) if this match's results are stored already."""
        if not rows:
            return False
        accounts = sorted({row.user_id for row in rows if row.user_id is not None})
        r_, s_ = models.ratings, models.results
        try:
            with self._write() as c:
                _hold_players(c, accounts, self.wait_seconds)
                stored = select(s_.c.seat).where(s_.c.table_id == rows[0].table_id).limit(1)
                if c.execute(stored).first() is not None:
                    return False  # another process (or a restart) rated this match first
                query = select(r_).where((r_.c.game == game) & r_.c.user_id.in_(accounts))
                before = {r.user_id: RatingRow(**r._mapping) for r in c.execute(query).all()}
                _put_results(c, *rate(before))
        except IntegrityError:
            return False
        return True

    def add_ratings(self, ratings: Sequence[RatingRow]) -> int:
        """Insert the ratings whose account has none in their game yet, holding those
        accounts as :meth:`rate_results` does: a rating stored meanwhile by a match (on
        any process) is kept, never replaced. How many were inserted."""
        r_ = models.ratings
        added = 0
        with self._write() as c:
            _hold_players(c, sorted({rating.user_id for rating in ratings}), self.wait_seconds)
            for rating in ratings:
                where = (r_.c.user_id == rating.user_id) & (r_.c.game == rating.game)
                if c.execute(select(r_.c.user_id).where(where)).first() is None:
                    c.execute(insert(r_).values(**_fields(rating)))
                    added += 1
        return added

    def put_ratings(self, ratings: Sequence[RatingRow]) -> None:
        """Insert or replace ratings (the bots' rating matches)."""
        with self._write() as c:
            for rating in ratings:
                _put_rating(c, rating)

    def rated_pairs_since(
        self, user_ids: Sequence[int], since: float
    ) -> dict[tuple[int, int], int]:
        """How many rated matches each two of ``user_ids`` played on opposite lines since
        ``since``, by pair of ids (the lower first): the daily cap's count."""
        if len(user_ids) < 2:
            return {}
        a, b = models.results.alias("a"), models.results.alias("b")
        query = (
            select(a.c.user_id, b.c.user_id, func.count(func.distinct(a.c.table_id)))
            .join(b, (a.c.table_id == b.c.table_id) & (a.c.line != b.c.line))
            .where(
                a.c.user_id.in_(user_ids)
                & b.c.user_id.in_(user_ids)
                & (a.c.user_id < b.c.user_id)
                & a.c.rated
                & (a.c.finished_at >= since)
            )
            .group_by(a.c.user_id, b.c.user_id)
        )
        with self.engine.connect() as c:
            return {(int(x), int(y)): int(n) for x, y, n in c.execute(query).all()}

    def unrate_table(self, table_id: str, reason: str) -> None:
        """A table made rated plays unrated, for ``reason`` (server/results/fairplay.py)."""
        with self._write() as c:
            c.execute(
                update(models.tables)
                .where(models.tables.c.id == table_id)
                .values(rated=False, unrated=reason)
            )

    def rated_games(
        self, user_id: int, since: float
    ) -> tuple[list[ResultRow], list[ResultRow], dict[int, UserRow]]:
        """What the farm detector reads of an account: its rated results since ``since``,
        the other seats' results at those tables, and the accounts of those seats."""
        r_ = models.results
        mine = self._all(
            select(r_)
            .where((r_.c.user_id == user_id) & r_.c.rated & (r_.c.finished_at >= since))
            .order_by(r_.c.finished_at),
            ResultRow,
        )
        if not mine:
            return [], [], {}
        ids = [row.table_id for row in mine]
        others = self._all(select(r_).where(r_.c.table_id.in_(ids)), ResultRow)
        others = [row for row in others if row.user_id != user_id]
        accounts = self.users(sorted({user_id} | {r.user_id for r in others if r.user_id}))
        return mine, others, accounts

    # --- fair play: flags, roles and the moderators' log ----------------------------------

    def flag(self, user: UserRow, reason: str, now: float) -> bool:
        """Mark an account for review (its rating frozen until cleared), with its line in
        the audit log (by "detector"); False if it is flagged or banned already."""
        f_, user_id = models.flags, user.id
        with self._write() as c:
            found = c.execute(select(f_.c.status).where(f_.c.user_id == user_id)).first()
            if found is not None and found.status in ("flagged", "banned"):
                return False
            values = {"status": "flagged", "reason": reason[:200], "flagged_at": now}
            if found is None:
                c.execute(insert(f_).values(user_id=user_id, **values))
            else:
                c.execute(update(f_).where(f_.c.user_id == user_id).values(**values))
            c.execute(
                insert(models.moderation_log).values(
                    created_at=now,
                    moderator="detector",
                    action="flag",
                    user_id=user_id,
                    name=user.name,
                    note=reason[:200],
                )
            )
        return True

    def flag_of(self, user_id: int) -> FlagRow | None:
        f_ = models.flags
        return self._first(select(f_).where(f_.c.user_id == user_id), FlagRow)

    def flags(self, statuses: Sequence[str] = ("flagged",)) -> list[FlagRow]:
        f_ = models.flags
        query = select(f_).where(f_.c.status.in_(statuses)).order_by(f_.c.flagged_at)
        return self._all(query, FlagRow)

    def frozen(self, user_ids: Sequence[int]) -> set[int]:
        """Those of ``user_ids`` whose rating does not move: flagged or banned."""
        if not user_ids:
            return set()
        f_ = models.flags
        query = select(f_.c.user_id).where(
            f_.c.user_id.in_(user_ids) & f_.c.status.in_(("flagged", "banned"))
        )
        with self.engine.connect() as c:
            return {int(x) for x in c.execute(query).scalars()}

    def decide(
        self, user: UserRow, action: str, moderator: str, now: float, note: str = ""
    ) -> None:
        """A moderator's decision on an account, with its line in the audit log, in one
        transaction: ``clear`` (the flag lifted), ``reset`` (its ratings back to a
        newcomer's, the flag lifted), ``ban`` (no login, off the leaderboards, no rated
        play), ``grant``/``revoke`` (the moderator role)."""
        f_, u = models.flags, models.users
        status = {"clear": "cleared", "reset": "cleared", "ban": "banned"}.get(action)
        with self._write() as c:
            if status is not None:
                decided = {"status": status, "decided_at": now}
                done = c.execute(update(f_).where(f_.c.user_id == user.id).values(**decided))
                if done.rowcount == 0:
                    c.execute(
                        insert(f_).values(
                            user_id=user.id, reason=note[:200], flagged_at=now, **decided
                        )
                    )
            if action == "reset":
                c.execute(delete(models.ratings).where(models.ratings.c.user_id == user.id))
            role = {"ban": "banned", "grant": "moderator", "revoke": ""}.get(action)
            if role is not None:
                c.execute(update(u).where(u.c.id == user.id).values(role=role))
            if action == "ban":
                c.execute(delete(models.sessions).where(models.sessions.c.user_id == user.id))
            c.execute(
                insert(models.moderation_log).values(
                    created_at=now,
                    moderator=moderator,
                    action=action,
                    user_id=user.id,
                    name=user.name,
                    note=note[:200],
                )
            )

    def moderation_log(self, user_id: int | None = None, limit: int = 100) -> list[ModerationRow]:
        m = models.moderation_log
        query = select(m).order_by(m.c.id.desc()).limit(limit)
        if user_id is not None:
            query = query.where(m.c.user_id == user_id)
        return self._all(query, ModerationRow)

    def results(
        self,
        *,
        user_id: int | None = None,
        table_id: str | None = None,
        table_ids: Sequence[str] | None = None,
        limit: int = 1000,
        offset: int = 0,
    ) -> list[ResultRow]:
        """Results of one player (the latest first), of one table or of several (by table
        and seat: a page of matches reads its tables' results in one query)."""
        r_ = models.results
        query = select(r_)
        if user_id is not None:
            query = query.where(r_.c.user_id == user_id).order_by(r_.c.finished_at.desc())
        if table_id is not None:
            query = query.where(r_.c.table_id == table_id).order_by(r_.c.seat)
        if table_ids is not None:
            query = query.where(r_.c.table_id.in_(table_ids)).order_by(r_.c.table_id, r_.c.seat)
        return self._all(query.limit(limit).offset(offset), ResultRow)

    def result_totals(self, user_id: int) -> dict[str, dict[str, int]]:
        """A player's results summed per game: matches, wins, draws, points, deals,
        burracos by grade, closes, pozzetti and abandoned matches."""
        r_ = models.results

        def count(condition: Any) -> Any:
            return func.sum(case((condition, 1), else_=0))

        columns = {
            "matches": func.count(),
            "wins": count(r_.c.outcome == "win"),
            "draws": count(r_.c.outcome == "draw"),
            "points": func.sum(r_.c.points),
            "deals": func.sum(r_.c.deals),
            "burracos_clean": func.sum(r_.c.burracos_clean),
            "burracos_semi": func.sum(r_.c.burracos_semi),
            "burracos_dirty": func.sum(r_.c.burracos_dirty),
            "closes": func.sum(r_.c.closes),
            "pozzetti": func.sum(r_.c.pozzetti),
            "abandoned": count(r_.c.abandoned),
        }
        query = (
            select(r_.c.game, *(c.label(k) for k, c in columns.items()))
            .where(r_.c.user_id == user_id)
            .group_by(r_.c.game)
            .order_by(r_.c.game)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return {r.game: {k: int(r._mapping[k] or 0) for k in columns} for r in rows}

    # --- reviews ------------------------------------------------------------------------------

    def save_review(self, row: ReviewRow) -> None:
        """Store a review; a deal's seat keeps its first stored review (a second is the same
        question asked again: its answer is already there)."""
        r = models.reviews
        with self._write() as c:
            existing = c.execute(
                select(r.c.deal).where(
                    (r.c.table_id == row.table_id) & (r.c.deal == row.deal) & (r.c.seat == row.seat)
                )
            ).first()
            if existing is None:
                c.execute(insert(r).values(**_fields(row)))

    def reviews(self, table_id: str) -> list[ReviewRow]:
        """A table's stored reviews, by deal and seat."""
        r = models.reviews
        query = select(r).where(r.c.table_id == table_id).order_by(r.c.deal, r.c.seat)
        return self._all(query, ReviewRow)

    # --- chat ---------------------------------------------------------------------------------

    def add_chat(self, row: ChatRow) -> None:
        with self._write() as c:
            c.execute(insert(models.chat).values(**_fields(row)))

    def chat(self, table_id: str, channel: str, limit: int = 50) -> list[ChatRow]:
        """The last ``limit`` messages of a table's channel, oldest first."""
        ch = models.chat
        with self.engine.connect() as c:
            rows = c.execute(
                select(ch)
                .where((ch.c.table_id == table_id) & (ch.c.channel == channel))
                .order_by(ch.c.id.desc())
                .limit(limit)
            ).all()
        return [
            ChatRow(r.table_id, r.channel, r.seat, r.name, r.text, r.quick, r.created_at)
            for r in reversed(rows)
        ]


def name_key(name: str) -> str:
    """What makes two account names the same: case and surrounding spaces do not.

    >>> name_key(" Giulia ") == name_key("GIULIA")
    True
    """
    return name.strip().casefold()


def _update_seat(c: Connection, seat: SeatRow) -> None:
    c.execute(
        update(models.seats)
        .where((models.seats.c.table_id == seat.table_id) & (models.seats.c.seat == seat.seat))
        .values(name=seat.name, kind=seat.kind, token_hash=seat.token_hash, user_id=seat.user_id)
    )


def _hold_players(c: Connection, user_ids: Sequence[int], wait_seconds: float) -> None:
    """Take the lock that makes one rating update of these accounts wait for another,
    as the transaction's first statement. PostgreSQL: their account rows (a newcomer has
    no rating row to lock yet), FOR NO KEY UPDATE (rows referring to the account are not
    held up) and in the order of their ids, so two matches sharing players cannot each
    wait for the other. SQLite: the database's write lock (BEGIN IMMEDIATE), so the
    ratings read next are the latest."""
    if c.dialect.name == "sqlite":
        c.exec_driver_sql("BEGIN IMMEDIATE")
    elif user_ids:
        u = models.users
        c.execute(text(f"SET LOCAL lock_timeout = {max(1, round(wait_seconds * 1000))}"))
        held = select(u.c.id).where(u.c.id.in_(user_ids)).order_by(u.c.id)
        c.execute(held.with_for_update(key_share=True))


def _put_results(c: Connection, rows: Sequence[ResultRow], ratings: Sequence[RatingRow]) -> None:
    """Write a match's results and the ratings they moved (a second time: IntegrityError)."""
    for row in rows:
        c.execute(insert(models.results).values(**_fields(row)))
    for rating in ratings:
        _put_rating(c, rating)


def _put_rating(c: Connection, rating: RatingRow) -> None:
    """Replace the rating of its account and game, or insert it if there is none."""
    r_ = models.ratings
    where = (r_.c.user_id == rating.user_id) & (r_.c.game == rating.game)
    done = c.execute(update(r_).where(where).values(**_fields(rating)))
    if done.rowcount == 0:
        c.execute(insert(r_).values(**_fields(rating)))


def _fields(row: object) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__slots__}  # type: ignore[attr-defined]


def _sqlite_pragmas(connection: object, _record: object) -> None:
    # WAL keeps readers off the writer's back; NORMAL still survives a killed process.
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
