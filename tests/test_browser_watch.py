"""Spectators and chat in a real browser: Playwright driving Debian's Chromium, headless.

A second browser finds a table in the lobby's list of tables to watch and watches it:
every WebSocket frame it receives is searched, and none carries a hand; its page shows
no hand and no action. Two players chat: an HTML payload arrives as the same text (no
element made, no dialog), a quick message is said in each reader's language, and a
player can mute another. Screenshots (desktop and phone) go to ``/tmp/shots/`` and
``artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import play_one_turn, shot, state, submit_table_form, wait_my_turn
from test_watch import assert_no_hand

from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

PAYLOAD = "<img src=x onerror=alert(1)><b>hi</b>"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TMP_SHOTS = Path("/tmp/shots")


def both_shots(page: Any, name: str) -> None:
    shot(page, name)
    TMP_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(TMP_SHOTS / f"{name}.png"))


def create_watchable(page: Any, base: str, *, players: str = "2:2", delay: str = "0") -> str:
    """A table made in the lobby's form, open to spectators, against greedy bots; its id."""
    page.goto(f"{base}/")
    # The form's handlers are in place (a click before them sends the form as a GET).
    page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
    page.fill("#name", "Anna")
    page.select_option("#setup", players)
    page.check("#by-deals")
    page.fill("#deals", "1")
    page.fill("#move-seconds", "0")
    page.check("#watchable")
    page.select_option("#watch-delay", delay)
    return submit_table_form(page)


def frames_of(page: Any) -> list[dict[str, Any]]:
    """Every WebSocket frame the page will receive, parsed, in order."""
    frames: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda data: frames.append(json.loads(data))),
    )
    return frames


