"""MP into VP, abandonment and the knock-out tie (``burraco.vp``).

Sources are quoted verbatim: ``seeds/000_3e163a1ed44a6924.txt`` (the MP->VP
table), ``seeds/002_29754259bb50d367.txt`` (time-out, abandonment, one-off VP,
knock-out tie) and ``RULES.md`` ("Matches and tournaments").
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from burraco.errors import RuleError
from burraco.variants import VP_TABLE_3, VP_TABLE_4
from burraco.vp import (
    Abandonment,
    abandonment,
    knockout_winner,
    one_off_points,
    victory_points,
    vp_band_floor,
    vp_table_for,
)

# seeds/000_3e163a1ed44a6924.txt: "Di seguito la tabella da consultare per trasformare i MP in VP:"
# Each row: the line of 000 verbatim, the lowest and highest MP of the band, the winner's VP.
BANDS_000: list[tuple[str, int, int | None, int]] = [
    ("MP = VP 0->50 = 10/10", 0, 50, 10),
    ("55->150 = 11/9", 55, 150, 11),
    ("155->250 = 12/8", 155, 250, 12),
    ("255->350 = 13/7", 255, 350, 13),
    ("355->500 = 14/6", 355, 500, 14),
    ("505->650 = 15/5", 505, 650, 15),
    ("655->800 = 16/4", 655, 800, 16),
    ("805->1000 = 17/3", 805, 1000, 17),
    ("1005->1250 = 18/2", 1005, 1250, 18),
    ("1255->1500 = 19/1", 1255, 1500, 19),
    (">1500 = 20/0", 1505, None, 20),
]

# RULES.md: "For a round of 4 deals, the table in common federation use: up to 100 = 10/10,
# 300 = 11/9, 500 = 12/8, 700 = 13/7, 900 = 14/6, 1100 = 15/5, 1300 = 16/4, 1500 = 17/3,
# 1700 = 18/2, 2000 = 19/1, over 2000 = 20/0."
BANDS_4: list[tuple[int, int]] = [
    (100, 10),
    (300, 11),
    (500, 12),
    (700, 13),
    (900, 14),
    (1100, 15),
    (1300, 16),
    (1500, 17),
    (1700, 18),
    (2000, 19),
]


def pair(vp: int) -> tuple[int, int]:
    return vp, 20 - vp


# --- The tables themselves -------------------------------------------------------------


def test_table_3_is_000s_table() -> None:
    """seeds/000_3e163a1ed44a6924.txt: the rows "MP = VP 0->50 = 10/10" ... "1255->1500 = 19/1"."""
    assert tuple((high, vp) for _, _, high, vp in BANDS_000 if high is not None) == VP_TABLE_3


def test_table_4_is_the_common_federation_table() -> None:
    """RULES.md: "For a round of 4 deals, the table in common federation use: up to 100 = 10/10"."""
    assert tuple(BANDS_4) == VP_TABLE_4


def test_deals_pick_the_table() -> None:
    """RULES.md: "For a round of 3 deals (and by default) the table of 000"."""
    assert vp_table_for(3) == VP_TABLE_3
    assert vp_table_for(4) == VP_TABLE_4
    assert victory_points(100) == victory_points(100, deals=3) == (11, 9)
    assert victory_points(100, deals=4) == (10, 10)


# --- 3-deal table (000), every band on both ends and both sides of each boundary ----------


@pytest.mark.parametrize(("row", "low", "high", "vp"), BANDS_000, ids=[r[0] for r in BANDS_000])
def test_000_band_ends(row: str, low: int, high: int | None, vp: int) -> None:
    """seeds/000_3e163a1ed44a6924.txt: the row given as ``row``, e.g. "355->500 = 14/6".

    RULES.md: "A difference falls in the first band whose upper end is at least it."
    """
    assert victory_points(low) == pair(vp)
    if high is not None:
        assert victory_points(high) == pair(vp)
        # Just over the upper end is the next band, whether the next MP are 1 or 5 above.
        assert victory_points(high + 1) == pair(vp + 1)
        assert victory_points(high + 5) == pair(vp + 1)
    else:
        assert victory_points(10**6) == pair(20)


@pytest.mark.parametrize(("row", "low", "high", "vp"), BANDS_000, ids=[r[0] for r in BANDS_000])
def test_000_band_ends_mirrored(row: str, low: int, high: int | None, vp: int) -> None:
    """seeds/000_3e163a1ed44a6924.txt: the row given as ``row``.

    RULES.md: "A negative difference gives the mirrored pair."
    """
    loser_view = (20 - vp, vp)
    assert victory_points(-low) == loser_view
    if high is not None:
        assert victory_points(-high) == loser_view
        assert victory_points(-(high + 1)) == (20 - vp - 1, vp + 1)


@pytest.mark.parametrize(("row", "low", "high", "vp"), BANDS_000, ids=[r[0] for r in BANDS_000])
def test_000_band_floor(row: str, low: int, high: int | None, vp: int) -> None:
    """seeds/000_3e163a1ed44a6924.txt: the row given as ``row``: each band starts where 000 says.

    seeds/002_29754259bb50d367.txt: "I MP di entrambe le linee saranno calcolati dai VP in base
    ai corrispondenti minimi previsti dalla tabella dei VP."
    """
    assert vp_band_floor(vp, VP_TABLE_3) == low


def test_brief_examples() -> None:
    """RULES.md: "up to 50 = 10/10, up to 150 = 11/9" and "over 1500 = 20/0"."""
    assert victory_points(0) == (10, 10)
    assert victory_points(50) == (10, 10)
    assert victory_points(55) == (11, 9)
    assert victory_points(-151) == (8, 12)
    assert victory_points(1501) == (20, 0)
    assert victory_points(-1501) == (0, 20)


# --- 4-deal table (RULES.md), upper and upper + 1 of every band ---------------------------


@pytest.mark.parametrize(("high", "vp"), BANDS_4, ids=[f"up to {h} = {v}" for h, v in BANDS_4])
def test_4_deal_band_boundaries(high: int, vp: int) -> None:
    """RULES.md: "For a round of 4 deals, the table in common federation use: up to 100 = 10/10,
    300 = 11/9, 500 = 12/8, 700 = 13/7, 900 = 14/6, 1100 = 15/5, 1300 = 16/4, 1500 = 17/3,
    1700 = 18/2, 2000 = 19/1, over 2000 = 20/0."
    """
    assert victory_points(high, deals=4) == pair(vp)
    assert victory_points(high + 1, deals=4) == pair(vp + 1)
    assert victory_points(-high, deals=4) == (20 - vp, vp)
    assert victory_points(-(high + 1), deals=4) == (20 - vp - 1, vp + 1)


def test_4_deal_band_floors() -> None:
    """RULES.md: "the other line's MP is the lower end of its VP band" (MP move in steps of 5)."""
    floors = [vp_band_floor(vp, VP_TABLE_4) for vp in range(10, 21)]
    assert floors == [0, 105, 305, 505, 705, 905, 1105, 1305, 1505, 1705, 2005]


def test_4_deal_examples() -> None:
    """RULES.md: "up to 100 = 10/10" and "over 2000 = 20/0"."""
    assert victory_points(0, deals=4) == (10, 10)
    assert victory_points(100, deals=4) == (10, 10)
    assert victory_points(2001, deals=4) == (20, 0)
    assert victory_points(-2001, deals=4) == (0, 20)


# --- Other tables and bad input ---------------------------------------------------------


def test_other_deals_need_a_table() -> None:
    """RULES.md: "Tables are data, so a director can load another."."""
    with pytest.raises(RuleError, match="5 deals"):
        victory_points(100, deals=5)
    custom = ((20, 10), (100, 15))
    assert victory_points(100, deals=5, table=custom) == (15, 5)
    assert victory_points(-21, table=custom) == (5, 15)
    assert victory_points(101, table=custom) == (20, 0)
    assert vp_band_floor(12, custom) == 25  # no band of 12: the first that gives at least 12
    assert vp_band_floor(20, custom) == 105


@pytest.mark.parametrize(
    "table",
    [(), ((100, 10), (50, 11)), ((100, 12), (200, 11)), ((100, 9),), ((100, 21),)],
    ids=["empty", "ends fall", "VP fall", "under 10", "over 20"],
)
def test_bad_tables_are_refused(table: tuple[tuple[int, int], ...]) -> None:
    with pytest.raises(RuleError):
        victory_points(0, table=table)
    with pytest.raises(RuleError):
        vp_band_floor(15, table)


@pytest.mark.parametrize("vp", [9, 21, -1])
def test_band_floor_needs_a_winners_vp(vp: int) -> None:
    with pytest.raises(RuleError):
        vp_band_floor(vp, VP_TABLE_3)


# --- Properties -------------------------------------------------------------------------

tables = st.sampled_from([VP_TABLE_3, VP_TABLE_4])
differences = st.integers(min_value=-5000, max_value=5000)


@given(differences, tables)
def test_vp_are_20_shared(d: int, table: tuple[tuple[int, int], ...]) -> None:
    """RULES.md: "The point difference at a table (MP) becomes Victory Points, 20 shared."."""
    first, second = victory_points(d, table=table)
    assert first + second == 20
    assert 0 <= first <= 20


@given(differences, tables)
def test_negative_difference_mirrors(d: int, table: tuple[tuple[int, int], ...]) -> None:
    """RULES.md: "A negative difference gives the mirrored pair."."""
    first, second = victory_points(d, table=table)
    assert victory_points(-d, table=table) == (second, first)
    if d >= 0:
        assert first >= second


@given(differences, differences, tables)
def test_vp_grow_with_the_difference(a: int, b: int, table: tuple[tuple[int, int], ...]) -> None:
    """RULES.md: "A difference falls in the first band whose upper end is at least it."."""
    low, high = sorted((a, b))
    assert victory_points(low, table=table)[0] <= victory_points(high, table=table)[0]


@given(st.integers(min_value=10, max_value=20), tables)
def test_band_floor_is_the_lowest_difference(vp: int, table: tuple[tuple[int, int], ...]) -> None:
    """seeds/000_3e163a1ed44a6924.txt: "55->150 = 11/9" (a band starts 5 above the last)."""
    floor = vp_band_floor(vp, table)
    assert victory_points(floor, table=table)[0] == vp
    if floor > 0:
        assert victory_points(floor - 5, table=table)[0] == vp - 1


# --- One-off games (002) ----------------------------------------------------------------


def test_one_off_points() -> None:
    """seeds/002_29754259bb50d367.txt, "Tabella dei Victory Points (VP)" (columns tab-separated):
    "RISULTATO VP" / "Vittoria 20" / "Pareggio (ove previsto) 10" / "Sconfitta 0".

    RULES.md: "For one-off games 002 uses 20 / 10 / 0 for a win / draw / loss."
    """
    assert one_off_points(2010, 1500) == (20, 0)
    assert one_off_points(1500, 2010) == (0, 20)
    assert one_off_points(-100, -100) == (10, 10)
    assert one_off_points(1, 0) == (20, 0)


# --- Time-out and abandonment (002, RULES.md) -------------------------------------------


def test_abandonment_positive_difference() -> None:
    """seeds/002_29754259bb50d367.txt: "si stabilisce una “penalità” pari a 350 punti,"
    and "si fanno i conti con punteggio base + penalità,".

    RULES.md: "d = (other line + 350) - leaver, at least 0." and "With a VP table: the other
    line gets the higher of 14 and the VP for d, the leaver 0; the other line's MP is the lower
    end of its VP band (355 for 14), the leaver's minus that."
    """
    # Leaver 300 ahead before the penalty: d = 100 + 350 - 400 = 50, only 10 VP, so 14.
    assert abandonment(400, 100) == Abandonment(
        difference=50, other_vp=14, leaver_vp=0, other_mp=355, leaver_mp=-355
    )
    # d = 500 + 350 - 300 = 550: 15 VP, over the minimum; MP the start of that band.
    assert abandonment(300, 500) == Abandonment(
        difference=550, other_vp=15, leaver_vp=0, other_mp=505, leaver_mp=-505
    )


def test_abandonment_difference_clamped_to_zero() -> None:
    """seeds/002_29754259bb50d367.txt: "se il punteggio è ancora a favore di chi ha fatto scadere
    il tempo o il timeout, la differenza punti è uguale a zero (ma la partita è comunque persa da
    chi ha fatto scadere il tempo)."
    """
    result = abandonment(2000, 100)
    assert result.difference == 0
    assert (result.other_vp, result.leaver_vp) == (14, 0)
    assert (result.other_mp, result.leaver_mp) == (355, -355)
    # Exactly level after the penalty is also nil.
    assert abandonment(450, 100).difference == 0


def test_abandonment_minimum_14_vp() -> None:
    """seeds/002_29754259bb50d367.txt: "la linea che fa scadere il timeout o abbandona farà 0 VP e
    la linea avversaria farà minimo 14 VP."
    """
    for leaver, other in [(0, 0), (350, 0), (0, 150), (1000, 1000)]:
        result = abandonment(leaver, other)
        assert result.other_vp == 14
        assert result.leaver_vp == 0


def test_abandonment_big_difference_gives_more_than_14() -> None:
    """RULES.md: "the other line gets the higher of 14 and the VP for d"."""
    result = abandonment(0, 1250)  # d = 1600
    assert result == Abandonment(
        difference=1600, other_vp=20, leaver_vp=0, other_mp=1505, leaver_mp=-1505
    )
    # d = 1500 exactly is still 19 VP, from 1255.
    assert abandonment(0, 1150).other_vp == 19
    assert abandonment(0, 1150).other_mp == 1255


def test_abandonment_with_the_4_deal_table() -> None:
    """RULES.md: "the other line's MP is the lower end of its VP band (355 for 14)"."""
    assert abandonment(0, 0, deals=4) == Abandonment(350, 14, 0, 705, -705)  # 350 is 12 VP, so 14
    assert abandonment(0, 1700, deals=4).other_vp == 20
    assert abandonment(0, 1700, deals=4).other_mp == 2005
    with pytest.raises(RuleError):
        abandonment(0, 0, deals=5)


def test_abandonment_one_off() -> None:
    """RULES.md: "One-off games: VP 20 / 0."

    seeds/002_29754259bb50d367.txt: "il giocatore **perde la partita** e la differenza punti è
    così stabilita:".
    """
    assert abandonment(300, 500, deals=None) == Abandonment(550, 20, 0, 550, -550)
    assert abandonment(2000, 0, deals=None) == Abandonment(0, 20, 0, 0, 0)


def test_abandonment_custom_penalty_and_table() -> None:
    """RULES.md: "Tables are data, so a director can load another."."""
    custom = ((100, 10), (400, 14), (800, 17))
    result = abandonment(0, 100, penalty=500, table=custom, deals=None)
    assert result == Abandonment(600, 17, 0, 405, -405)


@given(st.integers(-3000, 6000), st.integers(-3000, 6000), st.sampled_from([3, 4]))
def test_abandonment_properties(leaver: int, other: int, deals: int) -> None:
    """seeds/002_29754259bb50d367.txt: "la linea che fa scadere il timeout o abbandona farà 0 VP e
    la linea avversaria farà minimo 14 VP."
    """
    result = abandonment(leaver, other, deals=deals)
    assert result.difference == max(0, other + 350 - leaver)
    assert result.leaver_vp == 0
    assert 14 <= result.other_vp <= 20
    assert result.other_vp == max(14, victory_points(result.difference, deals=deals)[0])
    assert result.leaver_mp == -result.other_mp
    assert victory_points(result.other_mp, deals=deals)[0] == result.other_vp


# --- Knock-out tie (002) ----------------------------------------------------------------


def test_knockout_higher_total_wins() -> None:
    """seeds/002_29754259bb50d367.txt: "Vince la partita chi fa più punti al termine delle
    smazzate previste."
    """
    assert knockout_winner(1800, 1700, last_mover_line=0) == 0
    assert knockout_winner(1800, 1700, last_mover_line=1) == 0
    assert knockout_winner(-10, 5, last_mover_line=1) == 1


def test_knockout_tie_lost_by_last_mover() -> None:
    """seeds/002_29754259bb50d367.txt: "Solo nei tornei a eliminazione diretta (KO), in caso di
    parità di punti, **perde** chi ha fatto l'ultima mossa dell'ultima smazzata."

    RULES.md: "In knock-out matches a tie is lost by the line that made the last move of the
    last deal (002)."
    """
    assert knockout_winner(1500, 1500, last_mover_line=0) == 1
    assert knockout_winner(1500, 1500, last_mover_line=1) == 0


@pytest.mark.parametrize("line", [-1, 2])
def test_knockout_needs_a_line(line: int) -> None:
    with pytest.raises(RuleError):
        knockout_winner(0, 0, last_mover_line=line)
