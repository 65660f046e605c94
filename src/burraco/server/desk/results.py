"""Results in: a finished room table's MP entered into its tournament, once.

When a room table of a tournament ends, its MP (or its abandonment) goes into the
tournament by itself (:meth:`Results.table_finished`, a finish listener of the room), and
the standings follow. After a restart, and in a cluster every few seconds, the results of
tables that ended while nobody entered them are entered (their process died between the
end and the entry). The tables of the round in play keep their players' grace after a
restart or a takeover (the room's log does not hold it).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from burraco.server.desk.book import Book, LiveTournament, from_row, unrecorded
from burraco.server.room import LiveTable, Room, RoomError
from burraco.tournament import TournamentError

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["RESULTS_EVERY", "Results"]

log = logging.getLogger("burraco.desk")

#: In a cluster, how often each process looks for results nobody has entered.
RESULTS_EVERY = 2.0


class Results:
    """The results of the tournaments' room tables, entered as they end."""

    def __init__(self, room: Room, book: Book, cluster: Cluster | None = None) -> None:
        self.room = room
        self.book = book
        self.cluster = cluster
        #: The collector's read of each tournament, by its row's updated_at: a tournament
        #: unchanged since is not parsed again (never handed out to be changed).
        self._read: dict[str, tuple[float, LiveTournament]] = {}

    async def table_finished(self, table: LiveTable) -> None:
        """A room table ended: its result into its tournament (if it is a tournament's)."""
        link = table.row.tournament
        if not link:
            return
        tournament_id, round_, number = link.rsplit(":", 2)
        if self.cluster is None and tournament_id not in self.book.tournaments:
            return
        try:
            async with self.book.holding(tournament_id) as live:
                self.result_from(live, int(round_), int(number), table)
        except RoomError as error:
            # No such tournament, or its lock stayed taken: in a cluster the collector
            # enters the result from the store later.
            log.warning("table %s: result not entered now: %s", table.id, error.message)

    def result_from(self, live: LiveTournament, round_: int, number: int, table: LiveTable) -> bool:
        """Enter the result of a finished table of the round in play, once (True if
        entered now)."""
        t = live.tournament
        current = t.current_round
        match = table.match
        if match is None or current is None or current.number != round_:
            return False
        if number in current.results:
            return False
        assignment = current.assignment(number)
        if assignment is None:
            return False
        options: dict[str, Any] = {}
        if match.abandoned_by >= 0:
            leaver_line = match.v.line_of[match.abandoned_by]
            options["abandoned_by"] = assignment.first if leaver_line == 0 else assignment.second
        elif match.totals[0] == match.totals[1] and t.settings.format == "knockout":
            mover_line = match.v.line_of[match.deals[-1].turn]
            options["last_mover"] = assignment.first if mover_line == 0 else assignment.second
        try:
            t.enter_result(number, match.totals[0], match.totals[1], **options)
        except TournamentError:
            return False
        self.book.save(live)
        return True

    def _over_in_store(self, live: LiveTournament) -> list[tuple[int, int, str]]:
        """The unrecorded tables whose match the store has as over."""
        over = []
        for round_, number, table_id in unrecorded(live):
            row = self.book.store.table(table_id)
            if row is not None and row.status == "over":
                over.append((round_, number, table_id))
        return over

    async def reconcile(self, live: LiveTournament) -> int:
        """Enter the results of room tables that ended while no one recorded them; how
        many. In a cluster only the tables the store has as over are read (from their
        log), and a table another process owns is not kept here."""
        candidates = list(unrecorded(live)) if self.cluster is None else self._over_in_store(live)
        owned = None if self.cluster is None else self.cluster.leases.owned
        entered = 0
        for round_, number, table_id in candidates:
            loaded = table_id in self.room.tables
            try:
                table = self.room.table(table_id)
            except RoomError:
                continue
            if table.status == "over" and self.result_from(live, round_, number, table):
                entered += 1
            if owned is not None and not loaded and table_id not in owned:
                self.room.tables.pop(table_id, None)  # a copy read, not a table to hold
        return entered

    async def collect(self) -> int:
        """Enter the results of every finished table nobody entered (in a cluster, a
        process may die between a table's end and its result's entry); how many. The
        store says which: each tournament is read and locked only if it has one."""
        entered = 0
        for row in self.book.store.tournaments():
            seen = self._read.get(row.id)
            if seen is None or seen[0] != row.updated_at:
                seen = self._read[row.id] = (row.updated_at, from_row(row))
            if not self._over_in_store(seen[1]):
                continue
            async with self.book.holding(row.id) as live:
                entered += await self.reconcile(live)
        return entered

    async def collect_forever(self) -> None:
        while True:
            await asyncio.sleep(RESULTS_EVERY)
            try:
                await self.collect()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("collecting the tournaments' results")

    def keep_graces(self, live: LiveTournament) -> None:
        """After a restart, the tables of the round in play keep their grace for the
        players who have not played yet (the room's log does not hold it)."""
        for key, table_id in live.tables.items():
            table = self.room.tables.get(table_id)
            if table is not None:
                self._keep_grace(live, table, int(key.split(":")[0]))

    def _keep_grace(self, live: LiveTournament, table: LiveTable, round_: int) -> None:
        current = live.tournament.current_round
        grace = live.tournament.settings.grace_seconds
        if current is not None and grace and current.number == round_:
            self.room.keep_grace(table, table.deal_started + grace)

    def taken_over(self, table_id: str) -> None:
        """A table of the round in play taken over here (its process died) keeps its
        grace for the players who have not played yet, as after a restart."""
        table = self.room.tables.get(table_id)
        if table is None or not table.row.tournament:
            return
        tournament_id, round_, _ = table.row.tournament.rsplit(":", 2)
        try:
            live = self.book.get(tournament_id)
        except RoomError:
            return
        self._keep_grace(live, table, int(round_))
