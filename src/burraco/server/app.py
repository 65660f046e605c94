"""The HTTP and WebSocket face of the room (docs/protocol.md): the shared parts, wired.

:func:`create_app` builds what every route shares (the store, the room, the cluster, the
desk, the accounts, quick play, the reviews) and hands each router what it needs: the
tables (routes.tables), the tournaments (desk.api), the sockets (routes.sockets), the
accounts, quick play, the leaderboards, moderation, bot accounts, the reviews, and the
pages (routes.pages); routes.errors answers what they refuse. Only the command line (and the
tests and benches) import this module (docs/architecture.md, "Where to change what").

>>> app = create_app("sqlite://", bot_delay=0)
>>> paths = app.openapi()["paths"]
>>> sorted(paths["/api/tables"]), sorted(paths["/api/tournaments"])
(['get', 'post'], ['get', 'post'])
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request

from burraco.server.accounts.api import routes as account_routes
from burraco.server.accounts.bot_api import routes as bot_routes
from burraco.server.accounts.bots import BotAccounts, Challenges
from burraco.server.accounts.people import Accounts, Sessions, counted
from burraco.server.cluster.forwarded import on_owner
from burraco.server.cluster.processes import Cluster
from burraco.server.desk import Desk
from burraco.server.desk.api import routes as tournament_routes
from burraco.server.door.capacity import Capacity
from burraco.server.door.guard import Guard, socket_origin
from burraco.server.door.limits import Limits, Rates, SharedRates
from burraco.server.door.turnstile import Turnstile
from burraco.server.process.reviews import ReviewPool, ReviewSettings
from burraco.server.process.thinking import ThinkingSettings
from burraco.server.quick.api import quick_play
from burraco.server.quick.api import routes as quick_routes
from burraco.server.quick.play import QuickService
from burraco.server.results.moderation_api import routes as moderation_routes
from burraco.server.results.players import routes as player_routes
from burraco.server.room import NEXT_DEAL_SECONDS, Room
from burraco.server.routes.errors import answer_errors
from burraco.server.routes.pages import routes as page_routes
from burraco.server.routes.reviews import routes as review_routes
from burraco.server.routes.shells import WEB, PageFiles
from burraco.server.routes.sockets import routes as socket_routes
from burraco.server.routes.tables import Limit
from burraco.server.routes.tables import routes as table_routes
from burraco.storage import Store

__all__ = ["create_app"]


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
    ``reviews``: the reviews' worker pool and budget (server/process/reviews.py)."""
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
        cluster.leases.adopt if cluster else None,
        quick_deals,
        cluster.redis if cluster else None,
    )
    parts = Parts(
        room, store, cluster, desk, accounts, bot_accounts, challenges, quick, review_pool, rates
    )
    docs = {} if api_docs else {"docs_url": None, "redoc_url": None, "openapi_url": None}
    app = FastAPI(title="Burraco", lifespan=_lifespan(parts), **docs)  # type: ignore[arg-type]
    app.state.room = room
    app.state.desk = desk
    app.state.quick = quick
    _guard(app, parts, limits, api_docs, public_url)
    answer_errors(app)
    _route(app, parts, limits)
    return app


@dataclass(frozen=True)
class Parts:
    """What the routes of one process share."""

    room: Room
    store: Store
    cluster: Cluster | None
    desk: Desk
    accounts: Accounts
    bot_accounts: BotAccounts
    challenges: Challenges
    quick: QuickService
    review_pool: ReviewPool
    rates: Rates


def _guard(
    app: FastAPI, parts: Parts, limits: Limits, api_docs: bool, public_url: str | None
) -> None:
    """The middlewares every request crosses, outermost last."""
    # Added before the guard, so it runs after it: a body too large never reaches it.
    app.add_middleware(Sessions, accounts=parts.accounts)
    app.add_middleware(
        Guard,
        body_bytes=limits.body_bytes,
        open_paths=("/docs", "/redoc") if api_docs else (),
        public_url=public_url,
    )
    # Outermost: a crowd waits at the door before any work is done for it.
    capacity = parts.room.capacity
    app.add_middleware(Turnstile, inside=capacity.requests_inside, queue=capacity.requests_waiting)


def _route(app: FastAPI, p: Parts, limits: Limits) -> None:
    """Every router, each handed what it needs. In this order: a router's fixed path
    comes before another's pattern that matches it."""
    owner = on_owner(p.room, p.cluster.calls.call if p.cluster else None)
    limit = address_limit(p.rates)
    room, store, accounts, bots = p.room, p.store, p.accounts, p.bot_accounts
    app.include_router(
        table_routes(room, store, accounts, bots, p.challenges, p.cluster, owner, limit)
    )
    app.include_router(tournament_routes(p.desk, limit))
    app.include_router(
        socket_routes(room, store, accounts, bots, p.desk, p.cluster, p.rates, limits)
    )
    app.include_router(account_routes(accounts, room, store, p.rates))
    app.include_router(
        quick_routes(p.quick, room, store, limit, accounts.check_guest_name, bots.admit_table)
    )
    app.include_router(player_routes(room, store))
    app.include_router(moderation_routes(store))
    app.include_router(bot_routes(room, store, bots, p.challenges))
    app.include_router(review_routes(p.review_pool, store, owner, limit))
    if WEB.is_dir():
        app.mount("/static", PageFiles(directory=WEB), name="static")
    app.include_router(page_routes(room, p.desk))


def _lifespan(p: Parts) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The room's start (tables load while it already listens) and its stop, in order."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if p.cluster is None:
            await p.room.startup(background=True)  # listen first: tables load meanwhile
        else:
            await p.cluster.start()
        await p.desk.startup()
        p.quick.start()
        yield
        await p.quick.stop()
        await p.review_pool.close()
        await p.desk.stop()
        if p.cluster is not None:
            await p.cluster.stop()
        await p.room.shutdown()
        p.accounts.hashing.close()

    return lifespan


def address_limit(rates: Rates) -> Limit:
    """Counts a request against its address's rate of a kind (``create_table``, ...);
    429 past it."""

    async def limit(request: Request, kind: str) -> None:
        address = request.client.host if request.client else "unknown"
        await counted(rates, kind, address, " from your address")

    return limit


#: The operation by which a process tells another that a bot's token was revoked.
REVOKED_OP = "bot_revoked"


def spread_revocations(cluster: Cluster, bots: BotAccounts) -> None:
    """A token revoked on one process closes its sockets on every process: each is told
    (an operation of :meth:`Calls.call_node`, answered once its sockets are closed)."""

    async def closed_here(body: dict[str, Any]) -> int:
        return await bots.close_revoked(int(body["bot"]))

    async def tell_others(bot_id: int) -> None:
        others = [n for n in await cluster.nodes.living() if n != cluster.node]
        call = cluster.calls.call_node
        calls = (call(n, REVOKED_OP, {"bot": bot_id}, seconds=2.0) for n in others)
        # A process that does not answer is dying: its sockets close with it.
        await asyncio.gather(*calls, return_exceptions=True)

    cluster.calls.handlers[REVOKED_OP] = closed_here
    bots.tell_others = tell_others
