"""The end of a match in a real browser (issue 31): a whole 2-deal match against a bot,
without a reload, in every game family. Deal 1's window starts deal 2 and its button works
again afterwards; the last deal's window says the match is over and leads to the final sheet,
by its button or by Esc."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import create_table, shot, submit_table_form
from waits import ms

from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

#: The page's seat plays through its own socket until a score window opens (or the match
#: is over): a draw from the stock, else its last legal discard, so every deal ends at the
#: stock's end at the latest. It polls the page's objects; ``limit`` ms bound the whole deal.
PLAY_TO_WINDOW = """async (limit) => {
  const end = Date.now() + limit;
  const modal = document.querySelector('#score-modal');
  let acted = -1;
  while (Date.now() < end) {
    if (modal.open) return 'window';
    const s = window.burracoTable?.state;
    if (s?.table?.status === 'over') return 'over';
    if (s?.legal?.length && s.version !== acted && !s.pause) {
      const draw = s.legal.find((a) => a.startsWith('draw'));
      const discards = s.legal.filter((a) => a.startsWith('discard '));
      acted = s.version;
      window.burracoTable.act(draw || discards[discards.length - 1] || s.legal[0]);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return 'timed out';
}"""

#: Each family ends one way: the button or Esc (the reporter's way out, which showed nothing).
CASES = [
    ("italian", "button"),
    ("buraco", "escape"),
    ("canasta", "button"),
    ("buraco-fechado", "escape"),
]


def play_to_window(page: Any) -> None:
    assert page.evaluate(PLAY_TO_WINDOW, ms(90)) == "window"


def start_playing(page: Any) -> None:
    """The seat plays as :data:`PLAY_TO_WINDOW` does, in the background (several pages
    play at once); ``window.played`` says how it ended."""
    page.evaluate(
        f"() => {{ window.played = null; ({PLAY_TO_WINDOW})({ms(90)}).then((r) => {{ window.played = r; }}); }}"
    )


def to_the_sheet(page: Any) -> None:
    """From the last deal's window to the final sheet, by the window's button."""
    page.wait_for_function("() => window.played !== null && window.played !== undefined")
    page.wait_for_function(
        "() => document.querySelector('#score-continue')?.textContent === 'See the final sheet'"
    )
    page.click("#score-continue")
    page.locator("#score-sheet").wait_for(state="visible", timeout=ms(10))


@pytest.mark.parametrize(("variant", "close"), CASES)
def test_a_two_deal_match_reaches_the_final_sheet(
    browser: Any, tmp_path: Path, variant: str, close: str
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        create_table(page, server.url, variant=variant, deals=2, start=True)
        button = page.locator("#score-continue")
        status = page.locator("#next-deal-status")

        # Deal 1: the pause's window; its button starts deal 2.
        play_to_window(page)
        page.wait_for_function("() => window.burracoTable?.state?.pause?.deal === 1")
        assert button.is_enabled() and button.inner_text() == "Next deal"
        button.click()
        page.wait_for_function(
            "() => window.burracoTable?.state?.view?.deal === 2"
            " && !document.querySelector('#score-modal')?.open"
        )
        # The pause is over: the button works again and no countdown stays frozen.
        assert button.is_enabled()
        assert status.is_hidden()

        # Deal 2, the last: its window says the match is over and leads to the sheet.
        play_to_window(page)
        page.wait_for_function(
            "() => document.querySelector('#score-continue')?.textContent === 'See the final sheet'"
        )
        assert button.is_enabled()
        assert status.inner_text() == "The match is over."
        assert page.locator("#score-modal-title").inner_text() == "Deal 2: score"
        if close == "button":
            button.click()
        else:
            page.keyboard.press("Escape")
        sheet = page.locator("#score-sheet")
        sheet.wait_for(state="visible", timeout=ms(10))
        result = page.locator("#sheet-result .result-line").first.inner_text()
        assert result.startswith("Winner: ") or result == "Tie"
        assert page.locator("#sheet-table tbody tr").count() == 2
        for link in ("#analyse-link", "#replay-link", "#score-sheet .buttons a[href='/']"):
            assert page.locator(link).is_visible(), link
        shot(page, f"match-end-{variant}")
        assert not errors, errors
        page.close()


def test_a_rated_sheet_shows_the_rating_changes_and_play_again_makes_the_rematch(
    browser: Any, tmp_path: Path
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        # Giulia signs up and makes a rated table of one deal against the greedy bot.
        table = page.evaluate(
            """async () => {
              const post = async (path, body, csrf) => (await fetch(path, { method: 'POST',
                headers: { 'Content-Type': 'application/json', ...(csrf ? { 'X-CSRF-Token': csrf } : {}) },
                body: JSON.stringify(body) })).json();
              const { csrf } = await post('/api/account/signup', { name: 'Giulia', password: 'asso di picche' });
              const made = await post('/api/tables', { name: 'Giulia', players: 2, deals: 1,
                rated: true, move_seconds: 0 }, csrf);
              const seats = JSON.parse(localStorage.getItem('burraco.seats') || '{}');
              seats[made.table] = { seat: made.seat, token: made.token };
              localStorage.setItem('burraco.seats', JSON.stringify(seats));
              return made.table;
            }"""
        )
        page.goto(f"{server.url}/table/{table}")
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        start_playing(page)
        to_the_sheet(page)
        # The ratings arrive when the finish listener has stored them: both seats' changes.
        changes = page.locator("#sheet-ratings .rating-change")
        changes.nth(1).wait_for(timeout=ms(30))
        texts = [changes.nth(i).inner_text() for i in range(changes.count())]
        assert re.fullmatch(r"Giulia: 1000 → \d+ \([+-]?\d+\)", texts[0]), texts
        assert texts[1].startswith("intermediate bot 1: "), texts  # in the page's words
        shot(page, "match-end-rated-sheet")

        # Play again: a new table, the same game against the same bot, started at once.
        page.click("#rematch")
        page.wait_for_url(lambda url: "/table/t-" in url and table not in url)
        again = page.url.rsplit("/", 1)[-1]
        assert again != table
        page.wait_for_selector("#hand [data-card]")
        info = page.evaluate("() => window.burracoTable?.state?.table")
        assert (info["variant"], info["deals"], info["rated"], info["bot"]) == (
            "italian",
            1,
            True,
            "greedy",
        )
        assert not errors, errors
        page.close()


def test_the_other_person_sees_the_rematch_offer_and_joins_it(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        anna = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        bruno = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        table = create_table(anna, server.url, players="2:2", deals=1)
        bruno.goto(f"{server.url}/table/{table}")
        bruno.fill("#join-name", "Bruno")
        bruno.click("#join-button")
        for page in (anna, bruno):  # both seats taken: the match starts by itself
            page.wait_for_selector("#hand [data-card]")
            start_playing(page)
        for page in (anna, bruno):
            to_the_sheet(page)
        anna.click("#rematch")
        anna.wait_for_url(lambda url: "/table/t-" in url and table not in url)
        again = anna.url.rsplit("/", 1)[-1]
        assert again != table
        # Bruno, still on the old sheet, reads the offer and follows its link to a seat.
        offer = bruno.locator("#rematch-offer")
        offer.wait_for(state="visible")
        assert bruno.inner_text("#rematch-offer-text") == "Anna offers a rematch."
        shot(bruno, "match-end-rematch-offer")
        bruno.click("#rematch-link")
        bruno.wait_for_url(f"**/table/{again}")
        for page in (anna, bruno):  # both seated again: it starts by itself
            page.wait_for_selector("#hand [data-card]")
        seats = anna.evaluate("() => window.burracoTable?.state?.table?.seats.map((s) => s.name)")
        assert seats == ["Anna", "Bruno"]


def test_a_spectator_and_a_reload_after_the_end_reach_the_sheet(
    browser: Any, tmp_path: Path
) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        anna = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        zoe = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        errors: list[str] = []
        for page in (anna, zoe):
            page.on("pageerror", lambda e: errors.append(str(e)))
        anna.goto(f"{server.url}/")
        anna.wait_for_selector("body[data-lobby-ready=true]", state="attached")
        anna.fill("#name", "Anna")
        anna.check("#by-deals")
        anna.fill("#deals", "2")
        anna.fill("#move-seconds", "0")
        anna.check("#watchable")
        table = submit_table_form(anna)
        anna.click("#start")
        anna.wait_for_selector("#hand [data-card]")
        zoe.goto(f"{server.url}/table/{table}?watch=1")
        zoe.wait_for_function("() => window.burracoTable?.state?.view")

        start_playing(anna)
        anna.wait_for_function("() => window.played === 'window'")
        # The spectator's window of deal 1 only closes; the players start deal 2.
        zoe.wait_for_function(
            "() => document.querySelector('#score-modal')?.open"
            " && document.querySelector('#score-continue')?.textContent === 'Close'"
        )
        anna.click("#score-continue")
        zoe.wait_for_function("() => window.burracoTable?.state?.view?.deal === 2")
        start_playing(anna)
        to_the_sheet(anna)
        # The spectator's last window leads to the sheet too, by Esc here.
        zoe.wait_for_function(
            "() => document.querySelector('#score-continue')?.textContent === 'See the final sheet'"
        )
        zoe.keyboard.press("Escape")
        zoe.locator("#score-sheet").wait_for(state="visible", timeout=ms(10))
        assert zoe.locator("#sheet-table tbody tr").count() == 2
        assert zoe.locator("#rematch").is_hidden()  # a spectator plays no rematch
        # A reload after the end: the sheet at once, no deal's window.
        for page in (anna, zoe):
            page.reload()
            page.locator("#score-sheet").wait_for(state="visible", timeout=ms(20))
            assert page.locator("#sheet-table tbody tr").count() == 2
            assert not page.evaluate("() => document.querySelector('#score-modal').open")
        assert anna.locator("#rematch").is_visible()
        assert not errors, errors
