"""The web room in a real browser: Playwright driving Debian's Chromium, headless.

A person creates a table in the lobby and plays a whole deal against a bot by
clicks only; two people at one table never see each other's cards; a reload
and a server restart in the middle of a deal both resume it. Screenshots of
the table are kept in ``artifacts/screenshots/``. Skipped where Chromium is not
installed (``scripts/test.sh`` installs it).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer, free_port
from waits import ms, seconds

from conftest import CHROMIUM

SHOTS = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def hasten_animations(page: Any) -> None:
    """The page's animations, those running and those to come, played a hundred times as
    fast (Chromium's DevTools protocol): each ends where it would have ended, so the page
    at rest is the same, but a new card's glow (2.2 s) no longer holds every table's scan.
    Not prefers-reduced-motion, which would scan another person's page."""
    devtools = page.context.new_cdp_session(page)
    devtools.send("Animation.enable")
    devtools.send("Animation.setPlaybackRate", {"playbackRate": 100})


def state(page: Any) -> dict[str, Any]:
    found: dict[str, Any] = (
        page.evaluate("() => JSON.parse(JSON.stringify(window.burracoTable?.state || null))") or {}
    )
    return found


# The #lang menu's languages, in its order, by their <html lang>.
MENU_LANGS = {"en": "en", "it": "it", "pt-BR": "pt"}


def choose_language(page: Any, lang: str) -> str:
    """Open the #lang menu, choose ``lang`` ("en", "it", "pt") by its button, and wait until
    the page speaks it (its catalogue may first have to arrive); the page's <html lang>."""
    page.click("#lang > summary")
    page.click(f"#lang button[data-lang='{lang}']")
    page.wait_for_function(
        "(l) => document.documentElement.lang.split('-')[0] === l && "
        "document.querySelector('#lang button[aria-current=true]')?.dataset.lang === l",
        arg=lang,
    )
    return str(page.evaluate("() => document.documentElement.lang"))


def switch_language(page: Any) -> str:
    """Choose the language after the page's own in the #lang menu (en → it → pt → en); the
    page's new <html lang>."""
    langs = list(MENU_LANGS.values())
    now = MENU_LANGS[page.evaluate("() => document.documentElement.lang")]
    return choose_language(page, langs[(langs.index(now) + 1) % len(langs)])


def wait_my_turn(page: Any, timeout: float = ms(30)) -> dict[str, Any]:
    page.wait_for_function(
        """() => { const s = window.burracoTable && window.burracoTable.state;
                   return s && ((s.legal && s.legal.length) ||
                                (s.view && s.view.phase === 'over') ||
                                (s.table && s.table.status === 'over')); }""",
        timeout=timeout,
    )
    return state(page)


def wait_version_above(page: Any, version: int) -> None:
    page.wait_for_function(
        f"() => window.burracoTable?.state && window.burracoTable?.state.version > {version}",
        timeout=ms(30),
    )


def play_one_turn(page: Any) -> bool:
    """Play the seat's turn with clicks: draw from the stock, discard a legal card.

    Returns False when the match is over."""
    s = wait_my_turn(page)
    if not s.get("legal"):
        return False
    version = s["version"]
    if s["view"]["phase"] == "draw":
        page.click("#stock")
        wait_version_above(page, version)
        s = wait_my_turn(page)
        if not s.get("legal"):
            return False
        version = s["version"]
    discards = [a.split()[1] for a in s["legal"] if a.startswith("discard ")]
    card = discards[-1]
    page.click(f'#hand [data-card="{card}"] >> nth=0')
    page.click("#pile")
    wait_version_above(page, version)
    return True


def play_turn_by_socket(page: Any) -> dict[str, Any] | None:
    """Play the seat's next action through the page's own socket (what a click sends, in a
    fraction of the time): draw, else the last legal discard. The state it acted on, or
    None when the seat has nothing to do (the match or the deal is over)."""
    s = wait_my_turn(page)
    legal = s.get("legal") or []
    if not legal:
        return None
    draws = [a for a in legal if a.startswith("draw")]
    discards = [a for a in legal if a.startswith("discard ")]
    action = draws[0] if draws else (discards[-1] if discards else legal[0])
    page.evaluate("(a) => window.burracoTable.act(a)", action)
    wait_version_above(page, s["version"])
    return s


def create_table(
    page: Any,
    base: str,
    *,
    players: str = "2:2",
    name: str = "Anna",
    deals: int = 1,
    seconds: int = 0,
    start: bool = False,
    variant: str = "italian",
) -> str:
    """A table (Italian Burraco unless told) made in the lobby's form against greedy bots;
    its id. With ``start``, started, and the hand on the page."""
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
    page.fill("#name", name)
    page.select_option("#variant", variant)
    page.select_option("#setup", players)
    page.check("#by-deals")
    page.fill("#deals", str(deals))
    page.fill("#move-seconds", str(seconds))
    page.select_option("#bot", "greedy")
    table = submit_table_form(page)
    if start:
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
    return table


def submit_table_form(page: Any) -> str:
    """Press "Create the table" and follow the page to its table; the table's id.

    The room's answer is read first, so that a refusal, or a form that never sent, says
    which it was rather than ending as a navigation's timeout; then the table's page is
    waited for until it is committed (its own waits follow: a button, a hand)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    def is_made(response: Any) -> bool:
        return bool(response.request.method == "POST" and response.url.endswith("/api/tables"))

    try:
        with page.expect_response(is_made) as made:
            page.click("#create")
    except PlaywrightTimeout:
        said = page.evaluate(
            """() => ({status: document.querySelector('#create-status').textContent,
                       valid: document.querySelector('#create-form').checkValidity(),
                       url: location.href})"""
        )
        raise AssertionError(f"the page never asked the room for a table: {said}") from None
    answer = made.value
    assert answer.ok, f"the room refused the table: {answer.status} {answer.text()}"
    page.wait_for_url(re.compile(r".*/table/t-.*"), wait_until="commit")
    return str(page.url.rsplit("/", 1)[-1].split("?")[0])


def test_a_person_plays_a_whole_deal_by_clicks(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        create_table(page, server.url)
        page.wait_for_selector("#start", state="visible")
        shot(page, "waiting")
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        hasten_animations(page)  # a click waits for its card to land (Playwright's "stable")
        turns = 0
        while play_one_turn(page):
            turns += 1
            if turns == 3:
                shot(page, "table-desktop")
            if page.locator("#score-modal[open]").count():
                break
        page.wait_for_selector("#score-modal[open], #score-sheet[open]", timeout=ms(60))
        shot(page, "deal-score")
        text = page.inner_text("#score-modal") if page.locator("#score-modal[open]").count() else ""
        text += page.inner_text("body")
        assert re.search(r"-?\d+", text)
        assert turns >= 3
        assert not errors, errors
        page.close()


def test_two_people_at_one_table_never_see_each_others_cards(browser: Any, tmp_path: Path) -> None:
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        anna = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        bruno = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        frames: dict[str, list[dict[str, Any]]] = {"anna": [], "bruno": []}

        def listen(who: str) -> Any:
            def on_socket(ws: Any) -> None:
                ws.on("framereceived", lambda data: frames[who].append(json.loads(data)))

            return on_socket

        anna.on("websocket", listen("anna"))
        bruno.on("websocket", listen("bruno"))
        table_id = create_table(anna, server.url, players="4:2")
        bruno.goto(f"{server.url}/table/{table_id}")
        bruno.fill("#join-name", "Bruno")
        bruno.click("#join-button")
        bruno.wait_for_selector("#waiting:not([hidden]), #board:not([hidden])")
        anna.wait_for_selector("#start", state="visible")
        anna.click("#start")
        anna.wait_for_selector("#hand [data-card]")
        bruno.wait_for_selector("#hand [data-card]")
        for _ in range(2):
            for page in (anna, bruno):
                s = state(page)
                if s.get("legal"):
                    play_one_turn(page)
        table = server.room.table(table_id)
        match = table.match
        assert match is not None
        for who, page in (("anna", anna), ("bruno", bruno)):
            s = state(page)
            seat = s["seat"]
            shown = sorted(
                page.eval_on_selector_all(
                    "#hand [data-card]", "els => els.map(e => e.dataset.card)"
                )
            )
            expected = (
                sorted(str(c) for c in match.deal.hand(seat))
                if s["version"] == table.version
                else shown
            )
            assert shown == expected, who
            for frame in frames[who]:
                assert '"hands":' not in json.dumps(frame)
                view = frame.get("view") if frame.get("type") == "state" else None
                if view:
                    assert view["partner_hands"] == {}
        shot(anna, "two-anna-desktop")
        shot(bruno, "two-bruno-phone")


def test_reload_and_server_restart_resume_the_deal(browser: Any, tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'room.db'}"
    port = free_port()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    with RoomServer(database, port=port, bot_delay=0.05) as server:
        create_table(page, server.url)
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        play_one_turn(page)
        before = wait_my_turn(page)
        page.reload()
        page.wait_for_selector("#hand [data-card]")
        after = wait_my_turn(page)
        assert after["version"] == before["version"]
        assert sorted(after["view"]["hand"]) == sorted(before["view"]["hand"])
        shot(page, "after-reload")
    # The server stops in the middle of the deal and starts again on the same database.
    with RoomServer(database, port=port, bot_delay=0.05):
        page.wait_for_function(
            f"() => window.burracoTable?.state && window.burracoTable?.state.version >= "
            f"{before['version']} && document.querySelector('#conn').dataset.state === 'ok'",
            timeout=ms(30),
        )
        resumed = wait_my_turn(page)
        assert sorted(resumed["view"]["hand"]) == sorted(before["view"]["hand"])
        assert play_one_turn(page)
        shot(page, "after-restart")
    page.close()


def test_reload_and_a_stale_click_in_deal_two_resume(browser: Any, tmp_path: Path) -> None:
    """Issue 8: once a deal had ended, `sync` broke the socket, so a reload or a stale click
    in deal 2 locked the page in a reconnection loop. Deal 1 is played here over the API
    with the page's own seat; the page then reloads in deal 2 and sends a stale action."""
    import asyncio
    import random
    from concurrent.futures import ThreadPoolExecutor

    from roomserver import Player

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.02) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        sockets: list[str] = []
        # What the page's sockets send and hear, in order: the stale click's round trip is
        # waited for by its frames, not by a fixed sleep.
        frames: list[tuple[str, str]] = []

        def watch(ws: Any) -> None:
            sockets.append(ws.url)
            ws.on("framesent", lambda payload: frames.append(("sent", str(payload))))
            ws.on("framereceived", lambda payload: frames.append(("received", str(payload))))

        page.on("websocket", watch)
        table_id = create_table(page, server.url, deals=3, start=True)
        seats = json.loads(page.evaluate("() => localStorage.getItem('burraco.seats')"))
        token = seats[table_id]["token"]

        async def play_deal_one() -> None:
            rng = random.Random(2)
            async with Player(server, table_id, token) as anna:
                while True:
                    m = await anna.next()
                    if m["type"] == "state" and m["view"] and m["view"]["deal"] == 2:
                        return
                    if m["type"] == "state" and m["legal"]:
                        action = rng.choice(m["legal"])
                        await anna.send(
                            {"type": "action", "action": action, "version": m["version"]}
                        )

        # Playwright's sync API holds this thread's event loop: the client runs in another.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, play_deal_one()).result(timeout=seconds(120))
        # The page heard deal 1 end (its score window may be up): close it and reload.
        page.reload()
        page.wait_for_function(
            "() => { const s = window.burracoTable?.state; return s && s.view && s.view.deal === 2; }",
            timeout=ms(30),
        )
        before = wait_my_turn(page)
        opened = len(sockets)
        # A stale click: the page's version is behind; it hears "stale", syncs and goes on.
        heard = len(frames)
        page.evaluate(f"() => window.burracoTable.act('draw', {before['version'] - 1})")
        deadline = time.monotonic() + seconds(30)
        while not _synced(frames[heard:]):
            assert time.monotonic() < deadline, f"no answer to the sync: {frames[heard:]}"
            page.wait_for_timeout(50)  # Playwright delivers the frames' events meanwhile
        assert page.evaluate("() => document.querySelector('#conn').dataset.state") == "ok"
        after = state(page)
        assert after["version"] == before["version"] and after["view"]["deal"] == 2
        # And the deal goes on by clicks, on the same socket: a socket the sync broke would
        # have been replaced by now.
        assert play_one_turn(page)
        assert len(sockets) == opened, f"the page reconnected: {sockets[opened:]}"
        shot(page, "deal-two-after-stale")
        assert not errors, errors
        page.close()


