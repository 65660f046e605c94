"""The analysis of a deal on the replay page, in a real browser: Analyse, the progress,
the marked moves, and a marked move selected shows the better one on the board with its
reason, in the page's language."""

from __future__ import annotations

import asyncio
import math
import random
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from roomserver import Player, RoomServer, create_table, start_table
from test_browser import shot
from test_review_room import _play_until
from waits import ms, seconds

from burraco.server.process.reviews import ReviewSettings
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

#: Enough sampled deals that a random player's worst decisions stand out of the noise,
#: whatever the machine's load (the sampling is stopped by its count, never by the time:
#: a review is then the same on any machine).
REVIEWS = ReviewSettings(workers=1, seconds=math.inf, worlds=16)
#: The seed every table here is dealt from. A random player's deal has a decision costly
#: enough to mark in about 59 deals of 60 (reviews of 60 seeds at 16 worlds); with one
#: seed, the match, its review and the marks are the same in every run.
SEED = 20261127


@pytest.fixture(autouse=True)
def _one_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The room deals every table here from :data:`SEED` (a table's seed is drawn with
    ``secrets.randbits``, which nothing else in these tests draws)."""
    monkeypatch.setattr(secrets, "randbits", lambda bits: SEED)


def _finished_match(server: RoomServer, deals: int = 1) -> str:
    """Anna plays random moves against the greedy bot to the end of a match."""
    table = create_table(server, deals=deals, move_seconds=0)
    start_table(server, table)

    async def play() -> None:
        async with Player(server, table["table"], table["token"]) as anna:
            await _play_until(anna, lambda m: m["type"] == "match_over", random.Random(8))

    # Playwright's sync API holds an event loop in this thread: the match runs in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, play()).result(timeout=seconds(120))
    return str(table["table"])


@pytest.mark.parametrize("lang", ["en", "it"])
def test_analyse_marks_the_moves_and_shows_the_better_one(
    browser: Any, tmp_path: Path, lang: str
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", reviews=REVIEWS) as server:
        table = _finished_match(server)
        context = browser.new_context(locale=lang)
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('burraco.lang', '{lang}')")
        page.goto(f"{server.url}/replay/{table}")
        page.wait_for_selector("#review-seat option", state="attached")
        page.select_option("#review-seat", "0")
        page.click("#analyse")
        # Progress, then the marks: Anna's random play has costly decisions.
        page.wait_for_selector("#review-panel[data-state=done]", timeout=ms(120))
        marks = page.locator("#review-moves button:not([data-tag=''])")
        assert marks.count() >= 1
        summary = page.locator("#review-summary").inner_text()
        assert ("accuracy" if lang == "en" else "precisione") in summary
        # "precisione 71,3%": the page's language writes the decimal (tests/test_numbers.py).
        assert re.search(r"\d,\d%" if lang == "it" else r"\d\.\d%", summary), summary
        mark = marks.first
        mark.click()
        better = page.locator("#review-better")
        better.wait_for(state="visible")
        text = better.inner_text()
        assert ("Better:" if lang == "en" else "Meglio:") in text
        assert ("MP lost" if lang == "en" else "punti persi") in text
        assert mark.get_attribute("aria-pressed") == "true"
        # On the board: the better move's cards raised in Anna's hand, or the stock or
        # the pile lit for a draw or a take.
        best = better.get_attribute("data-best") or ""
        if best.split()[0] in ("draw", "take"):
            assert page.locator("#stock.glow, #pile.glow").count() >= 1
        else:
            assert page.locator(".open-hand[data-seat='0'] .card.better").count() >= 1
        shot(page, f"review-{lang}")
        if lang == "en":
            # The panel, its marks and the note pass axe as the rest of the replay does.
            from test_accessibility import all_violations, settle

            settle(page)
            assert all_violations(page) == []
        # Another position: the better move's note goes; back on the mark, it returns.
        page.click("#next")
        assert better.is_hidden()
        mark.click()
        better.wait_for(state="visible")
        context.close()


def test_the_score_sheet_and_a_link_ask_for_a_deals_analysis(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", reviews=REVIEWS) as server:
        page = browser.new_page()
        # The score sheet: an analysis of the player's play, the whole and deal by deal.
        page.goto(f"{server.url}/static/table.html?demo=over")
        page.wait_for_selector("#score-sheet[open]")
        assert "?analyse=" in (page.get_attribute("#analyse-link", "href") or "")
        links = page.locator("#sheet-table a.analyse-deal")
        assert links.count() >= 1
        assert (links.nth(0).get_attribute("href") or "").endswith("&deal=1")
        # Such a link on a real match: deal 2 shown, Bruno's seat chosen, its review asked
        # for at once and shown when done.
        table = _finished_match(server, deals=2)
        page.goto(f"{server.url}/replay/{table}?analyse=1&deal=2")
        page.wait_for_selector("#review-panel[data-state=done]", timeout=ms(120))
        assert page.locator("#review-seat").input_value() == "1"
        assert "Deal 2" in page.locator("#deal-info").inner_text()
        assert "deal 2" in page.locator("#review-summary").inner_text()
        with server.http() as http:
            reviews = http.get(f"/api/tables/{table}/reviews").json()["reviews"]
        assert [(r["deal"], r["seat"]) for r in reviews] == [(2, 1)]
        page.close()
