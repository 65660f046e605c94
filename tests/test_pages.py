"""The pages' shared head and header bar: written once in ``web/parts/``, filled in by the
room wherever it serves a page (``burraco.server.routes.shells``), with the catalogues beside them.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from waits import seconds

from burraco.server.routes.shells import WEB, assemble, page

PARTS = WEB / "parts"
PAGES = sorted(WEB.glob("*.html"))
# Each part's own lines, which no page writes again (the fold stays folded).
SHARED = [
    '<meta charset="utf-8">',
    '<meta name="color-scheme" content="light">',
    '<link rel="stylesheet" href="/static/app.css">',
    '<span class="brand-suits"',
    '<details id="lang"',
]


def test_every_page_has_the_shared_head_and_bar_once_and_writes_none_of_it() -> None:
    assert len(PAGES) >= 10, PAGES
    for path in PAGES:
        source = path.read_text(encoding="utf-8")
        repeated = [line for line in SHARED if line in source]
        assert not repeated, f"{path.name} writes {repeated}: name the part instead"
        filled = page(path).body.decode("utf-8")
        assert "<!--#" not in filled, path.name
        head = filled.split("</head>", 1)[0]
        # The charset within the first 1024 bytes, as the HTML standard asks.
        assert filled.encode().index(b'<meta charset="utf-8">') < 1024, path.name
        for line in SHARED[:3]:
            assert head.count(line) == 1, (path.name, line)
        bar = filled.split('<header class="topbar">', 1)[1].split("</header>", 1)[0]
        assert bar.count('<a class="brand" href="/"') == 1, path.name
        assert bar.count('<span class="brand-suits" aria-hidden="true">♠') == 1, path.name
        assert bar.count('<details id="lang" class="lang-menu">') == 1, path.name
        # Each page's own parts stay its own: its title and its script.
        assert re.search(r"<title data-i18n=\"[\w.]+\">", head), path.name
        assert f'src="/static/{path.stem}' in head or path.name == "index.html", path.name


def test_a_part_takes_the_indentation_of_its_mark_and_may_name_another(tmp_path: Path) -> None:
    (tmp_path / "two.html").write_text("<a>\n  <b></b>\n</a>\n", encoding="utf-8")
    (tmp_path / "inner.html").write_text("<i>x</i>\n", encoding="utf-8")
    (tmp_path / "outer.html").write_text("<p><!--#include inner.html--></p>\n", encoding="utf-8")
    used: list[Path] = []
    text = "<div>\n    <!--#include two.html-->\n  <!--#include outer.html-->\n</div>"
    assert assemble(text, tmp_path, used) == (
        "<div>\n    <a>\n      <b></b>\n    </a>\n  <p><i>x</i></p>\n</div>"
    )
    assert [p.name for p in used] == ["two.html", "outer.html", "inner.html"]
    assert assemble("no mark", tmp_path) == "no mark"


def test_a_missing_part_or_a_loop_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no part gone\.html"):
        assemble("<!--#include gone.html-->", tmp_path)
    (tmp_path / "a.html").write_text("<!--#include b.html-->", encoding="utf-8")
    (tmp_path / "b.html").write_text("<!--#include a.html-->", encoding="utf-8")
    with pytest.raises(ValueError, match="a loop"):
        assemble("<!--#include a.html-->", tmp_path)


def test_a_page_is_made_again_when_a_part_changes(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    part = tmp_path / "parts" / "bar.html"
    part.write_text("<b>one</b>\n", encoding="utf-8")
    path = tmp_path / "p.html"
    path.write_text("<!--#include bar.html-->\n", encoding="utf-8")
    first = page(path)
    assert first.body == b"<b>one</b>\n" and page(path) is first
    part.write_text("<b>two, longer</b>\n", encoding="utf-8")
    second = page(path)
    assert second.body == b"<b>two, longer</b>\n" and second.etag != first.etag


def test_the_room_serves_the_pages_filled_in_and_the_catalogues(tmp_path: Path) -> None:
    """At a page's own address and under /static (the demo tables), the page filled in,
    with an ETag that a browser's revalidation meets with 304; the catalogues as JSON."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        for address, name in (
            ("/", "index.html"),
            ("/rules", "rules.html"),
            ("/leaderboard", "leaderboard.html"),
            ("/account", "account.html"),
            ("/static/table.html?demo=1", "table.html"),
            ("/static/replay.html", "replay.html"),
        ):
            answer = http.get(address)
            assert answer.status_code == 200, address
            assert answer.headers["content-type"] == "text/html; charset=utf-8", address
            assert answer.content == page(WEB / name).body, address
            assert "script-src 'self'" in answer.headers["content-security-policy"]
        etag = http.get("/static/table.html").headers["etag"]
        again = http.get("/static/table.html", headers={"If-None-Match": etag})
        assert again.status_code == 304 and not again.content
        # The parts themselves and the other files stay as they are.
        assert http.get("/static/parts/lang.html").text == (PARTS / "lang.html").read_text()
        assert http.get("/static/app.css").status_code == 200
        assert http.get("/static/nothing.html").status_code == 404
        for lang in ("en", "it", "pt"):
            answer = http.get(f"/static/i18n/{lang}.json")
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("application/json")
            assert answer.json() == json.loads((WEB / "i18n" / f"{lang}.json").read_text())


