"""The desk's tournaments as read and kept: their secrets, the lock a change holds.

A tournament lives in the store as its JSON (``burraco.tournament``) with its secrets
beside it: the director's token's hash, one hash per player's token, its room tables and
its online rounds (:class:`LiveTournament`). :class:`Book` reads them (in a cluster
afresh from the store, which is their truth), saves them, and holds one for a change
nobody else makes meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from burraco.server.room import RoomError
from burraco.storage import Store, TournamentRow
from burraco.tournament import Tournament, TournamentError

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["Book", "LiveTournament", "from_row", "hash_token", "refused", "unrecorded"]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def refused(error: TournamentError, code: str, status: int = 400) -> RoomError:
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


def from_row(row: TournamentRow) -> LiveTournament:
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


def unrecorded(live: LiveTournament) -> Iterator[tuple[int, int, str]]:
    """(round, table number, room table) of each room table of the round in play whose
    result is not entered yet."""
    current = live.tournament.current_round
    if current is None or current.number not in live.online:
        return
    for a in current.tables:
        table_id = live.tables.get(f"{current.number}:{a.table}")
        if table_id is not None and a.table not in current.results:
            yield current.number, a.table, table_id


class Book:
    """Every tournament of the server, as last read (in one process: the truth; in a
    cluster: a copy of the store's)."""

    def __init__(self, store: Store, cluster: Cluster | None = None) -> None:
        self.store = store
        self.cluster = cluster
        self.tournaments: dict[str, LiveTournament] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def save(self, live: LiveTournament) -> None:
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

    def get(self, tournament_id: str) -> LiveTournament:
        """The tournament; in a cluster read afresh from the store, where another process
        may have changed it."""
        if self.cluster is not None:
            row = self.store.tournament(tournament_id)
            if row is not None:
                self.tournaments[tournament_id] = from_row(row)
            else:
                self.tournaments.pop(tournament_id, None)
        live = self.tournaments.get(tournament_id)
        if live is None:
            raise RoomError("not_found", f"no tournament {tournament_id!r}", 404)
        return live

    def all(self) -> list[LiveTournament]:
        """Every tournament (in a cluster, as the store has them now)."""
        if self.cluster is not None:
            self.tournaments = {row.id: from_row(row) for row in self.store.tournaments()}
        return list(self.tournaments.values())

    @contextlib.asynccontextmanager
    async def holding(self, tournament_id: str) -> AsyncIterator[LiveTournament]:
        """The tournament, for a change no one else makes meanwhile: this process's lock,
        and in a cluster the cluster's, the tournament read from the store under it."""
        async with self._locks.setdefault(tournament_id, asyncio.Lock()):
            if self.cluster is None:
                yield self.get(tournament_id)
                return
            async with self.cluster.leases.locked(f"tournament:{tournament_id}"):
                yield self.get(tournament_id)

    def director(self, tournament_id: str, token: str) -> LiveTournament:
        """The tournament, if ``token`` is its director's; else a 403."""
        live = self.get(tournament_id)
        if not secrets.compare_digest(live.director_hash, hash_token(token)):
            raise RoomError("forbidden", "only the tournament's director may do this", 403)
        return live

    def admit_bot(self, key: str) -> None:
        """Nothing if the tournament of a table (its ``TOURNAMENT:ROUND:TABLE``) admits bot
        accounts, else a 403 :class:`RoomError`: its director chose people only."""
        live = self.tournaments.get(key.split(":", 1)[0])
        if live is None or not live.tournament.settings.bots:
            raise RoomError(
                "forbidden", "this tournament's director does not admit bot accounts", 403
            )
