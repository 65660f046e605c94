"""Every page readable and playable for every player, in a real browser.

axe-core (a current one, vendored in ``tests/vendor/``: tests/axe.py) scans the lobby,
the table (waiting, in play against a bot, the score windows), the replay, the director's
desk and a tournament's page (with its tables to watch), the list of tournaments, the page
of an unknown address, the account page with its login form, the history, the
leaderboard, a player's page and the rules, on a desktop and on a phone, in English,
Italian and Portuguese, and no violation of any impact is allowed. The table's text is
never smaller than 14 px (card faces aside), and a whole turn can be played with the
keyboard alone. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import axe
import pytest
from roomserver import RoomServer, start_table
from roomserver import create_table as api_table
from test_browser import (
    CHROMIUM,
    create_table,
    hasten_animations,
    play_one_turn,
    shot,
    state,
    wait_my_turn,
    wait_version_above,
)
from waits import ms

from burraco.storage.store import ChatRow

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
# The browser's language, which the page speaks (web/i18n.js initialLang).
LOCALES = {"en": "en-GB", "it": "it-IT", "pt": "pt-BR"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomServer]:
    database = tmp_path_factory.mktemp("a11y") / "room.db"
    with RoomServer(f"sqlite:///{database}", bot_delay=0.05) as room:
        yield room


# axe cannot measure the contrast of text over a gradient (it reports it as "incomplete",
# not as a violation): the felt, the hand's shade and the card faces are gradients. A second
# scan lays each of them flat at its worst colour for the text on it (the lightest green of
# the felt under light text, the darkest paper under a card's ink, a card back's white edge
# under its count), so that every text on them is measured too. Nothing is hidden from axe:
# only the backgrounds change.
WORST_CASE_BACKGROUNDS = """
body { background: var(--felt-light) !important; }
.hand-area { background: rgba(0, 0, 0, 0.3) !important; }
.card.face { background: #f1ecdd !important; }
.card.back { background: #fbfbf6 !important; }
"""


# The rules of axe's default run whose outcome depends on a background's colour: the only
# ones the second scan can answer differently, since it changes nothing but backgrounds
# (every other rule would find again what the first scan found).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def all_violations(page: Any) -> list[str]:
    """axe's violations of any impact, minor included (id, impact, targets), on the page as
    it is and with its gradients laid flat at their worst colours."""
    violations = axe.violations(page)
    page.evaluate(
        """(css) => { const sheet = new CSSStyleSheet(); sheet.replaceSync(css);
                      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]; }""",
        WORST_CASE_BACKGROUNDS,
    )
    violations += axe.violations(page, {"resultTypes": ["violations"], "runOnly": COLOUR_RULES})
    found: dict[str, str] = {}
    for v in violations:
        for node in v["nodes"]:
            target = " ".join(map(str, node["target"]))
            why = " ".join(node.get("failureSummary", "").split("\n")[1:]).strip()
            found.setdefault(f"{v['id']} {target}", f"{v['id']} ({v['impact']}) {target}: {why}")
    return list(found.values())


def settle(page: Any) -> None:
    """Fonts loaded, animations done: colours are measured at rest."""
    hasten_animations(page)
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready")
    at_rest(page)


def at_rest(page: Any) -> None:
    """Every transition and finite animation of the page has ended (endless ones, a
    spinner, never do): waited for, not slept for, so a slow machine is no excuse."""
    # The move clock's bar slides a quarter second every quarter second: never at rest by
    # design, and nothing axe reads (no text, no colour change).
    page.wait_for_function(
        """() => document.getAnimations().every((a) => a.playState !== 'running' ||
                   a.effect.getComputedTiming().endTime === Infinity ||
                   (a.effect.target && a.effect.target.closest('.timer-bar')))"""
    )


# ---------------------------------------------------------------- the pages


def open_lobby(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/")
    page.wait_for_selector("body[data-lobby-ready=true][data-quick-ready=true]", state="attached")


def open_lobby_quick(page: Any, server: RoomServer) -> None:
    """The lobby while quick play waits (without bots: nobody comes, it waits on)."""
    open_lobby(page, server)
    page.fill("#quick-name", "Anna")
    page.uncheck("#quick-bots")
    page.click("#quick-play")
    page.wait_for_selector("#quick-cancel", state="visible")


def open_table_waiting(page: Any, server: RoomServer) -> None:
    create_table(page, server.url)
    page.wait_for_selector("#start", state="visible")


def open_table_playing(page: Any, server: RoomServer) -> None:
    create_table(page, server.url)
    page.click("#start")
    page.wait_for_selector("#hand [data-card]")
    wait_my_turn(page)


def open_table_mid_deal(page: Any, server: RoomServer) -> None:
    """A person at a table against a bot, after a turn of each: melds, pile and log full."""
    open_table_playing(page, server)
    play_one_turn(page)
    wait_my_turn(page)


def open_table_watching(page: Any, server: RoomServer) -> None:
    """A spectator's table, with a message of the spectators' chat (and its mute button)."""
    table = api_table(server, move_seconds=0, watchable=True)
    start_table(server, table)
    said = ChatRow(table["table"], "watchers", None, "Zoe", "forza Anna!", None, time.time())
    server.room.store.add_chat(said)
    page.goto(f"{server.url}/table/{table['table']}?watch=1")
    page.wait_for_selector("#chat-log .chat-line", state="attached")
    if page.locator("#chat-button").is_visible():
        page.click("#chat-button")  # a phone's chat: the drawer, open
    page.wait_for_selector("#chat-log .chat-line")


def open_table_demo(page: Any, server: RoomServer) -> None:
    """The demo's table of four: melds, burracos, pozzetti, the pile's strip."""
    page.goto(f"{server.url}/static/table.html?demo=1")
    page.wait_for_selector("#hand [data-card]")


def open_table_canasta(page: Any, server: RoomServer) -> None:
    """Canasta's red threes and the cards under the pile."""
    page.goto(f"{server.url}/static/table.html?demo=canasta")
    page.wait_for_selector("#hand [data-card]")


def open_table_keys(page: Any, server: RoomServer) -> None:
    """The ? window: the keyboard's shortcuts."""
    open_table_demo(page, server)
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help[open]")


def open_table_score(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/table.html?demo=deal")
    page.wait_for_selector("#score-modal[open]")


def open_table_sheet(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/table.html?demo=over")
    page.wait_for_selector("#score-sheet[open]")


def open_replay(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/replay.html?demo=1")
    page.wait_for_selector("#hands .card")


def open_account_guest(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/account?tab=signup")
    page.wait_for_selector("#guest:not([hidden])")


def open_account_member(page: Any, server: RoomServer) -> None:
    """A player's own page, logged in (a new account each time: names are unique)."""
    page.goto(f"{server.url}/account?tab=signup")
    page.fill("#signup-name", f"a11y{time.monotonic_ns() % 10**9}")
    page.fill("#signup-password", "a long enough password")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#member:not([hidden])")
    page.wait_for_selector("#my-tables li")


def open_history(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/history")
    page.wait_for_selector("#matches p, #matches article")


def open_moderation(page: Any, server: RoomServer) -> None:
    """The moderators' page with a flagged account, for a moderator (a new one each time)."""
    store = server.room.store
    name = f"mod{time.monotonic_ns() % 10**9}"
    open_account_member_named(page, server, name)
    moderator = store.user_by_name(name)
    assert moderator is not None
    store.decide(moderator, "grant", "console", time.time())
    flagged = store.create_user(f"farm{time.monotonic_ns() % 10**9}", "x")
    store.flag(flagged, "gained 200 of 200 from 1 opponents", time.time())
    page.goto(f"{server.url}/moderation")
    page.wait_for_selector("#flagged tr[data-name]")


def open_account_member_named(page: Any, server: RoomServer, name: str) -> None:
    page.goto(f"{server.url}/account?tab=signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a long enough password")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#member:not([hidden])")


def open_desk_home(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/desk")
    page.wait_for_selector("#tournament-form")


def _tournament(server: RoomServer) -> tuple[str, str]:
    with server.http() as http:
        made = http.post("/api/tournaments", json={"name": "Club night"}).json()
        path = f"/api/tournaments/{made['tournament']}"
        http.post(f"{path}/pad", json={"token": made["token"], "size": 4})
        http.post(f"{path}/rounds", json={"token": made["token"], "online": False})
    return str(made["tournament"]), str(made["token"])


def open_desk(page: Any, server: RoomServer) -> None:
    tid, token = _tournament(server)
    page.goto(f"{server.url}/desk")
    page.evaluate(
        "([id, token]) => localStorage.setItem('burraco.desk', JSON.stringify({[id]: token}))",
        [tid, token],
    )
    page.goto(f"{server.url}/desk/{tid}")
    page.wait_for_selector("#rounds form, #rounds table, #rounds li", timeout=ms(30))


def open_tournament(page: Any, server: RoomServer) -> None:
    tid, _ = _tournament(server)
    page.goto(f"{server.url}/tournament/{tid}")
    page.wait_for_selector("#standings tr", state="attached")


def open_tournament_watch(page: Any, server: RoomServer) -> None:
    """A tournament's public page, its round's tables in play with their Watch links."""
    with server.http() as http:
        body = {"name": "Sala", "format": "round-robin", "kind": "individual"}
        made = http.post("/api/tournaments", json=body).json()
        path = f"/api/tournaments/{made['tournament']}"
        for name in ("Anna", "Bruno", "Carla", "Dario"):
            http.post(f"{path}/entrants", json={"token": made["token"], "players": [name]})
        http.post(f"{path}/rounds", json={"token": made["token"]})
    page.goto(f"{server.url}/tournament/{made['tournament']}")
    page.wait_for_selector("#rounds .watch-link")


def open_tournaments(page: Any, server: RoomServer) -> None:
    _tournament(server)
    page.goto(f"{server.url}/tournaments")
    page.wait_for_selector("body[data-ready=true]", state="attached")


def open_not_found(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/no/such/page")
    page.wait_for_selector("body[data-ready=true]", state="attached")


def open_leaderboard(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/leaderboard")
    page.wait_for_selector("#board table, #board p", state="attached")


def open_player(page: Any, server: RoomServer) -> None:
    """A bot level's page: every room has it."""
    page.goto(f"{server.url}/player/greedy")
    page.wait_for_selector("main h1, main h2", state="attached")
    page.wait_for_function("() => !document.querySelector('[aria-busy=true]')")


def open_rules_list(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/rules")
    page.wait_for_selector("main a[href^='/rules/']", state="attached")


def open_rules(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/rules/italian")
    page.wait_for_selector("main table", state="attached")


PAGES: dict[str, Callable[[Any, RoomServer], None]] = {
    "lobby": open_lobby,
    "lobby-quick": open_lobby_quick,
    "table-waiting": open_table_waiting,
    "table-playing": open_table_playing,
    "table-mid-deal": open_table_mid_deal,
    "table-watching": open_table_watching,
    "table-demo": open_table_demo,
    "table-canasta": open_table_canasta,
    "table-keys": open_table_keys,
    "table-score": open_table_score,
    "table-sheet": open_table_sheet,
    "replay": open_replay,
    "account": open_account_guest,
    "account-member": open_account_member,
    "history": open_history,
    "moderation": open_moderation,
    "desk-home": open_desk_home,
    "desk": open_desk,
    "tournament": open_tournament,
    "tournament-watch": open_tournament_watch,
    "tournaments": open_tournaments,
    "not-found": open_not_found,
    "leaderboard": open_leaderboard,
    "player": open_player,
    "rules-list": open_rules_list,
    "rules": open_rules,
}


@contextlib.contextmanager
def opened(
    browser: Any,
    server: RoomServer,
    open_page: Callable[[Any, RoomServer], None],
    viewport: str,
    lang: str = "en",
) -> Iterator[Any]:
    """A page of its own, at ``viewport`` and in ``lang``, opened by ``open_page`` and
    settled; closed after, failing on any script error it had."""
    context = browser.new_context(viewport=VIEWPORTS[viewport], locale=LOCALES[lang])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_page(page, server)
        settle(page)
        yield page
        assert not errors, errors
    finally:
        context.close()


def test_the_scan_uses_a_current_axe() -> None:
    """The bundled axe of axe-playwright-python (4.12) does not check that a control's name
    holds its visible text (label-content-name-mismatch): the vendored one must."""
    major, minor = (int(part) for part in axe.version().split(".")[:2])
    assert (major, minor) >= (4, 14), axe.version()


# Each page at each size, in two of the three languages, without the whole product: on a
# desktop and on a phone, the languages taking turns page by page (English and Italian,
# Italian and Portuguese, Portuguese and English), so that every language is read at
# every size. A name that does not hold its text (label-content-name-mismatch) is a
# matter of the words; the layout's rules are a matter of the size.
PAIRS = [("en", "it"), ("it", "pt"), ("pt", "en")]


def scans(index: int) -> list[tuple[str, str]]:
    desktop, phone = PAIRS[index % len(PAIRS)]
    return [("desktop", desktop), ("phone", phone)]


SCANS = [(name, *scan) for index, name in enumerate(PAGES) for scan in scans(index)]


@pytest.mark.parametrize(("name", "viewport", "lang"), SCANS)
def test_no_accessibility_violations(
    browser: Any,
    server: RoomServer,
    name: str,
    viewport: str,
    lang: str,
) -> None:
    with opened(browser, server, PAGES[name], viewport, lang) as page:
        assert page.evaluate("() => document.documentElement.lang").startswith(lang)
        shot(page, f"a11y-{name}-{viewport}-{lang}")
        if name in TABLES_IN_PLAY:
            small = page.evaluate(SMALL_TEXT)
            assert not small, f"{name} at {viewport} in {lang}: text under 14 px:\n" + "\n".join(
                small
            )
        found = all_violations(page)
        assert not found, f"{name} at {viewport} in {lang}:\n" + "\n".join(found)


# ---------------------------------------------------------------- text size

SMALL_TEXT = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const e = node.parentElement;
    if (!node.textContent.trim() || !e || e.closest('.card')) continue; // card faces aside
    if (!e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 14) {
      const id = e.id ? '#' + e.id : e.className ? '.' + String(e.className).trim().split(/\\s+/).join('.') : '';
      small.push(`${e.tagName.toLowerCase()}${id} ${size}px "${node.textContent.trim().slice(0, 30)}"`);
    }
  }
  return [...new Set(small)];
}"""

#: The table's states whose text is measured, in the scans above: each at both sizes and in
#: each language the scans open it in (a page of its own for this check alone opened the
#: same table again).
TABLES_IN_PLAY = {
    "table-waiting",
    "table-playing",
    "table-watching",
    "table-demo",
    "table-canasta",
    "table-score",
}


# ---------------------------------------------------------------- the keyboard


def focused_card(page: Any) -> str | None:
    found: str | None = page.evaluate(
        "() => document.activeElement && document.activeElement.closest('#hand')"
        " ? document.activeElement.dataset.card : null"
    )
    return found


def test_a_whole_turn_by_keyboard(browser: Any, tmp_path: Path) -> None:
    """d draws, the arrows walk the hand, Space raises a card, Escape lowers it, x discards
    it; ? opens the shortcuts' window, and no shortcut fires while a window is open."""
    # The bot waits a while, so that the pile still shows our discard when we look.
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=1.5) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        create_table(page, server.url)
        page.click("#start")
        page.wait_for_selector("#hand [data-card]")
        s = wait_my_turn(page)
        while s["view"]["phase"] != "draw":  # the bot dealt and it opens: wait for our draw
            wait_version_above(page, s["version"])
            s = wait_my_turn(page)
        page.locator("body").click(position={"x": 5, "y": 300})  # the keyboard starts nowhere

        # ? opens the shortcuts; while it is open, d does not draw; Escape closes it.
        page.keyboard.press("?")
        page.wait_for_selector("#keys-help[open]")
        assert "D" in page.inner_text("#keys-help")
        shot(page, "keyboard-help")
        page.keyboard.press("d")
        # Nothing to wait for when nothing happens: a draw would have come back by then.
        page.wait_for_timeout(ms(0.6))
        assert state(page)["version"] == s["version"]
        page.keyboard.press("Escape")
        page.wait_for_selector("#keys-help:not([open])", state="attached")

        # d draws from the stock.
        stock = s["view"]["stock"]
        page.keyboard.press("d")
        wait_version_above(page, s["version"])
        s = wait_my_turn(page)
        assert s["view"]["phase"] == "play" and s["view"]["stock"] == stock - 1
        assert s["last"]["action"] == "draw"

        # → from outside the hand goes to its first card; → again to the next.
        order = page.evaluate("() => window.burracoTable.order")
        page.keyboard.press("ArrowRight")
        assert focused_card(page) == order[0]
        legal = {a.split()[1] for a in s["legal"] if a.startswith("discard ")}
        target = next(i for i, card in enumerate(order) if card in legal)
        for _ in range(target):
            page.keyboard.press("ArrowRight")
        card = order[target]
        assert focused_card(page) == card
        # The focus ring is not a lift: the focused card stays where it was.
        assert page.evaluate("() => getComputedStyle(document.activeElement).transform") in (
            "none",
            "matrix(1, 0, 0, 1, 0, 0)",
        )
        assert page.evaluate("() => getComputedStyle(document.activeElement).outlineWidth") == (
            "4px"
        )

        at_rest(page)
        shot(page, "keyboard-focus")
        # Space raises it, Escape lowers every card, Enter raises it again.
        page.keyboard.press(" ")
        assert page.evaluate("() => window.burracoTable.raised") == [card]
        at_rest(page)  # the card's lift
        shot(page, "keyboard-raised")
        page.keyboard.press("Escape")
        assert page.evaluate("() => window.burracoTable.raised") == []
        assert focused_card(page) == card
        page.keyboard.press("Enter")
        assert page.evaluate("() => window.burracoTable.raised") == [card]
        # s sorts the other way; the focus and the raised card stay with the card.
        sort = page.evaluate("() => localStorage.getItem('burraco.sort') || 'suit'")
        page.keyboard.press("s")
        assert page.evaluate("() => localStorage.getItem('burraco.sort')") != sort
        assert focused_card(page) == card
        assert page.evaluate("() => window.burracoTable.raised") == [card]

        # x discards the raised card: the version moves on and the card tops the pile.
        before = s["version"]
        page.keyboard.press("x")
        wait_version_above(page, before)
        after = state(page)
        assert after["view"]["pile"][-1] == card, (card, after["view"]["pile"])
        assert (after["last"]["seat"], after["last"]["action"]) == (s["seat"], f"discard {card}")
        assert after["view"]["hand"].count(card) == order.count(card) - 1
        assert not errors, errors
        page.close()
