"""The errors of the engine: each says which rule was broken."""

from __future__ import annotations

from collections.abc import Mapping

from burraco.refusals import Refusal

__all__ = ["IllegalMove", "RuleError", "SetupError"]


class RuleError(ValueError):
    """Something the rules do not allow."""


class IllegalMove(RuleError):
    """An action the rules do not allow in this state; the message names the rule.

    ``refusal`` is the rule as a code and its params (:mod:`burraco.refusals`);
    ``action`` the text of the action refused, if any. The message is
    ``"{action}: {refusal}"`` (or the refusal's text alone). The state is left
    exactly as it was.
    """

    def __init__(self, refusal: Refusal, action: str | None = None) -> None:
        super().__init__(str(refusal) if action is None else f"{action}: {refusal}")
        self.refusal = refusal
        self.action = action

    @property
    def code(self) -> str:
        """The refusal's code, a key of :data:`burraco.refusals.TEXTS`."""
        return self.refusal.code

    @property
    def params(self) -> Mapping[str, str | int]:
        return self.refusal.params

    def __reduce__(self) -> tuple[type[IllegalMove], tuple[Refusal, str | None]]:
        # Pickled across processes (the thinking pool) with its refusal, not its text.
        return type(self), (self.refusal, self.action)


class SetupError(RuleError):
    """A variant, an option or a table setup that cannot be played.

    ``option`` names the option the message is about, when one is (``hand_size``), so a
    caller can point at the broken field; the message says which rule it breaks.
    """

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option

    def __reduce__(self) -> tuple[type[SetupError], tuple[str, str | None]]:
        # Pickled across processes with the option it names, as IllegalMove with its refusal.
        return type(self), (str(self), self.option)
