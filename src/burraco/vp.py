"""Match points (MP) into Victory Points (VP), abandonment and the knock-out tie.

At a tournament table the point difference between the two lines (the MP)
becomes Victory Points, 20 shared between the lines (000, ``RULES.md``). A VP
table is data: a tuple of ``(upper end of the band, winner's VP)``, bands in
increasing order; a difference above the last band is 20/0.

>>> victory_points(55)
(11, 9)
>>> victory_points(-1501)
(0, 20)
>>> vp_band_floor(14, VP_TABLE_3)
355
>>> abandonment(400, 100)
Abandonment(difference=50, other_vp=14, leaver_vp=0, other_mp=355, leaver_mp=-355)
>>> knockout_winner(1200, 1200, last_mover_line=0)
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from burraco.errors import RuleError
from burraco.variants import VP_TABLE_3, VP_TABLE_4, vp_table_problem

__all__ = [
    "ABANDON_MIN_VP",
    "ABANDON_PENALTY",
    "MP_STEP",
    "TOTAL_VP",
    "Abandonment",
    "VPTable",
    "abandonment",
    "knockout_winner",
    "one_off_points",
    "victory_points",
    "vp_band_floor",
    "vp_table_for",
]

#: A VP table: ``(upper end of the band, winner's VP)`` for each band, in increasing order.
VPTable = tuple[tuple[int, int], ...]

#: The VP of one table, shared between the two lines.
TOTAL_VP: Final = 20
#: The VP of each line when the difference is nil.
_EVEN_VP: Final = TOTAL_VP // 2
#: 002: the penalty added to the other line when a player times out or abandons.
ABANDON_PENALTY: Final = 350
#: 002: "la linea avversaria farà minimo 14 VP".
ABANDON_MIN_VP: Final = 14
#: Every card value and premium is a multiple of 5, so MP differences move in steps of 5.
#: That is why 000 starts each band 5 above the end of the one before (50, then 55->150).
MP_STEP: Final = 5

_TABLES: Final[dict[int, VPTable]] = {3: VP_TABLE_3, 4: VP_TABLE_4}


def vp_table_for(deals: int) -> VPTable:
    """The VP table for a round of ``deals`` deals: 000's for 3, the common one for 4.

    >>> vp_table_for(4)[0]
    (100, 10)
    >>> vp_table_for(5)
    Traceback (most recent call last):
    ...
    burraco.errors.RuleError: no VP table for a round of 5 deals (3 or 4); give one
    """
    try:
        return _TABLES[deals]
    except KeyError:
        raise RuleError(f"no VP table for a round of {deals} deals (3 or 4); give one") from None


def _checked(table: VPTable) -> VPTable:
    # A director may load any table, so guard the assumptions the lookups rely on:
    # bands in order (first match wins) and VP that never fall as the difference grows.
    # The rule is the one a variant's vp_table option is checked by.
    problem = vp_table_problem(tuple(tuple(band) for band in table))
    if problem is not None:
        raise RuleError(problem)
    return table


def _resolve(table: VPTable | None, deals: int) -> VPTable:
    return _checked(vp_table_for(deals) if table is None else table)


def victory_points(
    mp_difference: int, deals: int = 3, table: VPTable | None = None
) -> tuple[int, int]:
    """The VP of the first and the second line, given the first line's MP difference.

    ``deals`` picks the table (3: 000's, 4: the common federation one); a
    ``table`` given overrides it, and then ``deals`` is ignored. A difference
    falls in the first band whose upper end is at least its absolute value;
    over the last band it is 20/0; a negative difference gives the mirrored pair.

    >>> victory_points(0), victory_points(50), victory_points(55), victory_points(-151)
    ((10, 10), (10, 10), (11, 9), (8, 12))
    >>> victory_points(1501), victory_points(-1501)
    ((20, 0), (0, 20))
    >>> victory_points(100, deals=4), victory_points(2001, deals=4)
    ((10, 10), (20, 0))
    >>> victory_points(60, table=((20, 10), (100, 15)))
    (15, 5)
    >>> victory_points(0, deals=2)
    Traceback (most recent call last):
    ...
    burraco.errors.RuleError: no VP table for a round of 2 deals (3 or 4); give one
    """
    bands = _resolve(table, deals)
    size = abs(mp_difference)
    winner = next((vp for end, vp in bands if size <= end), TOTAL_VP)
    loser = TOTAL_VP - winner
    return (winner, loser) if mp_difference >= 0 else (loser, winner)


def vp_band_floor(vp: int, table: VPTable, *, step: int = MP_STEP) -> int:
    """The lowest MP difference that gives the winner at least ``vp`` VP.

    A band starts ``step`` above the end of the one before (000 writes 0->50,
    55->150, ...), since MP move in steps of 5; the first band starts at 0 and
    20 VP start ``step`` above the last band. With the usual tables each VP from
    10 to 20 has a band of its own, so this is where that band starts.

    >>> vp_band_floor(10, VP_TABLE_3), vp_band_floor(14, VP_TABLE_3), vp_band_floor(20, VP_TABLE_3)
    (0, 355, 1505)
    >>> vp_band_floor(11, VP_TABLE_4)
    105
    >>> vp_band_floor(9, VP_TABLE_3)
    Traceback (most recent call last):
    ...
    burraco.errors.RuleError: 9 VP is not a winner's VP (10 to 20)
    """
    if not _EVEN_VP <= vp <= TOTAL_VP:
        raise RuleError(f"{vp} VP is not a winner's VP ({_EVEN_VP} to {TOTAL_VP})")
    bands = _checked(table)
    start = 0
    for end, band_vp in bands:
        if band_vp >= vp:
            return start
        start = end + step
    return start  # over the last band: 20 VP


def one_off_points(totals_first: int, totals_second: int) -> tuple[int, int]:
    """002's VP for a one-off game: 20 for a win, 10 for a draw, 0 for a loss.

    >>> one_off_points(2100, 1800), one_off_points(900, 900), one_off_points(-50, 10)
    ((20, 0), (10, 10), (0, 20))
    """
    if totals_first == totals_second:
        return _EVEN_VP, _EVEN_VP
    return (TOTAL_VP, 0) if totals_first > totals_second else (0, TOTAL_VP)


@dataclass(frozen=True, slots=True)
class Abandonment:
    """The result of a game lost by time-out or abandonment (002, ``RULES.md``).

    ``difference`` is d, the points difference after the penalty, never below 0;
    the other fields are the VP and MP of the other line and of the leaver.
    """

    difference: int
    other_vp: int
    leaver_vp: int
    other_mp: int
    leaver_mp: int


def abandonment(
    leaver_total: int,
    other_total: int,
    *,
    penalty: int = ABANDON_PENALTY,
    table: VPTable | None = None,
    deals: int | None = 3,
) -> Abandonment:
    """The score of a game whose player ran out of time or abandoned: that line loses.

    ``leaver_total`` and ``other_total`` are the base scores, the totals of the
    completed deals of the leaver's line and of the other line. Then
    d = (other + ``penalty``) - leaver, at least 0: if the leaver is still ahead,
    the difference is nil but the game is lost all the same.

    The VP rule is picked as :func:`victory_points` picks its table: ``table``
    if given, else the table for ``deals``; ``table=None, deals=None`` is a
    one-off game.

    * One-off game: VP 20 / 0, and the MP are d / -d (002's "differenza punti").
    * With a VP table: the other line gets the higher of 14 and the VP for d,
      the leaver 0; the other line's MP is the start of its VP band, the
      leaver's minus that.

    >>> abandonment(400, 100)
    Abandonment(difference=50, other_vp=14, leaver_vp=0, other_mp=355, leaver_mp=-355)
    >>> abandonment(1000, 100).difference
    0
    >>> abandonment(0, 1250).other_vp, abandonment(0, 1250).other_mp
    (20, 1505)
    >>> abandonment(300, 500, deals=None)
    Abandonment(difference=550, other_vp=20, leaver_vp=0, other_mp=550, leaver_mp=-550)
    """
    difference = max(0, other_total + penalty - leaver_total)
    if table is None:
        if deals is None:
            return Abandonment(difference, TOTAL_VP, 0, difference, -difference)
        table = vp_table_for(deals)
    bands = _checked(table)
    other_vp = max(ABANDON_MIN_VP, victory_points(difference, table=bands)[0])
    other_mp = vp_band_floor(other_vp, bands)
    return Abandonment(difference, other_vp, 0, other_mp, -other_mp)


def knockout_winner(first_total: int, second_total: int, last_mover_line: int) -> int:
    """The line (0 or 1) that wins a knock-out match.

    The higher total wins; on a tie the line that made the last move of the
    last deal loses (002).

    >>> knockout_winner(2010, 1990, last_mover_line=0)
    0
    >>> knockout_winner(1500, 1500, last_mover_line=1)
    0
    """
    if last_mover_line not in (0, 1):
        raise RuleError(f"line {last_mover_line} is not 0 or 1")
    if first_total != second_total:
        return 0 if first_total > second_total else 1
    return 1 - last_mover_line
