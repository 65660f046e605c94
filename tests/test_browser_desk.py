"""The director's desk in a real browser (Playwright, Debian's Chromium, headless).

The director creates a tournament, registers players, runs a round at physical
tables and enters a table's result, and the standings show it; then a round
online, and a player follows their personal link to their table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import CHROMIUM, shot
from waits import ms

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def _register(page: Any, first: str, second: str) -> None:
    page.fill("#entrant-name-0", first)
    page.fill("#entrant-name-1", second)
    page.click("#entrant-add")
    page.wait_for_selector(f"#entrants >> text={first}")


def test_a_director_runs_a_round_and_a_player_finds_the_table(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        desk = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        desk.on("pageerror", lambda e: errors.append(str(e)))
        desk.goto(f"{server.url}/desk")
        desk.fill("#t-name", "Tuesday club")
        desk.select_option("#t-format", "round-robin")
        desk.select_option("#t-kind", "pairs")
        desk.fill("#t-rounds", "")
        desk.click("#t-create")
        desk.wait_for_url(re.compile(r".*/desk/u-.*"))
        tid = desk.url.rsplit("/", 1)[-1].split("#")[0]
        _register(desk, "Anna", "Aldo")
        _register(desk, "Bruno", "Bice")
        _register(desk, "Carla", "Ciro")
        _register(desk, "Dario", "Dora")
        links = desk.eval_on_selector_all("#player-links a", "els => els.map(e => e.href)")
        assert len(links) == 8 and all("?player=" in link for link in links)
        shot(desk, "desk-entrants")

        # A round at physical tables: the director enters a table's result from its sheet.
        desk.click("#start-physical")
        form = desk.locator("form[data-table='1']").first
        form.wait_for()
        form.locator("[name=mp_first]").fill("1250")
        form.locator("[name=mp_second]").fill("400")
        form.locator("button[type=submit]").click()
        desk.wait_for_function(
            "() => [...document.querySelectorAll('#standings tr[data-entrant]')]"
            ".some(r => r.textContent.includes('1250') || r.textContent.includes('850'))",
            timeout=ms(30),
        )
        info = server.room and server.app.state.desk.public(server.app.state.desk.get(tid))
        first = info["rounds"][0]["tables"][0]
        assert first["result"]["mp_first"] == 1250
        rows = desk.eval_on_selector_all(
            "#standings tr[data-entrant]", "els => els.map(e => e.textContent)"
        )
        top = next(r for r in rows if "850" in r)
        assert str(first["result"]["vp_first"]) in top
        shot(desk, "desk-physical-result")
        form = desk.locator("form[data-table='2']").first
        form.locator("[name=mp_first]").fill("600")
        form.locator("[name=mp_second]").fill("600")
        form.locator("button[type=submit]").click()
        desk.wait_for_selector("#close-round:not([disabled])")
        desk.click("#close-round")

        # A round online: Anna follows her link to her seat in the web room.
        desk.wait_for_selector("#start-online:not([disabled])")
        desk.click("#start-online")
        desk.wait_for_selector("#rounds a[href^='/table/']", timeout=ms(30))
        # Nobody has opened a table yet: the desk lists who is not there, and the grace left.
        desk.wait_for_selector("#rounds .absent")
        absent = desk.eval_on_selector_all("#rounds .absent", "els => els.map(e => e.textContent)")
        assert any("Anna" in a for a in absent), absent
        assert all(re.search(r"\d+:\d\d", a) for a in absent), absent
        anna = browser.new_page(viewport={"width": 390, "height": 844})
        anna.goto(links[0])
        anna.wait_for_selector("#go-table")
        shot(anna, "player-view-phone")
        anna.click("#go-table")
        anna.wait_for_url(re.compile(r".*/table/t-.*"))
        anna.wait_for_selector("#hand [data-card]", timeout=ms(30))
        seat = anna.evaluate("() => window.burracoTable.state.seat")
        me = server.app.state.desk.me(tid, links[0].split("player=")[1])
        assert seat == me["current"]["seat"]
        shot(anna, "player-at-table-phone")
        # Anna is at her table: the desk no longer lists her (at its next poll).
        desk.wait_for_function(
            "() => ![...document.querySelectorAll('#rounds .absent')]"
            ".some(e => e.textContent.includes('Anna'))",
            timeout=ms(30),
        )
        assert not errors, errors


# Issue 20: each rule of either field of a result is one code whose params.field names the
# field, and "none" fills a round's missing tables; the desk says them, word for word, as
# it said the twin codes before (mp_first_step, leaver_not_at_table...).
ROUND_2 = {"table": 1, "round": 2}
LINE_8 = {**ROUND_2, "line": 8, "first": 7, "second": 9}
FOLDED: list[tuple[str, dict[str, str | int], dict[str, str]]] = [
    (
        "mp_not_whole",
        {**ROUND_2, "field": "mp_first", "value": "12.5"},
        {
            "en": "Table 1 of round 2: the first line’s MP must be a whole number of points, "
            "not 12.5.",
            "it": "Tavolo 1 del turno 2: gli MP della prima linea devono essere un numero "
            "intero di punti, non 12.5.",
            "pt": "Mesa 1 da rodada 2: os pontos da primeira equipe devem ser um número "
            "inteiro, não 12.5.",
        },
    ),
    (
        "mp_not_whole",
        {**ROUND_2, "field": "mp_second", "value": "12.5"},
        {
            "en": "Table 1 of round 2: the second line’s MP must be a whole number of points, "
            "not 12.5.",
            "it": "Tavolo 1 del turno 2: gli MP della seconda linea devono essere un numero "
            "intero di punti, non 12.5.",
            "pt": "Mesa 1 da rodada 2: os pontos da segunda equipe devem ser um número "
            "inteiro, não 12.5.",
        },
    ),
    (
        "mp_step",
        {**ROUND_2, "field": "mp_first", "value": 902, "step": 5},
        {
            "en": "Table 1 of round 2: the first line’s MP are 902, but points move in steps "
            "of 5 (every card and premium is a multiple of 5).",
            "it": "Tavolo 1 del turno 2: gli MP della prima linea sono 902, ma i punti vanno "
            "di 5 in 5 (ogni carta e ogni premio è un multiplo di 5).",
            "pt": "Mesa 1 da rodada 2: os pontos da primeira equipe são 902, mas os pontos "
            "andam de 5 em 5 (toda carta e todo prêmio é múltiplo de 5).",
        },
    ),
    (
        "mp_step",
        {**ROUND_2, "field": "mp_second", "value": 403, "step": 5},
        {
            "en": "Table 1 of round 2: the second line’s MP are 403, but points move in steps "
            "of 5 (every card and premium is a multiple of 5).",
            "it": "Tavolo 1 del turno 2: gli MP della seconda linea sono 403, ma i punti vanno "
            "di 5 in 5 (ogni carta e ogni premio è un multiplo di 5).",
            "pt": "Mesa 1 da rodada 2: os pontos da segunda equipe são 403, mas os pontos "
            "andam de 5 em 5 (toda carta e todo prêmio é múltiplo de 5).",
        },
    ),
    (
        "not_at_table",
        {**LINE_8, "field": "abandoned_by"},
        {
            "en": "Table 1 of round 2: line 8, said to have abandoned, does not sit at this "
            "table (lines 7 and 9).",
            "it": "Tavolo 1 del turno 2: la linea 8, indicata come ritirata, non siede a "
            "questo tavolo (linee 7 e 9).",
            "pt": "Mesa 1 da rodada 2: a equipe 8, indicada como a que abandonou, não joga "
            "nesta mesa (equipes 7 e 9).",
        },
    ),
    (
        "not_at_table",
        {**LINE_8, "field": "last_mover"},
        {
            "en": "Table 1 of round 2: line 8, said to have made the last move, does not sit "
            "at this table (lines 7 and 9).",
            "it": "Tavolo 1 del turno 2: la linea 8, indicata per l’ultima mossa, non siede a "
            "questo tavolo (linee 7 e 9).",
            "pt": "Mesa 1 da rodada 2: a equipe 8, indicada como a da última jogada, não "
            "joga nesta mesa (equipes 7 e 9).",
        },
    ),
    (
        "round_not_closed",
        {"round": 2, "missing": "3, 4"},
        {
            "en": "Round 2 is not closed yet (tables without a result: 3, 4): close it first.",
            "it": "Il turno 2 non è ancora chiuso (tavoli senza risultato: 3, 4): chiudilo prima.",
            "pt": "A rodada 2 ainda não foi encerrada (mesas sem resultado: 3, 4): encerre-a "
            "antes.",
        },
    ),
    (
        "round_not_closed",
        {"round": 2, "missing": "none"},
        {
            "en": "Round 2 is not closed yet (tables without a result: none): close it first.",
            "it": "Il turno 2 non è ancora chiuso (tavoli senza risultato: nessuno): chiudilo "
            "prima.",
            "pt": "A rodada 2 ainda não foi encerrada (mesas sem resultado: nenhuma): "
            "encerre-a antes.",
        },
    ),
]


def test_the_desk_says_a_folded_rule_by_the_field_it_names(browser: Any, tmp_path: Path) -> None:
    """Each folded code, with each value of the param that tells its cases apart, is said
    by the desk's own i18n module in English, Italian and Portuguese."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        page = browser.new_page()
        page.goto(f"{server.url}/desk")
        said: list[dict[str, str]] = page.evaluate(
            """async (cases) => {
              const m = await import('/static/i18n.js');
              const out = cases.map(() => ({}));
              for (const l of m.LANGS) {
                await m.setLang(l);
                cases.forEach(([rule, params], i) => {
                  out[i][l] = m.refusalText({ code: 'forbidden', rule, params, message: 'x' });
                });
              }
              await m.setLang('en');
              return out;
            }""",
            [[rule, params] for rule, params, _ in FOLDED],
        )
        page.close()
    assert said == [texts for _, _, texts in FOLDED]
