"""The lobby: the room's open tables and those to watch, filtered and cut into pages.

Also what the database alone says of a table another process holds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from burraco.server.door.capacity import Capacity
from burraco.server.table.live import LiveTable
from burraco.storage import Store
from burraco.variants import PRESETS, preset, variant

__all__ = ["Listed", "Lobby", "LobbyQuery", "lobby_page", "presets"]

T = TypeVar("T")

#: A table of the lobby with what its filters read: (table, game, players, rated).
Listed = tuple[T, str, int, bool]


@dataclass(frozen=True, slots=True)
class LobbyQuery:
    """What a lobby asks for: filters (None: any) and a page."""

    variant: str | None = None
    players: int | None = None
    free: bool | None = None
    page: int = 1
    per_page: int | None = None
    rated: bool | None = None
    #: The tables to watch instead: in play and open to spectators (a tournament's too).
    watch: bool = False


class Lobby:
    """The lists of the room's tables, each built at most once in ``capacity.lobby_cache``
    seconds however many lobbies ask."""

    def __init__(self, store: Store, tables: dict[str, LiveTable], capacity: Capacity) -> None:
        self.store = store
        self.tables = tables
        self.capacity = capacity
        #: The lobby's tables in their order with what the filters read (game, players,
        #: rated), and when they were listed (0: list again).
        self._listed: tuple[float, list[Listed[LiveTable]]] = (0.0, [])
        self._watch_list: tuple[float, list[dict[str, Any]]] = (0.0, [])

    def changed(self) -> None:
        """A table came, went, or changed its seats or status: list again."""
        self._listed = (0.0, [])

    def open_tables(self) -> list[dict[str, Any]]:
        """The lobby's tables: waiting or playing, not those a tournament seated; those
        waiting for players first, then the newest."""
        return [t.info() for t, *_ in self.listed()]

    def listed(self) -> list[Listed[LiveTable]]:
        """The lobby's tables in their order, listed at most once in
        ``capacity.lobby_cache`` seconds however many lobbies ask."""
        built, listed = self._listed
        now = time.monotonic()
        if now - built < self.capacity.lobby_cache and built:
            return listed
        tables = [
            t
            for t in self.tables.values()
            if t.status in ("waiting", "playing") and not t.row.tournament
        ]
        tables.sort(key=lambda t: (t.status != "waiting", -t.row.created_at))
        listed = [(t, t.variant.name, t.variant.players, t.row.rated) for t in tables]
        self._listed = (now, listed)
        return listed

    def page(self, query: LobbyQuery) -> dict[str, Any]:
        """One page of the lobby, filtered by game, players, free seats and rated (or of
        the tables to watch). The filters read the live tables and only the page's tables
        are described: a page costs little however many tables the room holds."""
        if query.watch:
            return lobby_page(self.watch_tables(), self.capacity, query)
        chosen = _chosen(self.listed(), query, _has_free_seat)
        answer = _cut(chosen, self.capacity, query)
        return answer | {"tables": [t.info() for t in answer["tables"]]}

    def watch_tables(self) -> list[dict[str, Any]]:
        """The tables to watch: in play and open to spectators, a tournament's among them;
        the most watched first, then the newest. Built at most once in
        ``capacity.lobby_cache`` seconds."""
        built, listed = self._watch_list
        now = time.monotonic()
        if now - built < self.capacity.lobby_cache and built:
            return listed
        tables = [t for t in self.tables.values() if t.status == "playing" and t.row.watchable]
        tables.sort(key=lambda t: (-len(t.watchers), -t.row.created_at))
        listed = [t.info() for t in tables]
        self._watch_list = (now, listed)
        return listed

    def infos(self, table_ids: list[str]) -> list[dict[str, Any]]:
        """What the lobby says of these tables (a player's own, a round's), those that exist."""
        found = []
        for table_id in table_ids:
            table = self.tables.get(table_id)
            if table is not None:
                found.append(table.info())
            elif (info := self.light_info(table_id)) is not None:
                found.append(info)
        return found

    def light_info(self, table_id: str) -> dict[str, Any] | None:
        """What the database alone says of a table (for tables another process holds)."""
        row = self.store.table(table_id)
        if row is None:
            return None
        v = variant(row.variant, **json.loads(row.options))
        seats = self.store.seats(table_id)
        return {
            "table": row.id,
            "variant": v.name,
            "players": v.players,
            "lines": v.lines,
            "deals": v.deals,
            "target": v.target,
            "move_seconds": row.move_seconds,
            "bot": row.bot,
            "open_hands": v.open_hands,
            "takeover": row.takeover,
            "rated": row.rated,
            "watchable": row.watchable,
            "quick": row.quick,
            "status": row.status,
            "seats": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "connected": False} for s in seats
            ],
            "totals": [],
            "deal": 0,
            "watch_delay": row.watch_delay,
            "watchers": 0,
            "chat": row.chat,
        }


def lobby_page(
    listed: list[dict[str, Any]], capacity: Capacity, query: LobbyQuery
) -> dict[str, Any]:
    """Filter the lobby's tables and cut out one page.

    >>> tables = [{"variant": "italian", "players": 2, "seats": [{"kind": "empty"}]}] * 3
    >>> answer = lobby_page(tables, Capacity(), LobbyQuery(per_page=2, page=2))
    >>> answer["total"], answer["pages"], len(answer["tables"])
    (3, 2, 1)
    >>> lobby_page(tables, Capacity(), LobbyQuery(per_page=2, page=3))["tables"]
    []
    """
    facts = [
        (info, info["variant"], info["players"], bool(info.get("rated", False)))
        for info in listed
        if not query.watch or (info["status"] == "playing" and info["watchable"])
    ]
    return _cut(_chosen(facts, query, _has_free_seat_info), capacity, query)


def _chosen(listed: list[Listed[T]], query: LobbyQuery, free: Callable[[T], bool]) -> list[T]:
    """The tables that pass the filters (``free`` is asked only when a filter needs it):
    no call a table for the others, so that thousands cost a few milliseconds."""
    q = query
    return [
        table
        for table, name, players, rated in listed
        if (q.variant is None or name == q.variant)
        and (q.players is None or players == q.players)
        and (q.rated is None or rated == q.rated)
        and (q.free is None or free(table) == q.free)
    ]


def _has_free_seat(table: LiveTable) -> bool:
    return any(s.kind == "empty" for s in table.seats)


def _has_free_seat_info(info: dict[str, Any]) -> bool:
    return any(s["kind"] == "empty" for s in info["seats"])


def _cut(chosen: list[Any], capacity: Capacity, query: LobbyQuery) -> dict[str, Any]:
    """One page of ``chosen``, with the count of them and of pages; a page past the
    last is empty (a client paging on stops there), never the last page again."""
    size = max(1, min(query.per_page or capacity.lobby_page, capacity.lobby_page_max))
    pages = max(1, -(-len(chosen) // size))
    page = max(1, query.page)
    return {
        "tables": chosen[(page - 1) * size : page * size],
        "total": len(chosen),
        "page": page,
        "pages": pages,
        "per_page": size,
    }


def presets() -> dict[str, Any]:
    """The games a new table may be, with their setups, target and deals (the form's)."""
    return {
        name: {
            "setups": [{"players": p, "lines": ln} for p, ln in preset(name).tables],
            "target": v.target,
            "deals": v.deals,
        }
        for name, v in PRESETS.items()
    }
