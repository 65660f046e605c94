"""The Brazilian rooms' games in a real browser (Playwright, Debian's Chromium): a whole deal
of Buraco fechado STBL by clicks, on a phone, in Portuguese (issue 24).

The lobby offers the game; the closed pile shows its top card only, with a count of the
cards under it; a take of the closed pile asks for its top card to be melded first (the
turn prompt says so), which the player does by raising cards and pressing the new-meld
button; every other turn draws from the stock and discards, until the deal ends.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import (
    CHROMIUM,
    hasten_animations,
    shot,
    state,
    submit_table_form,
    wait_my_turn,
    wait_version_above,
)
from waits import ms

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def _raise(page: Any, cards: list[str]) -> None:
    """Raise these cards of the hand (the n-th copy of a card for its n-th mention)."""
    seen: Counter[str] = Counter()
    for card in cards:
        page.click(f'#hand [data-card="{card}"] >> nth={seen[card]}')
        seen[card] += 1


def test_a_deal_of_stbl_by_clicks_on_a_phone_in_portuguese(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        context = browser.new_context(locale="pt-BR", viewport={"width": 390, "height": 844})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
        labels = page.eval_on_selector_all("#variant option", "os => os.map((o) => o.textContent)")
        assert {"Buraco aberto", "Buraco fechado", "Buraco fechado STBL"} <= set(labels), labels
        page.fill("#name", "Ana")
        page.select_option("#variant", "stbl")
        page.select_option("#setup", "2:2")
        page.check("#by-deals")
        page.fill("#deals", "1")
        page.fill("#move-seconds", "0")
        page.select_option("#bot", "greedy")
        submit_table_form(page)
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        hasten_animations(page)  # a click waits for its card to land (Playwright's "stable")
        took = False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            s = wait_my_turn(page, timeout=ms(60))
            legal = s.get("legal") or []
            if not legal:
                break
            view = s["view"]
            # The closed pile: the top card only, and how many lie face down under it.
            assert len(view["pile"]) <= 1
            assert page.locator("#pile-strip .card").count() == 0
            if view.get("pile_hidden"):
                assert "virada" in page.inner_text("#pile")
            version = s["version"]
            if view["phase"] == "draw":
                if "take" in legal and (not took or "draw" not in legal):
                    page.click("#pile")
                    wait_version_above(page, version)
                    s = state(page)
                    top = s["view"]["pile_top"]
                    assert "topo do lixo" in page.inner_text("#turn"), page.inner_text("#turn")
                    shot(page, "stbl-closed-pile-take-phone-pt")
                    melds = [a for a in s["legal"] if a.startswith("meld ")]
                    assert s["legal"] and all(top in a.split()[1:] for a in s["legal"])
                    if melds:
                        _raise(page, melds[0].split()[1:])
                        version = s["version"]
                        page.click("#new-meld")
                    else:  # onto one of the line's melds: raise the top, press the meld
                        target = int(s["legal"][0].split()[1])
                        _raise(page, [top])
                        version = s["version"]
                        page.click(f'.meld[data-line="{s["view"]["line"]}"][data-meld="{target}"]')
                    wait_version_above(page, version)
                    assert "pile_top" not in state(page)["view"]
                    took = True
                    continue
                # The stock and the mortos gone, and the pile not to be taken: pass.
                page.click("#stock" if "draw" in legal else "#pass")
                wait_version_above(page, version)
                continue
            discards = [a.split()[1] for a in legal if a.startswith("discard ")]
            if not discards:  # only lay-downs (a closed pile's top): play the first
                page.evaluate("(a) => window.burracoTable.act(a)", legal[0])
                wait_version_above(page, version)
                continue
            # One card raised, as a discard needs ("raise one card"): a card still raised from
            # an earlier lay-down the room refused would be lowered by this click instead.
            page.keyboard.press("Escape")
            page.click(f'#hand [data-card="{discards[-1]}"] >> nth=0')
            page.click("#pile")
            wait_version_above(page, version)
        final = state(page)
        assert final["view"]["phase"] == "over" or final["table"]["status"] == "over"
        assert took, "the deal never let the player take the closed pile"
        shot(page, "stbl-deal-over-phone-pt")
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the table is {overflow}px wider than the phone"
        assert not errors, errors
        context.close()
