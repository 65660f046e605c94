"""The analysis page (issue 33 §4) in a real browser, on a laptop (1366x768) and on a
phone (390x844), in Italian and in Portuguese: the evaluation graph's points jump the board, every decision is
listed with its mark inline, the better move is drawn on the board beside its reason
(within the first screen), another seat's review is asked for when chosen, and the
seat's blunders and mistakes become exercises answered right and wrong; axe scans the
analysis and an exercise."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMIUM
from roomserver import RoomServer
from test_accessibility import all_violations, settle
from test_browser import shot
from test_browser_layout import SMALL_WORDS
from test_browser_review import REVIEWS, _finished_match, _one_deal  # noqa: F401 (a fixture)
from waits import ms

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

#: The words of each language the checks read.
WORDS = {
    "it": {"better": "Meglio: ", "progress": r"^1 di \d+$", "decimal": r"\d,\d%"},
    "pt": {"better": "Melhor: ", "progress": r"^1 de \d+$", "decimal": r"\d,\d%"},
}


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
    browser: Any, tmp_path: Path, lang: str, width: int, height: int
) -> None:
    words = WORDS[lang]
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", reviews=REVIEWS) as server:
        table = _finished_match(server)
        context = browser.new_context(locale=lang, viewport={"width": width, "height": height})
        page = context.new_page()
        page.add_init_script(f"localStorage.setItem('burraco.lang', '{lang}')")
        page.goto(f"{server.url}/replay/{table}?analyse=0")
        page.wait_for_selector("#review-panel[data-state=done][data-seat='0']", timeout=ms(120))
        decisions = _decisions(server, table, 0)
        summary = page.locator("#review-summary").inner_text()
        assert re.search(words["decimal"], summary), summary

        # Every decision listed, the marked ones with their mark inline.
        moves = page.locator("#review-moves button")
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
            page.locator(f"#review-moves button[data-index='{index}']").get_attribute(
                "aria-pressed"
            )
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
        assert page.locator("#review-moves button").count() == len(_decisions(server, table, 1))
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
