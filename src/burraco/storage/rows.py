"""The rows the store reads and writes: one frozen dataclass per thing stored (a table,
a seat, an event of the log, an account, a rating, a seat's result...), its fields the
columns of its table in ``models.py``, in their order, so that a row is made from a
query's columns by name and written back by :func:`values_of`. They carry no logic but
the little a row says of itself (:attr:`UserRow.program`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    variant: str
    options: str
    seed: int
    move_seconds: int
    bot: str
    takeover: bool
    status: str
    created_at: float
    updated_at: float
    deal_seconds: int = 0
    tournament: str | None = None
    rated: bool = False
    watchable: bool = False
    watch_delay: int = 0
    chat: bool = True
    quick: bool = False
    #: Why a table made rated plays unrated (server/results/fairplay.py), or None.
    unrated: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: str
    name: str
    data: str
    director_hash: str
    entrant_hashes: str
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class SeatRow:
    table_id: str
    seat: int
    name: str
    kind: str
    token_hash: str
    user_id: int | None = None


@dataclass(frozen=True, slots=True)
class EventRow:
    table_id: str
    version: int
    kind: str
    seat: int | None
    payload: str
    created_at: float


@dataclass(frozen=True, slots=True)
class UserRow:
    """A registered player, or a bot level (``kind`` "bot", which has no password)."""

    id: int
    name: str
    name_key: str
    password_hash: str
    kind: str
    language: str
    created_at: float
    #: A bot account's person; None for a person and for the room's own bot levels.
    owner_id: int | None = None
    #: "" for a player, "moderator", or "banned".
    role: str = ""

    @property
    def program(self) -> bool:
        """A person's bot account (a program that plays through the bot API)."""
        return self.kind == "bot" and self.owner_id is not None


@dataclass(frozen=True, slots=True)
class BotTokenRow:
    """A bot account's API token: its sha256 only, and its first characters."""

    id_hash: str
    user_id: int
    hint: str
    created_at: float
    revoked_at: float | None = None


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """A person's challenge to a bot: a table that keeps ``seat`` for the bot ``bot_id``.
    ``options``: the table's options as JSON; ``status``: pending, accepted or declined."""

    id: str
    table_id: str
    seat: int
    challenger: str
    bot_id: int
    bot: str
    options: str
    status: str
    created_at: float
    answered_at: float | None = None


@dataclass(frozen=True, slots=True)
class SessionRow:
    id_hash: str
    user_id: int
    csrf: str
    created_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class RatingRow:
    user_id: int
    game: str
    mu: float
    sigma: float
    matches: int
    updated_at: float


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat's part in a finished match (the player page's statistics)."""

    table_id: str
    seat: int
    user_id: int | None
    name: str
    game: str
    line: int
    outcome: str
    points: int
    deals: int
    burracos_clean: int
    burracos_semi: int
    burracos_dirty: int
    closes: int
    pozzetti: int
    abandoned: bool
    rated: bool
    rating_before: float | None
    rating_after: float | None
    finished_at: float
    #: The seat's turns in the match, and how many of them a bot played (absence.py).
    turns: int = 0
    bot_turns: int = 0


@dataclass(frozen=True, slots=True)
class FinishedTable:
    """A finished table as the history lists it: its row, its seats and their results."""

    table: TableRow
    seats: tuple[SeatRow, ...]
    #: By seat; a seat with no result (a match stored before results were) has none.
    results: dict[int, ResultRow]


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """A stored review of one seat in one finished deal (``data``: DealReview's JSON)."""

    table_id: str
    deal: int
    seat: int
    data: str
    created_at: float


@dataclass(frozen=True, slots=True)
class FlagRow:
    """An account the farm detector marked: flagged (its rating frozen), cleared or banned."""

    user_id: int
    status: str
    reason: str
    flagged_at: float
    decided_at: float | None = None


@dataclass(frozen=True, slots=True)
class ModerationRow:
    """One line of the moderators' audit log."""

    id: int
    created_at: float
    moderator: str
    action: str
    user_id: int
    name: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class ChatRow:
    table_id: str
    channel: str
    seat: int | None
    name: str
    text: str
    quick: str | None
    created_at: float


def values_of(row: object) -> dict[str, object]:
    """A row's columns by name, as an insert's or an update's values."""
    return {name: getattr(row, name) for name in row.__slots__}  # type: ignore[attr-defined]
