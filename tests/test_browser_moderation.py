"""Fair play in a real browser (Playwright, Debian's Chromium): a moderator's page lists
the flagged account and bans it; a rated table past the daily cap of its pair says "not
rated" on the table and why on the score sheet. Screenshots go to
``artifacts/screenshots/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import RoomServer
from test_accounts import cookie_header, sign_up
from test_browser import shot
from test_fairplay import _farm
from typer.testing import CliRunner
from waits import ms
from websockets.sync.client import connect

from burraco.cli import app
from burraco.server.door.capacity import Capacity
from burraco.storage import Store
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def _log_in(page: Any, server: RoomServer, name: str) -> None:
    page.goto(f"{server.url}/account")
    page.fill("#login-name", name)
    page.fill("#login-password", "cuori e picche")
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#member:not([hidden])")


def test_a_moderator_bans_a_flagged_account_from_the_page(browser: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    _farm(Store(db))
    with RoomServer(db) as server:
        sign_up(server, "Mara").close()
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _log_in(page, server, "Mara")
        page.goto(f"{server.url}/moderation")
        page.wait_for_selector("#flagged [role=alert]")  # not a moderator yet
        assert CliRunner().invoke(app, ["moderator", "grant", "Mara", "--database-url", db])
        page.reload()
        page.wait_for_selector('#flagged tr[data-name="Farmer"]')
        assert "gained 400" in page.inner_text('#flagged tr[data-name="Farmer"]')
        shot(page, "moderation-flagged")
        page.click('#flagged button[data-name="Farmer"][data-action="ban"]')
        page.wait_for_selector("#flagged p.muted")
        assert "Mara: ban Farmer" in page.inner_text("#log")
        shot(page, "moderation-banned")
        assert not errors, errors
        page.close()


def test_a_table_past_the_daily_cap_says_not_rated_and_the_sheet_says_why(
    browser: Any, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'room.db'}"
    with RoomServer(db, capacity=Capacity(rated_pair_cap=0)) as server:
        sign_up(server, "Anna").close()
        bruno = sign_up(server, "Bruno")
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _log_in(page, server, "Anna")
        csrf = page.request.get(f"{server.url}/api/me").json()["csrf"]
        made = page.request.post(
            f"{server.url}/api/tables",
            data={"name": "Anna", "deals": 1, "rated": True, "move_seconds": 0},
            headers={"X-CSRF-Token": csrf},
        ).json()
        joined = bruno.post(f"/api/tables/{made['table']}/join", json={"name": "Bruno"})
        assert joined.status_code == 200, joined.text
        page.goto(f"{server.url}/table/{made['table']}")
        page.wait_for_selector("#unrated:not([hidden])", timeout=ms(30))
        assert page.inner_text("#unrated") == "not rated"
        assert "most rated matches" in (page.get_attribute("#unrated", "title") or "")
        shot(page, "table-not-rated")

        # Bruno abandons (Playwright's own loop runs in this thread: a blocking socket).
        url = f"{server.ws_url}/ws/{made['table']}?token={joined.json()['token']}"
        with connect(url, additional_headers={"Cookie": cookie_header(bruno)}) as ws:
            ws.send(json.dumps({"type": "abandon"}))
            while json.loads(ws.recv(timeout=ms(30) / 1000))["type"] != "match_over":
                pass
        page.wait_for_selector("#score-sheet[open]", timeout=ms(30))
        assert "most rated matches against each other" in page.inner_text("#sheet-result")
        shot(page, "sheet-not-rated")
        info = httpx.get(f"{server.url}/api/tables/{made['table']}").json()
        assert (info["rated"], info["unrated"]) == (False, "pair_cap")
        assert not errors, errors
        page.close()