def _synced(frames: list[tuple[str, str]]) -> bool:
    """The page answered "stale" with a sync, and the room answered the sync with the
    seat's state (the last message of its answer)."""

    def kind(text: str) -> object:
        try:
            return json.loads(text).get("type")
        except (ValueError, AttributeError):
            return None

    sent = [i for i, (way, text) in enumerate(frames) if way == "sent" and kind(text) == "sync"]
    return bool(sent) and any(
        way == "received" and kind(text) == "state" for way, text in frames[sent[0] + 1 :]
    )


def test_the_pages_keep_to_their_content_security_policy(browser: Any, tmp_path: Path) -> None:
    """Every page works under the room's Content-Security-Policy: no script, style or
    connection of a page is refused by it."""
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        refused: list[str] = []
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.add_init_script(
            "document.addEventListener('securitypolicyviolation', (e) =>"
            " console.error('Content Security Policy: ' + e.violatedDirective + ' ' + e.blockedURI));"
        )
        table_id = create_table(page, server.url)
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        play_one_turn(page)
        with server.http() as http:
            made = http.post("/api/tournaments", json={"name": "CSP night"}).json()
            path = f"/api/tournaments/{made['tournament']}"
            http.post(f"{path}/pad", json={"token": made["token"], "size": 4})
            http.post(f"{path}/rounds", json={"token": made["token"], "online": False})
        for address in (
            "/",
            f"/desk/{made['tournament']}",
            f"/tournament/{made['tournament']}",
            f"{path}/cards.html",
            f"{path}/standings.html",
            f"/table/{table_id}",
        ):
            page.goto(f"{server.url}{address}")
            page.wait_for_load_state("networkidle")
        page.wait_for_selector("#hand [data-card]")
        assert not refused, refused
        page.close()
