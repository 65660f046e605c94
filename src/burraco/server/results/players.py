"""The leaderboards and the player pages, and what feeds them (docs/protocol.md).

``GET /api/leaderboard`` lists the rated games; ``GET /api/leaderboard/{game}`` one
page of a game's rated players and bots, the best first; ``GET /api/players/{name}``
an account's ratings, statistics and last matches. The pages /leaderboard,
/leaderboard/{game} and /player/{name} show them.

>>> from burraco.server.room import Room
>>> store = Store("sqlite://")
>>> router = routes(Room(store), store)
>>> sorted(store.user_by_name(level).kind for level in ("random", "greedy", "expert", "learned"))
['bot', 'bot', 'bot', 'bot']
"""

from __future__ import annotations

from typing import Any, Final, Literal

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from fastapi.responses import Response

from burraco.server.absence import SeatTurns
from burraco.server.results.ratings import GAMES, displayed, game_variant
from burraco.server.results.record import bot_accounts, seed_bot_ratings
from burraco.server.room import Room, RoomError
from burraco.server.routes.shells import page_response
from burraco.storage import Store
from burraco.storage.store import RatingRow, ResultRow, UserRow
from burraco.variants import Variant

__all__ = ["PER_PAGE", "player_json", "ratings_json", "routes", "statistics"]


#: Players on one page of a leaderboard.
PER_PAGE: Final = 50
#: Matches on a player's page.
LAST_MATCHES: Final = 20

#: The figures a player's statistics sum (store.result_totals).
_SUMS: Final = (
    "matches",
    "wins",
    "draws",
    "points",
    "deals",
    "burracos_clean",
    "burracos_semi",
    "burracos_dirty",
    "closes",
    "pozzetti",
    "abandoned",
)


def routes(room: Room, store: Store) -> APIRouter:
    """The routes of the leaderboards and the player pages. Setting them up also gives the
    bot levels their accounts (and a fresh database the shipped bot ratings). The room
    records every finished table's results and ratings itself (its finisher is handed
    record.py's recorder: table/finish.py)."""
    accounts = bot_accounts(store)
    room.bot_accounts.update(accounts)
    seed_bot_ratings(store, accounts)
    router = APIRouter()

    @router.get("/api/leaderboard")
    async def games() -> dict[str, Any]:
        """The games that have a leaderboard, with their tables."""
        return {"games": [_game_json(key, _game(key)) for key in GAMES]}

    @router.get("/api/leaderboard/{game}")
    async def leaderboard(
        game: str = PathParam(max_length=24),
        page: int = Query(1, ge=1, le=100_000),
        kind: Literal["person", "bot"] | None = None,
    ) -> dict[str, Any]:
        """One page of a game's rated, the highest rating first; the bots' ratings too."""
        v = _game(game)
        offset = (page - 1) * PER_PAGE
        rows = store.leaderboard(game, PER_PAGE + 1, offset, kind)
        bots = store.leaderboard(game, 10, 0, "bot")
        # A flagged account's place is frozen (its rating moves no more) and marked.
        review = store.frozen(sorted({user.id for user, _ in rows[:PER_PAGE] + bots}))
        return _game_json(game, v) | {
            "page": page,
            "per_page": PER_PAGE,
            "more": len(rows) > PER_PAGE,
            "rows": [
                _rated_json(user, rating) | {"rank": offset + i + 1, "review": user.id in review}
                for i, (user, rating) in enumerate(rows[:PER_PAGE])
            ],
            "bots": [
                _rated_json(user, rating) | {"review": user.id in review} for user, rating in bots
            ],
        }

    @router.get("/api/players/{name}")
    async def player(name: str = PathParam(max_length=64)) -> dict[str, Any]:
        """An account's ratings, statistics and last matches."""
        user = store.user_by_name(name)
        if user is None:
            raise RoomError("no_player", f"no player named {name!r}", 404, params={"name": name})
        recent = store.results(user_id=user.id, limit=LAST_MATCHES)
        tables: dict[str, list[ResultRow]] = {r.table_id: [] for r in recent}
        for seat in store.results(table_ids=list(tables)):
            tables[seat.table_id].append(seat)
        ids = {s.user_id for seats in tables.values() for s in seats if s.user_id is not None}
        users = store.users(sorted(ids))
        names = {i: u.name for i, u in users.items()}
        programs = frozenset(i for i, u in users.items() if u.program)
        found = player_json(
            user,
            store.ratings(user.id),
            store.result_totals(user.id),
            recent,
            tables,
            names,
            programs,
        )
        # A person's bot account names its person (docs/bots.md): the page says whose.
        owner = store.user(user.owner_id) if user.owner_id is not None else None
        return found | {"owner": owner.name if owner else None}

    @router.get("/api/tables/{table_id}/ratings")
    async def table_ratings(table_id: str = PathParam(max_length=64)) -> dict[str, Any]:
        """The rating change of each seat of a finished table, once its finish listener
        has stored its results (``ready``); the final sheet asks until then."""
        row = store.table(table_id)
        if row is None and table_id not in room.tables:
            raise RoomError("not_found", f"no table {table_id!r}", 404)
        return ratings_json(store.results(table_id=table_id))

    page = page_response

    @router.get("/leaderboard", include_in_schema=False)
    async def leaderboard_home() -> Response:
        return page("leaderboard.html")

    @router.get("/leaderboard/{game}", include_in_schema=False)
    async def leaderboard_page(game: str = PathParam(max_length=24)) -> Response:
        _game(game)
        return page("leaderboard.html")

    @router.get("/player/{name}", include_in_schema=False)
    async def player_page(name: str = PathParam(max_length=64)) -> Response:
        if store.user_by_name(name) is None:
            raise RoomError("no_player", f"no player named {name!r}", 404, params={"name": name})
        return page("player.html")

    return router


