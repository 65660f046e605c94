"""Quick play and the lobby's filters in a real browser (Playwright, Debian's Chromium).

A guest presses Play and, nobody coming within the room's (short) wait, lands on the table
page with bots seated; two guests pressing Play meet at one table; Cancel leaves the queue;
the table list's filters ask the room for rated tables, sizes and free seats. Screenshots
go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import RoomServer, create_table
from test_browser import shot
from waits import ms

from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

TABLE_URL = re.compile(r".*/table/t-[^/?]+$")


def table_of(page: Any) -> str:
    return str(page.url.rsplit("/", 1)[-1])


def press_play(page: Any, base: str, name: str, *, players: str = "2", bots: bool = True) -> None:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-quick-ready=true]", state="attached")
    page.fill("#quick-name", name)
    page.select_option("#quick-variant", "italian")
    page.select_option("#quick-players", players)
    page.set_checked("#quick-bots", bots)
    page.click("#quick-play")


def test_a_guest_alone_plays_against_bots_after_the_wait(browser: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    with RoomServer(db, bot_delay=0.05, quick_wait_seconds=2.0) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        press_play(page, server.url, "Anna", players="4")
        page.wait_for_function(
            "() => /bots in \\d+ s/.test(document.querySelector('#quick-status').textContent)"
        )
        assert page.is_visible("#quick-cancel") and not page.is_visible("#quick-play")
        shot(page, "quick-waiting")
        page.wait_for_url(TABLE_URL, timeout=ms(30))
        page.wait_for_selector("#hand [data-card]", timeout=ms(30))
        shot(page, "quick-table")
        info = httpx.get(f"{server.url}/api/tables/{table_of(page)}").json()
        assert info["quick"] and info["status"] == "playing"
        kinds = [s["kind"] for s in info["seats"]]
        assert kinds.count("bot") == 3 and info["seats"][kinds.index("human")]["name"] == "Anna"
        assert not errors, errors
        page.close()


def test_two_guests_meet_and_cancel_leaves_the_queue(browser: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    with RoomServer(db, quick_wait_seconds=30.0) as server:
        anna = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        bruno = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        # Bruno presses Play, then thinks better of it.
        press_play(bruno, server.url, "Bruno", bots=False)
        bruno.wait_for_selector("#quick-cancel", state="visible")
        bruno.click("#quick-cancel")
        bruno.wait_for_selector("#quick-play", state="visible")
        assert "left the queue" in bruno.inner_text("#quick-status")
        assert server.app.state.quick.queue.sizes() == {}
        # Then both press Play, without bots: they sit at one table.
        press_play(anna, server.url, "Anna", bots=False)
        anna.wait_for_function(
            "() => /Looking for players/.test(document.querySelector('#quick-status').textContent)"
        )
        shot(anna, "quick-waiting-no-bots")
        press_play(bruno, server.url, "Bruno", bots=False)
        for page in (anna, bruno):
            page.wait_for_url(TABLE_URL, timeout=ms(30))
        assert table_of(anna) == table_of(bruno)
        bruno.wait_for_selector("#hand [data-card]", timeout=ms(30))
        shot(bruno, "quick-table-phone")
        anna.context.close()
        bruno.context.close()


def test_the_lobby_filters_its_tables(browser: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    with RoomServer(db) as server:
        create_table(server, name="Carla")  # italian, 2 players, a free seat, not rated
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "/api/tables?" in r.url else None)
        page.goto(f"{server.url}/")
        page.wait_for_selector("#tables .table-item")
        page.select_option("#filter-rated", "true")
        page.wait_for_selector("#tables .empty")
        assert "No open table matches" in page.inner_text("#tables")
        page.select_option("#filter-rated", "false")
        page.select_option("#filter-players", "2")
        page.check("#filter-free")
        page.wait_for_selector("#tables .table-item")
        shot(page, "lobby-filters")
        page.select_option("#filter-players", "4")
        page.wait_for_selector("#tables .empty")
        assert any("rated=false" in u and "players=4" in u and "free=true" in u for u in asked)
        page.close()
