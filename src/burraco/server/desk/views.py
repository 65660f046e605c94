"""What the desk shows: a tournament to everyone, a player's own view, the printouts.

The tables of the round in play show who has not opened them since their deal began and
until when their first move waits (the grace), and a player's deal clock: facts a table's
owner knows (:func:`facts`), asked over the cluster for a table another process holds.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from burraco.server.desk.book import Book, LiveTournament, hash_token, refused, unrecorded
from burraco.server.room import LiveTable, Room, RoomError
from burraco.tournament import TournamentError
from burraco.tournament.printing import standings_csv, standings_html, table_cards_html

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["FACTS_OP", "FACTS_SECONDS", "Views", "facts"]

#: The operation another process asks of this one to tell what the desk shows of a table
#: it owns (who is not at it, the clocks).
FACTS_OP = "desk_table"
#: How long the desk waits for them: a page is not held up by an owner just killed
#: (known dead within seconds); its tables show no one absent meanwhile.
FACTS_SECONDS = 1.0

Facts = dict[str, dict[str, Any]]


def facts(table: LiveTable) -> dict[str, Any]:
    """What the desk shows of a table in play, as JSON (it may come from another
    process): whether it plays, its seats not opened since the deal began, until when
    their first turn waits for them, and the deal clock's deadline (seconds)."""
    playing = table.status == "playing"
    deal = table.row.deal_seconds
    return {
        "playing": playing,
        "absent": sorted(i for i in table.unseen if not table.seats[i].connections),
        "absent_until": table.absent_until,
        "deal_deadline": table.deal_started + deal if playing and deal else None,
    }


def presence(live: LiveTournament, known: dict[str, Any] | None) -> dict[str, Any]:
    """Who of a table in play has not opened it since its deal began (by compass
    letter), and until when (ms) their first move's clock waits for them: the grace."""
    if known is None or not known["playing"]:
        return {"absent": [], "grace_until": None}
    letters = "NESW" if live.tournament.settings.kind == "pairs" else "NS"
    absent = [i for i in known["absent"] if i < len(letters)]
    waiting = bool(absent) and known["absent_until"] > time.time()
    return {
        "absent": [letters[i] for i in absent],
        "grace_until": int(known["absent_until"] * 1000) if waiting else None,
    }


