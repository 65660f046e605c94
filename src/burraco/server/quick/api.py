"""Quick play's HTTP face (docs/protocol.md, "Quick play") and its wiring to the room.

``POST /api/quick`` queues the caller and gives a ticket (a secret); ``GET
/api/quick/{ticket}`` says how the wait goes, then where the holder sits (with the
seat's token, as creating a table does); ``POST /api/quick/{ticket}/bots`` ("Play bots
now") seats the holder at once with bots; ``DELETE /api/quick/{ticket}`` leaves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from burraco.server.accounts.people import user_of
from burraco.server.door.inputs import PlayerName, Preset
from burraco.server.quick.play import (
    NEW_RATING,
    Entry,
    QuickPlay,
    QuickRules,
    QuickService,
    new_ticket,
    quick_setups,
)
from burraco.server.quick.redis_queue import RedisQuickPlay
from burraco.server.results.ratings import game_key
from burraco.server.room import Room, RoomError
from burraco.storage import Store, UserRow
from burraco.variants import variant

__all__ = ["QuickBody", "quick_play", "routes"]

log = logging.getLogger("burraco.quickplay")

#: Seconds a game's bot ratings are kept before they are read again.
BOT_RATINGS_SECONDS = 60.0

Ticket = PathParam(min_length=8, max_length=64, pattern=r"^[\w\-]+$")


class QuickBody(BaseModel):
    variant: Preset = "italian"
    players: int = Field(2, ge=2, le=6)
    #: Bots may fill the empty seats after the wait.
    bots: bool = True
    #: A guest's name (a registered player plays under their account's).
    name: PlayerName | None = None


def quick_play(
    room: Room,
    store: Store,
    wait_seconds: float = 20.0,
    claim: Callable[[str], Awaitable[Any]] | None = None,
    deals: int | None = None,
    redis: Any | None = None,
) -> QuickService:
    """The room's quick play: its tables are the room's, rated when every person at them is
    registered, open to spectators, with the preset's move clock and a bot taking over a
    player who runs out of time. ``claim`` (a cluster's :meth:`Leases.adopt`) makes each
    new table this process's, as it is.
    ``deals``: a match of this many deals (a club's short evening games), not the preset's
    length. ``redis`` (a cluster's client): the queue and the tickets live in Redis, shared by
    every process; without it, in this process's memory."""

    async def seat_table(
        kind: str,
        options: dict[str, Any],
        seats: list[tuple[str, str]],
        *,
        bot: str,
        users: dict[int, int],
        rated: bool,
    ) -> tuple[str, dict[int, str]]:
        if deals is not None:
            options = options | {"deals": deals, "target": None}
        table, tokens = await room.create_seated(
            kind,
            options,
            seats,
            bot=bot,
            move_seconds=variant(kind, **options).move_seconds,
            users=users,
            rated=rated,
            watchable=True,
            quick=True,
        )
        if claim is not None and not await claim(table.id):
            # Another process took the table in the moment before (its scan of the tables
            # in play): it plays it; this copy's players are told where it lives by Redis.
            log.warning("quick-play table %s was claimed by another process", table.id)
        return table.id, tokens

    read: dict[str, tuple[float, dict[str, tuple[int, float | None]]]] = {}

    def bot_accounts(game: str) -> Mapping[str, tuple[int, float | None]]:
        """Each bot level's account and rating (mu) in ``game`` (None if it has none yet),
        read at most once a minute."""
        now = time.monotonic()
        if game in read and now - read[game][0] < BOT_RATINGS_SECONDS:
            return read[game][1]
        ids = dict(room.bot_accounts)
        rows = store.ratings_for(game, list(ids.values()))
        found = {
            level: (account, rows[account].mu if account in rows else None)
            for level, account in ids.items()
        }
        read[game] = (now, found)
        return found

    rules = QuickRules(wait_seconds=wait_seconds)
    if redis is not None:
        return RedisQuickPlay(
            redis,
            seat_table,
            rules=rules,
            bot_accounts=bot_accounts,
            may_seat=lambda: room.busy() is None,
        )
    return QuickPlay(
        seat_table,
        rules=rules,
        bot_accounts=bot_accounts,
        may_seat=lambda: room.busy() is None,
    )


def routes(
    quick: QuickService,
    room: Room,
    store: Store,
    limit: Callable[[Request, str], Awaitable[None]],
    guest_name: Callable[[str], None] | None = None,
    program_tables: Callable[[UserRow], None] = lambda _: None,
) -> APIRouter:
    """The quick-play routes; ``limit`` counts a join against its address's rate,
    ``guest_name`` refuses a guest's name that passes for a registered player's."""
    router = APIRouter()
    setups = quick_setups()

    @router.get("/api/quick")
    async def overview() -> dict[str, Any]:
        """The games quick play offers, its wait before bots, and how many wait now."""
        return {
            "wait_seconds": quick.rules.wait_seconds,
            "games": {name: list(sizes) for name, sizes in setups.items()},
            "waiting": await quick.waiting(),
        }

    @router.post("/api/quick")
    async def join(body: QuickBody, request: Request) -> dict[str, Any]:
        await limit(request, "quick_play")
        room.admit()
        if body.players not in setups[body.variant]:
            sizes = ", ".join(str(p) for p in setups[body.variant])
            raise RoomError(
                "bad_message",
                f"{body.variant} is played by {sizes} players, not {body.players}",
            )
        user = user_of(request)
        if user is not None and user.program:
            program_tables(user)
        game = game_key(variant(body.variant, players=body.players))
        if user is not None:
            name, registered = user.name, True
            row = store.ratings_for(game, [user.id]).get(user.id)
            rating = row.mu if row is not None else NEW_RATING
        else:
            if body.name is None:
                raise RoomError("bad_message", "a guest needs a name to play (or logs in)")
            if guest_name is not None:
                guest_name(body.name)
            name, registered, rating = body.name, False, NEW_RATING
        entry = Entry(
            ticket=new_ticket(),
            variant=body.variant,
            players=body.players,
            rating=rating,
            registered=registered,
            bots=body.bots,
            name=name,
            user_id=user.id if user is not None else None,
            program=user is not None and user.program,
        )
        return await quick.enter(entry)

    def gone() -> RoomError:
        return RoomError(
            "quick_gone",
            "no such quick-play ticket: it was cancelled, or expired after "
            f"{quick.expiry:.0f} s without a look",
            404,
        )

    @router.get("/api/quick/{ticket}")
    async def status(ticket: str = Ticket) -> dict[str, Any]:
        """How a ticket's wait goes, or where its holder sits."""
        answer = await quick.ask(ticket)
        if answer is None:
            raise gone()
        return answer

    @router.post("/api/quick/{ticket}/bots")
    async def bots_now(request: Request, ticket: str = Ticket) -> dict[str, Any]:
        """ "Play bots now": the holder sits at once, bots on the seats nobody waits for
        (its answer says where; a busy room seats it when it may)."""
        # Each press matches the queue: counted as a "Play" is.
        await limit(request, "quick_play")
        answer = await quick.bots_now(ticket)
        if answer is None:
            raise gone()
        return answer

    @router.delete("/api/quick/{ticket}")
    async def leave(ticket: str = Ticket) -> dict[str, Any]:
        """Leave the queue; False if the ticket was unknown (left, expired)."""
        return {"left": await quick.give_up(ticket)}

    return router
