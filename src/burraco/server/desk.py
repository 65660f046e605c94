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
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from burraco.server.background import cancel
from burraco.server.capacity import BUSY
from burraco.server.inputs import clean_name
from burraco.server.limits import Limits
from burraco.server.room import LiveTable, Room, RoomError
from burraco.server.table.seats import new_table_id
from burraco.storage import Store, TournamentRow
from burraco.tournament import Settings, Tournament, TournamentError
from burraco.tournament.printing import standings_csv, standings_html, table_cards_html

if TYPE_CHECKING:
    from burraco.server.cluster import Cluster

__all__ = ["Desk"]

log = logging.getLogger("burraco.desk")

#: The operation another process asks of this one to seat a tournament table here.
SEAT_OP = "desk_seat"
#: ... and to tell what the desk shows of a table it owns (who is not at it, the clocks).
FACTS_OP = "desk_table"
#: How long the desk waits for them: a page is not held up by an owner just killed
#: (known dead within seconds); its tables show no one absent meanwhile.
FACTS_SECONDS = 1.0
#: In a cluster, how often each process looks for results nobody has entered.
RESULTS_EVERY = 2.0


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _refused(error: TournamentError, code: str, status: int = 400) -> RoomError:
    """The room's answer to a request the tournament's rules refuse: the room's ``code``,
    and the tournament's rule as ``rule`` and ``params``, for the page to say it in its
    player's language (as the engine's refusals are sent with code "illegal")."""
    return RoomError(code, str(error), status, params=error.params, rule=error.code)


@dataclass
class LiveTournament:
    id: str
    tournament: Tournament
    director_hash: str
    #: Per entrant id, the hash of each of its players' tokens.
    players: dict[int, list[str]] = field(default_factory=dict)
    #: "round:table" -> the room table playing it.
    tables: dict[str, str] = field(default_factory=dict)
    #: Rounds played online (the others at physical tables).
    online: set[int] = field(default_factory=set)
    created_at: float = field(default_factory=time.time)


def _from_row(row: TournamentRow) -> LiveTournament:
    """A tournament as the store holds it."""
    secrets_ = json.loads(row.entrant_hashes)
    return LiveTournament(
        id=row.id,
        tournament=Tournament.from_json(row.data),
        director_hash=row.director_hash,
        players={int(k): v for k, v in secrets_.get("players", {}).items()},
        tables=secrets_.get("tables", {}),
        online=set(secrets_.get("online", [])),
        created_at=row.created_at,
    )


def _table_spec(
    live: LiveTournament, round_: int, number: int, first: int, second: int
) -> dict[str, Any]:
    """What seats a round's table, as JSON (it may travel to another process): the
    first line at seats 0 and 2, the second at 1 and 3; each human seat opens with its
    player's own token (its hash here)."""
    t = live.tournament
    s = t.settings
    pairs = s.kind == "pairs"
    a, b = t.entrant(first), t.entrant(second)
    order = [(a, 0), (b, 0), (a, 1), (b, 1)] if pairs else [(a, 0), (b, 0)]
    seats = []
    for entrant, index in order:
        name = entrant.players[index] if index < len(entrant.players) else entrant.players[0]
        seats.append((name, "bot" if entrant.bot else "human"))
    hashes: dict[str, str] = {}
    for seat, (entrant, index) in enumerate(order):
        player_hashes = live.players.get(entrant.id, [])
        if not entrant.bot and index < len(player_hashes):
            hashes[str(seat)] = player_hashes[index]
    return {
        "game": s.game,
        "options": {"players": 4 if pairs else 2, "deals": s.deals, "target": None},
        "seats": seats,
        "bot": a.bot or b.bot or "greedy",
        "deal_seconds": s.deal_minutes * 60,
        "move_seconds": s.move_seconds,
        "grace_seconds": s.grace_seconds,
        "tournament": f"{live.id}:{round_}:{number}",
        "hashes": hashes,
        "watchable": s.spectators,
        "chat": s.chat,
    }


def _facts(table: LiveTable) -> dict[str, Any]:
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


