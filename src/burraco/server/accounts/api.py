"""The accounts' HTTP face: sign up, log in and out, the password, the language, a
player's own tables; and the history of finished matches (docs/protocol.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from burraco.server.accounts.people import (
    COOKIE,
    SESSION_DAYS,
    Accounts,
    Opened,
    counted,
    public_user,
    session_of,
    user_of,
)
from burraco.server.door.limits import Rates
from burraco.server.room import Room, RoomError
from burraco.server.routes.shells import page_response
from burraco.storage import Store
from burraco.storage.store import FinishedTable
from burraco.variants import variant

__all__ = ["routes"]


class SignUp(BaseModel):
    name: str = Field(..., min_length=1, max_length=64)
    password: str = Field(..., min_length=1, max_length=1024)
    language: Literal["en", "it", "pt"] = "en"


class LogIn(BaseModel):
    name: str = Field(..., min_length=1, max_length=64)
    password: str = Field(..., min_length=1, max_length=1024)


class NewPassword(BaseModel):
    old_password: str = Field(..., min_length=1, max_length=1024)
    new_password: str = Field(..., min_length=1, max_length=1024)


class Language(BaseModel):
    language: Literal["en", "it", "pt"]


def routes(accounts: Accounts, room: Room, store: Store, rates: Rates) -> APIRouter:
    router = APIRouter()

    def address(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def me_answer(user: Any, csrf: str | None) -> dict[str, Any]:
        return {"user": public_user(user), "csrf": csrf}

    def opened(response: Response, request: Request, done: Opened) -> dict[str, Any]:
        response.set_cookie(
            COOKIE,
            done.secret,
            max_age=SESSION_DAYS * 86400,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
            path="/",
        )
        return me_answer(done.user, done.session.csrf)

    def logged_in(request: Request) -> Any:
        user, session = user_of(request), session_of(request)
        if user is None or session is None:
            raise RoomError("login_needed", "log in first", 401)
        return user, session

    @router.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        """The account of this page (None for a guest) and the CSRF token its requests carry."""
        session = session_of(request)
        return me_answer(user_of(request), session.csrf if session else None)

    @router.post("/api/account/signup")
    async def sign_up(body: SignUp, request: Request, response: Response) -> dict[str, Any]:
        await counted(rates, "sign_up", address(request), " from your address")
        user = await accounts.sign_up(body.name, body.password, body.language)
        return opened(response, request, accounts.open_session(user))

    @router.post("/api/account/login")
    async def log_in(body: LogIn, request: Request, response: Response) -> dict[str, Any]:
        return opened(
            response, request, await accounts.log_in(body.name, body.password, address(request))
        )

    @router.post("/api/account/logout")
    async def log_out(request: Request, response: Response) -> dict[str, Any]:
        session = session_of(request)
        if session is not None:
            accounts.log_out(session)
        response.delete_cookie(COOKIE, path="/")
        return me_answer(None, None)

    @router.post("/api/account/password")
    async def change_password(body: NewPassword, request: Request) -> dict[str, Any]:
        user, session = logged_in(request)
        await accounts.change_password(
            user, session, body.old_password, body.new_password, address(request)
        )
        return {"changed": True}

    @router.post("/api/account/language")
    async def set_language(body: Language, request: Request) -> dict[str, Any]:
        user, session = logged_in(request)
        accounts.set_language(user, body.language)
        return me_answer(store.user(user.id), session.csrf)

    @router.get("/api/me/tables")
    async def my_tables(request: Request) -> dict[str, Any]:
        """The tables where this account sits and the match is not over (to go back to
        them from any device: the table page opens the seat by the session alone)."""
        user, _ = logged_in(request)
        room.rebuild_seated(user.id)  # some may be still loading after a restart
        mine = [
            t.info()
            for t in room.tables.values()
            if t.status in ("waiting", "playing") and any(s.user_id == user.id for s in t.seats)
        ]
        return {"tables": mine}

    @router.get("/api/history")
    async def history(
        request: Request,
        mine: bool = False,
        variant: str | None = Query(None, max_length=16),
        page: int = Query(1, ge=1, le=10_000),
    ) -> dict[str, Any]:
        """Finished matches, the latest first: every table's, or (``mine``) this account's."""
        size = 20
        user_id = logged_in(request)[0].id if mine else None
        found = store.finished_page(
            size + 1, (page - 1) * size, variant=None if mine else variant, user_id=user_id
        )
        matches = [finished(table, programs_of(store, found[:size])) for table in found[:size]]
        return {"matches": matches, "page": page, "more": len(found) > size}

    @router.get("/account", include_in_schema=False)
    async def account_page() -> Response:
        return page_response("account.html")

    @router.get("/history", include_in_schema=False)
    async def history_page() -> Response:
        return page_response("history.html")

    return router


def programs_of(store: Store, tables: Sequence[FinishedTable]) -> frozenset[int]:
    """The bot accounts (docs/bots.md) that sat at these tables: the pages mark them."""
    ids = {s.user_id for t in tables for s in t.seats if s.user_id is not None}
    return frozenset(i for i, u in store.users(sorted(ids)).items() if u.program)


def finished(table: FinishedTable, programs: frozenset[int] = frozenset()) -> dict[str, Any]:
    """A finished table as the history lists it: its game, players, result and links;
    ``programs``: the bot accounts among its players."""
    row = table.table
    v = variant(row.variant, **json.loads(row.options))
    seats = []
    for seat in table.seats:
        result = table.results.get(seat.seat)
        seats.append(
            {
                "seat": seat.seat,
                "name": seat.name,
                "kind": seat.kind,
                "registered": seat.user_id is not None and seat.kind == "human",
                "program": seat.user_id in programs,
                "line": result.line if result else None,
                "outcome": result.outcome if result else None,
                "points": result.points if result else None,
            }
        )
    return {
        "table": row.id,
        "variant": row.variant,
        "players": v.players,
        "rated": row.rated,
        "tournament": bool(row.tournament),
        "finished_at": int(row.updated_at * 1000),
        "seats": seats,
        "replay": f"/replay/{row.id}",
        "record": f"/api/tables/{row.id}/record",
    }
