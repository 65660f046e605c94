"""The moderators' page ``/moderation`` and its API (server/results/moderation.py): ``GET
/api/moderation`` lists the flagged accounts and the latest decisions, ``POST
/api/moderation`` with ``{"name", "action", "note"}`` decides; a moderator's session only.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from burraco.server.accounts.people import user_of
from burraco.server.results.moderation import MODERATOR, ModerationError, decide, listing
from burraco.server.routes.shells import page_response
from burraco.server.table.errors import RoomError
from burraco.storage import Store, UserRow

__all__ = ["routes"]


class Decision(BaseModel):
    name: str = Field(..., min_length=1, max_length=64)
    action: Literal["clear", "reset", "ban"]
    note: str = Field("", max_length=200)


def routes(store: Store) -> APIRouter:
    """The moderators' page and its API: a session of a moderator's account only."""
    router = APIRouter()

    def moderator(request: Request) -> UserRow:
        user = user_of(request)
        if user is None:
            raise RoomError("login_needed", "log in first", 401)
        # The role as stored now: a role taken back counts at once.
        fresh = store.user(user.id)
        if fresh is None or fresh.role != MODERATOR:
            raise RoomError("forbidden", "only a moderator may see this", 403)
        return fresh

    @router.get("/api/moderation")
    async def flagged(request: Request) -> dict[str, Any]:
        moderator(request)
        return listing(store)

    @router.post("/api/moderation")
    async def decision(body: Decision, request: Request) -> dict[str, Any]:
        who = moderator(request)
        try:
            decide(store, body.name, body.action, who.name, body.note)
        except ModerationError as error:
            raise RoomError("bad_message", str(error)) from error
        return listing(store)

    @router.get("/moderation", include_in_schema=False)
    async def page() -> Response:
        return page_response("moderation.html")

    return router