#: What a director sets when creating a tournament (the rest are the defaults).
SETTINGS = (
    "name", "game", "format", "kind", "rounds", "deals", "deal_minutes", "move_seconds",
    "grace_seconds", "seeding", "spectators", "chat", "bots",
)  # fmt: skip


class Desk:
    """Every tournament of the server."""

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
        #: The tournaments as last read (in one process: the truth; in a cluster: a copy).
        self.tournaments: dict[str, LiveTournament] = {}
        self.cluster = cluster
        self._locks: dict[str, asyncio.Lock] = {}
        self._collector: asyncio.Task[None] | None = None
        #: The collector's read of each tournament, by its row's updated_at: a tournament
        #: unchanged since is not parsed again (never handed out to be changed).
        self._read: dict[str, tuple[float, LiveTournament]] = {}
        room.finish_listeners.append(self._table_finished)
        if cluster is not None:
            cluster.handlers[SEAT_OP] = self._seat_for_another
            cluster.handlers[FACTS_OP] = self._facts_for_another
            cluster.taken.append(self._taken_over)

    async def startup(self) -> None:
        for row in self.store.tournaments():
            live = _from_row(row)
            self.tournaments[row.id] = live
            if self.cluster is None:
                await self._reconcile(live)
                self._keep_graces(live)
        if self.cluster is not None:
            self._collector = asyncio.create_task(self._collect_forever())

    async def stop(self) -> None:
        await cancel(self._collector)

    def _save(self, live: LiveTournament) -> None:
        blob = {
            "players": {str(k): v for k, v in live.players.items()},
            "tables": live.tables,
            "online": sorted(live.online),
        }
        self.store.save_tournament(
            TournamentRow(
                id=live.id,
                name=live.tournament.settings.name,
                data=live.tournament.to_json(indent=None),
                director_hash=live.director_hash,
                entrant_hashes=json.dumps(blob),
                created_at=live.created_at,
                updated_at=time.time(),
            )
        )

    # --- the director ---------------------------------------------------------------------

    def create(self, request: dict[str, Any]) -> tuple[LiveTournament, str]:
        self.room.admit()
        fields = {k: request[k] for k in SETTINGS if request.get(k) is not None}
        fields["seed"] = secrets.randbits(31)
        try:
            tournament = Tournament(Settings(**fields))
        except TournamentError as error:
            raise _refused(error, "bad_message") from error
        except (TypeError, ValueError) as error:
            raise RoomError("bad_message", str(error)) from error
        token = secrets.token_urlsafe(24)
        live = LiveTournament(
            id="u-" + secrets.token_urlsafe(6).replace("_", "x").replace("-", "y"),
            tournament=tournament,
            director_hash=_hash(token),
        )
        self.tournaments[live.id] = live
        self._save(live)
        return live, token

    def admit_bot(self, key: str) -> None:
        """Nothing if the tournament of a table (its ``TOURNAMENT:ROUND:TABLE``) admits bot
        accounts, else a 403 :class:`RoomError`: its director chose people only."""
        live = self.tournaments.get(key.split(":", 1)[0])
        if live is None or not live.tournament.settings.bots:
            raise RoomError(
                "forbidden", "this tournament's director does not admit bot accounts", 403
            )

    def get(self, tournament_id: str) -> LiveTournament:
        """The tournament; in a cluster read afresh from the store, where another process
        may have changed it."""
        if self.cluster is not None:
            row = self.store.tournament(tournament_id)
            if row is not None:
                self.tournaments[tournament_id] = _from_row(row)
            else:
                self.tournaments.pop(tournament_id, None)
        live = self.tournaments.get(tournament_id)
        if live is None:
            raise RoomError("not_found", f"no tournament {tournament_id!r}", 404)
        return live

    def all(self) -> list[LiveTournament]:
        """Every tournament (in a cluster, as the store has them now)."""
        if self.cluster is not None:
            self.tournaments = {row.id: _from_row(row) for row in self.store.tournaments()}
        return list(self.tournaments.values())

    @contextlib.asynccontextmanager
    async def _holding(self, tournament_id: str) -> AsyncIterator[LiveTournament]:
        """The tournament, for a change no one else makes meanwhile: this process's lock,
        and in a cluster the cluster's, the tournament read from the store under it."""
        async with self._locks.setdefault(tournament_id, asyncio.Lock()):
            if self.cluster is None:
                yield self.get(tournament_id)
                return
            async with self.cluster.locked(f"tournament:{tournament_id}"):
                yield self.get(tournament_id)

    def _director(self, tournament_id: str, token: str) -> LiveTournament:
        live = self.get(tournament_id)
        if not secrets.compare_digest(live.director_hash, _hash(token)):
            raise RoomError("forbidden", "only the tournament's director may do this", 403)
        return live

    async def register(
        self, tournament_id: str, token: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        self._director(tournament_id, token)
        async with self._holding(tournament_id) as live:
            names = body.get("players") or []
            bot = body.get("bot")
            try:
                if bot:
                    # A bot line gets the names the field's padding gives ("Greedy 7").
                    size = len(live.tournament.entrants) + 1
                    entrant = live.tournament.pad_with_bots(size, bot)[0]
                else:
                    clean = [
                        clean_name(n, what="an entrant's name")
                        for n in names
                        if isinstance(n, str) and n.strip()
                    ]
                    entrant = live.tournament.register(
                        clean[0] if len(clean) == 1 else tuple(clean)
                    )
            except TournamentError as error:
                raise _refused(error, "bad_message") from error
            except ValueError as error:
                raise RoomError("bad_message", str(error)) from error
            tokens = [] if entrant.bot else [secrets.token_urlsafe(24) for _ in entrant.players]
            live.players[entrant.id] = [_hash(t) for t in tokens]
            self._save(live)
        return {"entrant": entrant.id, "players": list(entrant.players), "tokens": tokens}

    async def pad(self, tournament_id: str, token: str, size: int, level: str) -> dict[str, Any]:
        self._director(tournament_id, token)
        if size > self.limits.pad_size:
            raise RoomError(
                "bad_message", f"a tournament is padded to at most {self.limits.pad_size} entrants"
            )
        async with self._holding(tournament_id) as live:
            try:
                added = live.tournament.pad_with_bots(size, level)
            except TournamentError as error:
                raise _refused(error, "bad_message") from error
            for entrant in added:
                live.players[entrant.id] = []
            self._save(live)
        return {"added": [e.id for e in added]}

    async def start_round(self, tournament_id: str, token: str, online: bool) -> dict[str, Any]:
        self._director(tournament_id, token)
        async with self._holding(tournament_id) as live:
            t = live.tournament
            if online:
                self._admit_round(t)
            try:
                assignments = t.start_round()
            except TournamentError as error:
                raise _refused(error, "forbidden", 409) from error
            number = t.rounds[-1].number
            if online:
                live.online.add(number)
                nodes, gone = await self._nodes(), set[str]()
                for i, a in enumerate(assignments):
                    spec = _table_spec(live, a.round, a.table, a.first, a.second)
                    # Round-robin over the living processes (one process: all here).
                    table_id = await self._seat_on(nodes[i % len(nodes)], spec, gone)
                    live.tables[f"{a.round}:{a.table}"] = table_id
                t.start_play()
            self._save(live)
        return await self.view(live)

    def _admit_round(self, t: Tournament) -> None:
        """Refuse an online round the room cannot play now: too many tables for one round,
        or more tables of bots alone than the room runs at once."""
        self.room.admit()
        tables = len(t.entrants) // 2
        if tables > self.limits.round_tables:
            raise RoomError(
                "forbidden",
                f"an online round seats at most {self.limits.round_tables} tables, "
                f"this one would need {tables}: play it at physical tables",
                409,
            )
        bots = sum(1 for e in t.entrants if e.bot) // 2
        if self.room.bot_tables() + bots > self.room.capacity.max_bot_tables:
            raise RoomError("busy", BUSY, 503)

    async def _nodes(self) -> list[str]:
        """The processes a round's tables are seated on: every living one, this one
        first ("" alone without a cluster: here)."""
        if self.cluster is None:
            return [""]
        nodes = await self.cluster.alive_nodes()
        at = nodes.index(self.cluster.node)
        return nodes[at:] + nodes[:at]

    async def _seat_on(self, node: str, spec: dict[str, Any], gone: set[str]) -> str:
        """Seat a table on ``node`` (here if it is this process); here after all if that
        process does not answer or is busy, and then for the rest of the round (in
        ``gone``): the round is not held up by it table after table. The table's id."""
        if self.cluster is None or node in ("", self.cluster.node) or node in gone:
            return await self._seat_here(spec)
        try:
            return str(await self.cluster.call_node(node, SEAT_OP, spec))
        except RoomError as error:
            if error.status != 503:
                raise
            gone.add(node)
            where = spec["tournament"]
            log.warning("node %s did not seat table %s (%s): seated here", node, where, error)
            return await self._seat_here(spec)

    async def _seat_for_another(self, spec: dict[str, Any]) -> str:
        """Another process's desk asks this one to seat a table of its round."""
        return await self._seat_here(spec)

    async def _seat_here(self, spec: dict[str, Any]) -> str:
        table_id = new_table_id()
        if self.cluster is not None and not await self.cluster.hold(table_id):
            raise RoomError("unavailable", f"table id {table_id} is taken; retry", 503)
        # Owned here before it exists: no other process's scan of the tables in play
        # can take it between its first move and its lease.
        try:
            table, _ = await self._create_seated(spec, table_id)
        except BaseException:
            if self.cluster is not None:
                await self.cluster.release(table_id)
            raise
        return table.id

    async def _create_seated(
        self, spec: dict[str, Any], table_id: str
    ) -> tuple[LiveTable, dict[int, str]]:
        return await self.room.create_seated(
            # A spec written before the game was a setting seated Italian Burraco.
            str(spec.get("game", "italian")),
            dict(spec["options"]),
            [(str(name), str(kind)) for name, kind in spec["seats"]],
            bot=spec["bot"],
            deal_seconds=spec["deal_seconds"],
            move_seconds=spec["move_seconds"],
            grace_seconds=spec["grace_seconds"],
            tournament=spec["tournament"],
            hashes={int(seat): str(digest) for seat, digest in spec["hashes"].items()},
            watchable=spec["watchable"],
            chat=spec["chat"],
            table_id=table_id,
        )

    async def enter(
        self, tournament_id: str, token: str, body: dict[str, Any], correct: bool
    ) -> dict[str, Any]:
        self._director(tournament_id, token)
        async with self._holding(tournament_id) as live:
            try:
                table = int(body["table"])
                mp = (int(body["mp_first"]), int(body["mp_second"]))
                options = {
                    k: body[k] for k in ("abandoned_by", "last_mover") if body.get(k) is not None
                }
                if correct:
                    if body.get("round") is not None:
                        options["round"] = int(body["round"])
                    live.tournament.correct_result(table, *mp, **options)
                else:
                    live.tournament.enter_result(table, *mp, **options)
            except TournamentError as error:
                raise _refused(error, "forbidden", 409) from error
            except (KeyError, TypeError, ValueError) as error:
                raise RoomError(
                    "bad_message", f"a result needs its table and both MP: {error}"
                ) from error
            self._save(live)
        return await self.view(live)

    async def close_round(self, tournament_id: str, token: str) -> dict[str, Any]:
        self._director(tournament_id, token)
        async with self._holding(tournament_id) as live:
            try:
                live.tournament.close_round()
            except TournamentError as error:
                raise _refused(error, "forbidden", 409) from error
            self._save(live)
        return await self.view(live)

    async def finish(self, tournament_id: str, token: str) -> dict[str, Any]:
        self._director(tournament_id, token)
        async with self._holding(tournament_id) as live:
            try:
                live.tournament.finish()
            except TournamentError as error:
                raise _refused(error, "forbidden", 409) from error
            self._save(live)
        return await self.view(live)

    # --- results from the room ------------------------------------------------------------

    async def _table_finished(self, table: LiveTable) -> None:
        link = table.row.tournament
        if not link:
            return
        tournament_id, round_, number = link.rsplit(":", 2)
        if self.cluster is None and tournament_id not in self.tournaments:
            return
        try:
            async with self._holding(tournament_id) as live:
                self._result_from(live, int(round_), int(number), table)
        except RoomError as error:
            # No such tournament, or its lock stayed taken: in a cluster the collector
            # enters the result from the store later.
            log.warning("table %s: result not entered now: %s", table.id, error.message)

    def _result_from(
        self, live: LiveTournament, round_: int, number: int, table: LiveTable
    ) -> bool:
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
        self._save(live)
        return True

    @staticmethod
    def _unrecorded(live: LiveTournament) -> Iterator[tuple[int, int, str]]:
        """(round, table number, room table) of each room table of the round in play
        whose result is not entered yet."""
        current = live.tournament.current_round
        if current is None or current.number not in live.online:
            return
        for a in current.tables:
            table_id = live.tables.get(f"{current.number}:{a.table}")
            if table_id is not None and a.table not in current.results:
                yield current.number, a.table, table_id

    def _over_in_store(self, live: LiveTournament) -> list[tuple[int, int, str]]:
        """The unrecorded tables whose match the store has as over."""
        over = []
        for round_, number, table_id in self._unrecorded(live):
            row = self.store.table(table_id)
            if row is not None and row.status == "over":
                over.append((round_, number, table_id))
        return over

    async def _reconcile(self, live: LiveTournament) -> int:
        """Enter the results of room tables that ended while no one recorded them; how
        many. In a cluster only the tables the store has as over are read (from their
        log), and a table another process owns is not kept here."""
        if self.cluster is None:
            candidates = list(self._unrecorded(live))
        else:
            candidates = self._over_in_store(live)
        entered = 0
        for round_, number, table_id in candidates:
            loaded = table_id in self.room.tables
            try:
                table = self.room.table(table_id)
            except RoomError:
                continue
            if table.status == "over" and self._result_from(live, round_, number, table):
                entered += 1
            if self.cluster is not None and not loaded and table_id not in self.cluster.owned:
                self.room.tables.pop(table_id, None)  # a copy read, not a table to hold
        return entered

    async def collect_results(self) -> int:
        """Enter the results of every finished table nobody entered (in a cluster, a
        process may die between a table's end and its result's entry); how many. The
        store says which: each tournament is read and locked only if it has one."""
        entered = 0
        for row in self.store.tournaments():
            seen = self._read.get(row.id)
            if seen is None or seen[0] != row.updated_at:
                seen = self._read[row.id] = (row.updated_at, _from_row(row))
            if not self._over_in_store(seen[1]):
                continue
            async with self._holding(row.id) as live:
                entered += await self._reconcile(live)
        return entered

    async def _collect_forever(self) -> None:
        while True:
            await asyncio.sleep(RESULTS_EVERY)
            try:
                await self.collect_results()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("collecting the tournaments' results")

    def _keep_graces(self, live: LiveTournament) -> None:
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

    def _taken_over(self, table_id: str) -> None:
        """A table of the round in play taken over here (its process died) keeps its
        grace for the players who have not played yet, as after a restart."""
        table = self.room.tables.get(table_id)
        if table is None or not table.row.tournament:
            return
        tournament_id, round_, _ = table.row.tournament.rsplit(":", 2)
        try:
            live = self.get(tournament_id)
        except RoomError:
            return
        self._keep_grace(live, table, int(round_))

    # --- what everyone may see ------------------------------------------------------------

    def _here(self, room_table: str | None) -> LiveTable | None:
        """The live table, if this process holds it (in a cluster another may)."""
        if room_table is None or (self.cluster and room_table not in self.cluster.owned):
            return None
        return self.room.tables.get(room_table)

    async def _facts_of(self, room_tables: list[str]) -> dict[str, dict[str, Any]]:
        """The facts of room tables in play (:func:`_facts`), each from its owner: here,
        or in a cluster over Redis (a table whose owner does not answer has none)."""
        if self.cluster is None:
            return {}  # the tables are here: public() and me() read them at once

        async def one(room_table: str) -> tuple[str, dict[str, Any] | None]:
            assert self.cluster is not None
            try:
                node = await self.cluster.owner(room_table)
                if node == self.cluster.node:
                    table = self._here(room_table)
                    return room_table, None if table is None else _facts(table)
                said = await self.cluster.call_node(
                    node, FACTS_OP, {"table": room_table}, seconds=FACTS_SECONDS
                )
                return room_table, said if isinstance(said, dict) else None
            except RoomError:
                return room_table, None

        found = await asyncio.gather(*(one(t) for t in room_tables))
        return {t: facts for t, facts in found if facts is not None}

    async def _facts_for_another(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """Another process's desk asks for the facts of a table this one owns."""
        table = self._here(str(body.get("table")))
        return None if table is None else _facts(table)

    def _facts_here(
        self, room_table: str | None, facts: dict[str, dict[str, Any]] | None
    ) -> dict[str, Any] | None:
        if room_table is None:
            return None
        if facts is not None and room_table in facts:
            return facts[room_table]
        table = self._here(room_table)
        return None if table is None else _facts(table)

    def _presence(self, live: LiveTournament, facts: dict[str, Any] | None) -> dict[str, Any]:
        """Who of a table in play has not opened it since its deal began (by compass
        letter), and until when (ms) their first move's clock waits for them: the grace."""
        if facts is None or not facts["playing"]:
            return {"absent": [], "grace_until": None}
        letters = "NESW" if live.tournament.settings.kind == "pairs" else "NS"
        absent = [i for i in facts["absent"] if i < len(letters)]
        waiting = bool(absent) and facts["absent_until"] > time.time()
        return {
            "absent": [letters[i] for i in absent],
            "grace_until": int(facts["absent_until"] * 1000) if waiting else None,
        }

    def _unfinished(self, live: LiveTournament) -> list[str]:
        """The room tables of the round in play without a result."""
        return [table_id for _, _, table_id in self._unrecorded(live)]

    async def view(self, live: LiveTournament) -> dict[str, Any]:
        """:meth:`public`, the tables in play read from their owners (in a cluster)."""
        return self.public(live, await self._facts_of(self._unfinished(live)))

    def public(
        self, live: LiveTournament, facts: dict[str, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """The tournament as everyone may see it; ``facts`` (:meth:`view`): of the tables
        in play another process holds."""
        t = live.tournament
        rounds = []
        for r in t.rounds:
            tables = []
            for a in r.tables:
                result = r.results.get(a.table)
                room_table = live.tables.get(f"{r.number}:{a.table}")
                presence: dict[str, Any] = {"absent": [], "grace_until": None}
                if result is None and r is t.current_round:
                    presence = self._presence(live, self._facts_here(room_table, facts))
                tables.append(
                    {
                        "table": a.table,
                        "first": a.first,
                        "second": a.second,
                        "seats": t.seats(a),
                        "room": room_table,
                        "result": None if result is None else result.to_dict(),
                    }
                    | presence
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
        live = self.get(tournament_id)
        return self.me(tournament_id, token, await self._facts_of(self._unfinished(live)))

    def me(
        self, tournament_id: str, token: str, facts: dict[str, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """A player's view: their line, this round's table and seat, their past boards."""
        live = self.get(tournament_id)
        digest = _hash(token)
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
        known = self._facts_here(room_table, facts)
        if known is not None and known["playing"] and known["deal_deadline"] is not None:
            clock = {"deal_deadline": int(known["deal_deadline"] * 1000)}
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
        return standings_csv(self.get(tournament_id).tournament.standings())

    def standings_html(self, tournament_id: str) -> str:
        return standings_html(self.get(tournament_id).tournament)

    def table_cards(self, tournament_id: str, round_number: int | None = None) -> str:
        try:
            return table_cards_html(self.get(tournament_id).tournament, round_number)
        except TournamentError as error:
            raise _refused(error, "not_found", 404) from error
