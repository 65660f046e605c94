"""Moderation: the accounts the farm detector flagged (server/results/fairplay.py), and what a
moderator decides about them, each decision written to an audit log.

A moderator is an account with the role "moderator" (``burraco moderator grant NAME``
on the server). Decisions, from ``/moderation`` or ``burraco moderation``:

- ``clear``: the flag is lifted, the rating moves again; the detector then reads only
  the results after the decision;
- ``reset``: the account's ratings go back to a newcomer's (every game), the flag is
  lifted;
- ``ban``: the account may no longer log in (its sessions end, a bot's tokens stop
  opening it), leaves the leaderboards and is rated no more.

The page and its API are server/results/moderation_api.py.
"""

from __future__ import annotations

import time
from typing import Any, Final

from burraco.server.results.ratings import displayed
from burraco.storage import Store, UserRow

__all__ = ["ACTIONS", "MODERATOR", "ModerationError", "decide", "grant", "listing"]

#: What a moderator decides about a flagged (or any) account.
ACTIONS: Final = ("clear", "reset", "ban")
#: The role of a moderator (users.role).
MODERATOR: Final = "moderator"


class ModerationError(ValueError):
    """A decision that cannot be made: no such account, no such action."""


def _account(store: Store, name: str) -> UserRow:
    user = store.user_by_name(name)
    if user is None:
        raise ModerationError(f"no account named {name!r}")
    return user


def decide(store: Store, name: str, action: str, moderator: str, note: str = "") -> UserRow:
    """Make a moderator's decision (:data:`ACTIONS`) about the account ``name``, with its
    line in the audit log; the account."""
    if action not in ACTIONS:
        raise ModerationError(f"no action {action!r}: a moderator may {', '.join(ACTIONS)}")
    user = _account(store, name)
    if user.kind == "bot" and user.owner_id is None:
        raise ModerationError(f"{user.name} is one of the room's own bot levels")
    store.decide(user, action, moderator, time.time(), note)
    return user


def grant(store: Store, name: str, moderator: str = "console", revoke: bool = False) -> UserRow:
    """Give a person the moderator role (or take it back), with its line in the audit log."""
    user = _account(store, name)
    if user.kind != "person":
        raise ModerationError(f"{user.name} is a bot: only a person moderates")
    store.decide(user, "revoke" if revoke else "grant", moderator, time.time())
    return user


def listing(store: Store, log_lines: int = 50) -> dict[str, Any]:
    """The flagged accounts (the oldest flag first), with their ratings, and the latest
    lines of the audit log."""
    flags = store.flags()
    users = store.users([f.user_id for f in flags])
    flagged = []
    for flag in flags:
        user = users.get(flag.user_id)
        if user is None:
            continue
        flagged.append(
            {
                "name": user.name,
                "kind": user.kind,
                "program": user.program,
                "reason": flag.reason,
                "flagged_at": flag.flagged_at,
                "ratings": {r.game: displayed(r.mu, r.sigma) for r in store.ratings(flag.user_id)},
            }
        )
    log = [
        {
            "at": row.created_at,
            "moderator": row.moderator,
            "action": row.action,
            "name": row.name,
            "note": row.note,
        }
        for row in store.moderation_log(limit=log_lines)
    ]
    return {"flagged": flagged, "log": log}
