"""What fits where (issue 31, words and labels: the layout), on a 1366x768 laptop and a
390x844 phone, in Italian and Portuguese.

A phone's bar is two rows and cuts no name (it took four rows and "Bot in…"); every
word of the lobby and of a deal's analysis is at least 14 px; an error toast goes as
soon as the room accepts the player's next move and never covers the other players'
row; the coach's hide button stays in sight; a game's leaderboard shows its ranking
without a scroll; the mortos have their label and a closed pile says it is closed.
Screenshots go to ``artifacts/screenshots/`` (fit-*).
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from roomserver import RoomServer
from test_browser import create_table, shot, state, wait_my_turn
from test_browser_layout import LAPTOP, PHONE, SMALL_WORDS, WAIT, boxes_meet, page_in, settle
from test_browser_review import SEED, _finished_match
from waits import ms

from burraco.server.process.reviews import ReviewSettings
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

VIEWPORTS = {"laptop": LAPTOP, "phone": PHONE}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomServer]:
    database = tmp_path_factory.mktemp("fit") / "room.db"
    # A deal's analysis is sampled by its count of deals, never by the time (as in
    # test_browser_review.py): fewer here, where only its list of moves is read.
    reviews = ReviewSettings(workers=1, seconds=math.inf, worlds=4)
    with RoomServer(f"sqlite:///{database}", bot_delay=0.05, reviews=reviews) as room:
        yield room


# The bar's rows: its shown children, grouped by the lines they sit on.
BAR = """() => {
  const bar = document.querySelector('.topbar');
  const boxes = [...bar.children].filter((e) => e.checkVisibility())
    .map((e) => e.getBoundingClientRect()).filter((r) => r.width > 1 && r.height > 1)
    .sort((a, b) => a.top - b.top);
  let rows = 0, bottom = -Infinity;
  for (const r of boxes) {
    if (r.top >= bottom - 1) { rows += 1; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom);
  }
  return { rows, height: bar.getBoundingClientRect().height };
}"""

# Every name of the table that is cut (an ellipsis, or hidden past its box).
CUT_NAMES = """() => [...document.querySelectorAll('.total-name, .seat-name, .line-name')]
  .filter((e) => e.checkVisibility() && e.scrollWidth > e.clientWidth + 0.5)
  .map((e) => `${e.className}: "${e.textContent}" ${e.scrollWidth} > ${e.clientWidth}`)"""


@pytest.mark.parametrize("lang", ["it", "pt"])
@pytest.mark.parametrize("where", ["laptop", "phone"])
def test_the_bar_cuts_no_name_and_is_two_rows_on_a_phone(
    browser: Any, server: RoomServer, lang: str, where: str
) -> None:
    page = page_in(browser, lang, VIEWPORTS[where])
    create_table(page, server.url, players="4:2", seconds=40, deals=3, start=True)
    wait_my_turn(page, timeout=WAIT)
    settle(page)
    bar = page.evaluate(BAR)
    if where == "phone":
        # Two rows (the score beside the buttons; the deal, the turn and the language):
        # it took four, a third of the screen. Four players' long names wrap in the score.
        assert bar["rows"] <= 2, f"{lang}: the bar is {bar['rows']} rows, {bar['height']} px"
        assert bar["height"] <= 0.25 * PHONE["height"], bar
    cut = page.evaluate(CUT_NAMES)
    assert not cut, f"{lang} on a {where}: names cut:\n" + "\n".join(cut)
    totals = page.inner_text("#totals")
    assert ("Bot intermedio 1" if lang == "it" else "Bot intermediário 1") in totals, totals
    shot(page, f"fit-bar-{where}-{lang}")
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("where", ["laptop", "phone"])
def test_an_error_toast_goes_at_the_next_accepted_move_and_leaves_the_others_row_free(
    browser: Any, server: RoomServer, where: str
) -> None:
    """It stayed 5 s after the next legal move had been played, over the opponent's row."""
    page = page_in(browser, "it", VIEWPORTS[where])
    create_table(page, server.url, players="2:2", seconds=0, deals=1, start=True)
    s = wait_my_turn(page, timeout=WAIT)
    assert s["view"]["phase"] == "draw"
    settle(page)
    # A meld before drawing: the room refuses it, and says why in an error toast.
    for n in range(3):
        page.click(f"#hand .card >> nth={n}")
    page.click("#new-meld")
    page.wait_for_selector("#toast.show.error")
    for covered in ("#others", "#their-lines", ".topbar", "#hand-area"):
        assert not boxes_meet(page, "#toast", covered), f"{where}: the toast covers {covered}"
    shot(page, f"fit-error-toast-{where}-it")
    version = state(page)["version"]
    page.click("#stock")
    # As the state of the accepted draw arrives, the refusal has gone.
    still = page.wait_for_function(
        """(v) => { const s = window.burracoTable?.state;
                    if (!s || s.version <= v) return null;
                    const box = document.querySelector('#toast');
                    return { shown: !box.hidden, kind: box.dataset.kind }; }""",
        arg=version,
        timeout=ms(30),
    ).json_value()
    assert not (still["shown"] and still["kind"] == "error"), f"{where}: the error stayed: {still}"
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("lang", ["it", "pt"])
def test_the_coach_keeps_its_hide_button_in_sight_on_a_laptop(
    browser: Any, server: RoomServer, lang: str
) -> None:
    page = page_in(browser, lang, LAPTOP)
    table = create_table(page, server.url, players="4:2", seconds=0, deals=3, start=True)
    page.goto(f"{server.url}/table/{table}?guide=1")
    page.wait_for_selector("#coach:not([hidden])", timeout=WAIT)
    wait_my_turn(page, timeout=WAIT)
    settle(page)
    # The coach's longest words: its step, and a hint of a few sentences.
    page.evaluate(
        """async () => {
          const m = await import('/static/i18n.js');
          const long = [m.t('coach.pozzetto'), m.t('coach.can_close'), m.t('coach.pozzetto')].join(' ');
          document.querySelector('#coach-hint').textContent = long + ' ' + long;
        }"""
    )
    settle(page)
    box = page.locator("#coach-close").bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"], box
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('#coach-close') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit, f"{lang}: the coach's hide button is out of sight"
    shot(page, f"fit-coach-{lang}")
    page.click("#coach-close")
    page.wait_for_selector("#coach", state="hidden")
    page.context.close()


