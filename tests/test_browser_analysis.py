"""The analysis page (issue 33 §4) in a real browser, on a laptop (1366x768) and on a
phone (390x844), in Italian and in Portuguese: the evaluation graph's points jump the board, every decision is
listed with its mark inline, the better move is drawn on the board beside its reason
(within the first screen), another seat's review is asked for when chosen, and the
seat's blunders and mistakes become exercises answered right and wrong; axe scans the
analysis and an exercise."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_accessibility import all_violations, settle
from test_browser import shot
from test_browser_layout import SMALL_WORDS
from test_browser_review import (  # noqa: F401 (a fixture)
    REVIEWS,
    SEED,
    _finished_match,
    _one_deal,
)
from waits import ms

from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

#: The words of each language the checks read.
WORDS = {
    "it": {"better": "Meglio: ", "progress": r"^1 di \d+$", "decimal": r"\d,\d%"},
    "pt": {"better": "Melhor: ", "progress": r"^1 de \d+$", "decimal": r"\d,\d%"},
}


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RoomServer, str]]:
    """A room with one finished one-deal match, shared by the module's tests of its analysis.

    Each of them played the same match (dealt from SEED, Anna's moves from a seeded random
    source) and asked for the same reviews, the review of a seat costing most of a test's
    time: the room and its match are made once a module, and the reviews the first test
    asks for are the ones the others read. Each test opens its own browser context."""
    db = tmp_path_factory.mktemp("analysed") / "room.db"
    with RoomServer(f"sqlite:///{db}", reviews=REVIEWS) as server:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(secrets, "randbits", lambda bits: SEED)
            table = _finished_match(server)
        yield server, table


def _decisions(server: RoomServer, table: str, seat: int) -> dict[int, dict[str, Any]]:
    with server.http() as http:
        reviews = http.get(f"/api/tables/{table}/reviews").json()["reviews"]
    (review,) = [r for r in reviews if r["deal"] == 1 and r["seat"] == seat]
    return {d["index"]: d for d in review["decisions"]}


def _reason_in_sight(page: Any) -> bool:
    """The reason's box lies within the viewport, above the sticky controls."""
    found: bool = page.evaluate(
        """() => { const box = document.querySelector('#review-better').getBoundingClientRect();
                   const bar = document.querySelector('.replay-controls').getBoundingClientRect();
                   return box.height > 0 && box.bottom <= Math.min(window.innerHeight, bar.top); }"""
    )
    return found


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)], ids=["laptop", "phone"])
@pytest.mark.parametrize("lang", ["it", "pt"])
def test_the_analysis_page(
    browser: Any, analysed: tuple[RoomServer, str], lang: str, width: int, height: int
) -> None:
    words = WORDS[lang]
    server, table = analysed
    context = browser.new_context(locale=lang, viewport={"width": width, "height": height})
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('burraco.lang', '{lang}')")
    page.goto(f"{server.url}/replay/{table}?analyse=0")
    page.wait_for_selector("#review-panel[data-state=done][data-seat='0']", timeout=ms(120))
    decisions = _decisions(server, table, 0)
    summary = page.locator("#review-summary").inner_text()
    assert re.search(words["decimal"], summary), summary

    # Every decision listed (among every seat's moves), the marked ones with their
    # mark inline.
    moves = page.locator("#review-moves button[data-decision]")
    assert moves.count() == len(decisions)
    marks = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}
    tagged = page.locator("#review-moves button:not([data-tag=''])")
    assert tagged.count() >= 1
    for k in range(tagged.count()):
        button = tagged.nth(k)
        assert button.inner_text().endswith(" " + marks[button.get_attribute("data-tag") or ""])

    # The graph: titled, a point a button; a blunder's or a mistake's point jumps the
    # board to the position of its decision.
    graph = page.locator("#review-graph svg")
    assert graph.locator("title").first.text_content()
    worst = graph.locator("circle.point[data-tag=blunder], circle.point[data-tag=mistake]")
    assert worst.count() >= 1, "a random player's deal has a blunder or a mistake"
    point = worst.first
    index = point.get_attribute("data-index")
    before = page.input_value("#frame")
    point.click()
    better = page.locator("#review-better")
    better.wait_for(state="visible")
    assert page.input_value("#frame") != before
    assert point.get_attribute("aria-pressed") == "true"
    assert (
        page.locator(f"#review-moves button[data-index='{index}']").get_attribute("aria-pressed")
        == "true"
    )
    # The better move in the imperative ("Meglio: scarta 6♥"), drawn on the board with
    # its legend, its reason within the first screen.
    text = page.locator("#review-better .better-move").inner_text()
    assert text.startswith(words["better"]), text
    assert "Anna" not in text
    drawn = page.locator(
        ".open-hand[data-seat='0'] .card.better, #stock.better, #pile.better, .meld.better"
    )
    assert drawn.count() >= 1
    assert page.locator("#review-legend").is_visible()
    # In sight as the jump left the page (the seat's hand shown), and on the first screen.
    assert _reason_in_sight(page)
    shot(page, f"analysis-{lang}-{width}")
    page.evaluate("() => window.scrollTo(0, 0)")
    assert _reason_in_sight(page)
    shot(page, f"analysis-top-{lang}-{width}")
    # The note, its legend, the graph's surroundings: no word under 14 px.
    assert not page.evaluate(SMALL_WORDS)
    settle(page)
    assert all_violations(page) == []

    # Another seat chosen: its review is asked for and shown.
    page.select_option("#review-seat", "1")
    page.wait_for_selector("#review-panel[data-state=done][data-seat='1']", timeout=ms(120))
    seat_1 = page.locator("#review-moves button[data-decision]")
    assert seat_1.count() == len(_decisions(server, table, 1))
    page.select_option("#review-seat", "0")
    page.wait_for_selector("#review-panel[data-state=done][data-seat='0']")

    # Learn from your mistakes: the position as Anna saw it (Bruno's hand closed),
    # the better move not drawn until answered.
    page.click("#exercise-start")
    exercise = page.locator("#exercise[data-state=ask]")
    exercise.wait_for(state="visible")
    assert re.match(words["progress"], page.locator("#exercise-progress").inner_text())
    assert page.locator(".open-hand[data-seat='1'] .card.face").count() == 0
    assert page.locator(".open-hand[data-seat='1'] .backs").count() == 1
    assert page.locator(".open-hand[data-seat='0'] .card.face").count() >= 1
    assert better.is_hidden()
    # The move list would give the answer away (the move played and what came after).
    assert page.locator("#review-moves").is_hidden()
    shot(page, f"exercise-{lang}-{width}")
    assert not page.evaluate(SMALL_WORDS)
    settle(page)
    assert all_violations(page) == []
    first = decisions[int(exercise.get_attribute("data-index") or 0)]
    # Wrong: the move Anna played (a blunder or a mistake is beyond its noise).
    page.click(f"#exercise-choices button[data-action='{first['played']}']")
    page.wait_for_selector("#exercise-verdict[data-verdict=wrong]")
    assert page.locator("#exercise-choices button[data-best=true]").count() == 1
    better.wait_for(state="visible")
    # Right: the review's best, the same position tried again.
    page.click("#exercise-close")
    page.click("#exercise-start")
    exercise.wait_for(state="visible")
    page.click(f"#exercise-choices button[data-action='{first['best']}']")
    page.wait_for_selector("#exercise-verdict[data-verdict=right]")
    shot(page, f"exercise-answered-{lang}-{width}")

    # Back to the analysis: a point of the graph is a button from the keyboard too.
    page.click("#exercise-close")
    page.locator("#review-moves").wait_for(state="visible")
    before = page.input_value("#frame")
    first_point = graph.locator("circle.point").first
    first_point.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('#frame')?.value !== '{before}'")
    assert first_point.get_attribute("aria-pressed") == "true"
    context.close()


