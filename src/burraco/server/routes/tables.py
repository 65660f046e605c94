"""The tables' routes: create, list, join, start, rematch, a table's record and deals.

``POST /api/tables`` makes a table here (and claims it for this process in a cluster);
``GET /api/tables`` is the lobby. Every route about one table runs on the process that
owns it (server/cluster/forwarded.py): ``GET /api/tables/{id}``, ``.../join``, ``.../start``,
``.../rematch``, ``.../record``, ``.../replay``, ``.../deals/{n}``. The games' own facts
are here too: ``GET /api/variants`` and ``GET /api/rules/{name}`` (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from burraco.rulebook import figures
from burraco.server.accounts.bots import BotAccounts, Challenges
from burraco.server.accounts.people import Accounts, user_of
from burraco.server.cluster.forwarded import OnOwner, seat_answer
from burraco.server.door.inputs import PlayerName, Preset
from burraco.server.room import LobbyQuery, Room, RoomError, lobby_page, presets
from burraco.storage import Store
from burraco.variants import PRESETS, Variant

if TYPE_CHECKING:
    from burraco.server.cluster.processes import Cluster

__all__ = ["CreateTable", "JoinTable", "Limit", "StartBody", "routes", "rules_preset"]

#: Counts a request against its address's rate of a kind; 429 past it.
Limit = Callable[[Request, str], Awaitable[None]]


class CreateTable(BaseModel):
    variant: Preset = "italian"
    players: int = Field(2, ge=2, le=6)
    lines: int | None = Field(None, ge=2, le=6)
    deals: int | None = Field(None, ge=1, le=50)
    target: int | None = Field(None, ge=100, le=100000)
    move_seconds: int = Field(40, ge=0, le=3600)
    bot: Literal["random", "greedy", "expert", "learned"] = "greedy"
    open_hands: bool = False
    takeover: bool = True
    name: PlayerName
    #: Registered players only; the match moves their ratings.
    rated: bool = False
    #: Anyone may watch (public information only), this many moves behind.
    watchable: bool = False
    watch_delay: int = Field(0, ge=0, le=20)
    chat: bool = True


class JoinTable(BaseModel):
    name: PlayerName
    seat: int | None = Field(None, ge=0, le=5)


class StartBody(BaseModel):
    #: The creator's seat token; empty when the creator's session starts it.
    token: str = Field("", max_length=200)


def rules_preset(name: str) -> Variant:
    """The preset of a rules page, by its own name only; 404 for another."""
    found = PRESETS.get(name)
    if found is None:
        raise RoomError(
            "not_found", f"no rules for {name[:32]!r}: the games are {', '.join(PRESETS)}", 404
        )
    return found


def _creator(request: Request) -> str:
    """Whose tables a new one counts among: an account's, else its address's."""
    user = user_of(request)
    if user is not None:
        return f"user-{user.id}"
    return f"address-{request.client.host if request.client else 'unknown'}"


def routes(
    room: Room,
    store: Store,
    accounts: Accounts,
    bot_accounts: BotAccounts,
    challenges: Challenges,
    cluster: Cluster | None,
    on_owner: OnOwner,
    limit: Limit,
) -> APIRouter:
    """The tables' routes; ``on_owner`` runs an operation where the table lives,
    ``limit`` counts a request against its address's rate."""
    router = APIRouter()

    def exists(table_id: str) -> None:
        if table_id not in room.tables and store.table(table_id) is None:
            raise RoomError("not_found", f"no table {table_id!r}", 404)

    @router.post("/api/tables")
    async def create(body: CreateTable, request_: Request) -> dict[str, Any]:
        await limit(request_, "create_table")
        request = body.model_dump()
        if request["lines"] is None:
            request.pop("lines")
        user = user_of(request_)
        bot_accounts.admit_table(user)
        if user is not None:
            request["name"] = user.name
        else:
            accounts.check_guest_name(body.name)
        creator = _creator(request_)
        room.door.pace.admit()  # a burst of creations is paced (table/door.py)
        if user is not None and user.program:
            # A bot's tables are capped by ``bot_tables`` alone (admit_table, above: in the
            # database, so every process agrees), not by a person's ``tables_per_creator``,
            # which refused a bot its 4th table where docs/bots.md says 4 (issue 32).
            creator = ""
        table, seat, token = room.create(request, user.id if user else None, creator)
        if cluster is not None:
            await cluster.leases.claim(table.id)
        return seat_answer(table.id, seat, token)

    @router.get("/api/tables")
    async def tables(
        variant: str | None = Query(None, max_length=16),
        players: int | None = Query(None, ge=2, le=6),
        free: bool | None = None,
        rated: bool | None = None,
        watch: bool = False,
        page: int = Query(1, ge=1, le=100_000),
        per_page: int | None = Query(None, ge=1, le=100_000),
        ids: str | None = Query(None, max_length=8000, description="table ids, comma separated"),
    ) -> dict[str, Any]:
        """The lobby: one page of the open tables (filtered), or the tables named by ``ids``."""
        most = room.capacity.lobby_page_max
        if per_page is not None and per_page > most:
            # Refused, not cut down: a client asking for more would take a short page
            # for the whole list (docs/protocol.md).
            raise RoomError(
                "bad_message", f"per_page is at most {most}", 422, params={"most": most}
            )
        if ids is not None:
            wanted = [i for i in ids.split(",") if i][:300]
            return {"tables": room.infos(wanted)}
        query = LobbyQuery(variant, players, free, page, per_page, rated, watch)
        if cluster is None:
            return room.lobby(query)
        return lobby_page(_cluster_listing(room, store, cluster, watch), room.capacity, query)

    @router.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return presets()

    @router.get("/api/rules/{name}")
    async def rules(name: str) -> dict[str, Any]:
        """The figures of a game's rules page, from the engine's own data (rulebook.py)."""
        return dict(figures(rules_preset(name)))

    @router.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> dict[str, Any]:
        exists(table_id)
        return dict(await on_owner(table_id, "info", {}))

    @router.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: JoinTable, request: Request) -> dict[str, Any]:
        await limit(request, "join_table")
        exists(table_id)
        user = user_of(request)
        bot_accounts.admit_table(user)
        challenges.check_join(table_id, user.id if user else None)
        join = body.model_dump()
        if user is not None:
            join |= {"name": user.name, "user_id": user.id}
        else:
            accounts.check_guest_name(body.name)
        return dict(await on_owner(table_id, "join", join))

    @router.post("/api/tables/{table_id}/start")
    async def start(table_id: str, body: StartBody, request: Request) -> dict[str, Any]:
        exists(table_id)
        user = user_of(request)
        start = {"token": body.token, "user_id": user.id if user else None}
        return dict(await on_owner(table_id, "start", start))

    @router.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: str, body: StartBody, request: Request) -> dict[str, Any]:
        """A seat of a finished table (its token, or its account's session) asks for the
        same match again: one new table for all its people (docs/protocol.md)."""
        await limit(request, "create_table")
        exists(table_id)
        user = user_of(request)
        bot_accounts.admit_table(user)
        creator = _creator(request)
        asked = {"token": body.token, "user_id": user.id if user else None, "creator": creator}
        return dict(await on_owner(table_id, "rematch", asked))

    @router.get("/api/tables/{table_id}/record", response_class=PlainTextResponse)
    async def record(table_id: str) -> PlainTextResponse:
        exists(table_id)
        text = str(await on_owner(table_id, "record", {}))
        headers = {"Content-Disposition": f'attachment; filename="burraco-{table_id}.txt"'}
        return PlainTextResponse(text, headers=headers)

    @router.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str) -> dict[str, Any]:
        exists(table_id)
        return dict(await on_owner(table_id, "replay", {}))

    @router.get("/api/tables/{table_id}/deals/{number}")
    async def finished_deal(
        table_id: str, number: int = PathParam(ge=1, le=1000)
    ) -> dict[str, Any]:
        """The final table of a deal that has ended: its melds, score and how it ended."""
        exists(table_id)
        return dict(await on_owner(table_id, "deal", {"number": number}))

    return router


def _cluster_listing(
    room: Room, store: Store, cluster: Cluster, watch: bool
) -> list[dict[str, Any]]:
    """In a cluster, every table the database has: those this process owns as they are
    here, the others as their rows say (``Room.light_info``)."""
    listed = []
    for row in store.tables():
        if row.tournament and not watch:
            continue
        if row.id in cluster.leases.owned:
            listed.append(room.table(row.id).info())
        elif (info := room.light_info(row.id)) is not None:
            listed.append(info)
    return listed