def test_a_spectator_watches_from_the_lobby_and_never_sees_a_hand(
    browser: Any, tmp_path: Path
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        anna = browser.new_context(viewport=DESKTOP).new_page()
        table_id = create_watchable(anna, server.url)
        anna.click("#start")
        anna.wait_for_selector("#hand [data-card]")
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            context = browser.new_context(viewport=viewport)
            zoe = context.new_page()
            errors: list[str] = []
            zoe.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            frames = frames_of(zoe)
            zoe.goto(f"{server.url}/")
            link = zoe.locator(f'#watch-tables [data-table="{table_id}"] a')
            link.wait_for()
            link.click()
            zoe.wait_for_url(re.compile(rf".*/table/{table_id}\?watch=1"))
            zoe.wait_for_selector("#others .seat")
            for _ in range(2):
                play_one_turn(anna)
            wait_my_turn(anna)
            version = state(anna)["version"]
            zoe.wait_for_function(
                f"() => window.burracoTable?.state && window.burracoTable?.state.version >= {version}"
            )
            # No hand on the page, no action to take: the watching band instead.
            assert zoe.locator("#hand [data-card]").count() == 0
            assert zoe.locator("#hand-area").is_hidden()
            assert zoe.locator("#watch-band").is_visible()
            assert zoe.locator("#others .seat").count() == 2
            assert zoe.locator("#new-meld").count() == 0
            # Everyone sees how many watch (the players hear it a second later at most).
            anna.wait_for_function(
                "() => document.querySelector('#watchers').dataset.count === '1'"
            )
            zoe.wait_for_function("() => document.querySelector('#watchers').dataset.count === '1'")
            log = zoe.locator("#log li[data-action]")
            assert log.count() >= 4, log.count()
            both_shots(zoe, f"watch-{size}")
            both_shots(anna, f"watch-player-{size}")
            states = [f for f in frames if f.get("type") == "state"]
            assert states and all(f["seat"] is None for f in states)
            for frame in frames:
                assert_no_hand(frame)
            assert not errors, errors
            context.close()
            anna.wait_for_function(
                "() => document.querySelector('#watchers').dataset.count === '0'"
            )


def test_two_players_chat_and_an_html_payload_stays_text(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        anna = browser.new_context(viewport=DESKTOP, locale="it-IT").new_page()
        bruno = browser.new_context(viewport=PHONE, locale="en-US").new_page()
        dialogs: list[str] = []
        errors: list[str] = []
        for page in (anna, bruno):
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: errors.append(str(e)))
        table_id = create_watchable(anna, server.url)
        bruno.goto(f"{server.url}/table/{table_id}")
        bruno.fill("#join-name", "Bruno")
        bruno.click("#join-button")
        anna.wait_for_selector("#hand [data-card]")
        bruno.wait_for_selector("#hand [data-card]")

        # Anna, on a desktop: the chat sits beside the table.
        assert anna.locator("#chat-box").is_visible()
        anna.fill("#chat-text", PAYLOAD)
        anna.press("#chat-text", "Enter")
        # Bruno, on a phone: a button with the count of new messages opens the drawer.
        bruno.wait_for_function("() => window.burracoChat?.unread === 1")
        assert bruno.locator("#chat-box").is_hidden() or not bruno.locator("#chat-log").is_visible()
        assert bruno.locator("#chat-button .chat-unread").inner_text() == "1"
        bruno.click("#chat-button")
        line = bruno.locator("#chat-log .chat-line .chat-text").last
        line.wait_for()
        assert line.inner_text() == PAYLOAD
        assert line.evaluate("e => e.textContent") == PAYLOAD
        for page in (anna, bruno):
            assert page.locator("#chat-log img, #chat-log b").count() == 0
        # A quick message in each reader's language.
        bruno.click('#chat-quick [data-quick="grazie"]')
        anna.wait_for_function(
            "() => [...document.querySelectorAll('#chat-log .chat-text')]"
            ".some(e => e.textContent === 'Grazie!')"
        )
        bruno.wait_for_function(
            "() => [...document.querySelectorAll('#chat-log .chat-text')]"
            ".some(e => e.textContent === 'Thanks!')"
        )
        both_shots(anna, "chat-desktop")
        both_shots(bruno, "chat-phone")
        # Bruno mutes Anna: her messages go, and come back when he shows her again.
        bruno.click('#chat-log .chat-line[data-name="Anna"] .chat-mute >> nth=0')
        assert bruno.locator('#chat-log .chat-line[data-name="Anna"]').count() == 0
        anna.fill("#chat-text", "ciao Bruno")
        anna.press("#chat-text", "Enter")
        anna.wait_for_function(
            "() => [...document.querySelectorAll('#chat-log .chat-text')]"
            ".some(e => e.textContent === 'ciao Bruno')"
        )
        bruno.wait_for_function("() => window.burracoChat?.messages.length === 3")
        assert bruno.locator('#chat-log .chat-line[data-name="Anna"]').count() == 0
        both_shots(bruno, "chat-phone-muted")
        bruno.click('#chat-muted [data-unmute="Anna"]')
        assert bruno.locator('#chat-log .chat-line[data-name="Anna"]').count() == 2
        # The drawer closes and the hand is there again.
        bruno.click("#chat-close")
        assert bruno.locator("#hand [data-card] >> nth=0").is_visible()
        # A reload brings the history back.
        anna.reload()
        anna.wait_for_selector("#hand [data-card]")
        anna.wait_for_function("() => window.burracoChat?.messages.length === 3")
        assert anna.locator("#chat-log img, #chat-log b").count() == 0
        assert not dialogs, dialogs
        assert not errors, errors


def test_the_players_chat_while_they_wait_and_the_chat_follows_them_to_the_table(
    browser: Any, tmp_path: Path
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{server.url}/")
        # The lobby's script makes the table: a click before it is ready submits the bare
        # form, and the page stays in the lobby (this test timed out once so).
        page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
        page.fill("#name", "Anna")
        page.select_option("#setup", "2:2")
        page.click("#create")
        page.wait_for_selector("#waiting #chat-box:not([hidden])")
        assert not page.is_visible("#chat-button")  # no drawer before the match
        page.fill("#chat-text", "arrivo, un attimo")
        page.click("#chat-send")
        page.wait_for_selector("#waiting #chat-log li")
        shot(page, "waiting-chat-phone")
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        assert page.evaluate("() => document.querySelector('#chat-box').parentElement.id") == "side"
        assert "arrivo, un attimo" in page.inner_text("#chat-log")
        page.close()
