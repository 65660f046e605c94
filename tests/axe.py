"""axe-core, the accessibility engine the tests scan pages with, from tests/vendor/.

axe-playwright-python bundles its own axe-core, older than the axe people run today: it
lacks rules such as ``label-content-name-mismatch`` (WCAG 2.5.3, a control's accessible
name holds its visible text), which axe turns on by default since 4.14. The tests inject
the copy in ``tests/vendor/axe.min.js`` (the npm package axe-core, its licence header
kept; MPL 2.0, ``tests/vendor/axe-core.LICENSE``), so that a run needs no network and
scans with the axe named by ``VERSION``. To update it: ``npm pack axe-core@latest``, copy
the package's ``axe.min.js`` over, and run the accessibility tests.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).with_name("vendor") / "axe.min.js"


@cache
def script() -> str:
    return SCRIPT.read_text(encoding="utf-8")


def version() -> str:
    """The vendored axe's version, from its licence header ("/*! axe v4.14.1")."""
    found = re.match(r"/\*! axe v(\S+)", script())
    assert found, f"{SCRIPT} does not start with axe's licence header"
    return found.group(1)


def violations(page: Any, options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """axe's violations on the page as it is (every rule axe runs by default)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(script())
    found: list[dict[str, Any]] = page.evaluate(
        "(options) => axe.run(document, options).then((r) => r.violations)",
        options or {"resultTypes": ["violations"]},
    )
    return found