class Views:
    """The tournaments as the pages read them."""

    def __init__(self, room: Room, book: Book, cluster: Cluster | None = None) -> None:
        self.room = room
        self.book = book
        self.cluster = cluster

    def _here(self, room_table: str | None) -> LiveTable | None:
        """The live table, if this process holds it (in a cluster another may)."""
        if room_table is None or (self.cluster and room_table not in self.cluster.leases.owned):
            return None
        return self.room.tables.get(room_table)

    async def _facts_of(self, room_tables: list[str]) -> Facts:
        """The facts of room tables in play (:func:`facts`), each from its owner: here,
        or in a cluster over Redis (a table whose owner does not answer has none)."""
        cluster = self.cluster
        if cluster is None:
            return {}  # the tables are here: public() and me() read them at once

        async def one(room_table: str) -> tuple[str, dict[str, Any] | None]:
            try:
                node = await cluster.owners.owner(room_table)
                if node == cluster.node:
                    table = self._here(room_table)
                    return room_table, None if table is None else facts(table)
                said = await cluster.calls.call_node(
                    node, FACTS_OP, {"table": room_table}, seconds=FACTS_SECONDS
                )
                return room_table, said if isinstance(said, dict) else None
            except RoomError:
                return room_table, None

        found = await asyncio.gather(*(one(t) for t in room_tables))
        return {t: known for t, known in found if known is not None}

    async def facts_for_another(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """Another process's desk asks for the facts of a table this one owns."""
        table = self._here(str(body.get("table")))
        return None if table is None else facts(table)

    def _facts_here(self, room_table: str | None, known: Facts | None) -> dict[str, Any] | None:
        if room_table is None:
            return None
        if known is not None and room_table in known:
            return known[room_table]
        table = self._here(room_table)
        return None if table is None else facts(table)

    async def _facts_in_play(self, live: LiveTournament) -> Facts:
        """The facts of the room tables of the round in play without a result."""
        return await self._facts_of([table_id for _, _, table_id in unrecorded(live)])

    async def view(self, live: LiveTournament) -> dict[str, Any]:
        """:meth:`public`, the tables in play read from their owners (in a cluster)."""
        return self.public(live, await self._facts_in_play(live))

    def public(self, live: LiveTournament, known: Facts | None = None) -> dict[str, Any]:
        """The tournament as everyone may see it; ``known`` (:meth:`view`): the facts of
        the tables in play another process holds."""
        t = live.tournament
        rounds = []
        for r in t.rounds:
            tables = []
            for a in r.tables:
                result = r.results.get(a.table)
                room_table = live.tables.get(f"{r.number}:{a.table}")
                shown: dict[str, Any] = {"absent": [], "grace_until": None}
                if result is None and r is t.current_round:
                    shown = presence(live, self._facts_here(room_table, known))
                tables.append(
                    {
                        "table": a.table,
                        "first": a.first,
                        "second": a.second,
                        "seats": t.seats(a),
                        "room": room_table,
                        "result": None if result is None else result.to_dict(),
                    }
                    | shown
                )
            rounds.append(
                {
                    "number": r.number,
                    "online": r.number in live.online,
                    "tables": tables,
                    "byes": list(r.byes),
                }
            )
        return {
            "tournament": live.id,
            "settings": t.settings.to_dict(),
            "phase": str(t.phase),
            "entrants": [
                {"id": e.id, "players": list(e.players), "bot": e.bot} for e in t.entrants
            ],
            "rounds": rounds,
            "standings": [s.to_dict() for s in t.standings()],
        }

    async def player_view(self, tournament_id: str, token: str) -> dict[str, Any]:
        """:meth:`me`, the table in play read from its owner (in a cluster)."""
        live = self.book.get(tournament_id)
        return self.me(tournament_id, token, await self._facts_in_play(live))

    def me(self, tournament_id: str, token: str, known: Facts | None = None) -> dict[str, Any]:
        """A player's view: their line, this round's table and seat, their past boards."""
        live = self.book.get(tournament_id)
        digest = hash_token(token)
        found = [(e, h.index(digest)) for e, h in live.players.items() if digest in h]
        if not found:
            raise RoomError("forbidden", "this token is no player's of this tournament", 403)
        entrant_id, player = found[0]
        t = live.tournament
        boards = []
        current = None
        for r in t.rounds:
            for a in r.tables:
                if entrant_id not in (a.first, a.second):
                    continue
                room_table = live.tables.get(f"{r.number}:{a.table}")
                seat = None
                if room_table is not None:
                    line = 0 if a.first == entrant_id else 1
                    seat = line + 2 * player if t.settings.kind == "pairs" else line
                entry = {
                    "round": r.number,
                    "table": a.table,
                    "room": room_table,
                    "seat": seat,
                    "result": None if a.table not in r.results else r.results[a.table].to_dict(),
                }
                boards.append(entry)
                if r is t.current_round:
                    current = entry
        clock = None
        room_table = str(current["room"]) if current and current["room"] else None
        here = self._facts_here(room_table, known)
        if here is not None and here["playing"] and here["deal_deadline"] is not None:
            clock = {"deal_deadline": int(here["deal_deadline"] * 1000)}
        return {
            "tournament": live.id,
            "entrant": entrant_id,
            "player": player,
            "current": current,
            "clock": clock,
            "boards": boards,
            "standings": [s.to_dict() for s in t.standings()],
        }

    def standings_csv(self, tournament_id: str) -> str:
        return standings_csv(self.book.get(tournament_id).tournament.standings())

    def standings_html(self, tournament_id: str) -> str:
        return standings_html(self.book.get(tournament_id).tournament)

    def table_cards(self, tournament_id: str, round_number: int | None = None) -> str:
        try:
            return table_cards_html(self.book.get(tournament_id).tournament, round_number)
        except TournamentError as error:
            raise refused(error, "not_found", 404) from error
