"""Fair play in a real browser (issue 33 §3): at a rated table the hint button is disabled
on the player's own turn, its title saying why, in the page's language; the lobby's form
says by the rated box that rated tables give no hints. Screenshots go to
``artifacts/screenshots/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import shot, switch_language, wait_my_turn

from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def test_the_hint_button_is_off_at_a_rated_table_and_says_why(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        http = context.request
        signed = http.post(
            f"{server.url}/api/account/signup", data={"name": "Anna", "password": "cuori e picche"}
        )
        assert signed.ok, signed.text()
        csrf = {"X-CSRF-Token": signed.json()["csrf"]}
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # The lobby's form, signed in: the rated box and what it means for hints.
        page.goto(f"{server.url}/")
        page.wait_for_selector("#rated-field:not([hidden])")
        note = page.locator("#rated-no-hints")
        assert note.inner_text() == (
            "No hints at rated tables: no hint, coach or analysis until the match is over."
        )
        request = {"name": "Anna", "rated": True, "deals": 1, "move_seconds": 0}
        made = http.post(f"{server.url}/api/tables", data=request, headers=csrf).json()
        started = http.post(f"{server.url}/api/tables/{made['table']}/start", data={}, headers=csrf)
        assert started.ok, started.text()
        seats = {made["table"]: {"seat": 0, "token": made["token"]}}
        page.evaluate("(s) => localStorage.setItem('burraco.seats', JSON.stringify(s))", seats)
        page.goto(f"{server.url}/table/{made['table']}")
        found = wait_my_turn(page)
        assert found["table"]["hints_closed"] == "rated" and found["legal"]
        hint = page.locator("#hint")
        assert hint.is_disabled()
        assert hint.get_attribute("title") == (
            "No hints at a rated table: no hint, coach or analysis of a seat until the match is over."
        )
        shot(page, "hint-off-rated")
        # The title speaks the page's language.
        while switch_language(page) != "pt-BR":
            pass
        page.wait_for_function(
            "() => (document.querySelector('#hint')?.title || '').startsWith('Sem dicas')"
        )
        assert hint.is_disabled()
        assert errors == []
        context.close()
