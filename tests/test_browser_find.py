"""Finding things in the room (issue 31 §3) in a real browser (Playwright, Debian's
Chromium): the tournaments' page and the lobby's link to it, a page that is not there,
the watch links of a tournament's tables, "play bots now" in quick play, and a guest
told the table limit of an address in the page's language."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from roomserver import RoomServer
from waits import seconds

from burraco.server.door.capacity import Capacity
from conftest import CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

I18N = Path(__file__).resolve().parent.parent / "src" / "burraco" / "web" / "i18n"
LOCALES = {"en": "en-GB", "it": "it-IT", "pt": "pt-BR"}


def catalogue(lang: str) -> dict[str, str]:
    texts: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return texts


def said(text: str, **params: object) -> str:
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def test_a_guest_is_told_the_table_limit_of_an_address_in_each_language(
    browser: Any, tmp_path: Path
) -> None:
    """Anna made the two tables her address may keep; she is told the limit and why, and
    Bruno, at the same address (a club), is told that others' tables fill it."""
    capacity = Capacity(tables_per_creator=2)
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", capacity=capacity) as server:
        for _ in range(2):
            made = httpx.post(
                f"{server.url}/api/tables", json={"name": "Anna"}, timeout=seconds(30)
            )
            assert made.status_code == 200, made.text
        for lang, locale in LOCALES.items():
            texts = catalogue(lang)
            context = browser.new_context(locale=locale)
            page = context.new_page()
            page.goto(f"{server.url}/")
            page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
            for name, key, others in (
                ("Anna", "error.guest_tables.other", 0),
                ("Bruno", "error.guest_tables_shared.other", 2),
            ):
                page.fill("#name", name)
                page.click("#create")
                expected = said(texts[key], n=2, others=others)
                page.wait_for_function(
                    "(text) => document.querySelector('#toast')?.textContent === text",
                    arg=expected,
                )
                assert "2" in expected and "{" not in expected
            context.close()


def test_the_lobby_leads_to_the_tournaments_and_a_missing_page_back_to_the_lobby(
    browser: Any, tmp_path: Path
) -> None:
    """The lobby's bar links /tournaments, which lists the room's tournaments by phase and
    links each; an address the room does not have is a page in the language the reader
    saved (the room wrote it in the browser's), and its link goes back to the lobby."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server:
        made = httpx.post(
            f"{server.url}/api/tournaments", json={"name": "Coppa Italia"}, timeout=seconds(30)
        ).json()
        context = browser.new_context(locale="en-GB")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        page.click("#tournaments-link")
        page.wait_for_selector("body[data-ready=true]", state="attached")
        assert page.url == f"{server.url}/tournaments"
        link = page.locator(f"#tours-upcoming li[data-tournament={made['tournament']}] a")
        assert link.inner_text() == "Coppa Italia"
        assert page.locator("#tours-running li.empty").count() == 1
        link.click()
        page.wait_for_url(f"{server.url}/tournament/{made['tournament']}")

        # The reader chose Portuguese with the language button on an earlier page.
        page.evaluate("() => localStorage.setItem('burraco.lang', 'pt')")
        answer = page.goto(f"{server.url}/no/such/page")
        assert answer is not None and answer.status == 404
        # Written by the room in the browser's English, then turned to the saved choice.
        assert catalogue("en")["notfound.title"] in answer.text()
        pt = catalogue("pt")
        page.wait_for_function(
            "(text) => document.querySelector('#notfound-title')?.textContent === text",
            arg=pt["notfound.title"],
        )
        assert page.evaluate("() => document.documentElement.lang") == "pt-BR"
        assert page.inner_text("#tournaments-link") == pt["tours.link"]
        page.click("#to-lobby")
        page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
        assert page.url == f"{server.url}/"
        assert not errors, errors
        context.close()


def test_alone_in_quick_play_a_guest_plays_bots_now(browser: Any, tmp_path: Path) -> None:
    """Nobody else waits for the game: "Play bots now" seats the guest at once against
    bots of the chosen game, long before the room's wait (ten minutes here) is over."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", quick_wait_seconds=600.0) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        page.wait_for_selector("body[data-quick-ready=true]", state="attached")
        assert not page.is_visible("#quick-bots-now")
        page.fill("#quick-name", "Ana")
        page.select_option("#quick-variant", "stbl")
        page.select_option("#quick-players", "4")
        page.set_checked("#quick-bots", False)
        page.click("#quick-play")
        page.wait_for_selector("#quick-bots-now", state="visible")
        assert page.inner_text("#quick-bots-now") == catalogue("en")["quick.bots_now"]
        page.click("#quick-bots-now")
        page.wait_for_url(re.compile(r".*/table/t-[^/?]+$"))
        table = page.url.rsplit("/", 1)[-1]
        info = httpx.get(f"{server.url}/api/tables/{table}", timeout=seconds(30)).json()
        assert info["variant"] == "stbl" and info["quick"] and info["status"] == "playing"
        kinds = [s["kind"] for s in info["seats"]]
        assert kinds.count("bot") == 3 and info["seats"][kinds.index("human")]["name"] == "Ana"
        page.wait_for_selector("#hand [data-card]")
        assert not errors, errors
        page.close()