def test_the_deal_is_chosen_on_the_page(browser: Any, tmp_path: Path) -> None:
    """The deal selector: another deal chosen shows its first position and, once an analysis
    was asked on the page, asks for that deal's review of the seat."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", reviews=REVIEWS) as server:
        table = _finished_match(server, deals=2)
        page = browser.new_page()
        page.add_init_script("localStorage.setItem('burraco.lang', 'pt')")
        page.goto(f"{server.url}/replay/{table}?analyse=0")
        page.wait_for_selector("#review-panel[data-state=done][data-deal='1']", timeout=ms(120))
        assert page.locator("#review-deal option").count() == 2
        page.select_option("#review-deal", "2")
        page.wait_for_selector("#review-panel[data-state=done][data-deal='2']", timeout=ms(120))
        assert "Mão 2" in page.locator("#deal-info").inner_text()
        with server.http() as http:
            reviews = http.get(f"/api/tables/{table}/reviews").json()["reviews"]
        assert sorted((r["deal"], r["seat"]) for r in reviews) == [(1, 0), (2, 0)]
        page.close()


#: A card in the page's notation (suit symbols, the joker by its name).
CARD = re.compile(r"([2-9]|10|[JQKA])[♠♥♦♣]|JK★|[Jj]oker|[Cc]oringa|[Jj]olly")


def test_the_move_list_has_every_seats_move_and_the_marks_inline(
    browser: Any, analysed: tuple[RoomServer, str]
) -> None:
    """Every move of the deal, every seat's, in the page's card notation (a draw names no
    card); the reviewed seat's decisions carry their marks and costs; choosing any move
    jumps the board to it, and the graph and the list stay in step with the board."""
    server, table = analysed
    with server.http() as http:
        frames = http.get(f"/api/tables/{table}/replay").json()["frames"]
    moves = [f for f in frames if f["view"]["deal"] == 1]
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.add_init_script("localStorage.setItem('burraco.lang', 'pt')")
    page.goto(f"{server.url}/replay/{table}?analyse=0")
    page.wait_for_selector("#review-panel[data-state=done][data-seat='0']", timeout=ms(120))
    decisions = _decisions(server, table, 0)

    listed = page.locator("#review-moves button")
    assert listed.count() == len(moves)
    labels = listed.all_inner_texts()
    seats = [listed.nth(k).get_attribute("data-seat") for k in range(len(moves))]
    assert seats == [str(f["seat"]) if f["seat"] is not None else "" for f in moves]
    for k, (label, move) in enumerate(zip(labels, moves, strict=True), 1):
        assert label.startswith(f"{k}. "), label
        verb = move["action"].split()[0]
        if verb == "draw":
            assert not CARD.search(label), f"a draw names no card: {label}"
        if verb in ("discard", "meld", "extend"):
            assert CARD.search(label) and move["action"].split()[-1] not in label, label
    # Bruno's moves are listed plain; Anna's decisions carry their marks and costs.
    assert page.locator("#review-moves button[data-seat='1'][data-decision]").count() == 0
    mine = page.locator("#review-moves button[data-decision]")
    assert mine.count() == len(decisions)
    marks = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}
    for k in range(mine.count()):
        button = mine.nth(k)
        d = decisions[int(button.get_attribute("data-index") or 0)]
        label = button.inner_text()
        assert label.endswith(" " + marks[d["tag"]]) if d["tag"] else label[-1] != "?"
        cost = button.locator("xpath=following-sibling::span[@class='move-cost']")
        if d["worlds"]:
            assert re.fullmatch(r"-?\d+ ± \d+ pontos", cost.inner_text()), cost.inner_text()
        else:
            assert cost.count() == 0
    # The close is said at the deal's last move.
    last = moves[-1]["view"]
    if last["end_reason"] in ("closed", "went out"):
        assert labels[-1].endswith(" e bateu"), labels[-1]

    # Any move jumps the board to the position after it, and is the current one.
    other = page.locator("#review-moves button[data-seat='1']").nth(3)
    other.click()
    assert page.input_value("#frame") == other.get_attribute("data-frame")
    assert other.get_attribute("aria-current") == "step"
    caption = page.locator("#replay-caption .what").inner_text()
    assert caption in other.inner_text(), (caption, other.inner_text())
    assert page.locator("#review-graph circle.point[aria-pressed=true]").count() == 0
    # The step buttons move the current move along the list.
    page.click("#next")
    index = int(other.get_attribute("data-index") or 0)
    after = page.locator(f"#review-moves button[data-index='{index + 1}']")
    assert after.get_attribute("aria-current") == "step"
    assert other.get_attribute("aria-current") is None
    # A decision chosen in the list: its point pressed in the graph, its note shown.
    tagged = page.locator("#review-moves button[data-decision]:not([data-tag=''])").first
    tagged.click()
    picked = tagged.get_attribute("data-index")
    page.locator("#review-better").wait_for(state="visible")
    point = page.locator(f"#review-graph circle.point[data-index='{picked}']")
    assert point.get_attribute("aria-pressed") == "true"
    assert tagged.get_attribute("aria-current") == "step"
    # A point chosen in the graph: its move pressed and current in the list, in sight.
    first = page.locator("#review-graph circle.point").first
    assert first.get_attribute("data-index") != picked
    # (a deal's points sit close together: chosen from the keyboard, as a point can be)
    first.focus()
    page.keyboard.press("Enter")
    row = page.locator(f"#review-moves button[data-index='{first.get_attribute('data-index')}']")
    assert row.get_attribute("aria-pressed") == "true"
    assert row.get_attribute("aria-current") == "step"
    assert tagged.get_attribute("aria-pressed") == "false"
    assert page.evaluate(
        """() => { const list = document.querySelector('#review-moves').getBoundingClientRect();
                   const row = document.querySelector('#review-moves [aria-current]').getBoundingClientRect();
                   return row.top >= list.top - 1 && row.bottom <= list.bottom + 1; }"""
    )
    page.locator("#review-moves").scroll_into_view_if_needed()
    shot(page, "analysis-moves-pt-1366")
    settle(page)
    assert all_violations(page) == []
    page.close()
