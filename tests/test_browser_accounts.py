"""A registered player's evening in a real browser (Playwright, Debian's Chromium): sign
up, log out, log in, quick play into a rated match that bots fill, finish it by clicks,
and read the rating that moved on the player page; the history lists the match.
Screenshots go to ``artifacts/screenshots/``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import RoomServer
from test_browser import play_one_turn, play_turn_by_socket, shot
from waits import ms

from burraco.storage import Store
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def info_seat(info: dict[str, Any]) -> int:
    return next(s["seat"] for s in info["seats"] if s["kind"] == "human")


def test_sign_up_quick_play_a_rated_match_and_see_the_rating_move(
    browser: Any, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    options = {"bot_delay": 0.05, "quick_wait_seconds": 1.0, "quick_deals": 1}
    with RoomServer(db, **options) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(f"{server.url}/account?tab=signup")
        page.fill("#signup-name", "Giulia")
        page.fill("#signup-password", "asso di picche")
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#member:not([hidden])")
        assert "Giulia" in page.inner_text("#member-title")
        shot(page, "account-member")
        page.click("#log-out")
        page.wait_for_selector("#guest:not([hidden])")
        page.fill("#login-name", "giulia")
        page.fill("#login-password", "wrong password")
        page.click("#login-form button[type=submit]")
        page.wait_for_function("() => document.querySelector('#guest-error').textContent")
        shot(page, "account-wrong-password")
        page.fill("#login-password", "asso di picche")
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#member:not([hidden])")

        page.goto(f"{server.url}/")
        page.wait_for_function(
            "() => document.querySelector('#account-link').dataset.user === 'Giulia'"
        )
        page.select_option("#quick-variant", "italian")
        page.select_option("#quick-players", "2")
        page.check("#quick-bots")
        page.click("#quick-play")
        page.wait_for_url(re.compile(r".*/table/t-[^/?]+$"), timeout=ms(30))
        table = page.url.rsplit("/", 1)[-1]
        page.wait_for_selector("#hand [data-card]", timeout=ms(30))
        info = httpx.get(f"{server.url}/api/tables/{table}").json()
        assert info["rated"] and info["quick"]
        assert [s["kind"] for s in info["seats"]].count("bot") == 1
        seats = Store(db, migrate=False).seats(table)
        # The bot sits under its level's account: it is rated too.
        assert all(s.user_id is not None for s in seats)

        # Another device: no seat token in its storage, the session alone opens the seat.
        other = browser.new_context(viewport={"width": 390, "height": 844})
        phone = other.new_page()
        phone.goto(f"{server.url}/account")
        phone.fill("#login-name", "Giulia")
        phone.fill("#login-password", "asso di picche")
        phone.click("#login-form button[type=submit]")
        phone.wait_for_selector("#member:not([hidden])")
        phone.wait_for_selector(f'#my-tables a[href="/table/{table}"]')
        phone.click(f'#my-tables a[href="/table/{table}"]')
        phone.wait_for_selector("#hand [data-card]", timeout=ms(30))
        assert phone.evaluate("() => window.burracoTable.state.seat") == info_seat(info)
        shot(phone, "rated-table-other-device")
        other.close()

        # Two turns by clicks, the rest through the page's own socket (quicker, the same
        # messages): the clicks themselves are test_browser.py's.
        assert play_one_turn(page) and play_one_turn(page)
        for _ in range(300):
            if play_turn_by_socket(page) is None:
                break
        page.wait_for_function(
            "() => window.burracoTable?.state && window.burracoTable?.state.table.status === 'over'",
            timeout=ms(60),
        )
        shot(page, "rated-match-over")

        page.goto(f"{server.url}/player/Giulia")
        page.wait_for_selector("body[data-ready=true]")
        row = page.locator('tr[data-game="italian-2"] .rating')
        rating = int(row.inner_text())
        assert rating != 1000  # a newcomer's rating, moved by the match
        change = page.locator(f'tr[data-table="{table}"]')
        assert change.count() == 1
        assert re.search(r"[+−-]\d+", change.inner_text())
        shot(page, "player-after-rated-match")

        answer = httpx.get(f"{server.url}/api/players/Giulia").json()
        ratings = {r["game"]: r for r in answer["ratings"]}
        assert ratings["italian-2"]["matches"] == 1

        page.goto(f"{server.url}/history")
        page.click("#tab-mine")
        page.wait_for_selector(f'.match-row[data-table="{table}"]')
        shot(page, "history-mine")
        assert not errors, errors
        page.close()
