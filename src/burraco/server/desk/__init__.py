"""The director's desk: tournaments run in the web room, or at physical tables.

A tournament lives in the database as its JSON (``burraco.tournament``) with
the secrets beside it: the director's token and one token per player. A round
played online seats each table in the room at once: the players of the first
line at seats 0 and 2 (North and South), the second at 1 and 3, bots for bot
lines; each human seat opens with its player's own token. When a room table
ends, its MP (or its abandonment) goes into the tournament by itself, and the
standings follow. Physical tables get printed table cards, and the director
enters and corrects their MP from the score sheets.

In a cluster (docs/cluster.md) the database is the tournament's truth: every process
serves the desk, reading the tournament afresh from the store, and changes it under a
cluster-wide lock; a round's tables are seated round-robin on the living processes; a
table's result is entered by whichever process finishes it, and each process also
enters, every few seconds, the results of finished tables that nobody entered (their
process died between the end and the entry).

The desk is split like the room: ``book`` (the tournaments as read, saved and locked),
``actions`` (the director's), ``results`` (a finished table's result in) and ``views``
(what the pages show); :class:`Desk` wires them and is their door for the rest of the
server. Beside them, ``api`` holds the tournaments' routes and ``cli`` the terminal's
``burraco desk``, which talks to a running room over HTTP.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from burraco.server.desk.actions import SEAT_OP, Director
from burraco.server.desk.book import Book, LiveTournament, from_row
from burraco.server.desk.results import Results
from burraco.server.desk.views import FACTS_OP, Views
from burraco.server.door.limits import Limits
from burraco.server.process.background import cancel
from burraco.server.room import Room
from burraco.storage import Store

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["Desk", "LiveTournament"]


class Desk:
    """Every tournament of the server: its parts wired, and their doors."""

    def __init__(
        self,
        room: Room,
        store: Store,
        limits: Limits | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        self.room = room
        self.store = store
        self.limits = limits or Limits()
        self.cluster = cluster
        self.book = Book(store, cluster)
        self.views = Views(room, self.book, cluster)
        self.results = Results(room, self.book, cluster)
        self.director = Director(room, self.book, self.views.view, self.limits, cluster)
        self._collector: asyncio.Task[None] | None = None
        #: What the room calls when a table ends (a test may take it away).
        self._table_finished = self.results.table_finished
        room.finish_listeners.append(self._table_finished)
        if cluster is not None:
            cluster.calls.handlers[SEAT_OP] = self.director.seat_here
            cluster.calls.handlers[FACTS_OP] = self.views.facts_for_another
            cluster.leases.taken.append(self.results.taken_over)

    async def startup(self) -> None:
        for row in self.store.tournaments():
            live = from_row(row)
            self.book.tournaments[row.id] = live
            if self.cluster is None:
                await self.results.reconcile(live)
                self.results.keep_graces(live)
        if self.cluster is not None:
            self._collector = asyncio.create_task(self.results.collect_forever())

    async def stop(self) -> None:
        await cancel(self._collector)

    # --- the tournaments (book.py) ----------------------------------------------------------

    def get(self, tournament_id: str) -> LiveTournament:
        return self.book.get(tournament_id)

    def all(self) -> list[LiveTournament]:
        return self.book.all()

    def admit_bot(self, key: str) -> None:
        self.book.admit_bot(key)

    # --- the director (actions.py) ----------------------------------------------------------

    def create(self, request: dict[str, Any]) -> tuple[LiveTournament, str]:
        return self.director.create(request)

    async def register(
        self, tournament_id: str, token: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        return await self.director.register(tournament_id, token, body)

    async def pad(self, tournament_id: str, token: str, size: int, level: str) -> dict[str, Any]:
        return await self.director.pad(tournament_id, token, size, level)

    async def start_round(self, tournament_id: str, token: str, online: bool) -> dict[str, Any]:
        return await self.director.start_round(tournament_id, token, online)

    async def enter(
        self, tournament_id: str, token: str, body: dict[str, Any], correct: bool
    ) -> dict[str, Any]:
        return await self.director.enter(tournament_id, token, body, correct)

    async def close_round(self, tournament_id: str, token: str) -> dict[str, Any]:
        return await self.director.close_round(tournament_id, token)

    async def finish(self, tournament_id: str, token: str) -> dict[str, Any]:
        return await self.director.finish(tournament_id, token)

    # --- results in (results.py) ------------------------------------------------------------

    async def collect_results(self) -> int:
        return await self.results.collect()

    # --- views out (views.py) ---------------------------------------------------------------

    async def view(self, live: LiveTournament) -> dict[str, Any]:
        return await self.views.view(live)

    def public(
        self, live: LiveTournament, facts: dict[str, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        return self.views.public(live, facts)

    async def player_view(self, tournament_id: str, token: str) -> dict[str, Any]:
        return await self.views.player_view(tournament_id, token)

    def me(
        self, tournament_id: str, token: str, facts: dict[str, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        return self.views.me(tournament_id, token, facts)

    def standings_csv(self, tournament_id: str) -> str:
        return self.views.standings_csv(tournament_id)

    def standings_html(self, tournament_id: str) -> str:
        return self.views.standings_html(tournament_id)

    def table_cards(self, tournament_id: str, round_number: int | None = None) -> str:
        return self.views.table_cards(tournament_id, round_number)
