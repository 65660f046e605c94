"""A seat that follows the room's hint on every decision of a deal, in the browser, then
reads the analysis of that deal (issue 33, done when "a deal where every hint was followed
sums near zero in the room's own review, tried in the browser, both languages").

Anna, at an unrated table against the greedy bot, presses the page's hint button at each
of her actions in the deal and plays the action the hint names (through the page's own
socket, as its click sends it); then the replay page analyses her deal. The bound is
docs/review.md's calibration (b), the one the quick suite checks on two deals: the deal's
total is within noise (its 95% interval reaches zero or below, so the page says "nothing
lost beyond noise") and fewer than 5% of her weighed decisions are tagged.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from roomserver import RoomServer
from test_accessibility import all_violations, settle
from test_browser import create_table, wait_my_turn, wait_version_above
from test_browser_review import SEED
from waits import ms

from burraco.server.process.reviews import ReviewSettings
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

#: The calibration's budget (bench/review_calibration.py, docs/review.md): 24 sampled deals
#: a decision, stopped by the count, never the time, so the review is the same on any machine.
REVIEWS = ReviewSettings(workers=1, seconds=math.inf, worlds=24)
#: The room's own hint budget (the `hint_seconds` a room starts with).
HINT_SECONDS = 0.5
#: What the analysis says of a total within noise, in each language.
NOISE = {"it": "nulla di perso oltre il rumore", "pt": "nada perdido além do ruído"}
SIZES = {"laptop": (1366, 768), "phone": (390, 844)}


def _message(payload: str | bytes) -> dict[str, Any]:
    try:
        found = json.loads(payload)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _follow_every_hint(page: Any, sockets: list[Any]) -> list[dict[str, Any]]:
    """Anna's deal played by the hint: at each of her actions the page's hint button, then
    the action the hint names. The hints, each with the state it was asked in."""
    followed = []
    while True:
        state = wait_my_turn(page, timeout=ms(60))
        legal = state.get("legal") or []
        if not legal:
            return followed
        assert state["table"]["hints_closed"] is None, "an unrated table keeps its hints"
        socket = sockets[-1]
        page.wait_for_selector("#hint:not([disabled])")
        with socket.expect_event(
            "framereceived",
            predicate=lambda p: _message(p).get("type") in ("hint", "error"),
            timeout=ms(60),
        ) as answer:
            page.click("#hint")
        hint = _message(answer.value)
        assert hint["type"] == "hint", hint
        action = hint["action"]
        assert action in legal, (action, legal)
        # The page shows it: its words in a toast, its cards, pile, stock or meld marked.
        page.wait_for_selector("#toast[data-kind=hint]:not([hidden])")
        assert page.locator(".hinted").count() >= 1, action
        followed.append({"hint": hint, "legal": legal})
        page.evaluate("(a) => window.burracoTable.act(a)", action)
        wait_version_above(page, state["version"])


@pytest.fixture(scope="module")
def hint_followed(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RoomServer, Any, str, list[dict[str, Any]]]]:
    """Anna's deal played by the hint once, on the Italian page (the room, her page, the
    table and the hints followed); each language's test then reads its analysis on her
    page. Issue 34: each language played the same deal and had it reviewed again."""
    database = tmp_path_factory.mktemp("hint-follower") / "room.db"
    with RoomServer(f"sqlite:///{database}", reviews=REVIEWS, hint_seconds=HINT_SECONDS) as server:
        context = browser.new_context(
            locale="it", viewport=dict(zip(("width", "height"), SIZES["laptop"], strict=True))
        )
        page = context.new_page()
        page.add_init_script("localStorage.setItem('burraco.lang', 'it')")
        sockets: list[Any] = []
        page.on("websocket", lambda ws: sockets.append(ws) if "/ws/" in ws.url else None)
        # Every table from one seed, as test_browser_review.py's tables.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(secrets, "randbits", lambda bits: SEED)
            table = create_table(page, server.url, start=True)
        followed = _follow_every_hint(page, sockets)
        yield server, page, table, followed
        context.close()


@pytest.mark.parametrize("lang", ["it", "pt"])
def test_a_deal_played_by_the_hint_sums_near_zero_in_the_analysis(
    hint_followed: tuple[RoomServer, Any, str, list[dict[str, Any]]], lang: str
) -> None:
    server, page, table, followed = hint_followed
    decisions_played = [f for f in followed if len(f["legal"]) > 1]
    assert len(decisions_played) >= 20, len(followed)

    page.set_viewport_size(dict(zip(("width", "height"), SIZES["laptop"], strict=True)))
    # Her page in the test's language (?lang= before the saved choice); the first opening
    # asks for the review, the next reads it.
    page.goto(f"{server.url}/replay/{table}?analyse=0&lang={lang}")
    page.wait_for_selector("#review-panel[data-state=done][data-seat='0']", timeout=ms(300))
    assert page.evaluate("() => document.documentElement.lang").startswith(lang)
    with server.http() as http:
        reviews = http.get(f"/api/tables/{table}/reviews").json()["reviews"]
    (review,) = [r for r in reviews if (r["deal"], r["seat"]) == (1, 0)]
    weighed = [d for d in review["decisions"] if d["worlds"]]
    tagged = [d for d in weighed if d["tag"]]
    quick = sum(1 for f in followed if f["hint"].get("quick"))
    figures = (review["cost"], review["margin"], len(weighed), len(tagged), quick)
    # Near zero: the total's 95% interval reaches zero (docs/review.md, calibration (b)).
    assert review["cost"] - review["margin"] <= 0, figures
    assert len(tagged) < 0.05 * len(weighed), (figures, tagged)
    # Every decision she took is one the review weighed as hers.
    assert len(review["decisions"]) == len(decisions_played), figures
    summary = page.locator("#review-summary").inner_text()
    assert NOISE[lang] in summary, summary
    print(f"hint follower ({lang}): total, margin, weighed, tagged, quick hints = {figures}")

    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#review-summary").scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=f"/tmp/hint-follower-{lang}-{size}.png")
        assert all_violations(page) == [], size
