"""The bot API's own routes (docs/bots.md): a person's bot accounts and their tokens, a
person's challenge to a bot, and what a bot asks with its token (its tables, its
challenges, its results). The rest of a bot's play is the room's own protocol.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from burraco.server.accounts.api import finished, programs_of
from burraco.server.accounts.bots import Accepts, BotAccounts, Challenge, Challenges
from burraco.server.accounts.people import by_token, user_of
from burraco.server.door.inputs import Preset
from burraco.server.room import Room, RoomError
from burraco.storage import Store, UserRow

__all__ = ["ChallengeBody", "routes"]


class NewBot(BaseModel):
    name: str = Field(..., min_length=1, max_length=64)


class Revoke(BaseModel):
    #: The first characters of the token to revoke (as /api/account/bots lists them);
    #: None revokes every live token of the bot.
    hint: str | None = Field(None, max_length=16)


class ChallengeBody(BaseModel):
    variant: Preset = "italian"
    players: int = Field(2, ge=2, le=6)
    lines: int | None = Field(None, ge=2, le=6)
    deals: int | None = Field(None, ge=1, le=50)
    move_seconds: int = Field(40, ge=0, le=3600)
    rated: bool = False


def routes(room: Room, store: Store, bots: BotAccounts, challenges: Challenges) -> APIRouter:
    router = APIRouter()

    def person(request: Request) -> UserRow:
        user = user_of(request)
        if user is None or by_token(request) or user.kind != "person":
            raise RoomError("login_needed", "log in first", 401)
        return user

    def bot(request: Request) -> UserRow:
        user = user_of(request)
        if user is None or not by_token(request):
            raise RoomError(
                "bad_token", "this asks for a bot's token: Authorization: Bearer <token>", 401
            )
        return user

    # --- a person's bots ----------------------------------------------------------------

    @router.get("/api/account/bots")
    async def my_bots(request: Request) -> dict[str, Any]:
        return {"bots": bots.mine(person(request)), "most": bots.limits.bots_per_person}

    @router.post("/api/account/bots")
    async def new_bot(body: NewBot, request: Request) -> dict[str, Any]:
        made, token = bots.create(person(request), body.name)
        return {"bot": made.name, "token": token}

    @router.post("/api/account/bots/{name}/tokens")
    async def new_token(request: Request, name: str = PathParam(max_length=64)) -> dict[str, Any]:
        return {"bot": name, "token": bots.new_token(person(request), name)}

    @router.post("/api/account/bots/{name}/revoke")
    async def revoke(
        body: Revoke, request: Request, name: str = PathParam(max_length=64)
    ) -> dict[str, Any]:
        owner = person(request)
        revoked = bots.revoke(owner, name, body.hint)
        await bots.revoked(owner, name)
        return {"revoked": revoked}

    # --- a person challenges a bot ------------------------------------------------------

    @router.post("/api/players/{name}/challenge")
    async def challenge(
        body: ChallengeBody, request: Request, name: str = PathParam(max_length=64)
    ) -> dict[str, Any]:
        """A table of the challenger (seat 0) that keeps seat 1 for the bot ``name``."""
        challenger = person(request)
        target = store.user_by_name(name)
        if target is None or not target.program:
            raise RoomError(
                "no_bot", f"{name[:64]!r} is no bot account", 404, params={"name": name[:64]}
            )
        if body.move_seconds < 1:
            # A table without a move clock would hold one of the bot's tables for as long
            # as its challenger leaves it (issue 32).
            raise RoomError(
                "bad_message",
                "a challenge to a bot needs a move clock: move_seconds from 1 to 3600",
                422,
                params={"field": "move_seconds"},
            )
        accepts = await challenges.accepts(target.id)
        broken = accepts.broken(body.model_dump()) if accepts is not None else None
        if broken is not None:
            # Refused now, not left to the program's next look: a challenge it would only
            # decline would hold its challenger's table (and a place in the room) meanwhile.
            field, why = broken
            raise RoomError(
                "not_accepted",
                f"{target.name} does not accept this challenge: {why}",
                422,
                params={"field": field, "bot": target.name},
            )
        request_ = body.model_dump() | {"name": challenger.name, "chat": True}
        if request_["lines"] is None:
            request_.pop("lines")
        table, seat, token = room.create(request_, challenger.id, f"user-{challenger.id}")
        found = Challenge(
            id="c-" + secrets.token_urlsafe(8),
            table=table.id,
            seat=1,
            challenger=challenger.name,
            bot_id=target.id,
            bot=target.name,
            options=body.model_dump(),
            created=time.time(),
        )
        challenges.add(found)
        answer = {"table": table.id, "seat": seat, "token": token, "url": f"/table/{table.id}"}
        return answer | {"challenge": found.id}

    @router.get("/api/challenges/{challenge_id}")
    async def challenge_status(challenge_id: str = PathParam(max_length=40)) -> dict[str, Any]:
        """Whether the bot has answered: pending, accepted, declined (or gone: expired)."""
        return {"challenge": challenge_id, "status": challenges.status(challenge_id)}

    # --- what a bot asks with its token ---------------------------------------------------

    @router.get("/api/bot/account")
    async def account(request: Request) -> dict[str, Any]:
        me = bot(request)
        owner = store.user(me.owner_id) if me.owner_id is not None else None
        return {
            "name": me.name,
            "kind": me.kind,
            "owner": owner.name if owner else None,
            "limits": {
                "tables": bots.limits.bot_tables,
                "messages": bots.limits.bot_messages,
                "chat": "quick",
            },
        }

    @router.get("/api/bot/tables")
    async def tables(request: Request) -> dict[str, Any]:
        """The bot's tables not over: to reconnect to each after a restart."""
        me = bot(request)
        room.rebuild_seated(me.id)
        mine = [
            room.table(table_id).info()
            for table_id in store.seated(me.id)
            if table_id in room.tables or store.table(table_id) is not None
        ]
        return {"tables": mine}

    @router.get("/api/bot/challenges")
    async def pending(
        request: Request,
        games: str | None = Query(None, max_length=400),
        seconds: str | None = Query(None, max_length=20),
        rated: bool | None = None,
    ) -> dict[str, Any]:
        """The challenges waiting for the bot that it accepts (``games``, a clock range
        ``seconds``, ``rated``: :class:`Accepts`); the others are declined now, so that
        their challengers hear it at once. What it accepts is kept: a later challenge
        outside it is refused when sent (422 ``not_accepted``)."""
        me = bot(request)
        accepts = Accepts.read(games, seconds, rated)
        # Held from now on: a challenge outside it is refused when it is sent.
        await challenges.declare(me.id, accepts)
        fitting, declined = [], []
        for found in challenges.of_bot(me.id):
            if accepts.refusal(found.options) is None:
                fitting.append(found.json())
                continue
            with contextlib.suppress(RoomError):  # answered meanwhile, on another process
                challenges.take(found.id, me.id, "declined")
                declined.append(found.id)
        return {"challenges": fitting, "declined": declined}

    @router.post("/api/bot/challenges/{challenge_id}/accept")
    async def accept(
        request: Request, challenge_id: str = PathParam(max_length=40)
    ) -> dict[str, Any]:
        me = bot(request)
        bots.admit_table(me)
        found = challenges.take(challenge_id, me.id, "accepted")
        join = {"name": me.name, "seat": found.seat, "user_id": me.id}
        table, seat, token = await room.join(found.table, join, me.id)
        return {"table": table.id, "seat": seat, "token": token, "url": f"/table/{table.id}"}

    @router.post("/api/bot/challenges/{challenge_id}/decline")
    async def decline(
        request: Request, challenge_id: str = PathParam(max_length=40)
    ) -> dict[str, Any]:
        me = bot(request)
        challenges.take(challenge_id, me.id, "declined")
        return {"challenge": challenge_id, "status": "declined"}

    @router.get("/api/bot/results")
    async def results(request: Request, page: int = Query(1, ge=1, le=10_000)) -> dict[str, Any]:
        """The bot's finished matches, the latest first (as /api/history?mine=true)."""
        me = bot(request)
        size = 20
        found = store.finished_page(size + 1, (page - 1) * size, user_id=me.id)
        return {
            "matches": [finished(t, programs_of(store, found[:size])) for t in found[:size]],
            "page": page,
            "more": len(found) > size,
        }

    return router
