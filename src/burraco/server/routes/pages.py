"""The pages' routes: the lobby, a table, the desk, the tournaments, a replay, the rules.

Each page is one file of ``web/`` with its shared parts filled in (server/routes/shells.py). A page
about something the room does not have (a table, a tournament or a game that is not
there) is the 404 page in the reader's language (:func:`not_found`), which the room's
error answers (server/routes/errors.py) also give for any unknown page's address.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from burraco.server.desk import Desk
from burraco.server.room import Room
from burraco.server.routes.shells import not_found_response, page_response
from burraco.server.routes.tables import rules_preset

__all__ = ["not_found", "routes"]


def not_found(request: Request) -> Response:
    """A page the room does not have, in the reader's language (server/routes/shells.py)."""
    return not_found_response(
        request.query_params.get("lang"), request.headers.get("accept-language")
    )


def routes(room: Room, desk: Desk) -> APIRouter:
    """The pages' routes; ``room`` and ``desk`` say whether a page's table or tournament
    exists (a 404 page when not)."""
    router = APIRouter()
    page = page_response

    @router.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return page("index.html")

    @router.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        room.table(table_id)
        return page("table.html")

    @router.get("/desk", include_in_schema=False)
    async def desk_home() -> Response:
        return page("desk.html")

    @router.get("/desk/{tournament_id}", include_in_schema=False)
    async def desk_page(tournament_id: str) -> Response:
        desk.get(tournament_id)
        return page("desk.html")

    @router.get("/tournaments", include_in_schema=False)
    async def tournaments_page() -> Response:
        return page("tournaments.html")

    @router.get("/tournament/{tournament_id}", include_in_schema=False)
    async def tournament_page(tournament_id: str) -> Response:
        desk.get(tournament_id)
        return page("tournament.html")

    @router.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> Response:
        room.table(table_id)
        return page("replay.html")

    @router.get("/rules", include_in_schema=False)
    async def rules_home() -> Response:
        return page("rules.html")

    @router.get("/rules/{name}", include_in_schema=False)
    async def rules_page(name: str) -> Response:
        rules_preset(name)
        return page("rules.html")

    return router
