"""The table page's own work: how long Chromium's main thread is busy for a deal.

Run: ``python bench/page.py [--variant italian] [--rounds 3] [--width 1366 --height 768]``

A room (in this process, bots without delay) and Debian's headless Chromium
(``/usr/bin/chromium``, from the ``dev`` extra's Playwright). For each round, a person's
page makes a table of one deal against the greedy bot, starts it and plays through its
own socket until the deal's score window opens: a draw, else the last legal discard, at
once (so a deal is about 250 states, half of them the bot's). The page's main thread is
what a player's phone spends: Chromium's own counters (``Performance.getMetrics`` of
the DevTools protocol) say how long its tasks, scripts, style and layout took over the
deal. The figures are milliseconds a state (a version of the table the page received),
each round's, then their median; wall time is also printed, since the page's main
thread is the bottleneck of such a deal.

Needs the ``dev`` extra (Playwright) and Debian's Chromium.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from roomserver import RoomServer  # noqa: E402
from test_browser import create_table  # noqa: E402
from test_browser_match_end import PLAY_TO_WINDOW  # noqa: E402

COUNTERS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def one_deal(browser: object, url: str, variant: str, viewport: dict[str, int]) -> dict[str, float]:
    """The main thread's seconds over one deal, the states it received and its wall time."""
    page = browser.new_page(viewport=viewport)  # type: ignore[attr-defined]
    devtools = page.context.new_cdp_session(page)
    devtools.send("Performance.enable")
    create_table(page, url, variant=variant, deals=1, start=True)
    first = page.evaluate("() => window.burracoTable.state.version")

    def counters() -> dict[str, float]:
        metrics = devtools.send("Performance.getMetrics")["metrics"]
        return {m["name"]: m["value"] for m in metrics}

    before = counters()
    began = time.perf_counter()
    ended = page.evaluate(PLAY_TO_WINDOW, 120_000)
    wall = time.perf_counter() - began
    after = counters()
    if ended != "window":
        raise RuntimeError(f"the deal did not reach its score window: {ended}")
    states = page.evaluate("() => window.burracoTable.state.version") - first
    page.close()
    found = {name: after[name] - before[name] for name in COUNTERS}
    return {**found, "states": states, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="italian")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=768)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    viewport = {"width": args.width, "height": args.height}
    rounds = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        with RoomServer(f"sqlite:///{Path(folder) / 'room.db'}", bot_delay=0.0) as room:
            for number in range(args.rounds):
                found = one_deal(browser, room.url, args.variant, viewport)
                rounds.append(found)
                per_state = {k: found[k] / found["states"] * 1000 for k in COUNTERS}
                print(
                    f"round {number + 1}: {found['states']:.0f} states in {found['wall']:.2f} s; "
                    + ", ".join(
                        f"{k.removesuffix('Duration').lower()} {v:.2f}"
                        for k, v in per_state.items()
                    )
                    + " ms a state"
                )
        browser.close()
    medians = {k: statistics.median(r[k] / r["states"] * 1000 for r in rounds) for k in COUNTERS}
    print(
        f"{args.variant}, {args.width}x{args.height}, median of {args.rounds}: main thread busy "
        f"{medians['TaskDuration']:.2f} ms a state (script {medians['ScriptDuration']:.2f}, "
        f"style {medians['RecalcStyleDuration']:.2f}, layout {medians['LayoutDuration']:.2f})"
    )


if __name__ == "__main__":
    main()
