"""The lobby (server/table/lobby.py): the open tables in their order, listed once a while
however many ask, filtered and cut into pages; a table another process holds."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parts import closed, seated, seats_on, step_on, store_in, stored

from burraco.server.door.capacity import Capacity
from burraco.server.table.live import LiveTable
from burraco.server.table.lobby import Lobby, LobbyQuery


def test_the_tables_waiting_for_players_come_first_then_the_newest(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        seats = seats_on(step)
        first, _, _ = seats.create({"name": "Anna"})
        playing, _ = await seated(step, ("human", "bot"))
        second, _, _ = seats.create({"name": "Bruno"})
        tournament, _ = await seated(step, ("human", "bot"), tournament="t:1:1")
        ids = [t["table"] for t in seats.lobby.open_tables()]
        assert ids == [second.id, first.id, playing.id]  # no tournament's table
        assert tournament.id not in ids
        await closed(step)

    asyncio.run(scenario())


def test_the_list_is_built_again_only_when_a_table_changed(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    tables: dict[str, LiveTable] = {}
    lobby = Lobby(store, tables, Capacity(lobby_cache=3600.0))
    one = stored(store)
    tables[one.id] = one
    assert len(lobby.listed()) == 1
    two = stored(store)
    tables[two.id] = two
    assert len(lobby.listed()) == 1  # cached: the lobby asks a thousand times a second
    lobby.changed()
    assert len(lobby.listed()) == 2


def test_a_page_of_the_lobby_filtered_by_players_and_free_seats(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    tables: dict[str, LiveTable] = {}
    for kinds in [("human", "empty"), ("human", "human"), ("human", "empty", "empty", "empty")]:
        table = stored(store, kinds)
        tables[table.id] = table
    lobby = Lobby(store, tables, Capacity())
    assert lobby.page(LobbyQuery(players=2))["total"] == 2
    assert lobby.page(LobbyQuery(players=2, free=True))["total"] == 1
    page = lobby.page(LobbyQuery(per_page=2, page=2))
    assert (page["total"], page["pages"], len(page["tables"])) == (3, 2, 1)
    assert page["tables"][0]["table"] in tables


def test_what_the_database_alone_says_of_a_table(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    table = stored(store)
    lobby = Lobby(store, {}, Capacity())
    info = lobby.light_info(table.id)
    assert info is not None and info["status"] == "waiting"
    assert [s["kind"] for s in info["seats"]] == ["human", "empty"]
    assert lobby.light_info("t-nothing") is None
    assert lobby.infos([table.id, "t-nothing"]) == [info]
