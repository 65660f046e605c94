"""An evening at the room, as a player meets it: a whole 2-deal match against the greedy bot
played by clicks in headless Chromium, a reload in deal 2, the server stopped with SIGTERM
in deal 2 and started again, the match finished. Prints what it saw; screenshots in
artifacts/evening/.

Run: ``.venv/bin/python scripts/evening.py`` (after ``bash scripts/test.sh`` has set up
the dev extra and Debian's Chromium)."""

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from playwright.sync_api import sync_playwright  # noqa: E402
from roomserver import free_port, port_is_free  # noqa: E402
from test_browser import play_one_turn, state, wait_my_turn  # noqa: E402

OUT = ROOT / "artifacts" / "evening"
OUT.mkdir(parents=True, exist_ok=True)
DB = OUT / "room.db"
for f in OUT.glob("room.db*"):
    f.unlink()
PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"


LOG = (OUT / "server.log").open("a")


def start() -> subprocess.Popen:
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "burraco.cli",
            "serve",
            "--port",
            str(PORT),
            "--database-url",
            f"sqlite:///{DB}",
        ],
        stdout=LOG,
        stderr=subprocess.STDOUT,
    )
    import httpx

    for _ in range(100):
        try:
            httpx.get(BASE + "/", timeout=1)
            return p
        except Exception:
            time.sleep(0.2)
    raise SystemExit("server did not start")


def resumed(page: Any, before: dict[str, Any], shot: str) -> dict[str, Any]:
    """The page is back at the turn it showed ``before``, with the same hand."""
    s = wait_my_turn(page)
    assert s["version"] == before["version"], (s["version"], before["version"])
    assert sorted(s["view"]["hand"]) == sorted(before["view"]["hand"])
    page.screenshot(path=str(OUT / f"{shot}.png"))
    return s


def stop(p: subprocess.Popen) -> float:
    t = time.monotonic()
    p.send_signal(signal.SIGTERM)
    p.wait(30)
    return time.monotonic() - t


server = start()
with sync_playwright() as pw:
    b = pw.chromium.launch(
        executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
    )
    page = b.new_page(viewport={"width": 1366, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(BASE + "/")
    page.fill("#name", "Anna")
    page.select_option("#variant", "italian")
    page.select_option("#setup", "2:2")
    page.check("#by-deals")
    page.fill("#deals", "2")
    page.select_option("#bot", "greedy")
    page.screenshot(path=str(OUT / "01-lobby.png"))
    page.click("#create")
    page.wait_for_url("**/table/t-*")
    page.click("#start")
    page.wait_for_selector("#hand [data-card]")
    page.screenshot(path=str(OUT / "02-deal1.png"))
    turns = 0
    reloaded = restarted = False
    while True:
        page.wait_for_function(
            "() => { const s = window.burracoTable.state; return s && (s.pause || "
            "(s.legal && s.legal.length) || s.table.status === 'over'); }",
            timeout=60_000,
        )
        if page.evaluate("() => Boolean(window.burracoTable.state.pause)"):
            # Between the deals: read the score, look at the final table, press next deal.
            page.wait_for_selector("#score-modal[open]")
            page.click("#final-table summary")
            page.wait_for_selector("#final-table-body .final-line")
            page.screenshot(path=str(OUT / "03a-between-deals.png"))
            page.click("#score-continue")
            page.wait_for_selector("#score-modal", state="hidden")
            print("pressed next deal")
        s = wait_my_turn(page, timeout=60_000)
        if not s.get("legal"):
            break
        deal = s["view"]["deal"]
        if deal == 2 and not reloaded:
            page.screenshot(path=str(OUT / "03-deal2-before-reload.png"))
            before = s
            page.reload()
            page.wait_for_selector("#hand [data-card]")
            s = resumed(page, before, "04-deal2-after-reload")
            reloaded = True
            print("reloaded in deal 2 at version", s["version"])
        if deal == 2 and reloaded and not restarted and turns % 3 == 0:
            before = s
            took = stop(server)
            print(
                f"SIGTERM: exited in {took:.2f} s, rc={server.returncode}, port free={port_is_free(PORT)}"
            )
            time.sleep(1)
            page.screenshot(path=str(OUT / "05-server-down.png"))
            server = start()
            page.wait_for_function(
                "() => document.querySelector('#conn').dataset.state === 'ok'", timeout=30_000
            )
            s = resumed(page, before, "06-after-restart")
            restarted = True
            print("restarted; resumed at version", s["version"])
        if not play_one_turn(page):
            break
        turns += 1
    time.sleep(2)
    print("turns", turns, "final", state(page).get("table", {}).get("status"))
    page.screenshot(path=str(OUT / "07-match-over.png"), full_page=True)
    print("page errors", errors)
    b.close()
print("final SIGTERM", stop(server))