def test_the_package_ships_the_catalogues_and_the_parts() -> None:
    pyproject = (WEB.parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    data = re.search(r"\[tool\.setuptools\.package-data\]\nburraco = \[([^\]]*)\]", pyproject)
    assert data, "no package-data for burraco"
    patterns = re.findall(r'"([^"]+)"', data.group(1))
    package = WEB.parent
    shipped = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    for needed in [*PAGES, *PARTS.glob("*.html"), *(WEB / "i18n").glob("*.json")]:
        assert needed in shipped, f"{needed.relative_to(package)} is not in the package data"


def test_a_page_whose_texts_do_not_arrive_speaks_english_then_fetches_them_again(
    browser: Any, tmp_path: Path
) -> None:
    """An Italian reader whose catalogue fails to arrive reads the page in English, with
    no error; the language menu, opened, fetches it again, and chosen, the page speaks
    Italian."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        context = browser.new_context()
        context.add_init_script("localStorage.setItem('burraco.lang', 'it')")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        refused: list[str] = []

        def refuse(route: Any) -> None:
            refused.append(route.request.url)
            route.abort()

        page.route("**/static/i18n/it.json", refuse)
        page.goto(f"{server.url}/rules")
        page.wait_for_selector("body[data-ready] .rules-list li")
        assert page.evaluate("() => document.documentElement.lang") == "en"
        assert "Rules of the games" in page.inner_text("body")
        # The page's language at the start; then, as the menu opens, every language.
        assert len(refused) == 1, refused
        page.click("#lang > summary")
        deadline = time.monotonic() + seconds(10)
        while len(refused) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(20)
        assert len(refused) == 2, refused
        page.unroute("**/static/i18n/it.json")
        page.click("#lang button[data-lang='it']")
        page.wait_for_function("() => document.documentElement.lang === 'it'")
        page.wait_for_function("() => document.body.innerText.includes('Le regole dei giochi')")
        assert not errors, errors
        context.close()


def texts_of(lang: str) -> dict[str, str]:
    found: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text())
    return found


def test_an_unknown_page_is_a_page_in_the_readers_language_and_the_api_stays_json(
    tmp_path: Path,
) -> None:
    """Issue 31: an address the room does not have, or a table, tournament, rules or
    player page of nothing, is answered 404 with a page in the language of ?lang=, else of
    the browser, with the way to the lobby; under /api the answer stays JSON."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        for address, accept, lang in (
            ("/tournaments/nothing", "it-IT,it;q=0.9,en;q=0.8", "it"),
            ("/nowhere/at/all", "de-DE,pt-BR;q=0.8", "pt"),
            ("/table/t-nothing", "en-GB", "en"),
            ("/tournament/nothing", "fr", "en"),
            ("/rules/poker", "pt", "pt"),
            ("/player/Nobody", "it", "it"),
            ("/static/nothing.html", "it", "it"),
            ("/nowhere?lang=pt", "it-IT", "pt"),
        ):
            answer = http.get(address, headers={"Accept-Language": accept})
            assert answer.status_code == 404, address
            assert answer.headers["content-type"] == "text/html; charset=utf-8", address
            assert "script-src 'self'" in answer.headers["content-security-policy"]
            body = answer.text
            texts = texts_of(lang)
            assert (
                f'<h1 id="notfound-title" data-i18n="notfound.title">{texts["notfound.title"]}</h1>'
                in body
            ), address
            assert f'data-i18n="desk.to_lobby">{texts["desk.to_lobby"]}</a>' in body
            assert '<a id="to-lobby" href="/"' in body
            assert f'<html lang="{ {"pt": "pt-BR"}.get(lang, lang) }">' in body
        # The API, the sockets' address and the files under /static answer as before.
        for address in ("/api/nowhere", "/api/tables/t-nothing", "/api/tournaments/nothing"):
            answer = http.get(address, headers={"Accept-Language": "it"})
            assert answer.status_code == 404, address
            assert answer.headers["content-type"] == "application/json", address
            assert "detail" in answer.json()
        assert http.get("/api/nowhere").json() == {"detail": "Not Found"}
        missing = http.get("/static/nothing.js")
        assert missing.status_code == 404 and "html" not in missing.headers["content-type"]
        # A form posted to no address is no page either.
        assert http.post("/nowhere", json={}).headers["content-type"] == "application/json"


def test_the_room_lists_its_tournaments_on_a_page_every_page_links(tmp_path: Path) -> None:
    """Issue 31: /tournaments is a page, linked from the lobby's bar and the bars of the
    pages around it; GET /api/tournaments says what the page lists of each."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:
        answer = http.get("/tournaments")
        assert answer.status_code == 200
        assert answer.content == page(WEB / "tournaments.html").body
        made = http.post("/api/tournaments", json={"name": "Coppa", "format": "danish"}).json()
        [listed] = http.get("/api/tournaments").json()["tournaments"]
        assert listed["tournament"] == made["tournament"] and listed["name"] == "Coppa"
        assert listed["phase"] == "registration" and listed["rounds"] == 0
        assert listed["settings"]["format"] == "danish" and listed["created"] > 0
    link = '<a id="tournaments-link" class="chip" href="/tournaments" data-i18n="tours.link">'
    for name in (
        "index.html",
        "rules.html",
        "leaderboard.html",
        "history.html",
        "account.html",
        "player.html",
        "tournament.html",
        "desk.html",
        "notfound.html",
    ):
        bar = page(WEB / name).body.decode("utf-8").split("</header>", 1)[0]
        assert bar.count(link) == 1, name
