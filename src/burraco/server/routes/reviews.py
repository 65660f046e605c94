"""The reviews' routes: ask for a review of a seat's finished deal, follow it, read it.

``POST /api/tables/{id}/reviews`` queues one (server/process/reviews.py); ``GET`` lists a
table's stored reviews and the ones waiting or running, with their progress. Once the
match is over (its record public) anyone may ask for and read any seat's review; before
that a player only their own seat's, with the seat's token or their account's session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from burraco.server.accounts.people import user_of
from burraco.server.process.reviews import ReviewPool
from burraco.server.table.errors import RoomError
from burraco.storage import Store

__all__ = ["routes"]

OnOwner = Callable[[str, str, dict[str, Any]], Awaitable[Any]]


class AskReview(BaseModel):
    deal: int = Field(..., ge=1, le=1000)
    seat: int = Field(..., ge=0, le=5)
    #: The seat's token (a player before the match is over, without an account).
    token: str = Field("", max_length=200)


Limit = Callable[[Request, str], Awaitable[None]]


def routes(pool: ReviewPool, store: Store, on_owner: OnOwner, limit: Limit) -> APIRouter:
    """The routes; ``limit`` counts a request against its address's rate (429 past it)."""
    router = APIRouter()

    async def access(
        table_id: str, request: Request, token: str, with_record: bool = False
    ) -> dict[str, Any]:
        user = user_of(request)
        body = {"token": token, "user_id": user.id if user else None, "with_record": with_record}
        return dict(await on_owner(table_id, "review_access", body))

    def person(request: Request) -> str:
        user = user_of(request)
        if user is not None:
            return f"user-{user.id}"
        return f"address-{request.client.host if request.client else 'unknown'}"

    @router.post("/api/tables/{table_id}/reviews", status_code=202)
    async def ask(table_id: str, body: AskReview, request: Request) -> dict[str, Any]:
        # The queue first: a full one refuses before the table is read and its record built.
        pool.admit(table_id, body.deal, body.seat, person(request))
        seen = await access(table_id, request, body.token, with_record=True)
        if body.seat >= seen["players"]:
            raise RoomError("bad_message", f"no seat {body.seat} at this table")
        if body.deal > seen["deals"]:
            raise RoomError("forbidden", f"deal {body.deal} has not ended", 409)
        if not seen["over"] and seen["seat"] != body.seat:
            raise RoomError(
                "forbidden",
                "until the match is over a player may analyse only their own seat",
                403,
            )
        job = pool.submit(table_id, seen["record"], body.deal, body.seat, person(request))
        return {"job": job.json()}

    @router.get("/api/tables/{table_id}/reviews")
    async def reviews(
        table_id: str, request: Request, token: str = Query("", max_length=200)
    ) -> dict[str, Any]:
        await limit(request, "read_reviews")
        seen = await access(table_id, request, token)

        def visible(seat: int) -> bool:
            return bool(seen["over"]) or seen["seat"] == seat

        return {
            "over": seen["over"],
            "seat": seen["seat"],
            "reviews": [review for _, seat, review in pool.stored(table_id) if visible(seat)],
            "jobs": [j.json() for j in pool.jobs(table_id) if visible(j.seat)],
        }

    return router