@pytest.mark.parametrize("lang", ["it", "pt"])
def test_the_chats_form_stays_in_sight_beside_a_long_list_of_moves(
    browser: Any, server: RoomServer, lang: str
) -> None:
    """At four players on a laptop the list of moves grew until the chat's message field
    went under the hand's bar: the moves now give way (their list scrolls)."""
    page = page_in(browser, lang, LAPTOP)
    create_table(page, server.url, players="4:2", seconds=0, deals=3, start=True)
    wait_my_turn(page, timeout=WAIT)
    settle(page)
    # A long deal's list of moves (a deal of four holds a hundred and more).
    page.evaluate(
        """() => { const log = document.querySelector('#log');
          for (let i = 0; i < 120; i++) { const li = document.createElement('li');
            li.textContent = `${log.firstElementChild?.textContent ?? ''} ${i}`; log.append(li); } }"""
    )
    settle(page)
    field = page.locator("#chat-text").bounding_box()
    assert field is not None
    for y in (field["y"] + 2, field["y"] + field["height"] - 2):
        seen = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y)?.id", [field["x"] + 10, y]
        )
        assert seen == "chat-text", f"{lang}: the chat's field is covered at y={y}: {seen}"
    # The moves scroll within their own list.
    assert page.evaluate(
        "() => { const l = document.querySelector('#log'); "
        "return l.scrollHeight > l.clientHeight; }"
    )
    shot(page, f"fit-chat-{lang}")
    page.context.close()


