"""Fixtures shared by the room's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from waits import ms

# Hypothesis fails an example that takes over 200 ms by default: a measure of the machine's
# load, not of the code, on two workers beside other work. No test here is about speed.
# Built on the profile in force, so that under CI Hypothesis's own "ci" profile (derandomized,
# no example database) still holds.
settings.register_profile("burraco", parent=settings.default, deadline=None)
settings.load_profile("burraco")

#: Debian's Chromium (``scripts/test.sh`` installs it); never a browser downloaded at run time.
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A fresh SQLite database for one test's room."""
    return f"sqlite:///{tmp_path / 'room.db'}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, shared by the browser tests of one module (each opens
    its own pages or contexts); the tests that use it skip where it is not installed.

    One a module, not a session: Playwright's sync API holds an event loop in this thread
    while it runs, and the other modules' tests start loops of their own."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield PatientBrowser(launched)
        launched.close()


class PatientBrowser:
    """The launched browser whose pages wait as long as the machine needs: every context
    and page it opens takes Playwright's default timeouts (30 s) scaled by
    BURRACO_TEST_TIMEOUT_SCALE (tests/waits.py). Everything else is the browser's own."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        context.set_default_timeout(ms(30))
        context.set_default_navigation_timeout(ms(30))
        return context

    def new_page(self, **options: Any) -> Any:
        # Browser.new_page opens a context of its own that closes with the page.
        page = self._browser.new_page(**options)
        page.context.set_default_timeout(ms(30))
        page.context.set_default_navigation_timeout(ms(30))
        return page


#: The files that take longest, longest first (their tests' times added up over a run of
#: `pytest -n 2` on this 2-core machine, README "Where the time goes"). scripts/test.sh
#: hands pytest-xdist whole files (`--dist loadfile`), in the order of this list, then the
#: rest in collection order: a long file started last would leave the other worker idle at
#: the end, and a file split between the workers would build its module's fixtures (a room,
#: a browser, a reviewed match) on both.
SLOWEST_FIRST = [
    "test_accessibility.py",
    "test_engine_compiled.py",
    "test_browser_match_end.py",
    "test_properties.py",
    "test_browser.py",
    "test_bot_api.py",
    "test_newcomer.py",
    "test_iterate.py",
    "test_cluster.py",
    "test_browser_layout.py",
    "test_browser_fit.py",
    "test_browser_brazil.py",
    "test_browser_table.py",
    "test_cluster_bench.py",
    "test_browser_analysis.py",
    "test_browser_hint_review.py",
    "test_scripts.py",
    "test_lifecycle.py",
    "test_desk_cluster.py",
    "test_rulebook.py",
    "test_watch.py",
    "test_browser_words.py",
    "test_browser_community.py",
    "test_browser_accounts.py",
    "test_review_calibration.py",
    "test_browser_review.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return SLOWEST_FIRST.index(name) if name in SLOWEST_FIRST else len(SLOWEST_FIRST)

    items.sort(key=rank)  # stable: each file's tests keep their order
