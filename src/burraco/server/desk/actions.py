"""The director's actions: create, register, pad, start a round, enter a result, finish.

Each action (closing a round too) checks the director's token, then changes the
tournament under its lock (:meth:`Book.holding`) and saves it. A round played online
seats each table in the room at once: the players of the first line at seats 0 and 2
(North and South), the second at 1 and 3, bots for bot lines; each human seat opens with
its player's own token. In a cluster a round's tables are seated round-robin on the
living processes.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from burraco.server.desk.book import Book, LiveTournament, hash_token, refused
from burraco.server.door.capacity import BUSY
from burraco.server.door.inputs import clean_name
from burraco.server.door.limits import Limits
from burraco.server.room import LiveTable, Room, RoomError
from burraco.server.table.seats import new_table_id
from burraco.tournament import Settings, Tournament, TournamentError

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["SEAT_OP", "SETTINGS", "Director", "table_spec"]

log = logging.getLogger("burraco.desk")

#: The operation another process asks of this one to seat a tournament table here.
SEAT_OP = "desk_seat"

#: What a director sets when creating a tournament (the rest are the defaults).
SETTINGS = (
    "name", "game", "format", "kind", "rounds", "deals", "deal_minutes", "move_seconds",
    "grace_seconds", "seeding", "spectators", "chat", "bots",
)  # fmt: skip

#: The tournament as everyone may see it, its tables in play read from their owners.
View = Callable[[LiveTournament], Awaitable[dict[str, Any]]]


def table_spec(
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


class Director:
    """What a tournament's director does, each action with the director's token."""

    def __init__(
        self,
        room: Room,
        book: Book,
        view: View,
        limits: Limits,
        cluster: Cluster | None = None,
    ) -> None:
        self.room = room
        self.book = book
        self.view = view
        self.limits = limits
        self.cluster = cluster

    def create(self, request: dict[str, Any]) -> tuple[LiveTournament, str]:
        self.room.admit()
        fields = {k: request[k] for k in SETTINGS if request.get(k) is not None}
        fields["seed"] = secrets.randbits(31)
        try:
            tournament = Tournament(Settings(**fields))
        except TournamentError as error:
            raise refused(error, "bad_message") from error
        except (TypeError, ValueError) as error:
            raise RoomError("bad_message", str(error)) from error
        token = secrets.token_urlsafe(24)
        live = LiveTournament(
            id="u-" + secrets.token_urlsafe(6).replace("_", "x").replace("-", "y"),
            tournament=tournament,
            director_hash=hash_token(token),
        )
        self.book.tournaments[live.id] = live
        self.book.save(live)
        return live, token

    async def register(
        self, tournament_id: str, token: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        self.book.director(tournament_id, token)
        async with self.book.holding(tournament_id) as live:
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
                raise refused(error, "bad_message") from error
            except ValueError as error:
                raise RoomError("bad_message", str(error)) from error
            tokens = [] if entrant.bot else [secrets.token_urlsafe(24) for _ in entrant.players]
            live.players[entrant.id] = [hash_token(t) for t in tokens]
            self.book.save(live)
        return {"entrant": entrant.id, "players": list(entrant.players), "tokens": tokens}

    async def pad(self, tournament_id: str, token: str, size: int, level: str) -> dict[str, Any]:
        self.book.director(tournament_id, token)
        if size > self.limits.pad_size:
            raise RoomError(
                "bad_message", f"a tournament is padded to at most {self.limits.pad_size} entrants"
            )
        async with self.book.holding(tournament_id) as live:
            try:
                added = live.tournament.pad_with_bots(size, level)
            except TournamentError as error:
                raise refused(error, "bad_message") from error
            for entrant in added:
                live.players[entrant.id] = []
            self.book.save(live)
        return {"added": [e.id for e in added]}

    async def start_round(self, tournament_id: str, token: str, online: bool) -> dict[str, Any]:
        self.book.director(tournament_id, token)
        async with self.book.holding(tournament_id) as live:
            t = live.tournament
            if online:
                self._admit_round(t)
            try:
                assignments = t.start_round()
            except TournamentError as error:
                raise refused(error, "forbidden", 409) from error
            number = t.rounds[-1].number
            if online:
                live.online.add(number)
                nodes, gone = await self._nodes(), set[str]()
                for i, a in enumerate(assignments):
                    spec = table_spec(live, a.round, a.table, a.first, a.second)
                    # Round-robin over the living processes (one process: all here).
                    table_id = await self._seat_on(nodes[i % len(nodes)], spec, gone)
                    live.tables[f"{a.round}:{a.table}"] = table_id
                t.start_play()
            self.book.save(live)
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
        nodes = await self.cluster.nodes.living()
        at = nodes.index(self.cluster.node)
        return nodes[at:] + nodes[:at]

    async def _seat_on(self, node: str, spec: dict[str, Any], gone: set[str]) -> str:
        """Seat a table on ``node`` (here if it is this process); here after all if that
        process does not answer or is busy, and then for the rest of the round (in
        ``gone``): the round is not held up by it table after table. The table's id."""
        if self.cluster is None or node in ("", self.cluster.node) or node in gone:
            return await self.seat_here(spec)
        try:
            return str(await self.cluster.calls.call_node(node, SEAT_OP, spec))
        except RoomError as error:
            if error.status != 503:
                raise
            gone.add(node)
            where = spec["tournament"]
            log.warning("node %s did not seat table %s (%s): seated here", node, where, error)
            return await self.seat_here(spec)

    async def seat_here(self, spec: dict[str, Any]) -> str:
        """Seat a round's table on this process (asked by this one's round, or another's:
        :data:`SEAT_OP`); the table's id."""
        table_id = new_table_id()
        if self.cluster is not None and not await self.cluster.leases.hold(table_id):
            raise RoomError("unavailable", f"table id {table_id} is taken; retry", 503)
        # Owned here before it exists: no other process's scan of the tables in play
        # can take it between its first move and its lease.
        try:
            table, _ = await self._create_seated(spec, table_id)
        except BaseException:
            if self.cluster is not None:
                await self.cluster.leases.release(table_id)
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
        self.book.director(tournament_id, token)
        async with self.book.holding(tournament_id) as live:
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
                raise refused(error, "forbidden", 409) from error
            except (KeyError, TypeError, ValueError) as error:
                raise RoomError(
                    "bad_message", f"a result needs its table and both MP: {error}"
                ) from error
            self.book.save(live)
        return await self.view(live)

    async def close_round(self, tournament_id: str, token: str) -> dict[str, Any]:
        self.book.director(tournament_id, token)
        async with self.book.holding(tournament_id) as live:
            try:
                live.tournament.close_round()
            except TournamentError as error:
                raise refused(error, "forbidden", 409) from error
            self.book.save(live)
        return await self.view(live)

    async def finish(self, tournament_id: str, token: str) -> dict[str, Any]:
        self.book.director(tournament_id, token)
        async with self.book.holding(tournament_id) as live:
            try:
                live.tournament.finish()
            except TournamentError as error:
                raise refused(error, "forbidden", 409) from error
            self.book.save(live)
        return await self.view(live)
