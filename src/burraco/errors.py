"""The errors of the engine: each says which rule was broken."""

from __future__ import annotations

__all__ = ["IllegalMove", "RuleError", "SetupError"]


class RuleError(ValueError):
    """Something the rules do not allow."""


class IllegalMove(RuleError):
    """An action the rules do not allow in this state; the message names the rule.

    The state is left exactly as it was.
    """


class SetupError(RuleError):
    """A variant, an option or a table setup that cannot be played."""
