"""The end of a match in a real browser (issue 31): a whole 2-deal match against a bot,
without a reload, in every game family. Deal 1's window starts deal 2 and its button works
again afterwards; the last deal's window says the match is over and leads to the final sheet,
by its button or by Esc."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMIUM
from roomserver import RoomServer
from test_browser import create_table, shot
from waits import ms

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
        for link in ("#analyse-link", "#replay-link", "#score-sheet a[href='/']"):
            assert page.locator(link).is_visible(), link
        shot(page, f"match-end-{variant}")
        assert not errors, errors
        page.close()
