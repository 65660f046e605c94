"""The error of the tournament desk: each says which rule of the tournament was broken."""

from __future__ import annotations

from burraco.errors import RuleError

__all__ = ["TournamentError"]


class TournamentError(RuleError):
    """Something a tournament's rules or its phase do not allow; the message names the rule.

    The tournament is left exactly as it was.
    """
