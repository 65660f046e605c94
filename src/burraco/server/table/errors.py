"""What the room refuses: :class:`RoomError`, and the protocol's ``error`` message."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["TOO_FAST", "UNAVAILABLE", "RoomError", "error_message", "too_fast"]

#: What a player hears when the database refuses a write (disk full, read-only, gone).
UNAVAILABLE = (
    "the room cannot save right now, so nothing was played; "
    "the table goes on by itself as soon as the database accepts writes again"
)
#: What a socket that sends faster than a person hears (once, then it is not answered).
TOO_FAST = "too many messages from this connection: they are ignored for a few seconds"


class RoomError(Exception):
    """A request the room refuses; ``code`` is the protocol's error code.

    ``params`` fill the message in the player's language (a ``seat`` the page names);
    ``rule`` is the engine's refusal code when the engine refused (``code`` "illegal").
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        retry_after: float | None = None,
        params: Mapping[str, str | int] | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: Seconds before the same request may succeed (a rate limit).
        self.retry_after = retry_after
        self.params: dict[str, str | int] = dict(params or {})
        self.rule = rule


def error_message(
    code: str,
    message: str,
    params: Mapping[str, str | int] | None = None,
    rule: str | None = None,
) -> dict[str, Any]:
    """An ``error`` message: ``rule`` only for the engine's refusals (docs/protocol.md).

    >>> error_message("stale", "late", {"seat": 1})
    {'type': 'error', 'code': 'stale', 'message': 'late', 'params': {'seat': 1}}
    """
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if rule is not None:
        error["rule"] = rule
    error["params"] = dict(params or {})
    return error


def too_fast(wait: float) -> dict[str, Any]:
    """The ``too_fast`` answer to a dropped message: ``seconds`` is the wait rounded *up*,
    so that a client who waits as told is heard. (Rounded to the nearest, 1.4 s said 1,
    and a program's sync sent after 1 s was dropped again without a word: it waited for
    an answer that never came.)

    >>> too_fast(1.4)["params"]
    {'seconds': 2}
    >>> too_fast(0.0)["params"]
    {'seconds': 1}
    """
    return error_message("too_fast", TOO_FAST, {"seconds": max(1, math.ceil(wait))})
