"""Entrants, tables and their results: MP into VP, abandonment, byes, the knock-out tie.

An entrant is a line of the tournament: one player (an individual tournament)
or a pair. At a table two lines meet for the deals of a round; the director
enters each line's MP (its points over those deals) and the table's MP
difference becomes VP by the tournament's table (``RULES.md``, 000):

>>> from burraco.variants import VP_TABLE_3
>>> first = score_table(TableAssignment(1, 4, first=7, second=9), 1320, 1010, VP_TABLE_3)
>>> first.vp_first, first.vp_second, first.mp_difference, first.winner
(13, 7, 310, 7)

A line that abandons, or whose player runs out of time, loses (002): the MP
entered are the totals of the completed deals, the other line gets at least
14 VP, the leaver 0:

>>> left = score_table(TableAssignment(1, 4, 7, 9), 400, 100, VP_TABLE_3, abandoned_by=7)
>>> left.vp_first, left.vp_second, left.mp_difference, left.winner
(0, 14, -355, 9)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from burraco.tournament.errors import TournamentError
from burraco.vp import (
    MP_STEP,
    TOTAL_VP,
    VPTable,
    abandonment,
    knockout_winner,
    victory_points,
    vp_band_floor,
)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BYE_VP",
    "ByeRule",
    "Entrant",
    "Kind",
    "TableAssignment",
    "TableResult",
    "score_table",
]

#: An individual tournament (a line is one player, two at a table) or a pairs one (four).
Kind = Literal["individual", "pairs"]
#: The bot levels a field can be padded with.
BOT_LEVELS: Final = ("random", "greedy", "expert", "learned")
#: Common Italian club practice: a bye is worth 12 VP.
DEFAULT_BYE_VP: Final = 12
_EVEN_VP: Final = TOTAL_VP // 2


@dataclass(frozen=True, slots=True)
class Entrant:
    """A line of the tournament: its id (the number on the table card), its players and,
    for a field padded with bots, the bot level that plays it.

    >>> Entrant(3, ("Anna", "Bruno")).name
    'Anna / Bruno'
    >>> Entrant(5, ("Greedy 5a", "Greedy 5b"), team="Greedy 5", bot="greedy").name
    'Greedy 5'
    """

    id: int
    players: tuple[str, ...]
    bot: str | None = None
    team: str | None = None

    @property
    def name(self) -> str:
        """The team's name, or the players' names."""
        return self.team or " / ".join(self.players)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "players": list(self.players), "bot": self.bot, "team": self.team}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entrant:
        return cls(int(data["id"]), tuple(data["players"]), data.get("bot"), data.get("team"))


@dataclass(frozen=True, slots=True)
class TableAssignment:
    """A table of a round: its number and the two lines, the first North-South.

    In a pairs tournament the first pair sits North and South, the second East
    and West; in an individual one the first player sits North, the second South.
    """

    round: int
    table: int
    first: int
    second: int

    @property
    def lines(self) -> tuple[int, int]:
        return (self.first, self.second)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableAssignment:
        return cls(int(data["round"]), int(data["table"]), int(data["first"]), int(data["second"]))


@dataclass(frozen=True, slots=True)
class TableResult:
    """The result of a table, as entered and as scored.

    ``mp_first`` and ``mp_second`` are the lines' points as entered (after an
    abandonment, the totals of the completed deals). ``mp_difference`` is the
    first line's MP difference that counts in the standings (after an
    abandonment, the start of the winner's VP band, 002); ``winner`` is the
    winning line's id, None for a draw.
    """

    round: int
    table: int
    first: int
    second: int
    mp_first: int
    mp_second: int
    vp_first: int
    vp_second: int
    mp_difference: int
    winner: int | None
    abandoned_by: int | None = None
    last_mover: int | None = None

    def vp_of(self, line: int) -> int:
        return self.vp_first if line == self.first else self.vp_second

    def mp_of(self, line: int) -> int:
        """The MP difference of ``line`` at this table."""
        return self.mp_difference if line == self.first else -self.mp_difference

    def opponent(self, line: int) -> int:
        return self.second if line == self.first else self.first

    def to_dict(self) -> dict[str, Any]:
        # Every field, in order: what from_dict takes back.
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableResult:
        return cls(**data)


def score_table(
    assignment: TableAssignment,
    mp_first: int,
    mp_second: int,
    table: VPTable,
    *,
    abandoned_by: int | None = None,
    last_mover: int | None = None,
    knockout: bool = False,
) -> TableResult:
    """Score a table's result by the VP ``table``; raises :class:`TournamentError`
    naming the rule when the result cannot stand.

    In a knock-out match a tie is lost by the line that made the last move of
    the last deal (002), so ``last_mover`` must be given on a tie:

    >>> from burraco.variants import VP_TABLE_3
    >>> score_table(TableAssignment(2, 1, 7, 9), 900, 900, VP_TABLE_3, knockout=True)
    Traceback (most recent call last):
    ...
    burraco.tournament.errors.TournamentError: table 1 of round 2: a knock-out tie (900 to 900) \
