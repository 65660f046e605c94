"""The director's desk in a real browser (Playwright, Debian's Chromium, headless).

The director creates a tournament, registers players, runs a round at physical
tables and enters a table's result, and the standings show it; then a round
online, and a player follows their personal link to their table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import CHROMIUM, shot

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def _register(page: Any, first: str, second: str) -> None:
    page.fill("#entrant-name-0", first)
    page.fill("#entrant-name-1", second)
    page.click("#entrant-add")
    page.wait_for_selector(f"#entrants >> text={first}")


def test_a_director_runs_a_round_and_a_player_finds_the_table(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        desk = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        desk.on("pageerror", lambda e: errors.append(str(e)))
        desk.goto(f"{server.url}/desk")
        desk.fill("#t-name", "Tuesday club")
        desk.select_option("#t-format", "round-robin")
        desk.select_option("#t-kind", "pairs")
        desk.fill("#t-rounds", "")
        desk.click("#t-create")
        desk.wait_for_url(re.compile(r".*/desk/u-.*"))
        tid = desk.url.rsplit("/", 1)[-1].split("#")[0]
        _register(desk, "Anna", "Aldo")
        _register(desk, "Bruno", "Bice")
        _register(desk, "Carla", "Ciro")
        _register(desk, "Dario", "Dora")
        links = desk.eval_on_selector_all("#player-links a", "els => els.map(e => e.href)")
        assert len(links) == 8 and all("?player=" in link for link in links)
        shot(desk, "desk-entrants")

        # A round at physical tables: the director enters a table's result from its sheet.
        desk.click("#start-physical")
        form = desk.locator("form[data-table='1']").first
        form.wait_for()
        form.locator("[name=mp_first]").fill("1250")
        form.locator("[name=mp_second]").fill("400")
        form.locator("button[type=submit]").click()
        desk.wait_for_function(
            "() => [...document.querySelectorAll('#standings tr[data-entrant]')]"
            ".some(r => r.textContent.includes('1250') || r.textContent.includes('850'))",
            timeout=15_000,
        )
        info = server.room and server.app.state.desk.public(server.app.state.desk.get(tid))
        first = info["rounds"][0]["tables"][0]
        assert first["result"]["mp_first"] == 1250
        rows = desk.eval_on_selector_all(
            "#standings tr[data-entrant]", "els => els.map(e => e.textContent)"
        )
        top = next(r for r in rows if "850" in r)
        assert str(first["result"]["vp_first"]) in top
        shot(desk, "desk-physical-result")
        form = desk.locator("form[data-table='2']").first
        form.locator("[name=mp_first]").fill("600")
        form.locator("[name=mp_second]").fill("600")
        form.locator("button[type=submit]").click()
        desk.wait_for_selector("#close-round:not([disabled])")
        desk.click("#close-round")

        # A round online: Anna follows her link to her seat in the web room.
        desk.wait_for_selector("#start-online:not([disabled])")
        desk.click("#start-online")
        desk.wait_for_selector("#rounds a[href^='/table/']", timeout=15_000)
        # Nobody has opened a table yet: the desk lists who is not there, and the grace left.
        desk.wait_for_selector("#rounds .absent")
        absent = desk.eval_on_selector_all("#rounds .absent", "els => els.map(e => e.textContent)")
        assert any("Anna" in a for a in absent), absent
        assert all(re.search(r"\d+:\d\d", a) for a in absent), absent
        anna = browser.new_page(viewport={"width": 390, "height": 844})
        anna.goto(links[0])
        anna.wait_for_selector("#go-table")
        shot(anna, "player-view-phone")
        anna.click("#go-table")
        anna.wait_for_url(re.compile(r".*/table/t-.*"))
        anna.wait_for_selector("#hand [data-card]", timeout=20_000)
        seat = anna.evaluate("() => window.burracoTable.state.seat")
        me = server.app.state.desk.me(tid, links[0].split("player=")[1])
        assert seat == me["current"]["seat"]
        shot(anna, "player-at-table-phone")
        # Anna is at her table: the desk no longer lists her (at its next poll).
        desk.wait_for_function(
            "() => ![...document.querySelectorAll('#rounds .absent')]"
            ".some(e => e.textContent.includes('Anna'))",
            timeout=30_000,
        )
        assert not errors, errors