def test_a_public_tournament_page_links_each_table_in_play_to_watch(
    browser: Any, tmp_path: Path
) -> None:
    """A tournament whose director allows spectators: its public page has a Watch link on
    each table in play, to the room table as a spectator; when the round's results are in
    and the next round starts, the links follow (the played tables have their replay).
    Without spectators, no Watch link."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}") as server, server.http() as http:

        def tournament(spectators: bool) -> tuple[str, str]:
            body = {"name": "Sala", "format": "round-robin", "kind": "individual"}
            made = http.post("/api/tournaments", json=body | {"spectators": spectators}).json()
            tid, token = made["tournament"], made["token"]
            for name in ("Anna", "Bruno", "Carla", "Dario"):
                answer = http.post(
                    f"/api/tournaments/{tid}/entrants", json={"token": token, "players": [name]}
                )
                assert answer.status_code == 200, answer.text
            started = http.post(f"/api/tournaments/{tid}/rounds", json={"token": token})
            assert started.status_code == 200, started.text
            return tid, token

        def rooms(tid: str) -> list[str]:
            current = http.get(f"/api/tournaments/{tid}").json()["rounds"][-1]
            return [str(t["room"]) for t in current["tables"]]

        def watch_links(page: Any) -> list[str]:
            found: list[str] = page.eval_on_selector_all(
                "#rounds .watch-link", "(links) => links.map((a) => a.getAttribute('href'))"
            )
            return sorted(found)

        tid, token = tournament(spectators=True)
        first = rooms(tid)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/tournament/{tid}")
        page.wait_for_selector("#rounds .watch-link")
        assert watch_links(page) == sorted(f"/table/{room}?watch=1" for room in first)
        # The round's results are entered, the next round starts: the page follows.
        for table in (1, 2):
            entered = http.post(
                f"/api/tournaments/{tid}/results",
                json={"token": token, "table": table, "mp_first": 700, "mp_second": 300},
            )
            assert entered.status_code == 200, entered.text
        assert http.post(f"/api/tournaments/{tid}/close", json={"token": token}).status_code == 200
        assert http.post(f"/api/tournaments/{tid}/rounds", json={"token": token}).status_code == 200
        second = rooms(tid)
        wanted = sorted(f"/table/{room}?watch=1" for room in second)
        page.wait_for_function(
            """(wanted) => JSON.stringify([...document.querySelectorAll('#rounds .watch-link')]
                 .map((a) => a.getAttribute('href')).sort()) === JSON.stringify(wanted)""",
            arg=wanted,
        )
        assert page.locator("#rounds .replay-link").count() == 2
        # A Watch link opens the table as a spectator.
        page.locator(f"#rounds .watch-link[data-room={second[0]}]").click()
        page.wait_for_url(f"{server.url}/table/{second[0]}?watch=1")
        page.wait_for_function("() => window.burracoTable?.state?.view !== undefined")
        assert not errors, errors

        closed, _ = tournament(spectators=False)
        page.goto(f"{server.url}/tournament/{closed}")
        page.wait_for_selector("#rounds .round-tables li, #rounds .round-tables > *")
        assert watch_links(page) == []
        page.close()
