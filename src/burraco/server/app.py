"""The HTTP and WebSocket face of the room (docs/protocol.md).

>>> app = create_app("sqlite://", bot_delay=0)
>>> paths = (getattr(r, "path", "") for r in app.routes)
>>> sorted(p for p in paths if p.startswith("/api"))[:3]
['/api/rules/{name}', '/api/tables', '/api/tables']
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from burraco.rulebook import figures
from burraco.server.account_api import routes as account_routes
from burraco.server.accounts import (
    BAD_TOKEN,
    Accounts,
    Sessions,
    by_token,
    counted,
    same_origin,
    user_of,
)
from burraco.server.bot_accounts import BotAccounts, Challenges
from burraco.server.bot_api import routes as bot_routes
from burraco.server.capacity import BUSY, Capacity
from burraco.server.cluster import Cluster
from burraco.server.desk import Desk
from burraco.server.guard import Guard, socket_origin
from burraco.server.inputs import MP_LIMIT, EntrantName, PlayerName, TournamentName
from burraco.server.limits import TRY_LATER, Limits, Rates, SharedRates, socket_refusal
from burraco.server.moderation_api import routes as moderation_routes
from burraco.server.pages import (
    WEB,
    PageFiles,
    is_page_request,
    not_found_response,
    page_response,
)
from burraco.server.players import routes as player_routes
from burraco.server.quick_api import quick_play
from burraco.server.quick_api import routes as quick_routes
from burraco.server.review_api import routes as review_routes
from burraco.server.reviews import ReviewPool, ReviewSettings
from burraco.server.room import (
    NEXT_DEAL_SECONDS,
    TOO_FAST,
    UNAVAILABLE,
    LobbyQuery,
    Room,
    RoomError,
    error_message,
    lobby_page,
    presets,
)
from burraco.server.thinking import ThinkingSettings
from burraco.server.turnstile import Turnstile
from burraco.server.watching import serve as watching_serve
from burraco.storage import Store
from burraco.storage.store import StorageUnavailable
from burraco.variants import PRESETS, Variant

__all__ = ["create_app"]


class CreateTable(BaseModel):
    variant: Literal[
        "italian", "online", "buraco", "canasta", "buraco-aberto", "buraco-fechado", "stbl"
    ] = "italian"
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


class StartTable(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)


class StartBody(BaseModel):
    #: The creator's seat token; empty when the creator's session starts it.
    token: str = Field("", max_length=200)


class CreateTournament(BaseModel):
    name: TournamentName = "Burraco tournament"
    format: Literal["danish", "mitchell", "round-robin", "knockout"] = "danish"
    kind: Literal["pairs", "individual"] = "pairs"
    rounds: int | None = Field(None, ge=1, le=99)
    deals: int = Field(3, ge=1, le=12)
    deal_minutes: int = Field(15, ge=1, le=120)
    move_seconds: int = Field(40, ge=0, le=3600)
    #: Seconds before a player not at the table when the round starts has a move clock.
    grace_seconds: int = Field(180, ge=0, le=3600)
    #: Anyone may watch the tournament's tables, and their players may chat.
    spectators: bool = True
    chat: bool = True
    #: Bot accounts may play the tables with their entrants' tokens (docs/bots.md).
    bots: bool = False


class Register(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)
    players: list[EntrantName] = Field(default_factory=list, max_length=2)
    bot: Literal["random", "greedy", "expert", "learned"] | None = None


class Pad(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)
    size: int = Field(..., ge=2, le=1000)
    level: Literal["random", "greedy", "expert", "learned"] = "greedy"


class StartRound(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)
    online: bool = True


class Result(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)
    table: int = Field(..., ge=1, le=1000)
    mp_first: int = Field(..., ge=-MP_LIMIT, le=MP_LIMIT)
    mp_second: int = Field(..., ge=-MP_LIMIT, le=MP_LIMIT)
    abandoned_by: int | None = Field(None, ge=0, le=1)
    last_mover: int | None = Field(None, ge=0, le=1)
    correct: bool = False
    round: int | None = Field(None, ge=1, le=999)


def _seat_answer(table_id: str, seat: int, token: str) -> dict[str, Any]:
    return {"table": table_id, "seat": seat, "token": token, "url": f"/table/{table_id}"}


def create_app(
    database_url: str = "sqlite:///burraco.db",
    *,
    bot_delay: float = 0.6,
    hint_seconds: float = 0.5,
    expert_seconds: float = 1.0,
    next_deal_seconds: float = NEXT_DEAL_SECONDS,
    redis_url: str | None = None,
    node: str | None = None,
    capacity: Capacity | None = None,
    thinking: ThinkingSettings | None = None,
    limits: Limits | None = None,
    api_docs: bool = False,
    quick_wait_seconds: float = 20.0,
    quick_deals: int | None = None,
    public_url: str | None = None,
    reviews: ReviewSettings | None = None,
) -> FastAPI:
    """The web room's application over one database; with ``redis_url``, one process of
    a cluster (docs/cluster.md). ``limits`` and ``capacity`` default to their documented
    values and ``BURRACO_*`` variables (docs/operating.md); ``api_docs`` serves the API's
    own pages at /docs. ``quick_wait_seconds``: how long quick play waits for people
    before bots fill the empty seats; ``quick_deals``: quick play's matches last this many
    deals (None: the game's own length). ``public_url``: the room's address as people
    reach it (default ``BURRACO_PUBLIC_URL``), named in the pages' security policy.
    ``reviews``: the reviews' worker pool and budget (server/reviews.py)."""
    public_url = public_url or os.environ.get("BURRACO_PUBLIC_URL") or None
    if public_url is not None:
        socket_origin(public_url)  # a URL that is no origin stops the start, not a request
    limits = limits or Limits.from_env()
    rates = Rates(limits)
    # Several processes behind one proxy: an address's requests are counted together.
    rates.shared = SharedRates(redis_url) if redis_url else None
    store = Store(database_url)
    room = Room(
        store,
        bot_delay=bot_delay,
        hint_seconds=hint_seconds,
        expert_seconds=expert_seconds,
        next_deal_seconds=next_deal_seconds,
        capacity=capacity or Capacity.from_env(),
        thinking=thinking,
        rates=rates,
    )
    cluster = Cluster(room, redis_url, node) if redis_url else None
    review_pool = ReviewPool(store, reviews or ReviewSettings.from_env())
    desk = Desk(room, store, limits, cluster)
    accounts = Accounts(store, rates, room.capacity)
    bot_accounts, challenges = BotAccounts(store, accounts, limits), Challenges(store)
    if cluster is not None:
        spread_revocations(cluster, bot_accounts)
        challenges.shared = cluster.redis  # what a bot accepts holds on every process
    quick = quick_play(
        room,
        store,
        quick_wait_seconds,
        cluster.adopt if cluster else None,
        quick_deals,
        cluster.redis if cluster else None,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if cluster is None:
            await room.startup(background=True)  # listen first: tables load meanwhile
        else:
            await cluster.start()
        await desk.startup()
        quick.start()
        yield
        await quick.stop()
        await review_pool.close()
        await desk.stop()
        if cluster is not None:
            await cluster.stop()
        await room.shutdown()
        accounts.hashing.close()

    async def on_owner(table_id: str, op: str, body: dict[str, Any]) -> Any:
        if cluster is None:
            return await _local(room, op, table_id, body)
        return await cluster.call(table_id, op, body)

    docs = {} if api_docs else {"docs_url": None, "redoc_url": None, "openapi_url": None}
    app = FastAPI(title="Burraco", lifespan=lifespan, **docs)  # type: ignore[arg-type]
    app.state.room = room
    app.state.desk = desk
    app.state.quick = quick
    # Added before the guard, so it runs after it: a body too large never reaches it.
    app.add_middleware(Sessions, accounts=accounts)
    app.add_middleware(
        Guard,
        body_bytes=limits.body_bytes,
        open_paths=("/docs", "/redoc") if api_docs else (),
        public_url=public_url,
    )
    # Outermost: a crowd waits at the door before any work is done for it.
    app.add_middleware(
        Turnstile, inside=room.capacity.requests_inside, queue=room.capacity.requests_waiting
    )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if error.status_code == 404 and is_page_request(request.method, request.url.path):
            return _not_found(request)
        return await http_exception_handler(request, error)

    @app.exception_handler(RoomError)
    async def room_error(request: Request, error: RoomError) -> Response:
        if error.status == 404 and is_page_request(request.method, request.url.path):
            return _not_found(request)
        headers = {"Retry-After": f"{error.retry_after:.0f}"} if error.retry_after else None
        body: dict[str, Any] = {"detail": error.message, "code": error.code}
        # A rule refused (the engine's, a tournament's) comes with its params, even none.
        if error.rule is not None:
            body["rule"] = error.rule
        if error.params or error.rule is not None:
            body["params"] = error.params
        return JSONResponse(body, error.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Any, error: RequestValidationError) -> JSONResponse:
        # Say what is wrong and where, never echo the input: it may not even be
        # encodable (a lone surrogate) or JSON (1e999 read as infinity).
        problems: list[dict[str, Any]] = [
            {"loc": [_printable(x) for x in e.get("loc", ())], "msg": _printable(e.get("msg"))}
            for e in error.errors()
        ]
        detail = "; ".join(
            f"{'.'.join(str(x) for x in p['loc'][1:]) or 'the body'}: {p['msg']}" for p in problems
        )
        return JSONResponse({"detail": detail, "code": "bad_message", "problems": problems}, 422)

    async def limit(request: Request, kind: str) -> None:
        """Count this request against its address's rate; 429 past it."""
        address = request.client.host if request.client else "unknown"
        await counted(rates, kind, address, " from your address")

    @app.exception_handler(StorageUnavailable)
    async def storage_unavailable(_: Any, error: StorageUnavailable) -> JSONResponse:
        return JSONResponse({"detail": UNAVAILABLE, "code": "unavailable"}, 503)

    @app.post("/api/tables")
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
        address = request_.client.host if request_.client else "unknown"
        creator = f"user-{user.id}" if user is not None else f"address-{address}"
        room.door.pace.admit()  # a burst of creations is paced (table/door.py)
        if user is not None and user.program:
            # A bot's tables are capped by ``bot_tables`` alone (admit_table, above: in the
            # database, so every process agrees), not by a person's ``tables_per_creator``,
            # which refused a bot its 4th table where docs/bots.md says 4 (issue 32).
            creator = ""
        table, seat, token = room.create(request, user.id if user else None, creator)
        if cluster is not None:
            await cluster.claim(table.id)
        return _seat_answer(table.id, seat, token)

    @app.get("/api/tables")
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
        listed = []
        for row in store.tables():
            if row.tournament and not watch:
                continue
            if row.id in cluster.owned:
                listed.append(room.table(row.id).info())
            elif (info := room.light_info(row.id)) is not None:
                listed.append(info)
        return lobby_page(listed, room.capacity, query)

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return presets()

    @app.get("/api/rules/{name}")
    async def rules(name: str) -> dict[str, Any]:
        """The figures of a game's rules page, from the engine's own data (rulebook.py)."""
        return dict(figures(_preset(name)))

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "info", {}))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: JoinTable, request: Request) -> dict[str, Any]:
        await limit(request, "join_table")
        _exists(table_id)
        user = user_of(request)
        bot_accounts.admit_table(user)
        challenges.check_join(table_id, user.id if user else None)
        join = body.model_dump()
        if user is not None:
            join |= {"name": user.name, "user_id": user.id}
        else:
            accounts.check_guest_name(body.name)
        return dict(await on_owner(table_id, "join", join))

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, body: StartBody, request: Request) -> dict[str, Any]:
        _exists(table_id)
        user = user_of(request)
        start = {"token": body.token, "user_id": user.id if user else None}
        return dict(await on_owner(table_id, "start", start))

    @app.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: str, body: StartBody, request: Request) -> dict[str, Any]:
        """A seat of a finished table (its token, or its account's session) asks for the
        same match again: one new table for all its people (docs/protocol.md)."""
        await limit(request, "create_table")
        _exists(table_id)
        user = user_of(request)
        bot_accounts.admit_table(user)
        address = request.client.host if request.client else "unknown"
        creator = f"user-{user.id}" if user is not None else f"address-{address}"
        asked = {"token": body.token, "user_id": user.id if user else None, "creator": creator}
        return dict(await on_owner(table_id, "rematch", asked))

    @app.get("/api/tables/{table_id}/record", response_class=PlainTextResponse)
    async def record(table_id: str) -> PlainTextResponse:
        _exists(table_id)
        text = str(await on_owner(table_id, "record", {}))
        headers = {"Content-Disposition": f'attachment; filename="burraco-{table_id}.txt"'}
        return PlainTextResponse(text, headers=headers)

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "replay", {}))

    @app.get("/api/tables/{table_id}/deals/{number}")
    async def finished_deal(
        table_id: str, number: int = PathParam(ge=1, le=1000)
    ) -> dict[str, Any]:
        """The final table of a deal that has ended: its melds, score and how it ended."""
        _exists(table_id)
        return dict(await on_owner(table_id, "deal", {"number": number}))

    def _exists(table_id: str) -> None:
        if table_id not in room.tables and store.table(table_id) is None:
            raise RoomError("not_found", f"no table {table_id!r}", 404)

    # --- the director's desk (docs/desk.md) -----------------------------------------------

    @app.post("/api/tournaments")
    async def create_tournament(body: CreateTournament, request: Request) -> dict[str, Any]:
        await limit(request, "create_tournament")
        live, token = desk.create(body.model_dump())
        return {"tournament": live.id, "token": token, "url": f"/desk/{live.id}"}

    @app.get("/api/tournaments")
    async def list_tournaments() -> dict[str, Any]:
        return {
            "tournaments": [
                {
                    "tournament": t.id,
                    "name": t.tournament.settings.name,
                    "phase": str(t.tournament.phase),
                    "entrants": len(t.tournament.entrants),
                    # What the /tournaments page says of each (all public on its own page).
                    "settings": t.tournament.settings.to_dict(),
                    "rounds": len(t.tournament.rounds),
                    "created": t.created_at,
                }
                for t in desk.all()
            ]
        }

    @app.get("/api/tournaments/{tournament_id}")
    async def tournament_info(tournament_id: str) -> dict[str, Any]:
        return await desk.view(desk.get(tournament_id))

    @app.post("/api/tournaments/{tournament_id}/entrants")
    async def register(tournament_id: str, body: Register) -> dict[str, Any]:
        return await desk.register(tournament_id, body.token, body.model_dump())

    @app.post("/api/tournaments/{tournament_id}/pad")
    async def pad(tournament_id: str, body: Pad, request: Request) -> dict[str, Any]:
        await limit(request, "pad_tournament")
        return await desk.pad(tournament_id, body.token, body.size, body.level)

    @app.post("/api/tournaments/{tournament_id}/rounds")
    async def start_round(tournament_id: str, body: StartRound, request: Request) -> dict[str, Any]:
        if body.online:
            await limit(request, "start_round")
        return await desk.start_round(tournament_id, body.token, body.online)

    @app.post("/api/tournaments/{tournament_id}/results")
    async def result(tournament_id: str, body: Result) -> dict[str, Any]:
        return await desk.enter(tournament_id, body.token, body.model_dump(), body.correct)

    @app.post("/api/tournaments/{tournament_id}/close")
    async def close_round(tournament_id: str, body: StartTable) -> dict[str, Any]:
        return await desk.close_round(tournament_id, body.token)

    @app.post("/api/tournaments/{tournament_id}/finish")
    async def finish(tournament_id: str, body: StartTable) -> dict[str, Any]:
        return await desk.finish(tournament_id, body.token)

    @app.get("/api/tournaments/{tournament_id}/me")
    async def me(tournament_id: str, token: str) -> dict[str, Any]:
        return await desk.player_view(tournament_id, token)

    @app.get("/api/tournaments/{tournament_id}/standings.csv", response_class=PlainTextResponse)
    async def standings_csv(tournament_id: str) -> PlainTextResponse:
        headers = {"Content-Disposition": f'attachment; filename="standings-{tournament_id}.csv"'}
        return PlainTextResponse(desk.standings_csv(tournament_id), headers=headers)

    @app.get("/api/tournaments/{tournament_id}/standings.html", response_class=HTMLResponse)
    async def standings_page(tournament_id: str) -> HTMLResponse:
        return HTMLResponse(desk.standings_html(tournament_id))

    @app.get("/api/tournaments/{tournament_id}/cards.html", response_class=HTMLResponse)
    async def table_cards(
        tournament_id: str, round: int | None = Query(None, ge=1, le=999)
    ) -> HTMLResponse:
        return HTMLResponse(desk.table_cards(tournament_id, round))

    @app.websocket("/ws/{table_id}")
    async def play(socket: WebSocket, table_id: str) -> None:
        await socket.accept()
        bot = user_of(socket) if by_token(socket) else None
        if bot is None:
            await seat_socket(socket, table_id)
            return

        async def revoked(code: int, reason: str) -> None:
            # What a socket opened with a revoked token hears (accounts.Sessions).
            error = {"type": "error", "code": "bad_token", "message": BAD_TOKEN, "params": {}}
            with contextlib.suppress(Exception):
                await socket.send_json(error)
            await socket.close(code=code, reason=reason)

        # Known to the bot accounts while open: its token revoked, it is closed at once.
        token = socket.headers.get("authorization", "")[7:].strip()
        bot_accounts.opened(bot.id, token, revoked)
        try:
            await seat_socket(socket, table_id)
        finally:
            bot_accounts.closed(bot.id, revoked)

    async def seat_socket(socket: WebSocket, table_id: str) -> None:
        """A seat's (or a spectator's) socket, accepted, to its table until it closes."""
        token = socket.query_params.get("token", "")
        user = user_of(socket)
        # A socket that would open a seat by its session alone must come from this room (a
        # bot's token is no cookie: any program may send it).
        bearer = by_token(socket)
        user_id = user.id if user is not None and (token or bearer or same_origin(socket)) else None
        refused = await socket_refusal(rates, user_id) if user_id is not None else None
        if refused is not None:  # one account's sockets in a loop, from any address
            await socket.send_json(refused[0])
            await socket.close(code=TRY_LATER, reason=refused[1])
            return
        pace = "bot_messages" if bearer else "socket_messages"
        # A spectator (?watch=1) needs no token: it hears public information only.
        watching = socket.query_params.get("watch") == "1"
        spectator = socket.query_params.get("name", "")[:200] if watching else None
        registered = accounts.names.look_alike(spectator) if spectator else None
        if registered is not None and (user is None or user.name != registered):
            # Nobody chats under a registered person's name, nor under a look-alike of it,
            # but that person: the others are "Spectator" (as without a name).
            spectator = ""
        known = cluster is not None and await cluster.known(table_id)
        owner = await cluster.owner(table_id) if cluster is not None and known else None
        if cluster is not None and owner is not None and owner != cluster.node:
            # Another process holds the table: carry this socket there and back, and close
            # it as the owner says (or with 1012 if the owner dies: the page reconnects).
            code = 1000
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                code = await cluster.relay(
                    table_id,
                    owner,
                    token,
                    socket.send_json,
                    _paced(rates, _texts(socket), socket.send_json, pace),
                    user_id,
                    watch=spectator,
                    send_text=socket.send_text,
                )
            with contextlib.suppress(Exception):
                await socket.close(code=code)
            return
        if spectator is not None:
            receive = _paced(rates, _texts(socket), socket.send_json)
            await watching_serve(room, socket, table_id, spectator, receive, limits.message_bytes)
            return
        try:
            table = room.table(table_id)
            if bearer and table.row.tournament:
                desk.admit_bot(table.row.tournament)
            seat = room.seat_of(table, token, user_id)
        except RoomError as error:
            await socket.send_json(
                {"type": "error", "code": "forbidden", "message": error.message, "params": {}}
            )
            await socket.close(code=4403)
            return

        try:
            # A seat is never refused for spectators: the newest are shed to make room.
            room.admit_seat()
        except RoomError:
            await socket.send_json({"type": "error", "code": "busy", "message": BUSY, "params": {}})
            await socket.close(code=1013)  # try again later
            return

        async def send(message: dict[str, Any]) -> None:
            await socket.send_text(json.dumps(message))

        async def close(code: int, reason: str) -> None:
            await socket.close(code=code, reason=reason)

        await room.connect(table, seat, send, close)
        receive = _paced(rates, _texts(socket), send, pace)
        try:
            while True:
                raw = await receive()
                if len(raw) > limits.message_bytes:
                    await send(
                        {
                            "type": "error",
                            "code": "bad_message",
                            "message": f"a message has at most {limits.message_bytes} bytes",
                        }
                    )
                    continue
                await room.message(table, seat, send, raw)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the player closed the page or lost the connection
        except asyncio.CancelledError:
            # The room is stopping: past its graceful timeout uvicorn cancels what is left
            # (a hint waiting for a worker, say); the socket goes quietly, not as an error.
            pass
        finally:
            await room.disconnect(table, seat, send)

    app.include_router(account_routes(accounts, room, store, rates))

    app.include_router(
        quick_routes(quick, room, store, limit, accounts.check_guest_name, bot_accounts.admit_table)
    )

    app.include_router(player_routes(room, store))
    app.include_router(moderation_routes(store))

    app.include_router(bot_routes(room, store, bot_accounts, challenges))
    app.include_router(review_routes(review_pool, store, on_owner, limit))

    if WEB.is_dir():
        app.mount("/static", PageFiles(directory=WEB), name="static")

    page = page_response

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return page("index.html")

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        room.table(table_id)
        return page("table.html")

    @app.get("/desk", include_in_schema=False)
    async def desk_home() -> Response:
        return page("desk.html")

    @app.get("/desk/{tournament_id}", include_in_schema=False)
    async def desk_page(tournament_id: str) -> Response:
        desk.get(tournament_id)
        return page("desk.html")

    @app.get("/tournaments", include_in_schema=False)
    async def tournaments_page() -> Response:
        return page("tournaments.html")

    @app.get("/tournament/{tournament_id}", include_in_schema=False)
    async def tournament_page(tournament_id: str) -> Response:
        desk.get(tournament_id)
        return page("tournament.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> Response:
        room.table(table_id)
        return page("replay.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_home() -> Response:
        return page("rules.html")

    @app.get("/rules/{name}", include_in_schema=False)
    async def rules_page(name: str) -> Response:
        _preset(name)
        return page("rules.html")

    return app


def _not_found(request: Request) -> Response:
    """A page the room does not have, in the reader's language (server/pages.py)."""
    return not_found_response(
        request.query_params.get("lang"), request.headers.get("accept-language")
    )


#: The operation by which a process tells another that a bot's token was revoked.
REVOKED_OP = "bot_revoked"


def spread_revocations(cluster: Cluster, bots: BotAccounts) -> None:
    """A token revoked on one process closes its sockets on every process: each is told
    (an operation of :meth:`Cluster.call_node`, answered once its sockets are closed)."""

    async def closed_here(body: dict[str, Any]) -> int:
        return await bots.close_revoked(int(body["bot"]))

    async def tell_others(bot_id: int) -> None:
        others = [n for n in await cluster.alive_nodes() if n != cluster.node]
        calls = (cluster.call_node(n, REVOKED_OP, {"bot": bot_id}, seconds=2.0) for n in others)
        # A process that does not answer is dying: its sockets close with it.
        await asyncio.gather(*calls, return_exceptions=True)

    cluster.handlers[REVOKED_OP] = closed_here
    bots.tell_others = tell_others


def _preset(name: str) -> Variant:
    """The preset of a rules page, by its own name only; 404 for another."""
    found = PRESETS.get(name)
    if found is None:
        raise RoomError(
            "not_found", f"no rules for {name[:32]!r}: the games are {', '.join(PRESETS)}", 404
        )
    return found


def _printable(value: object) -> object:
    """``value`` as JSON can carry it: text with unpaired surrogates escaped."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value if isinstance(value, int) else str(value)


def _texts(socket: WebSocket) -> Callable[[], Awaitable[str]]:
    """``socket.receive_text`` that also takes a binary frame, as UTF-8 text: Starlette's
    own fails on one with a KeyError, which closed the socket with 1011 and no answer."""

    async def receive() -> str:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
        text = message.get("text")
        if text is not None:
            return str(text)
        # Not UTF-8: the replacement character is no JSON, so the answer is bad_message.
        return bytes(message.get("bytes") or b"").decode("utf-8", "replace") or "\ufffd"

    return receive


#: Each socket's own count of messages.
_SOCKET_IDS = itertools.count()


def _paced(
    rates: Rates,
    receive: Callable[[], Awaitable[str]],
    send: Callable[[dict[str, Any]], Awaitable[None]],
    kind: str = "socket_messages",
) -> Callable[[], Awaitable[str]]:
    """``receive`` for one socket, dropping what comes faster than ``kind`` allows
    (``socket_messages``; a bot's token: ``bot_messages``), with one ``too_fast`` answer a
    burst: a flood from one socket costs the room no more than a person's pace (or a
    program's), whichever process it reaches."""
    key = f"socket-{next(_SOCKET_IDS)}"
    dropping = False

    async def paced() -> str:
        nonlocal dropping
        while True:
            raw = await receive()
            wait = rates.hit(kind, key)
            if wait is None:
                dropping = False
                return raw
            if not dropping:
                await send(error_message("too_fast", TOO_FAST, {"seconds": round(wait)}))
            dropping = True

    return paced


async def _local(room: Room, op: str, table_id: str, body: dict[str, Any]) -> Any:
    if op == "info":
        return room.table(table_id).info()
    if op == "join":
        user_id = body.get("user_id")
        table, seat, token = await room.join(
            table_id, body, user_id if isinstance(user_id, int) else None
        )
        return _seat_answer(table.id, seat, token)
    if op == "start":
        user_id = body.get("user_id")
        user_id = user_id if isinstance(user_id, int) else None
        return (await room.start(table_id, body["token"], user_id)).info()
    if op == "rematch":
        user_id = body.get("user_id")
        room.admit()
        new, offered, offer_token = await room.seats.rematch(
            room.table(table_id),
            str(body.get("token") or ""),
            user_id if isinstance(user_id, int) else None,
            str(body.get("creator") or ""),
        )
        if offered is None:  # seated there already: the page holds the seat's token
            return {"table": new.id, "seat": None, "token": None, "url": f"/table/{new.id}"}
        return _seat_answer(new.id, offered, offer_token)
    if op == "record":
        return room.record(table_id)
    if op == "replay":
        return room.replay(table_id)
    if op == "deal":
        return room.finished_deal(table_id, int(body["number"]))
    if op == "review_access":
        user_id = body.get("user_id")
        return room.review_access(
            table_id,
            str(body.get("token") or ""),
            user_id if isinstance(user_id, int) else None,
            bool(body.get("with_record")),
        )
    raise RoomError("bad_message", f"unknown operation {op!r}")