is lost by the line that made the last move of the last deal (002); give last_mover
    >>> score_table(TableAssignment(2, 1, 7, 9), 900, 900, VP_TABLE_3, knockout=True,
    ...             last_mover=9).winner
    7
    """
    # Every rule of a result names its table.
    table_no, round_no = assignment.table, assignment.round
    # Each rule names the field it refuses, as the director gave it.
    for field, value in (("mp_first", mp_first), ("mp_second", mp_second)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TournamentError(
                "mp_not_whole", table=table_no, round=round_no, field=field, value=repr(value)
            )
        if value % MP_STEP:
            raise TournamentError(
                "mp_step", table=table_no, round=round_no, field=field, value=value, step=MP_STEP
            )
    for field, line in (("abandoned_by", abandoned_by), ("last_mover", last_mover)):
        if line is not None and line not in assignment.lines:
            raise TournamentError(
                "not_at_table",
                table=table_no,
                round=round_no,
                field=field,
                line=line,
                first=assignment.first,
                second=assignment.second,
            )
    if abandoned_by is not None:
        leaver_is_first = abandoned_by == assignment.first
        result = abandonment(
            mp_first if leaver_is_first else mp_second,
            mp_second if leaver_is_first else mp_first,
            table=table,
        )
        vp_first, vp_second = (
            (result.leaver_vp, result.other_vp)
            if leaver_is_first
            else (result.other_vp, result.leaver_vp)
        )
        difference = result.leaver_mp if leaver_is_first else result.other_mp
        winner: int | None = assignment.second if leaver_is_first else assignment.first
    else:
        difference = mp_first - mp_second
        vp_first, vp_second = victory_points(difference, table=table)
        if difference:
            winner = assignment.first if difference > 0 else assignment.second
        elif knockout:
            if last_mover is None:
                raise TournamentError(
                    "knockout_tie",
                    table=table_no,
                    round=round_no,
                    mp_first=mp_first,
                    mp_second=mp_second,
                )
            mover_line = 0 if last_mover == assignment.first else 1
            winner = assignment.lines[knockout_winner(mp_first, mp_second, mover_line)]
        else:
            winner = None
    return TableResult(
        assignment.round,
        assignment.table,
        assignment.first,
        assignment.second,
        mp_first,
        mp_second,
        vp_first,
        vp_second,
        difference,
        winner,
        abandoned_by,
        last_mover,
    )


@dataclass(frozen=True, slots=True)
class ByeRule:
    """What a bye is worth.

    By default a fixed 12 VP, common Italian club practice (some clubs give 14);
    its MP difference is the start of that VP band in the tournament's table (as
    002 derives the MP of an abandoned game from its VP), so 12 VP is +155 MP
    with the 3-deal table. With ``average`` the bye is worth the line's own
    average over the tables it has played (VP and MP, rounded half up),
    recomputed as results come in; a draw (10 VP, 0 MP) until it has played one.

    >>> from burraco.variants import VP_TABLE_3
    >>> ByeRule().score(VP_TABLE_3, [])
    (12, 155)
    >>> ByeRule(vp=14).score(VP_TABLE_3, [])
    (14, 355)
    >>> ByeRule(average=True).score(VP_TABLE_3, [(15, 520), (12, 200)])
    (14, 360)
    >>> ByeRule.parse("average"), ByeRule.parse("14")
    (ByeRule(vp=12, average=True), ByeRule(vp=14, average=False))
    """

    vp: int = DEFAULT_BYE_VP
    average: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.vp <= TOTAL_VP:
            raise TournamentError("bye_vp_range", most=TOTAL_VP, vp=self.vp)

    @classmethod
    def parse(cls, text: str) -> ByeRule:
        """``average`` or a number of VP."""
        if text.strip().lower() == "average":
            return cls(average=True)
        try:
            return cls(vp=int(text))
        except ValueError:
            raise TournamentError("bye_not_vp", text=repr(text)) from None

    def __str__(self) -> str:
        return "the line's average" if self.average else f"{self.vp} VP"

    def score(self, table: VPTable, played: list[tuple[int, int]]) -> tuple[int, int]:
        """The VP and MP difference of a bye, given the ``(VP, MP)`` of the tables played."""
        if self.average:
            if not played:
                return _EVEN_VP, 0
            count = len(played)
            vp = _half_up(sum(v for v, _ in played), count)
            mp = _half_up(sum(m for _, m in played), count)
            return vp, mp
        if self.vp >= _EVEN_VP:
            return self.vp, vp_band_floor(self.vp, table)
        return self.vp, -vp_band_floor(TOTAL_VP - self.vp, table)

    def to_dict(self) -> dict[str, Any]:
        return {"vp": self.vp, "average": self.average}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ByeRule:
        return cls(int(data["vp"]), bool(data["average"]))


def _half_up(total: int, count: int) -> int:
    # Round total / count to the nearest whole number, halves away from zero.
    quotient, remainder = divmod(abs(total), count)
    rounded = quotient + (2 * remainder >= count)
    return rounded if total >= 0 else -rounded
