"""The tournaments' routes: the director's desk over HTTP (docs/desk.md).

``POST /api/tournaments`` creates one (its director's token in the answer); the director
registers entrants, pads the field with bots, starts rounds (online or at physical
tables), enters and corrects results, closes rounds and finishes it, each with that
token; everyone reads the list, a tournament, its standings (CSV and HTML) and its table
cards; a player reads their own view with their token. ``server/desk/`` does the work.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse
from pydantic import BaseModel, Field

from burraco.server.desk import Desk
from burraco.server.door.inputs import MP_LIMIT, EntrantName, TournamentName
from burraco.server.routes.tables import Limit

__all__ = ["CreateTournament", "Pad", "Register", "Result", "StartRound", "routes"]


class StartTable(BaseModel):
    #: The director's token (closing a round, finishing the tournament).
    token: str = Field(..., min_length=1, max_length=200)


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


def _listed(desk: Desk) -> list[dict[str, Any]]:
    """What the /tournaments page says of each tournament (all public on its own page)."""
    return [
        {
            "tournament": t.id,
            "name": t.tournament.settings.name,
            "phase": str(t.tournament.phase),
            "entrants": len(t.tournament.entrants),
            "settings": t.tournament.settings.to_dict(),
            "rounds": len(t.tournament.rounds),
            "created": t.created_at,
        }
        for t in desk.all()
    ]


def routes(desk: Desk, limit: Limit) -> APIRouter:
    """The tournaments' routes; ``limit`` counts a request against its address's rate."""
    router = APIRouter()

    @router.post("/api/tournaments")
    async def create_tournament(body: CreateTournament, request: Request) -> dict[str, Any]:
        await limit(request, "create_tournament")
        live, token = desk.create(body.model_dump())
        return {"tournament": live.id, "token": token, "url": f"/desk/{live.id}"}

    @router.get("/api/tournaments")
    async def list_tournaments() -> dict[str, Any]:
        return {"tournaments": _listed(desk)}

    @router.get("/api/tournaments/{tournament_id}")
    async def tournament_info(tournament_id: str) -> dict[str, Any]:
        return await desk.view(desk.get(tournament_id))

    @router.post("/api/tournaments/{tournament_id}/entrants")
    async def register(tournament_id: str, body: Register) -> dict[str, Any]:
        return await desk.register(tournament_id, body.token, body.model_dump())

    @router.post("/api/tournaments/{tournament_id}/pad")
    async def pad(tournament_id: str, body: Pad, request: Request) -> dict[str, Any]:
        await limit(request, "pad_tournament")
        return await desk.pad(tournament_id, body.token, body.size, body.level)

    @router.post("/api/tournaments/{tournament_id}/rounds")
    async def start_round(tournament_id: str, body: StartRound, request: Request) -> dict[str, Any]:
        if body.online:
            await limit(request, "start_round")
        return await desk.start_round(tournament_id, body.token, body.online)

    @router.post("/api/tournaments/{tournament_id}/results")
    async def result(tournament_id: str, body: Result) -> dict[str, Any]:
        return await desk.enter(tournament_id, body.token, body.model_dump(), body.correct)

    @router.post("/api/tournaments/{tournament_id}/close")
    async def close_round(tournament_id: str, body: StartTable) -> dict[str, Any]:
        return await desk.close_round(tournament_id, body.token)

    @router.post("/api/tournaments/{tournament_id}/finish")
    async def finish(tournament_id: str, body: StartTable) -> dict[str, Any]:
        return await desk.finish(tournament_id, body.token)

    @router.get("/api/tournaments/{tournament_id}/me")
    async def me(tournament_id: str, token: str) -> dict[str, Any]:
        return await desk.player_view(tournament_id, token)

    @router.get("/api/tournaments/{tournament_id}/standings.csv", response_class=PlainTextResponse)
    async def standings_csv(tournament_id: str) -> PlainTextResponse:
        headers = {"Content-Disposition": f'attachment; filename="standings-{tournament_id}.csv"'}
        return PlainTextResponse(desk.standings_csv(tournament_id), headers=headers)

    @router.get("/api/tournaments/{tournament_id}/standings.html", response_class=HTMLResponse)
    async def standings_page(tournament_id: str) -> HTMLResponse:
        return HTMLResponse(desk.standings_html(tournament_id))

    @router.get("/api/tournaments/{tournament_id}/cards.html", response_class=HTMLResponse)
    async def table_cards(
        tournament_id: str, round: int | None = Query(None, ge=1, le=999)
    ) -> HTMLResponse:
        return HTMLResponse(desk.table_cards(tournament_id, round))

    return router
