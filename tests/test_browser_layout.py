"""The table as players meet it, on a laptop and on a phone, in every language.

On a 1366x768 laptop the whole table fits without scrolling: the bar with the game's
title and the whole turn prompt, the board with the player's own line above the hand,
also with the coach open and with eight melds on the line. On a 390x844 phone every word
is at least 14 px (the "new meld" placeholder's too) and so is every card's corner; a
toast never covers the turn prompt or the clock, a hint's toast goes by itself after a
few seconds, and the moves drawer leaves the bar and its Chat button free. A tournament's
bots are named in the reader's language at the table and in the lobby's watch list.
Screenshots go to ``artifacts/screenshots/`` (layout-*).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import CHROMIUM, create_table, play_one_turn, shot, wait_my_turn

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
LANGS = ("en", "it", "pt")
# Generous for a loaded machine: every wait is on a condition, never a fixed sleep.
WAIT = 60_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomServer]:
    database = tmp_path_factory.mktemp("layout") / "room.db"
    with RoomServer(f"sqlite:///{database}", bot_delay=0.05) as room:
        yield room


def page_in(browser: Any, lang: str, viewport: dict[str, int]) -> Any:
    """A page of its own context at viewport, its language chosen as the #lang button does."""
    context = browser.new_context(viewport=viewport)
    context.add_init_script(f"localStorage.setItem('burraco.lang', '{lang}')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def table_mid_deal(page: Any, server: RoomServer) -> str:
    """A person at a table of four against bots, after a turn of each: a full board."""
    table = create_table(page, server.url, players="4:2", seconds=40, deals=3, start=True)
    play_one_turn(page)
    wait_my_turn(page, timeout=WAIT)
    settle(page)
    return table


def settle(page: Any) -> None:
    page.wait_for_selector("#hand [data-card]")
    page.evaluate("() => document.fonts.ready")
    # Two frames: what the page lays out after it rendered (its ResizeObserver) is done.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


# What of the table is outside the viewport, cut, or hidden in a scroll.
NOT_IN_VIEW = """() => {
  const out = [];
  const W = innerWidth, H = innerHeight;
  if (document.scrollingElement.scrollHeight > H) out.push(`the page scrolls: ${document.scrollingElement.scrollHeight} > ${H}`);
  const board = document.querySelector('#board');
  if (board.scrollHeight > board.clientHeight + 1) out.push(`the board scrolls: ${board.scrollHeight} > ${board.clientHeight}`);
  for (const sel of ['.topbar', '#table-title', '#turn', '#timer', '#board', '#my-line', '#hand-area', '#hand', '#coach']) {
    const e = document.querySelector(sel);
    if (!e || !e.checkVisibility()) { if (sel !== '#coach' && sel !== '#timer') out.push(`${sel} is not shown`); continue; }
    const r = e.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > H + 0.5 || r.right > W + 0.5) out.push(`${sel} leaves the viewport: ${JSON.stringify(r)}`);
    if (e.scrollWidth > e.clientWidth + 1) out.push(`${sel} is cut: "${e.textContent.trim()}"`);
  }
  const line = document.querySelector('#my-line').getBoundingClientRect();
  const hand = document.querySelector('#hand-area').getBoundingClientRect();
  if (line.bottom > hand.top + 0.5) out.push(`the own line drops below the hand: ${line.bottom} > ${hand.top}`);
  const board_r = board.getBoundingClientRect();
  if (line.bottom > board_r.bottom + 0.5) out.push(`the own line leaves the board: ${line.bottom} > ${board_r.bottom}`);
  const coach = document.querySelector('#coach');
  if (coach && coach.checkVisibility()) {
    const c = coach.getBoundingClientRect();
    if (c.left < board_r.right - 0.5 && c.top < board_r.bottom - 0.5 && c.bottom > board_r.top + 0.5)
      out.push('the coach covers the board');
  }
  return out;
}"""


def assert_whole_table(page: Any, what: str) -> None:
    missing = page.evaluate(NOT_IN_VIEW)
    assert not missing, f"{what}:\n" + "\n".join(missing)


@pytest.mark.parametrize("lang", LANGS)
def test_a_laptop_sees_the_whole_table_without_scrolling(
    browser: Any, server: RoomServer, lang: str
) -> None:
    page = page_in(browser, lang, LAPTOP)
    table = table_mid_deal(page, server)
    assert_whole_table(page, f"{lang}: a table of four mid-deal")
    shot(page, f"layout-laptop-table-{lang}")

    # The coach of a first deal, open beside the board.
    page.goto(f"{server.url}/table/{table}?guide=1")
    page.wait_for_selector("#coach:not([hidden])", timeout=WAIT)
    settle(page)
    assert_whole_table(page, f"{lang}: with the coach open")
    shot(page, f"layout-laptop-coach-{lang}")

    # Eight melds on the own line, with and without the coach.
    for query, name in (("demo=eight", "eight-melds"), ("demo=eight&guide=1", "eight-coach")):
        page.goto(f"{server.url}/static/table.html?{query}")
        settle(page)
        assert page.locator("#my-line .meld").count() == 8
        assert_whole_table(page, f"{lang}: {query}")
        shot(page, f"layout-laptop-{name}-{lang}")
    assert not page.errors, page.errors
    page.context.close()


# Every text of the page under 14 px (card corners and pips aside: measured apart).
SMALL_WORDS = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || !e || e.closest('.corner, .pip')) continue;
    if (!e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = e.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue; // visually hidden: read, not seen
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 14) small.push(`${e.tagName.toLowerCase()}.${e.className} ${size}px "${node.textContent.trim().slice(0, 30)}"`);
  }
  return [...new Set(small)];
}"""

SMALL_CORNERS = """() => [...document.querySelectorAll('.card .corner')]
  .filter((c) => c.checkVisibility())
  .flatMap((c) => [c, ...c.children])
  .map((e) => [e.closest('.card').dataset.card || e.closest('.card').className, parseFloat(getComputedStyle(e).fontSize)])
  .filter(([, size]) => size < 14)
  .map(([card, size]) => `${card} ${size}px`)"""


def boxes_meet(page: Any, a: str, b: str) -> bool:
    met: bool = page.evaluate(
        """([a, b]) => {
          const x = document.querySelector(a), y = document.querySelector(b);
          if (!x || !y || !x.checkVisibility() || !y.checkVisibility()) return false;
          const r = x.getBoundingClientRect(), s = y.getBoundingClientRect();
          return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
        }""",
        [a, b],
    )
    return met


@pytest.mark.parametrize("lang", LANGS)
def test_a_phone_reads_every_word_and_corner_and_toasts_leave_the_turn_free(
    browser: Any, server: RoomServer, lang: str
) -> None:
    page = page_in(browser, lang, PHONE)
    table_mid_deal(page, server)
    for where in ("a table mid-deal", "eight melds"):
        if where == "eight melds":
            page.goto(f"{server.url}/static/table.html?demo=eight")
            settle(page)
        assert page.locator("#new-meld").count() == 1, where  # "Novo jogo", in words
        small = page.evaluate(SMALL_WORDS)
        assert not small, f"{lang}, {where}: words under 14 px:\n" + "\n".join(small)
        corners = page.evaluate(SMALL_CORNERS)
        assert not corners, f"{lang}, {where}: card corners under 14 px: {corners}"
        shot(page, f"layout-phone-{where.split()[-1]}-{lang}")

    # A toast (here the demo's "would send") opens below the bar: the turn and its clock
    # stay in sight.
    page.click("#stock")
    page.wait_for_selector("#toast.show")
    assert page.locator("#turn").is_visible() and page.locator("#timer").is_visible()
    for covered in ("#turn", "#timer", "#chat-button", ".topbar"):
        assert not boxes_meet(page, "#toast", covered), f"{lang}: the toast covers {covered}"
    shot(page, f"layout-phone-toast-{lang}")

    # The moves drawer opens below the bar, and the Chat button there still answers.
    page.click("#moves-button")
    page.wait_for_selector("#side", state="visible")
    assert not boxes_meet(page, "#side", ".topbar"), f"{lang}: the moves cover the bar"
    chat = page.locator("#chat-button")
    if chat.is_visible():
        box = chat.bounding_box()
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('#chat-button') !== null",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit, f"{lang}: the moves drawer covers the Chat button"
    shot(page, f"layout-phone-moves-{lang}")
    assert not page.errors, page.errors
    page.context.close()


def test_a_hint_toast_goes_by_itself_after_a_few_seconds(browser: Any, server: RoomServer) -> None:
    """It stayed 20 s over the table; now it goes after 8 s, or at the next move."""
    page = page_in(browser, "it", PHONE)
    page.goto(f"{server.url}/static/table.html?demo=1")
    settle(page)
    page.click("#hint")
    page.wait_for_selector("#toast.show.hint")
    shown = time.monotonic()
    assert not boxes_meet(page, "#toast", "#turn") and not boxes_meet(page, "#toast", "#timer")
    page.wait_for_selector("#toast", state="hidden", timeout=WAIT)
    assert time.monotonic() - shown < 15, "the hint's toast stayed too long"
    # At the next action it goes at once (the demo says what it would send instead).
    page.click("#hint")
    page.wait_for_selector("#toast.show.hint")
    page.click("#stock")
    page.wait_for_function("() => document.querySelector('#toast').dataset.kind !== 'hint'")
    page.context.close()


def test_a_tournaments_bots_are_named_in_the_readers_language(
    browser: Any, server: RoomServer
) -> None:
    """The tournament pads its field with "Greedy 2"… and seats them at its tables: at the
    table, in its moves and in the lobby's watch list they are "Bot intermedio 2"."""
    with server.http() as http:
        made = http.post(
            "/api/tournaments",
            json={"name": "Sera", "kind": "individual", "spectators": True, "move_seconds": 0},
        ).json()
        path = f"/api/tournaments/{made['tournament']}"
        anna = http.post(f"{path}/entrants", json={"token": made["token"], "players": ["Anna"]})
        token = anna.json()["tokens"][0]
        http.post(f"{path}/pad", json={"token": made["token"], "size": 4, "level": "greedy"})
        started = http.post(f"{path}/rounds", json={"token": made["token"], "online": True})
        assert started.status_code == 200, started.text
    page = page_in(browser, "it", LAPTOP)
    page.goto(f"{server.url}/tournament/{made['tournament']}?player={token}")
    page.click("#go-table", timeout=WAIT)
    page.wait_for_url(re.compile(r".*/table/t-.*"))
    page.wait_for_selector("#hand [data-card]", timeout=WAIT)
    play_one_turn(page)
    wait_my_turn(page, timeout=WAIT)
    internal = re.compile(r"\b(Greedy|Random|Expert|Learned) \d")
    page.wait_for_function("() => document.querySelectorAll('#log li').length > 2")
    text = page.inner_text("body")
    assert "Bot intermedio" in text and not internal.search(text), text
    log = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
    assert any(line.startswith("Bot intermedio") for line in log), log
    shot(page, "layout-tournament-table-it")

    page.goto(f"{server.url}/")
    # A table's item, not the "nothing to watch" the list shows until the room answers.
    page.wait_for_selector("#watch-tables li.table-item", timeout=WAIT)
    watch = page.inner_text("#watch-tables")
    assert "Bot intermedio" in watch and not internal.search(watch), watch
    assert not page.errors, page.errors
    page.context.close()