@pytest.mark.parametrize("where", ["laptop", "phone"])
def test_a_games_leaderboard_shows_its_ranking_without_a_scroll(
    browser: Any, server: RoomServer, where: str
) -> None:
    page = page_in(browser, "pt", VIEWPORTS[where])
    page.goto(f"{server.url}/leaderboard/italian-2")
    page.wait_for_selector("body[data-ready=true] .board-table")
    first = page.locator("section:not(.board-bots) .board-table tbody tr").first
    box = first.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= VIEWPORTS[where]["height"], f"{where}: {box}"
    # The other games are one choice away.
    page.select_option("#game-select", "buraco-2")
    page.wait_for_url(f"{server.url}/leaderboard/buraco-2")
    page.wait_for_selector("body[data-ready=true] #game-select")
    assert page.locator("#game-select").input_value() == "buraco-2"
    shot(page, f"fit-leaderboard-{where}-pt")
    assert not page.errors, page.errors
    page.context.close()


def test_the_mortos_are_labelled_and_a_closed_pile_says_it_is_closed(
    browser: Any, server: RoomServer
) -> None:
    for where, viewport in VIEWPORTS.items():
        page = page_in(browser, "pt", viewport)
        create_table(page, server.url, players="2:2", seconds=0, variant="stbl", start=True)
        wait_my_turn(page, timeout=WAIT)
        settle(page)
        label = page.locator("#pozzetti > .label")
        assert label.is_visible() and label.inner_text() != "", f"{where}: the mortos unlabelled"
        # The pile is named by a hidden text inside it (its name holds what it shows).
        expect(page.locator("#pile")).to_have_accessible_name(re.compile("fechado"))
        assert page.locator("#pile-strip .pile-closed").is_visible(), where
        shot(page, f"fit-mortos-{where}-pt")
        assert not page.errors, page.errors
        page.context.close()


@pytest.mark.parametrize("lang", ["it", "pt"])
def test_a_phone_reads_every_word_of_the_lobby_and_of_a_deals_analysis(
    browser: Any, server: RoomServer, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = page_in(browser, lang, PHONE)
    page.goto(f"{server.url}/")
    page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
    small = page.evaluate(SMALL_WORDS)
    assert not small, f"{lang}, the lobby: words under 14 px:\n" + "\n".join(small)
    # The same deal every run: its analysis marks moves, a button each.
    monkeypatch.setattr(secrets, "randbits", lambda bits: SEED)
    table = _finished_match(server)
    page.goto(f"{server.url}/replay/{table}?analyse=1")
    page.wait_for_selector("#review-panel[data-state=done]", timeout=ms(180))
    assert page.locator("#review-moves button").count() >= 1
    small = page.evaluate(SMALL_WORDS)
    assert not small, f"{lang}, the analysis: words under 14 px:\n" + "\n".join(small)
    shot(page, f"fit-review-phone-{lang}")
    assert not page.errors, page.errors
    page.context.close()


def test_the_checks_find_a_cut_name_and_a_third_row(browser: Any, server: RoomServer) -> None:
    """The measures above see what they look for: a name cut by an ellipsis, a bar that
    wraps to a third row."""
    page = page_in(browser, "it", PHONE)
    page.goto(f"{server.url}/static/table.html?demo=1")
    settle(page)
    rows = page.evaluate(BAR)["rows"]
    assert not page.evaluate(CUT_NAMES)
    page.evaluate(
        """() => {
          const n = document.querySelector('.total-name');
          n.style.maxWidth = '2em'; n.style.overflow = 'hidden'; n.style.whiteSpace = 'nowrap';
          n.style.display = 'inline-block';
          const bar = document.querySelector('.topbar');
          const wide = document.createElement('span');
          wide.style.flex = '0 0 100%'; wide.style.order = '20'; wide.textContent = 'x';
          bar.appendChild(wide);
        }"""
    )
    assert page.evaluate(CUT_NAMES)
    assert page.evaluate(BAR)["rows"] == rows + 1
    page.context.close()
