"""Fair clocks at the table, in a real browser (Playwright, Debian's Chromium, headless).

Between two deals the score window stays up with a countdown and a "next deal" button, no
clock runs, the final table of the deal can be opened, and a reload brings the window
back; after a time-out a banner gives the seat back from the bot at once.
"""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from roomserver import Player, RoomServer
from test_browser import (
    CHROMIUM,
    create_table,
    shot,
    state,
    wait_my_turn,
)
from waits import ms, seconds

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def _play_deal_one_over_the_api(server: RoomServer, table_id: str, token: str) -> None:
    """The page's own seat plays deal 1 over a second socket, quickly, without pressing
    "next deal" (the page does that)."""

    async def play() -> None:
        rng = random.Random(11)
        async with Player(server, table_id, token, next_deal=False) as anna:
            while True:
                m = await anna.next()
                if m["type"] == "state" and m.get("pause"):
                    return
                if m["type"] == "state" and m["legal"]:
                    action = rng.choice(m["legal"])
                    await anna.send({"type": "action", "action": action, "version": m["version"]})

    # Playwright's sync API holds this thread's event loop: the client runs in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, play()).result(timeout=seconds(120))


def test_the_score_stays_up_until_next_deal_and_shows_the_final_table(
    browser: Any,
    tmp_path: Path,
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.02) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        table_id = create_table(page, server.url, deals=2, seconds=40, start=True)
        seats = json.loads(page.evaluate("() => localStorage.getItem('burraco.seats')"))
        _play_deal_one_over_the_api(server, table_id, seats[table_id]["token"])

        page.wait_for_selector("#score-modal[open]")
        page.wait_for_selector("#next-deal-status:not([hidden])")
        assert page.inner_text("#score-continue") != ""
        first = int(page.get_attribute("#next-deal-status", "data-seconds") or 0)
        assert 20 < first <= 30
        assert page.is_hidden("#timer"), "no move clock runs between two deals"
        page.click("#final-table summary")
        page.wait_for_selector("#final-table-body .final-line")
        shot(page, "between-deals")

        # A reload brings the window back, still counting down.
        page.reload()
        page.wait_for_selector("#score-modal[open]")
        page.wait_for_selector("#next-deal-status:not([hidden])")
        again = int(page.get_attribute("#next-deal-status", "data-seconds") or 0)
        assert again <= first

        # "Next deal": the only person has pressed, so deal 2 begins, with its clock.
        page.click("#score-continue")
        page.wait_for_selector("#score-modal", state="hidden")
        s = wait_my_turn(page)
        assert s["view"]["deal"] == 2 and s["pause"] is None
        page.wait_for_selector("#timer:not([hidden])")
        shot(page, "deal-two-begun")
        assert not errors, errors
        page.close()


def test_a_banner_gives_the_seat_back_from_the_bot(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.8) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        create_table(page, server.url, seconds=2, start=True)
        # Anna does nothing: her clock runs out and a bot plays for her.
        page.wait_for_selector("#takeover:not([hidden])", timeout=ms(30))
        shot(page, "takeover-banner-phone")
        page.click("#take-back")
        page.wait_for_selector("#takeover", state="hidden")
        mine = state(page)
        assert not mine["table"]["seats"][mine["seat"]]["taken_over"]
        page.close()


def test_a_running_clock_changes_the_page_once_a_second(browser: Any, tmp_path: Path) -> None:
    """The move clock's bar and words change when a second passes, not at each of the
    page's four ticks a second, and the bar is scaled, not resized: a phone waiting on its
    turn is not laid out and painted again and again (a quarter of a core here before)."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.0) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        create_table(page, server.url, seconds=40, start=True)
        wait_my_turn(page)
        changes = page.evaluate(
            """() => new Promise((done) => {
                 let count = 0;
                 const box = document.querySelector('#timer');
                 const seen = new MutationObserver((records) => { count += records.length; });
                 seen.observe(box, { subtree: true, childList: true, attributes: true,
                                     characterData: true });
                 setTimeout(() => { seen.disconnect(); done(count); }, 2100);
               })"""
        )
        # Two or three seconds end in 2.1 s: each changes the words, the bar, the seconds
        # and the label (at most five records). Four ticks a second wrote all of them.
        assert 0 < changes <= 15, changes
        fill = page.evaluate(
            "() => { const s = getComputedStyle(document.querySelector('.timer-fill'));"
            " return [s.width, s.transform]; }"
        )
        assert fill[1].startswith("matrix("), fill  # scaled on the compositor
        page.close()
