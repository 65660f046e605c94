"""The rules pages: the figures they show come from the engine, and say it in three languages.

``burraco.rulebook.figures`` reads every number of a rules page from the
:class:`~burraco.variants.Variant` (and the VP rules, the deal's pozzetti): the unit
tests check it against the Variant's fields and against a few figures written in
``RULES.md``. ``GET /api/rules/{variant}`` serves it (404 for another name);
``/rules/{variant}`` is the page, whose texts are keys of i18n.js with ``{params}``
filled from that answer. In Chromium: Italian Burraco in Italian, Buraco in
Brazilian Portuguese and Canasta in English, on a desktop and on a phone, with a
figure on the page equal to the API's and no raw key or ``{param}`` left; the
screenshots are kept in ``artifacts/screenshots/rules-*.png``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_browser import switch_language
from test_i18n import LANGS, texts
from waits import ms

from burraco.rulebook import figures
from burraco.variants import PRESETS, VP_TABLE_3, variant
from burraco.vp import ABANDON_MIN_VP, vp_band_floor

WEB = Path(__file__).resolve().parent.parent / "src" / "burraco" / "web"
SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"


def bonus(found: dict[str, Any], grade: str) -> int:
    by_grade = {g["grade"]: g["bonus"] for g in found["grades"]}
    return int(by_grade[grade])


def value(found: dict[str, Any], rank: str) -> int:
    return next(int(g["points"]) for g in found["values"] if rank in g["ranks"])


# ---------------------------------------------------------------- figures(v)


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_figures_are_the_variants_own(name: str) -> None:
    v = PRESETS[name]
    f = figures(v)
    assert f["variant"] == name and f["family"] == v.family
    assert f["cards"]["hand_size"] == v.hand_size
    assert f["cards"]["total"] == v.deck_size == 52 * v.decks + v.jokers
    # Every card value, by rank, as Variant.values counts it (0 the joker, 1 the ace).
    for rank, name_ in enumerate(
        ("joker", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    ):
        if rank == 0 and not v.jokers:
            assert all("joker" not in g["ranks"] for g in f["values"])
            continue
        assert value(f, name_) == v.values[rank], name_
    assert bonus(f, "clean") == v.clean_bonus
    assert bonus(f, "dirty") == v.dirty_bonus
    assert ("semi-clean" in {g["grade"] for g in f["grades"]}) == v.semi_clean
    if v.semi_clean:
        assert bonus(f, "semi-clean") == v.semi_clean_bonus
    out = f["going_out"]
    assert out["closing_bonus"] == v.closing_bonus
    assert out["pozzetti"] == v.pozzetti
    assert out["no_pozzetto_penalty"] == (v.no_pozzetto_penalty if v.pozzetti else 0)
    assert out["pozzetto_size"] == (v.pozzetto_size if v.pozzetti else 0)
    assert f["cards"]["opening_minimum"] == v.opening_minimum
    assert f["cards"]["red_three_bonus"] == (v.red_three_bonus if v.red_threes else 0)
    assert f["melds"]["burraco_length"] == v.burraco_length
    assert f["melds"]["max_wildcards"] == v.max_wildcards
    match = f["match"]
    assert (match["target"], match["deals"]) == (v.target, v.deals)
    assert match["move_seconds"] == v.move_seconds
    assert match["abandon"]["penalty"] == v.abandon_penalty
    assert match["abandon"]["min_vp"] == ABANDON_MIN_VP
    assert match["abandon"]["min_vp_mp"] == vp_band_floor(ABANDON_MIN_VP, v.vp_table)
    # The VP bands are the table's, in order, each ending where the table says; 20/0 above.
    bands = match["vp_bands"]
    assert [(b["high"], b["winner"]) for b in bands[:-1]] == list(v.vp_table)
    assert all(b["winner"] + b["loser"] == match["vp_total"] == 20 for b in bands)
    assert bands[-1]["high"] is None and bands[-1]["winner"] == 20
    assert bands[-1]["low"] > v.vp_table[-1][0]
    if v.vulnerable_at:
        assert f["vulnerability"] == {
            "at": v.vulnerable_at,
            "minimum": v.vulnerable_minimum,
            "penalty_minimum": v.vulnerable_penalty_minimum,
            "refuse": v.vulnerable_refuse,
        }
    else:
        assert f["vulnerability"] is None
    # Every table of the preset, as variant() builds it.
    from burraco.variants import SETUPS

    setups = [(s["players"], s["lines"]) for s in f["setups"]]
    assert setups == [(p, ln) for n, p, ln in SETUPS if n == name]
    for s in f["setups"]:
        table = variant(name, players=s["players"], lines=s["lines"])
        assert (s["decks"], s["jokers"], s["cards"]) == (table.decks, table.jokers, table.deck_size)


def test_italian_burraco_figures_as_rules_md_writes_them() -> None:
    f = figures(variant("italian"))
    # RULES.md, Burraco: "plus 200 / 150 / 100 for each clean / semi-clean / dirty burraco,
    # plus 100 for closing, minus 100 if it never took its pozzetto."
    assert [(g["grade"], g["bonus"]) for g in f["grades"]] == [
        ("clean", 200),
        ("semi-clean", 150),
        ("dirty", 100),
    ]
    assert f["going_out"]["closing_bonus"] == 100
    assert f["going_out"]["no_pozzetto_penalty"] == 100
    # "Card values: 3-7 = 5; 8-K = 10; A = 15; 2 = 20; joker = 30."
    assert f["values"] == [
        {"ranks": ["joker"], "points": 30},
        {"ranks": ["2"], "points": 20},
        {"ranks": ["A"], "points": 15},
        {"ranks": ["K", "Q", "J", "10", "9", "8"], "points": 10},
        {"ranks": ["7", "6", "5", "4", "3"], "points": 5},
    ]
    # The table of "Variants we ship": 108 cards, 11 in a hand, pozzetti of 11, 2005 points.
    assert (f["cards"]["total"], f["cards"]["hand_size"]) == (108, 11)
    assert (f["going_out"]["pozzetto_size"], f["match"]["target"]) == (11, 2005)
    # "up to 50 = 10/10, up to 150 = 11/9, ... 1500 = 19/1, over 1500 = 20/0."
    bands = f["match"]["vp_bands"]
    assert bands[0] == {"low": 0, "high": 50, "winner": 10, "loser": 10}
    assert bands[1] == {"low": 55, "high": 150, "winner": 11, "loser": 9}
    assert bands[-1] == {"low": 1505, "high": None, "winner": 20, "loser": 0}
    # "d = (other line + 350) - leaver ... the other line gets the higher of 14 and the VP
    # for d ... the other line's MP is the lower end of its VP band (355 for 14)."
    assert f["match"]["abandon"] == {
        "penalty": 350,
        "min_vp": 14,
        "min_vp_mp": 355,
        "one_off_vp": 20,
    }
    # "3 players: pozzetti of 18 and 11 ... Once all three have 1000 points, deals go back
    # to three players alone with three pozzetti of 11."
    three = next(s for s in f["setups"] if s["players"] == 3)
    assert (three["pozzetti"], three["later_pozzetti"], three["phase_limit"]) == (
        [18, 11],
        [11, 11, 11],
        1000,
    )
    # "5 players, 3 decks: pozzetti of 18, 11 and 11 ... Once a player reaches 1005".
    five = next(s for s in f["setups"] if s["players"] == 5)
    assert (five["decks"], five["pozzetti"], five["phase_limit"]) == (3, [18, 11, 11], 1005)
    # "6 players ... a line must have a burraco before it may take its pozzetto."
    assert all(s["burraco_before_pozzetto"] for s in f["setups"] if s["players"] == 6)


def test_online_burraco_is_a_number_of_deals() -> None:
    f = figures(variant("online"))
    assert (f["match"]["target"], f["match"]["deals"]) == (None, 3)
    assert [(s["players"], s["lines"]) for s in f["setups"]] == [(2, 2), (4, 2)]
    assert f["grades"] == figures(variant("italian"))["grades"]


def test_buraco_figures_as_rules_md_writes_them() -> None:
    f = figures(variant("buraco"))
    # RULES.md, Buraco: "Canastra: 7 or more cards; clean (limpa, 200) or dirty (suja, 100)
    # ... Relancinho ... +100 ... A canastra of 2s scores 1000 instead of 200 / 100".
    assert [(g["grade"], g["bonus"]) for g in f["grades"]] == [
        ("clean", 200),
        ("dirty", 100),
        ("twos", 1000),
    ]
    assert f["melds"]["burraco_length"] == 7 and f["melds"]["relancinho_bonus"] == 100
    # "Going out (batida, +50)"; no pozzetto.
    assert f["going_out"]["closing_bonus"] == 50
    assert not f["going_out"]["pozzetti"] and f["going_out"]["no_pozzetto_penalty"] == 0
    # "Card values as written in 001: 3-7 = 5; 8-K = 20; A = 15; 2 = 10." No jokers.
    assert [(g["ranks"][0], g["points"]) for g in f["values"]] == [
        ("2", 10),
        ("A", 15),
        ("K", 20),
        ("7", 5),
    ]
    # "Vulnerable: a line with at least half of the target (750) ... 75 points or more ...
    # that line needs 90"; "First to reach 1500 wins".
    assert f["vulnerability"] == {"at": 750, "minimum": 75, "penalty_minimum": 90, "refuse": False}
    assert f["match"]["target"] == 1500
    # "Sets (trinca) are 3 to 8 cards of one rank."
    assert f["melds"]["set_max"] == 8
    assert all(s["pozzetti"] == [] for s in f["setups"])


def test_brazilian_figures_as_docs_brazil_writes_them() -> None:
    # docs/brazil.md: "Card values, on the table and in hand: joker 50, 2 10, ace 15, 8 to K
    # 10, 3 to 7 5"; a morto taken by a discard and unused at the deal's end counts as never
    # taken (`unused_morto_untaken`), which the page says in place of the partner's discard.
    for name in ("buraco-aberto", "buraco-fechado", "stbl"):
        f = figures(variant(name))
        assert [(g["ranks"][0], g["points"]) for g in f["values"]] == [
            ("joker", 50),
            ("2", 10),
            ("A", 15),
            ("K", 10),
            ("7", 5),
        ]
        assert f["going_out"]["unused_morto_untaken"]
        off = figures(variant(name, unused_morto_untaken=False, twos_20=True))
        assert not off["going_out"]["unused_morto_untaken"] and value(off, "2") == 20
    assert not figures(variant("italian"))["going_out"]["unused_morto_untaken"]


def test_canasta_figures_as_rules_md_writes_them() -> None:
    f = figures(variant("canasta"))
    # RULES.md, Canasta: "Clean 500, dirty 300; of wildcards only: six jokers and one 2 5000
    # (checked first), all 2s 3000, any other mix 2000."
    assert [(g["grade"], g["bonus"]) for g in f["grades"]] == [
        ("clean", 500),
        ("dirty", 300),
        ("jokers", 5000),
        ("twos", 3000),
        ("twos-and-jokers", 2000),
    ]
    # "the line needs two canastas, one of them clean (+300)"; "each scores +100";
    # "at least 50"; "162 cards, 15 each"; "First to 15000 wins."
    assert f["going_out"]["closing_bonus"] == 300
    assert f["cards"]["red_three_bonus"] == 100
    assert f["cards"]["opening_minimum"] == 50
    assert (f["cards"]["total"], f["cards"]["hand_size"], f["cards"]["draw_count"]) == (162, 15, 2)
    assert f["match"]["target"] == 15000
    # "joker 50; 2 and A 20; 8-K 10; 4-7 5; black 3 5."
    assert (value(f, "joker"), value(f, "2"), value(f, "A")) == (50, 20, 20)
    assert (value(f, "K"), value(f, "8"), value(f, "7"), value(f, "3")) == (10, 10, 5, 5)


def test_the_figures_follow_the_options() -> None:
    """Another reading of a rule is another figure: the page says what the engine plays."""
    f = figures(variant("buraco", scoring_500=True, target=3000))
    assert bonus(f, "clean") == 500 and f["going_out"]["closing_bonus"] == 100
    assert f["vulnerability"] is not None and f["vulnerability"]["at"] == 1500
    f = figures(variant("italian", semi_clean=False, vp_table=4))
    assert "semi-clean" not in {g["grade"] for g in f["grades"]}
    assert f["match"]["vp_bands"][0]["high"] == 100
    assert figures(variant("italian"))["match"]["vp_bands"][0]["high"] == VP_TABLE_3[0][0]


# ---------------------------------------------------------------- the texts


def test_every_rules_key_of_the_page_is_said_in_every_language() -> None:
    """rules.js names its texts in tables (not through t('literal')), so check them here."""
    source = (WEB / "rules.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"'((?:rules|desk|table)\.[\w.\-]+)'", source))
    assert len(keys) > 60, sorted(keys)
    found = texts()
    for lang in LANGS:
        missing = sorted(k for k in keys if k not in found[lang])
        assert not missing, f"{lang} lacks {missing}"
    # No text of the rules holds a number of its own where the data has one.
    for lang in LANGS:
        for key, text in found[lang].items():
            if key.startswith(
                (
                    "rules.intro.",
                    "rules.burraco.",
                    "rules.buraco.",
                    "rules.canasta.",
                    "rules.morto.",
                )
            ):
                bare = re.findall(r"(?<![{\w♥♣A-Z=-])\b(1[0-9]{2,}|[2-9]0+)\b", text)
                assert not bare, f"{lang} {key}: {bare}"


# ---------------------------------------------------------------- the API


def test_the_api_serves_the_figures_and_the_pages(tmp_path: Path) -> None:
    from roomserver import RoomServer

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        for name, v in PRESETS.items():
            answer = http.get(f"/api/rules/{name}")
            assert answer.status_code == 200, answer.text
            assert answer.json() == figures(v)
            page = http.get(f"/rules/{name}")
            assert page.status_code == 200 and "rules.js" in page.text
            assert "script-src 'self'" in page.headers["content-security-policy"]
        assert http.get("/rules").status_code == 200
        missing = http.get("/api/rules/tresette")
        assert missing.status_code == 404
        assert missing.json()["code"] == "not_found"
        assert "tresette" in missing.json()["detail"] and "italian" in missing.json()["detail"]
        assert http.get("/rules/tresette").status_code == 404
        # The room's names only: an alias of variant() is not a rules page.
        assert http.get("/api/rules/burraco").status_code == 404
        assert http.get("/static/rules.js").status_code == 200


# ---------------------------------------------------------------- in Chromium

RAW = re.compile(
    r"\{[a-z_0-9]+\}|\brules\.[a-z_.-]+|\b(?:table|desk|grade)\.[a-z_]+|\b(?:undefined|null|NaN)\b"
)


def smallest_text(page: Any) -> list[Any]:
    """The smallest font size of any visible element with text of its own, and where."""
    found: list[Any] = page.evaluate(
        """() => {
          let least = [1000, ''];
          for (const e of document.querySelectorAll('body *')) {
            const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
            if (!own || !e.getClientRects().length) continue;
            const size = parseFloat(getComputedStyle(e).fontSize);
            if (size < least[0]) least = [size, e.tagName + ' ' + e.textContent.trim().slice(0, 40)];
          }
          return least;
        }"""
    )
    return found


def open_rules(browser: Any, url: str, locale: str, phone: bool) -> tuple[Any, Any, list[str]]:
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 900}
    context = browser.new_context(locale=locale, viewport=size, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready] #rules h1")
    return context, page, errors


@pytest.mark.parametrize(
    ("game", "locale", "words"),
    [
        (
            "italian",
            "it-IT",
            ("Il pozzetto e la chiusura", "tallone", "pinelle", "Burraco pulito", "Chiusura"),
        ),
        ("buraco", "pt-BR", ("A batida", "morto", "lixo", "monte", "Canastra limpa", "trinca")),
        ("canasta", "en-GB", ("Going out", "Clean canasta", "red 3", "pile")),
        (
            "stbl",
            "pt-BR",
            ("Buraco fechado STBL", "morto", "O lixo é fechado", "Sem trinca", "canastra limpa"),
        ),
    ],
)
def test_a_rules_page_says_the_engines_figures_in_the_players_language(
    browser: Any, tmp_path: Path, game: str, locale: str, words: tuple[str, ...]
) -> None:
    from roomserver import RoomServer

    SHOTS.mkdir(parents=True, exist_ok=True)
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        with server.http() as http:
            data = http.get(f"/api/rules/{game}").json()
        for phone in (False, True):
            context, page, errors = open_rules(browser, f"{server.url}/rules/{game}", locale, phone)
            body = str(page.inner_text("body"))
            for word in words:
                assert word in body, word
            assert not RAW.search(body), RAW.search(body)
            # The clean bonus, a card value and the first VP band, as the API gives them.
            clean = page.inner_text('.bonuses tr[data-grade="clean"] td')
            assert clean == f"+{bonus(data, 'clean')}"
            ace = page.inner_text('.values tr[data-ranks="A"] td')
            assert ace == str(value(data, "A"))
            band = data["match"]["vp_bands"][0]
            first = page.locator(".vp tbody tr").first
            assert first.inner_text().split() == [
                f"{band['low']}–{band['high']}",
                str(band["winner"]),
                "–",
                str(band["loser"]),
            ]
            # Figures inside the words come from the data too.
            target = data["match"]["target"]
            assert f"{target}" in page.inner_text("#rules .intro")
            closing = page.inner_text("#rules-close")
            assert str(data["going_out"]["closing_bonus"]) in closing
            lang = {"it-IT": "it", "pt-BR": "pt-BR", "en-GB": "en"}[locale]
            assert page.evaluate("() => document.documentElement.lang") == lang
            assert page.get_attribute('a[href="/"].button', "href") == "/"
            if phone:
                overflow = page.evaluate(
                    "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"the page is {overflow}px wider than the phone"
                size, where = smallest_text(page)
                assert size >= 14, f"{size}px: {where}"
            suffix = "-phone" if phone else ""
            page.screenshot(path=str(SHOTS / f"rules-{game}{suffix}.png"))
            page.locator("#rules-score").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"rules-{game}-score{suffix}.png"))
            assert not errors, errors
            context.close()


def test_the_list_of_games_and_the_links_to_the_rules(browser: Any, tmp_path: Path) -> None:
    from roomserver import RoomServer, create_table, start_table

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        context = browser.new_context(locale="pt-BR", viewport={"width": 390, "height": 844})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # The lobby links to the list of the games.
        page.goto(f"{server.url}/")
        # The page is written in English and translated by its script: wait for that.
        page.wait_for_function("() => document.documentElement.lang === 'pt-BR'")
        assert page.inner_text("#rules-link") == "Regras"
        page.click("#rules-link")
        page.wait_for_selector("body[data-ready] .rules-list li p")
        body = str(page.inner_text("body"))
        assert "As regras dos jogos" in body and not RAW.search(body), RAW.search(body)
        assert page.locator(".rules-list li").count() == len(PRESETS)
        assert "2005" in page.inner_text('.rules-list li[data-variant="italian"]')
        page.screenshot(path=str(SHOTS / "rules-list-phone.png"))
        page.click('.rules-list li[data-variant="buraco"] a.button')
        page.wait_for_selector("body[data-ready] #rules section")
        assert page.url.endswith("/rules/buraco")
        # A change of language in the page says the same rules in the other words.
        switch_language(page)
        assert "Going out (batida)" in page.inner_text("#rules")
        # The table's settings open the rules of that table's game.
        table = create_table(server, variant="buraco", name="Ana")
        start_table(server, table)
        page.evaluate(
            "([id, seat, token]) => localStorage.setItem('burraco.seats', JSON.stringify({[id]: {seat, token}}))",
            [table["table"], table["seat"], table["token"]],
        )
        page.goto(f"{server.url}{table['url']}")
        page.wait_for_function(
            "() => document.getElementById('rules-link').getAttribute('href') === '/rules/buraco'",
            timeout=ms(30),
        )
        assert not errors, errors
        context.close()


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_rules_pages_have_no_accessibility_violations(
    browser: Any, tmp_path: Path, phone: bool
) -> None:
    from roomserver import RoomServer
    from test_accessibility import all_violations, settle

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        for path in ("/rules", "/rules/italian", "/rules/buraco"):
            context, page, errors = open_rules(browser, f"{server.url}{path}", "en-GB", phone)
            settle(page)
            found = all_violations(page)
            assert not found, f"{path}:\n" + "\n".join(found)
            assert not errors, errors
            context.close()
