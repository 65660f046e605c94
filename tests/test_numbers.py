"""Numbers in the reader's language: a decimal comma in Italian and Portuguese
("precisione 71,3%", "precisão 71,3%"), a point in English.

Every decimal or percentage a page shows goes through one helper, ``formatNumber`` of
``src/burraco/web/i18n.js`` (Intl.NumberFormat in the page's language): no script
formats a number by itself (``toFixed`` and the like write a point in every language).
The browser test reads the helper in each language and the pages of numbers (the
leaderboard, a player's page, the history, a replay and its speeds) in Italian and
Portuguese.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser_community import _rated_match

from conftest import CHROMIUM

WEB = Path(__file__).resolve().parent.parent / "src" / "burraco" / "web"

#: Ways of writing a number that ignore the page's language.
BY_ITSELF = re.compile(r"\.toFixed\(|\.toPrecision\(|\.toLocaleString\(|Intl\.NumberFormat\(")

#: A number with a decimal point ("71.3"), as an Italian or a Portuguese never writes it.
DECIMAL_POINT = r"\d\.\d"


def test_no_script_formats_a_number_past_the_helper() -> None:
    found = []
    for script in sorted(WEB.glob("*.js")):
        for n, line in enumerate(script.read_text().splitlines(), 1):
            if BY_ITSELF.search(line) and not (
                script.name == "i18n.js" and "Intl.NumberFormat(locale()" in line
            ):
                found.append(f"{script.name}:{n}: {line.strip()}")
    assert not found, "numbers formatted past formatNumber:\n" + "\n".join(found)
    assert "export function formatNumber" in (WEB / "i18n.js").read_text()


def test_the_check_finds_a_number_formatted_by_itself() -> None:
    assert BY_ITSELF.search("accuracy: review.accuracy.toFixed(1),")
    assert re.search(DECIMAL_POINT, "precisão 71.3%")
    assert not re.search(DECIMAL_POINT, "precisão 71,3% · 28 de nov. de 2026")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_the_pages_write_a_decimal_comma_in_italian_and_portuguese(
    browser: Any, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'room.db'}"
    table = _rated_match(url)
    with RoomServer(url) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/history")
        page.wait_for_selector(".match-row")
        said = page.evaluate(
            """async () => {
              const m = await import('/static/i18n.js');
              const out = {};
              for (const l of m.LANGS) {
                await m.setLang(l);
                out[l] = [m.formatNumber(71.3), m.formatNumber(71, { digits: 1, fixed: true }),
                          m.formatNumber(-12.25, { digits: 2 }), m.formatNumber(1230)];
              }
              return out;
            }"""
        )
        assert said == {
            "en": ["71.3", "71.0", "-12.25", "1230"],
            "it": ["71,3", "71,0", "-12,25", "1230"],
            "pt": ["71,3", "71,0", "-12,25", "1230"],
        }, said
        page.close()
        for lang in ("it", "pt"):
            context = browser.new_context()
            context.add_init_script(f"localStorage.setItem('burraco.lang', '{lang}')")
            page = context.new_page()
            for path, ready in (
                ("/leaderboard/italian-2", "body[data-ready=true] .board-table"),
                ("/player/Anna", "body[data-ready=true]"),
                ("/history", ".match-row"),
                (f"/replay/{table}", "#speed"),  # its speeds named as the page loads
            ):
                page.goto(f"{server.url}{path}")
                page.wait_for_selector(ready)
                options = page.eval_on_selector_all("option", "os => os.map((o) => o.text)")
                text = page.inner_text("body") + " " + " ".join(options)
                points = re.findall(rf"\S*{DECIMAL_POINT}\S*", text)
                assert not points, f"{lang} {path}: a decimal point in {points}"
            context.close()
