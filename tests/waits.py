"""How long the tests wait: every bound on a wait is a base scaled by one setting.

A wait in the tests is an upper bound on something that happens by itself (a server starts,
a bot plays, a page renders); on a loaded machine each of those takes longer, so the bounds
are scaled together by ``BURRACO_TEST_TIMEOUT_SCALE`` (default 1; 3 on a machine shared by
other work). A passing test never sleeps a bound out: the tests wait on events, or poll
until a deadline. Playwright's default timeout is set from the same scale (conftest.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

SETTING = "BURRACO_TEST_TIMEOUT_SCALE"


def scale_from(environ: Mapping[str, str]) -> float:
    """The scale in ``environ``: a positive number, 1 when unset or empty."""
    text = environ.get(SETTING, "").strip()
    if not text:
        return 1.0
    try:
        scale = float(text)
    except ValueError:
        raise ValueError(f"{SETTING} must be a positive number, not {text!r}") from None
    # inf would make every wait endless and nan every comparison false.
    if not 0 < scale < float("inf"):
        raise ValueError(f"{SETTING} must be a positive number, not {text!r}")
    return scale


SCALE = scale_from(os.environ)


def seconds(base: float) -> float:
    """A bound of ``base`` seconds on a quiet machine, scaled."""
    return base * SCALE


def ms(base_seconds: float) -> float:
    """The same bound in milliseconds, as Playwright takes it."""
    return seconds(base_seconds) * 1000
