"""The tables of the room and what they hold: a table's row and its seats (made, read,
claimed, started), the append-only log of its events (one, or a group commit of many:
``group.py``), and a finished match's record, with the history's pages of finished
tables. A table's version is its log's: a version another writer stored first is
:class:`StaleVersion`, a seat another player took first :class:`SeatTaken`, both
checked by the database so that they hold across processes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from burraco.storage import models
from burraco.storage.base import EVENT_COLUMNS, INSERT_EVENT, StoreBase
from burraco.storage.errors import SeatTaken, StaleVersion, StorageUnavailable
from burraco.storage.rows import EventRow, FinishedTable, ResultRow, SeatRow, TableRow, values_of


class Tables(StoreBase):
    """Tables, their seats, their event log and their finished records."""

    # --- tables and seats -----------------------------------------------------------------

    def create_table(self, row: TableRow, seats: Sequence[SeatRow] = ()) -> None:
        with self._write() as c:
            c.execute(insert(models.tables).values(**values_of(row)))
            for seat in seats:
                c.execute(insert(models.seats).values(**values_of(seat)))

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
                c.execute(INSERT_EVENT, row)
        except IntegrityError as error:
            raise StaleVersion(f"version {version} of table {table_id} exists") from error

    def append_events(self, rows: Sequence[EventRow]) -> list[Exception | None]:
        """Store a group of events in one transaction (a group commit): for each event,
        None once it is committed, else why not (:class:`StaleVersion`,
        :class:`StorageUnavailable`). A taken version fails its own event alone: the
        group is then written again one event to a transaction."""
        values: list[Any] = [values_of(row) for row in rows]
        if self._event_positional:
            values = [tuple(value[k] for k in EVENT_COLUMNS) for value in values]
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
                    INSERT_EVENT,
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


def _update_seat(c: Connection, seat: SeatRow) -> None:
    c.execute(
        update(models.seats)
        .where((models.seats.c.table_id == seat.table_id) & (models.seats.c.seat == seat.seat))
        .values(name=seat.name, kind=seat.kind, token_hash=seat.token_hash, user_id=seat.user_id)
    )