def _game(key: str) -> Variant:
    v = game_variant(key)
    if v is None:
        raise RoomError(
            "no_game",
            f"no game {key!r}: the rated games are {', '.join(GAMES)}",
            404,
            params={"game": key},
        )
    return v


def _game_json(key: str, v: Variant) -> dict[str, Any]:
    return {"game": key, "variant": v.name, "players": v.players, "lines": v.lines}


def _rated_json(user: UserRow, rating: RatingRow) -> dict[str, Any]:
    return {
        "name": user.name,
        "kind": user.kind,
        "bot": user.kind == "bot",
        #: A person's bot account (docs/bots.md), not one of the room's own levels.
        "program": user.program,
        "rating": displayed(rating.mu, rating.sigma),
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "matches": rating.matches,
    }


def statistics(sums: dict[str, int]) -> dict[str, Any]:
    """What a player page shows of summed results: the sums, the losses, and the points a
    deal (None before any deal)."""
    deals = sums.get("deals", 0)
    matches, wins, draws = sums.get("matches", 0), sums.get("wins", 0), sums.get("draws", 0)
    return {k: sums.get(k, 0) for k in _SUMS} | {
        "losses": matches - wins - draws,
        "points_per_deal": round(sums.get("points", 0) / deals, 1) if deals else None,
    }


def player_json(
    user: UserRow,
    ratings: list[RatingRow],
    totals: dict[str, dict[str, int]],
    recent: list[ResultRow],
    tables: dict[str, list[ResultRow]],
    names: dict[int, str],
    programs: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    """The answer of ``GET /api/players/{name}``: ``tables`` holds the results of each
    table of ``recent`` (who played), ``names`` the name of each account in them."""
    overall = {k: sum(game.get(k, 0) for game in totals.values()) for k in _SUMS}
    return {
        "name": user.name,
        "kind": user.kind,
        "program": user.program,
        "language": user.language,
        "created": user.created_at,
        "ratings": [
            {
                "game": r.game,
                "rating": displayed(r.mu, r.sigma),
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "matches": r.matches,
            }
            for r in ratings
        ],
        "statistics": {
            "overall": statistics(overall),
            "games": {game: statistics(sums) for game, sums in totals.items()},
        },
        "matches": [_match_json(r, tables.get(r.table_id, []), names, programs) for r in recent],
    }


def ratings_json(seats: list[ResultRow]) -> dict[str, Any]:
    """What the final sheet shows of a table's results: each rated seat's rating before
    and after the match, the change rounded as the player page rounds it.

    >>> ratings_json([])
    {'ready': False, 'rated': False, 'seats': []}
    """
    rated = [r for r in seats if r.rating_before is not None and r.rating_after is not None]
    return {
        "ready": bool(seats),
        "rated": bool(rated),
        "seats": [
            {
                "seat": r.seat,
                "name": r.name,
                "before": round(r.rating_before or 0),
                "after": round(r.rating_after or 0),
                "change": round((r.rating_after or 0) - (r.rating_before or 0)),
            }
            for r in rated
        ],
    }


def _match_json(
    result: ResultRow,
    seats: list[ResultRow],
    names: dict[int, str],
    programs: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    change = None
    if result.rating_before is not None and result.rating_after is not None:
        change = round(result.rating_after - result.rating_before)
    return {
        "table": result.table_id,
        "game": result.game,
        "date": result.finished_at,
        "seat": result.seat,
        "line": result.line,
        "outcome": result.outcome,
        "points": result.points,
        "deals": result.deals,
        "abandoned": result.abandoned,
        # Counted as abandoned because a bot played most of the seat's turns (absence.py).
        "absent": result.abandoned and SeatTurns(result.turns, result.bot_turns).absent,
        "turns": result.turns,
        "bot_turns": result.bot_turns,
        "rated": result.rated,
        "rating_before": result.rating_before,
        "rating_after": result.rating_after,
        "change": change,
        "players": [
            {
                "seat": s.seat,
                "name": s.name,
                "line": s.line,
                "account": names.get(s.user_id) if s.user_id is not None else None,
                "program": s.user_id in programs,
            }
            for s in seats
        ],
        "replay": f"/replay/{result.table_id}",
        "record": f"/api/tables/{result.table_id}/record",
    }
