"""Bot accounts in a real browser (Playwright, Debian's Chromium): a person makes a bot
account on /account and reads its token once, challenges the bot from its player page,
and the table page, the lobby's table and the player page mark it as a bot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import RoomServer
from test_browser import shot

from burraco.variants import PRESETS
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def test_a_person_makes_a_bot_challenges_it_and_every_page_marks_it(
    browser: Any, tmp_path: Path
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/account?tab=signup")
        page.fill("#signup-name", "Giulia")
        page.fill("#signup-password", "asso di picche")
        page.click("#signup-form button[type=submit]")
        page.wait_for_selector("#member:not([hidden])")
        page.wait_for_selector("#my-bots li")
        # Each list once, though the page renders twice as it opens (its language too).
        assert page.locator("#my-tables li").count() == 1
        page.fill("#bot-name", "Robo")
        page.click("#bot-form button[type=submit]")
        page.wait_for_selector("#bot-token-box:not([hidden])")
        token = page.inner_text("#bot-token").strip()
        assert token.startswith("bot_")
        page.wait_for_selector("#my-bots li[data-bot=Robo] code")
        assert token.startswith(page.inner_text("#my-bots li[data-bot=Robo] code").rstrip("…"))
        shot(page, "account-bots")
        bot = {"Authorization": f"Bearer {token}"}
        assert httpx.get(f"{server.url}/api/bot/account", headers=bot).json()["owner"] == "Giulia"

        page.goto(f"{server.url}/player/Robo")
        page.wait_for_selector("#challenge-form")
        assert "Giulia" in page.inner_text(".player-meta")
        # Every preset of the room, Brazil's too (issue 31).
        offered = page.eval_on_selector_all(
            "#challenge-variant option", "(options) => options.map((o) => o.value)"
        )
        assert offered == list(PRESETS), offered
        page.select_option("#challenge-variant", "buraco-aberto")
        page.fill("#challenge-deals", "1")
        page.click("#challenge-form button[type=submit]")
        page.wait_for_url(re.compile(r"/table/t-"))
        table = page.url.rsplit("/", 1)[1]
        [challenge] = httpx.get(f"{server.url}/api/bot/challenges", headers=bot).json()[
            "challenges"
        ]
        assert challenge["table"] == table and challenge["from"] == "Giulia"
        assert challenge["variant"] == "buraco-aberto"
        accepted = httpx.post(
            f"{server.url}/api/bot/challenges/{challenge['challenge']}/accept", headers=bot
        )
        assert accepted.status_code == 200, accepted.text
        # The match starts; the table page names the bot as a bot's.
        page.wait_for_function(
            "() => [...document.querySelectorAll('.seat-name')].some((e) => e.textContent === 'Robo (bot)')"
        )
        shot(page, "table-with-a-bot-account")
        assert not errors, errors