def test_counted_words_agree_in_the_browser(browser: Any, server: RoomServer) -> None:
    """The page's own i18n module, through Intl.PluralRules: "1 turno" and "2 turni",
    "+1 punto", "1 delle 3 carte serve", "ha 1 rodada"."""
    page = page_in(browser, "en", LAPTOP)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#variant option", state="attached")
    said: dict[str, list[str]] = page.evaluate(
        """async () => {
          const m = await import('/static/i18n.js');
          const out = {};
          for (const l of m.LANGS) {
            await m.setLang(l);
            out[l] = [
              m.t('desk.n_rounds', { n: 1 }), m.t('desk.n_rounds', { n: 2 }),
              m.hintText('take', '', 'take_fits', { fit: 1, size: 3, margin: 1 }),
              m.hintText('take', '', 'take_fits', { fit: 1, size: 1, margin: 30 }),
              m.refusalText({ code: 'forbidden', rule: 'knockout_rounds',
                              params: { lines: 2, whole: 1, rounds: 3 } }),
              m.tn('table.seat_aria', 1, { name: 'Anna' }),
            ];
          }
          await m.setLang('en');
          return out;
        }"""
    )
    assert said["en"] == [
        "1 round",
        "2 rounds",
        "take the pile: 1 of its 3 cards fits your game (about +1 point over the next best)",
        "take the pile: its only card fits your game (about +30 points over the next best)",
        "A knock-out of 2 lines has 1 round, not 3.",
        "Anna: 1 card",
    ], said["en"]
    it = said["it"]
    assert it[:2] == ["1 turno", "2 turni"], it
    assert "1 delle 3 carte serve " in it[2] and "+1 punto " in it[2], it[2]
    assert "ha 1 turno, non 3" in it[4] and it[5] == "Anna: 1 carta", it
    pt = said["pt"]
    assert pt[:2] == ["1 rodada", "2 rodadas"] and "+1 ponto " in pt[2], pt
    assert "tem 1 rodada, não 3" in pt[4] and pt[5] == "Anna: 1 carta", pt
    page.context.close()
