"""The tournament (``burraco.tournament``): phases, results, VP standings, byes, tie-breaks,
the abandonment rule, the knock-out tie, saving and errors that change nothing.

Sources: ``RULES.md`` ("Matches and tournaments"), ``seeds/000_3e163a1ed44a6924.txt``
(the MP->VP table, 15-minute deals) and ``seeds/002_29754259bb50d367.txt`` (abandonment,
the knock-out tie).
"""

from __future__ import annotations

import json
import pickle
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burraco.errors import RuleError
from burraco.refusals import TEXTS as REFUSALS
from burraco.tournament import (
    ByeRule,
    Entrant,
    Phase,
    Settings,
    Tournament,
    TournamentError,
    score_table,
    standings_of,
)
from burraco.tournament.errors import PHASES, TEXTS, WORDS
from burraco.tournament.tables import TableAssignment, TableResult
from burraco.variants import VP_TABLE_3, VP_TABLE_4


def field(t: Tournament, n: int) -> Tournament:
    for i in range(1, n + 1):
        t.register((f"P{i}a", f"P{i}b") if t.settings.kind == "pairs" else f"P{i}")
    return t


def duel(**options: Any) -> Tournament:
    """Two players, one round: the simplest table."""
    t = field(
        Tournament(kind="individual", format="round-robin", seeding="registration", **options), 2
    )
    t.start_round()
    return t


def vp_of(t: Tournament) -> dict[int, int]:
    return {s.entrant: s.vp for s in t.standings()}


def mp_of(t: Tournament) -> dict[int, int]:
    return {s.entrant: s.mp for s in t.standings()}


# --- VP tables in the standings -----------------------------------------------------------------


def _boundaries(table: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """Each band's upper end and the next MP (5 more): the winner's VP at each."""
    cases = []
    for i, (end, vp) in enumerate(table):
        after = table[i + 1][1] if i + 1 < len(table) else 20
        cases += [(end, vp), (end + 5, after)]
    return [*cases, (0, 10)]


@pytest.mark.parametrize(("difference", "vp"), _boundaries(VP_TABLE_3))
@pytest.mark.parametrize("first_wins", [True, False])
def test_standings_use_the_3_deal_table_at_every_boundary(
    difference: int, vp: int, first_wins: bool
) -> None:
    t = duel(deals=3)
    base = 1000
    first, second = (base + difference, base) if first_wins else (base, base + difference)
    t.enter_result(1, first, second)
    winner, loser = (1, 2) if first_wins else (2, 1)
    assert vp_of(t) == {winner: vp, loser: 20 - vp}
    assert mp_of(t) == {winner: difference, loser: -difference}


@pytest.mark.parametrize(("difference", "vp"), _boundaries(VP_TABLE_4))
def test_standings_use_the_4_deal_table_at_every_boundary(difference: int, vp: int) -> None:
    t = duel(deals=4)
    t.enter_result(1, difference, 0)
    assert vp_of(t) == {1: vp, 2: 20 - vp}


def test_a_director_may_load_another_vp_table() -> None:
    t = duel(deals=5, vp_table=((100, 10), (500, 15)))
    t.enter_result(1, 0, 300)
    assert vp_of(t) == {1: 5, 2: 15}
    with pytest.raises(TournamentError, match="no VP table for a round of 5 deals"):
        Settings(deals=5)
    with pytest.raises(TournamentError, match="bands must grow"):
        Settings(vp_table=((100, 10), (50, 12)))
    assert isinstance(TournamentError("line_repeated"), RuleError)


def test_settings_default_to_15_minute_deals_and_a_12_vp_bye() -> None:
    s = Settings()
    assert s.deal_minutes == 15 and s.deals == 3 and s.table == VP_TABLE_3
    assert s.bye == ByeRule(vp=12)


# --- abandonment (002) ----------------------------------------------------------------------


@pytest.mark.parametrize("leaver_first", [True, False])
def test_abandonment_gives_the_leaver_0_and_the_other_line_at_least_14(leaver_first: bool) -> None:
    t = duel()
    leaver, other = (1, 2) if leaver_first else (2, 1)
    # The leaver was 300 ahead: d = 100 + 350 - 400 = 50, still 14 VP and 355 MP (002).
    first, second = (400, 100) if leaver_first else (100, 400)
    result = t.enter_result(1, first, second, abandoned_by=leaver)
    assert result.winner == other
    assert vp_of(t) == {leaver: 0, other: 14}
    assert mp_of(t) == {leaver: -355, other: 355}
    st = {s.entrant: s for s in t.standings()}
    assert (st[other].wins, st[leaver].losses) == (1, 1)


def test_abandonment_when_far_behind_gives_the_vp_of_the_difference() -> None:
    t = duel()
    t.enter_result(1, 0, 1250, abandoned_by=1)  # d = 1600: 20 VP, MP from the band's start
    assert vp_of(t) == {1: 0, 2: 20}
    assert mp_of(t) == {1: -1505, 2: 1505}


def test_abandoned_by_must_sit_at_the_table() -> None:
    t = duel()
    with pytest.raises(TournamentError, match="abandoned_by 7 does not sit at this table"):
        t.enter_result(1, 0, 0, abandoned_by=7)


# --- tie-breaks ---------------------------------------------------------------------------------


def _results(rows: list[tuple[int, int, int, int]]) -> list[Any]:
    return [
        score_table(TableAssignment(1, i, a, b), mp_a, mp_b, VP_TABLE_3)
        for i, (a, b, mp_a, mp_b) in enumerate(rows, start=1)
    ]


FOUR = [Entrant(i, (f"P{i}",)) for i in (1, 2, 3, 4)]


def test_vp_rank_first() -> None:
    results = _results([(1, 2, 0, 60), (3, 4, 0, 2000)])
    order = [s.entrant for s in standings_of(FOUR, results, [], VP_TABLE_3)]
    assert order == [4, 2, 1, 3]


def test_level_vp_are_separated_by_mp_difference() -> None:
    # 1 and 3 both win 11/9, by 60 and by 150.
    results = _results([(1, 2, 60, 0), (3, 4, 150, 0)])
    order = [s.entrant for s in standings_of(FOUR, results, [], VP_TABLE_3)]
    assert order == [3, 1, 2, 4]


def test_level_vp_and_mp_are_separated_by_head_to_head() -> None:
    # 2 beat 1 by 100 (11/9); 1 beat 3 by 400 (14/6); 2 beat 4 by 200 (12/8):
    # 1 and 2 both have 23 VP and +300 MP; the draw puts 1 first, head-to-head 2.
    results = _results([(1, 2, 0, 100), (1, 3, 400, 0), (2, 4, 200, 0)])
    table = standings_of(FOUR, results, [], VP_TABLE_3)
    top = [(s.entrant, s.vp, s.mp) for s in table[:2]]
    assert top == [(2, 23, 300), (1, 23, 300)]


def test_head_to_head_in_a_three_way_tie_is_a_mini_league() -> None:
    field3 = FOUR[:3]
    # A cycle of equal wins: everyone has 20 VP and 0 MP, and the mini-league of the three
    # is level too (20 VP each), so the order of the draw decides.
    cycle = _results([(1, 2, 100, 0), (2, 3, 100, 0), (3, 1, 100, 0)])
    assert [s.entrant for s in standings_of(field3, cycle, [], VP_TABLE_3)] == [1, 2, 3]
    assert [s.rank for s in standings_of(field3, cycle, [], VP_TABLE_3)] == [1, 2, 3]
    backwards = list(reversed(field3))
    assert [s.entrant for s in standings_of(backwards, cycle, [], VP_TABLE_3)] == [3, 2, 1]


def test_standings_follow_every_table_result() -> None:
    t = field(Tournament(kind="pairs", format="danish", rounds=2, seeding="registration"), 6)
    t.start_round()
    assert {s.vp for s in t.standings()} == {0}
    t.enter_result(1, 1200, 1000)
    assert vp_of(t)[1] == 12 and vp_of(t)[2] == 8 and vp_of(t)[3] == 0
    t.enter_result(2, 500, 1600)
    assert vp_of(t)[4] == 18
    t.correct_result(2, 500, 600)
    assert vp_of(t)[4] == 11 and vp_of(t)[3] == 9
    assert [s.played for s in t.standings()].count(1) == 4


# --- byes ---------------------------------------------------------------------------------------


def test_a_bye_is_worth_12_vp_by_default_and_the_start_of_that_band_in_mp() -> None:
    t = field(Tournament(kind="individual", format="round-robin", seeding="registration"), 3)
    t.start_round()
    (bye,) = t.current_round.byes  # type: ignore[union-attr]
    st = {s.entrant: s for s in t.standings()}
    assert (st[bye].vp, st[bye].mp, st[bye].byes, st[bye].played) == (12, 155, 1, 0)


def test_bye_options_14_and_average() -> None:
    t = field(Tournament(kind="individual", format="round-robin", bye=ByeRule(vp=14)), 3)
    t.start_round()
    (bye,) = t.current_round.byes  # type: ignore[union-attr]
    assert vp_of(t)[bye] == 14 and mp_of(t)[bye] == 355
    t = field(
        Tournament(
            kind="individual",
            format="round-robin",
            seeding="registration",
            bye=ByeRule(average=True),
        ),
        3,
    )
    t.start_round()  # round 1: 1 has the bye; 2 v 3
    assert t.current_round.byes == [1]  # type: ignore[union-attr]
    assert vp_of(t)[1] == 10  # no table played yet: a draw
    t.enter_result(1, 1000, 0)
    t.close_round()
    t.start_round()  # round 2: 2 has the bye
    assert t.current_round.byes == [2]  # type: ignore[union-attr]
    assert vp_of(t)[2] == 17 + 17  # its average is its one table: 17 VP
    table = t.current_round.tables[0]  # type: ignore[union-attr]
    t.enter_result(table.table, 0, 0)
    t.close_round()
    # 1's average after its first table (10 VP): the bye counts 10.
    assert vp_of(t)[1] == 10 + 10


def test_bye_rule_refuses_impossible_values() -> None:
    with pytest.raises(TournamentError, match="0 to 20 VP"):
        ByeRule(vp=21)
    with pytest.raises(TournamentError, match="'average'"):
        ByeRule.parse("lots")


# --- phases -------------------------------------------------------------------------------------


def test_phases_run_from_registration_to_finished() -> None:
    t = field(Tournament(kind="pairs", format="mitchell"), 6)
    assert t.phase is Phase.REGISTRATION and t.round_number == 0
    for number in (1, 2, 3):
        tables = t.start_round()
        assert t.phase is Phase.SEATING and t.round_number == number
        t.start_play()
        assert t.phase is Phase.PLAYING
        for a in tables:
            t.enter_result(a.table, 800, 700)
        t.close_round()
        assert t.phase is (Phase.FINISHED if number == 3 else Phase.CLOSED)
    assert t.planned_rounds == 3
    assert t.champion() is not None


def test_a_danish_run_without_rounds_ends_when_the_director_says() -> None:
    t = field(Tournament(kind="individual", format="danish"), 4)
    for _ in range(5):
        for a in t.start_round():
            t.enter_result(a.table, 100, 0)
        t.close_round()
        assert t.phase is Phase.CLOSED
    t.finish()
    assert t.phase is Phase.FINISHED
    assert max(r.repeats for r in t.rounds) > 0  # 4 lines: new opponents run out by round 4
    assert t.rounds[1].repeats == 0 and t.rounds[2].repeats == 0


def test_seats_of_pairs_and_individuals() -> None:
    t = field(Tournament(kind="pairs", format="round-robin", seeding="registration"), 2)
    (a,) = t.start_round()
    assert t.seats(a) == {"N": "P1a", "S": "P1b", "E": "P2a", "W": "P2b"}
    t = field(Tournament(kind="individual", format="round-robin", seeding="registration"), 2)
    (a,) = t.start_round()
    assert t.seats(a) == {"N": "P1", "S": "P2"}


def test_the_draw_is_fixed_by_the_seed() -> None:
    def draw(seed: int) -> list[int]:
        t = field(Tournament(kind="pairs", format="danish", rounds=1, seed=seed), 12)
        t.start_round()
        return t.draw

    assert draw(1) == draw(1)
    assert draw(1) != draw(2)
    assert sorted(draw(3)) == list(range(1, 13))


def test_padding_with_bots() -> None:
    t = Tournament(kind="pairs")
    t.register(("Anna", "Bruno"))
    added = t.pad_with_bots(5, ["expert", "greedy", "learned"])
    assert [(e.id, e.bot, e.name) for e in added] == [
        (2, "expert", "Expert 2"),
        (3, "greedy", "Greedy 3"),
        (4, "learned", "Learned 4"),
        (5, "expert", "Expert 5"),
    ]
    assert added[0].players == ("Expert 2a", "Expert 2b")


# --- knock-out ----------------------------------------------------------------------------------


def test_knockout_tie_is_lost_by_the_line_that_made_the_last_move() -> None:
    t = field(Tournament(kind="pairs", format="knockout", seeding="registration"), 4)
    tables = t.start_round()
    assert [(a.first, a.second) for a in tables] == [(1, 4), (2, 3)]
    with pytest.raises(TournamentError, match=r"knock-out tie \(900 to 900\).*last_mover"):
        t.enter_result(1, 900, 900)
    result = t.enter_result(1, 900, 900, last_mover=1)
    assert result.winner == 4  # 1 moved last, so 1 loses (002)
    t.enter_result(2, 700, 1200)
    t.close_round()
    (final,) = t.start_round()
    assert (final.first, final.second) == (4, 3)
    t.enter_result(1, 1000, 1000, last_mover=3)
    t.close_round()
    assert t.phase is Phase.FINISHED
    champion = t.champion()
    assert champion is not None and champion.id == 4
    assert [s.entrant for s in t.standings()][:2] == [4, 3]
    with pytest.raises(TournamentError, match="drawn from the winners of round 1"):
        t.correct_result(1, 1000, 0, round=1)


def test_knockout_of_a_field_not_a_power_of_two() -> None:
    t = field(Tournament(kind="individual", format="knockout", seeding="registration"), 6)
    tables = t.start_round()
    assert t.current_round.byes == [1, 2]  # type: ignore[union-attr]
    assert len(tables) == 2 and t.planned_rounds == 3
    stages_played = 0
    while t.phase is not Phase.FINISHED:
        if t.phase is Phase.CLOSED:
            tables = t.start_round()
        for a in tables:
            t.enter_result(a.table, 500, 0)  # the first line (the better seed) wins
        stages_played += len(tables)
        t.close_round()
    assert stages_played == 5  # every line but the champion lost exactly once
    assert t.champion() == t.entrant(1)
    with pytest.raises(TournamentError, match="has 3 rounds, not 2"):
        field(Tournament(kind="individual", format="knockout", rounds=2), 6).start_round()


# --- errors that change nothing ----------------------------------------------------------------


def _unchanged(t: Tournament, action: Callable[[], object], match: str) -> None:
    before = json.dumps(t.to_dict(), sort_keys=True)
    with pytest.raises(TournamentError, match=match):
        action()
    assert json.dumps(t.to_dict(), sort_keys=True) == before


def test_errors_name_the_rule_and_leave_the_tournament_unchanged() -> None:
    t = Tournament(kind="pairs", format="round-robin", seeding="registration")
    _unchanged(t, lambda: t.start_round(), "at least two lines, not 0")
    field(t, 4)
    _unchanged(t, lambda: t.register("Solo"), "is 2 players, not 1")
    _unchanged(t, lambda: t.register(("P1a", "Zoe")), "P1a already plays in a line")
    _unchanged(t, lambda: t.register(Entrant(2, ("X", "Y"))), "id 2 is taken")
    _unchanged(t, lambda: t.register(("X", "Y"), bot="genius"), "no bot level 'genius'")
    _unchanged(t, lambda: t.enter_result(1, 0, 0), "no round is in play")
    _unchanged(t, lambda: t.close_round(), "no round is in play")
    _unchanged(t, lambda: t.correct_result(1, 0, 0), "no round has been played")
    _unchanged(t, lambda: t.pad_with_bots(2), "already has 4 lines")
    t.start_round()
    _unchanged(t, lambda: t.register(("X", "Y")), "entries close when round 1 starts")
    _unchanged(t, lambda: t.enter_result(9, 0, 0), "round 1 has no table 9")
    _unchanged(t, lambda: t.enter_result(1, 3, 0), "steps of 5")
    _unchanged(t, lambda: t.correct_result(1, 0, 0), "has no result yet")
    _unchanged(t, lambda: t.close_round(), "tables without a result: 1, 2")
    t.enter_result(1, 100, 0)
    _unchanged(t, lambda: t.enter_result(1, 0, 0), "already has a result; use correct_result")
    _unchanged(t, lambda: t.start_round(), "round 1 is not closed yet")
    _unchanged(t, lambda: t.start_play(), "a round is played after it is seated")
    _unchanged(t, lambda: t.finish(), "a tournament ends after a closed round")
    _unchanged(t, lambda: t.correct_result(1, 0, 0, round=4), "there is no round 4")
    t.enter_result(2, 100, 0)
    t.close_round()
    _unchanged(t, lambda: t.enter_result(1, 0, 0), r"no round is in play \(round 1 is closed\)")
    _unchanged(t, lambda: t.withdraw(1), "the field is fixed")


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, tuple[int, ...]]]:
    names = ["register", "start", "play", "enter", "correct", "close", "finish", "withdraw"]
    ops = []
    for _ in range(draw(st.integers(1, 40))):
        name = draw(st.sampled_from(names))
        args = tuple(draw(st.lists(st.integers(-2, 12), min_size=4, max_size=4)))
        ops.append((name, args))
    return ops


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["round-robin", "danish", "mitchell", "knockout"]),
    st.sampled_from(["pairs", "individual"]),
    operations(),
)
def test_any_sequence_of_calls_either_works_or_changes_nothing(
    fmt: str, kind: str, ops: list[tuple[str, tuple[int, ...]]]
) -> None:
    t = Tournament(format=fmt, kind=kind, rounds=3 if fmt == "danish" else None)
    count = 0
    for name, (a, b, c, d) in ops:
        before = t.to_dict()
        try:
            if name == "register":
                count += 1
                players = (f"X{count}", f"Y{count}") if kind == "pairs" else (f"X{count}",)
                t.register(players if a % 3 else players[:1] + players)
            elif name == "start":
                t.start_round()
            elif name == "play":
                t.start_play()
            elif name == "enter":
                t.enter_result(a, b * 100 + (c % 2) * 3, d * 50, last_mover=_line(t, a, c))
            elif name == "correct":
                t.correct_result(
                    a, b * 50, c * 100, round=d % 4 or None, abandoned_by=_line(t, a, b)
                )
            elif name == "close":
                t.close_round()
            elif name == "finish":
                t.finish()
            else:
                t.withdraw(a)
        except TournamentError:
            assert t.to_dict() == before
        # Whatever happened, the tournament saves and reloads to the same thing.
        assert Tournament.from_json(t.to_json()).to_dict() == t.to_dict()
        vps = [s.vp for s in t.standings()]
        assert all(v >= 0 for v in vps)


def _line(t: Tournament, table: int, pick: int) -> int | None:
    """A line of the table (or None, or a stranger), to exercise the checks."""
    if t.current_round is None or pick % 3 == 0:
        return None
    a = t.current_round.assignment(table)
    if a is None or pick % 3 == 1:
        return 99
    return a.lines[pick % 2]


# --- saving -------------------------------------------------------------------------------------


def _play_round(t: Tournament, seed: int) -> None:
    for a in t.start_round():
        t.enter_result(a.table, (a.first * 37 + seed) % 40 * 50, (a.second * 53 + seed) % 40 * 50)
    t.close_round()


def test_save_and_reload_mid_tournament_then_carry_on_the_same(tmp_path: Path) -> None:
    settings_ = Settings(name="Club night", format="danish", kind="pairs", rounds=4, seed=5)
    straight = field(Tournament(settings_), 11)
    reloaded = field(Tournament(settings_), 11)
    for seed in (1, 2):
        _play_round(straight, seed)
        _play_round(reloaded, seed)
    path = tmp_path / "club.json"
    reloaded.save(path)
    reloaded = Tournament.load(path)
    assert reloaded.to_dict() == straight.to_dict()
    for seed in (3, 4):
        _play_round(straight, seed)
        _play_round(reloaded, seed)
    assert reloaded.to_dict() == straight.to_dict()
    assert reloaded.standings() == straight.standings()
    assert reloaded.phase is Phase.FINISHED
    data = json.loads(path.read_text())
    assert data["format"] == "burraco-tournament" and data["settings"]["name"] == "Club night"


def test_save_keeps_a_loaded_vp_table_the_bye_rule_and_a_round_in_play() -> None:
    t = Tournament(
        format="round-robin",
        kind="individual",
        deals=4,
        vp_table=((200, 10), (400, 14)),
        bye=ByeRule(average=True),
    )
    field(t, 5)
    t.start_round()
    t.enter_result(t.current_round.tables[0].table, 0, 5, abandoned_by=None)  # type: ignore[union-attr]
    back = Tournament.from_json(t.to_json())
    assert back.settings == t.settings
    assert back.phase is Phase.PLAYING
    assert back.to_dict() == t.to_dict()
    assert back.standings() == t.standings()


def test_a_table_a_result_and_a_standing_are_saved_field_by_field_in_order() -> None:
    """The saved file's and the desk's shapes: every field of each record under its own
    name, in the order of the record's fields."""
    seat = TableAssignment(2, 1, 7, 9)
    result = score_table(seat, 900, 400, VP_TABLE_3, abandoned_by=9)
    t = duel()
    _ = t.enter_result(1, 1250, 400)
    saved = [seat.to_dict(), result.to_dict(), t.standings()[1].to_dict()]
    assert [list(d.items()) for d in saved] == [
        [("round", 2), ("table", 1), ("first", 7), ("second", 9)],
        [
            ("round", 2),
            ("table", 1),
            ("first", 7),
            ("second", 9),
            ("mp_first", 900),
            ("mp_second", 400),
            ("vp_first", 17),
            ("vp_second", 0),
            ("mp_difference", 805),
            ("winner", 7),
            ("abandoned_by", 9),
            ("last_mover", None),
        ],
        [
            ("rank", 2),
            ("entrant", 2),
            ("name", "P2"),
            ("vp", 3),
            ("mp", -850),
            ("played", 1),
            ("byes", 0),
            ("wins", 0),
            ("draws", 0),
            ("losses", 1),
            ("stage", 0),
        ],
    ]
    assert TableResult.from_dict(result.to_dict()) == result


def test_loading_refuses_other_files() -> None:
    with pytest.raises(TournamentError, match="not a saved tournament"):
        Tournament.from_dict({"format": "something else"})


# --- the errors' codes (burraco.tournament.errors) -----------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _caught(call: Callable[[], object]) -> TournamentError:
    with pytest.raises(TournamentError) as caught:
        call()
    return caught.value


def test_every_error_says_its_code_and_params_and_the_english_as_before() -> None:
    """Each error carries a code of TEXTS and exactly the params its template names (a
    rule of the phase: the phase and the round); its message is the template filled
    from them, after the action refused."""
    t = field(Tournament(format="round-robin", kind="pairs", seeding="registration"), 4)
    cases: list[tuple[TournamentError, str, dict[str, str | int], str]] = [
        (
            _caught(lambda: Settings(format="swiss")),  # type: ignore[arg-type]
            "unknown_format",
            {"format": "'swiss'", "formats": "round-robin, danish, mitchell, knockout"},
            "no format 'swiss' (round-robin, danish, mitchell, knockout)",
        ),
        (
            _caught(lambda: Settings(vp_table=((100, 10), (50, 12)))),
            "bad_vp_table",
            {"problem": "VP table bands must grow: 50 after 100"},
            "VP table bands must grow: 50 after 100",
        ),
        (
            _caught(lambda: t.register("Elena")),
            "line_of_two",
            {"count": 1, "names": "Elena"},
            "register: a line of a pairs tournament is 2 players, not 1 (Elena)",
        ),
        (
            _caught(lambda: t.close_round()),
            "no_round_in_play",
            {"phase": "registration", "round": 0},
            "close_round: no round is in play (the tournament is taking entries)",
        ),
    ]
    t.start_round()
    cases += [
        (
            _caught(lambda: t.pad_with_bots(8)),
            "field_fixed",
            {"phase": "seating", "round": 1},
            "pad_with_bots: the field is fixed when round 1 starts (round 1 is being seated)",
        ),
        (
            _caught(lambda: t.start_round()),
            "round_not_closed",
            {"round": 1, "missing": "1, 2"},
            "start_round: round 1 is not closed yet (tables without a result: 1, 2); "
            "close it first",
        ),
        (
            _caught(lambda: t.enter_result(3, 900, 400)),
            "no_such_table",
            {"round": 1, "table": 3, "tables": "1, 2"},
            "enter_result: round 1 has no table 3 (tables 1, 2)",
        ),
        (
            _caught(lambda: t.enter_result(1, 900, 12.5)),  # type: ignore[arg-type]
            "mp_not_whole",
            {"table": 1, "round": 1, "field": "mp_second", "value": "12.5"},
            "table 1 of round 1: mp_second must be a whole number of points, not 12.5",
        ),
    ]
    _ = t.enter_result(1, 900, 400)
    _ = t.enter_result(2, 900, 400)
    cases.append(
        (
            _caught(lambda: t.start_round()),
            "round_not_closed",
            {"round": 1, "missing": "none"},
            "start_round: round 1 is not closed yet (tables without a result: none); "
            "close it first",
        )
    )
    for error, code, params, message in cases:
        assert (error.code, dict(error.params), str(error)) == (code, params, message)
        names = _fields(TEXTS[code])
        assert set(error.params) == (names | {"round"} if "phase" in names else names), code
        for value in error.params.values():
            assert isinstance(value, str | int) and not isinstance(value, bool), (code, value)


def test_one_rule_of_either_field_is_one_code_that_names_the_field() -> None:
    """Issue 20: a result's two MP and its two named lines were refused by twin codes
    (mp_first_step, mp_second_step...); each rule is now one code whose params.field names
    the field refused, a word the pages say in their own (WORDS), and whose English says
    the field as the director gave it."""
    seat = TableAssignment(2, 1, 7, 9)
    lines = {"line": 8, "first": 7, "second": 9}
    cases: list[tuple[Callable[[], object], str, dict[str, str | int], str]] = [
        (
            lambda: score_table(seat, 12.5, 400, VP_TABLE_3),  # type: ignore[arg-type]
            "mp_not_whole",
            {"field": "mp_first", "value": "12.5"},
            "mp_first must be a whole number of points, not 12.5",
        ),
        (
            lambda: score_table(seat, 900, True, VP_TABLE_3),
            "mp_not_whole",
            {"field": "mp_second", "value": "True"},
            "mp_second must be a whole number of points, not True",
        ),
        (
            lambda: score_table(seat, 902, 400, VP_TABLE_3),
            "mp_step",
            {"field": "mp_first", "value": 902, "step": 5},
            "mp_first = 902: points move in steps of 5 (every card and premium is a multiple of 5)",
        ),
        (
            lambda: score_table(seat, 900, -3, VP_TABLE_3),
            "mp_step",
            {"field": "mp_second", "value": -3, "step": 5},
            "mp_second = -3: points move in steps of 5 (every card and premium is a multiple of 5)",
        ),
        (
            lambda: score_table(seat, 900, 400, VP_TABLE_3, abandoned_by=8),
            "not_at_table",
            {"field": "abandoned_by", **lines},
            "abandoned_by 8 does not sit at this table (lines 7 and 9)",
        ),
        (
            lambda: score_table(seat, 900, 900, VP_TABLE_3, knockout=True, last_mover=8),
            "not_at_table",
            {"field": "last_mover", **lines},
            "last_mover 8 does not sit at this table (lines 7 and 9)",
        ),
    ]
    for call, code, params, text in cases:
        error = _caught(call)
        assert (error.code, dict(error.params), str(error)) == (
            code,
            {"table": 1, "round": 2, **params},
            f"table 1 of round 2: {text}",
        )
        assert error.params["field"] in WORDS["field"]
    fields = {case[2]["field"] for case in cases}
    assert fields == set(WORDS["field"])


def test_an_error_keeps_its_code_through_pickling() -> None:
    error = TournamentError("result_exists", action="enter_result", table=3, round=2)
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, dict(again.params), again.action, str(again)) == (
        "result_exists",
        {"table": 3, "round": 2},
        "enter_result",
        "enter_result: table 3 of round 2 already has a result; use correct_result",
    )


def test_every_code_is_used_by_the_tournament_and_every_code_used_is_in_the_catalogue() -> None:
    sources = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "src" / "burraco" / "tournament").glob("*.py"))
        if path.name != "errors.py"
    )
    raised = set(re.findall(r'TournamentError\(\s*"([a-z_]+)"', sources))
    assert raised <= set(TEXTS), f"codes missing from TEXTS: {sorted(raised - set(TEXTS))}"
    # Codes chosen by a condition or passed along (_require, a table of codes) are literals too.
    unused = sorted(code for code in TEXTS if f'"{code}"' not in sources)
    assert not unused, f"codes the tournament never raises: {unused}"
    assert not set(TEXTS) & set(REFUSALS), "a tournament code that is also the engine's"
    assert set(PHASES) == {p.value for p in Phase}


def test_every_code_is_documented_in_the_protocol_with_its_text() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("## The director's desk: tournament refusals") :]
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.*?) \| .*\|$", section, re.M))
    for code, template in TEXTS.items():
        assert code in rows, f"docs/protocol.md does not list the tournament rule {code!r}"
        assert rows[code] == template, f"docs/protocol.md: {code!r} drifted"
    phases = dict(re.findall(r"^\| `([a-z]+)` \| ([^|]*?) \|$", section, re.M))
    assert phases == PHASES


def test_the_grace_before_a_no_shows_first_move_is_a_setting_kept_with_the_tournament() -> None:
    """A few minutes by default; 0 to 3600 seconds; saved and loaded with the settings, and
    a tournament saved before the grace existed has none (its tables as they were)."""
    assert Settings().grace_seconds == 180
    assert Settings.from_dict(Settings(grace_seconds=30).to_dict()).grace_seconds == 30
    old = Settings().to_dict()
    del old["grace_seconds"]
    assert Settings.from_dict(old).grace_seconds == 0
    error = _caught(lambda: Settings(grace_seconds=3601))
    assert (error.code, dict(error.params)) == ("grace_range", {"seconds": 3601})
    assert str(error) == "the grace before the first move has 0 to 3600 seconds, not 3601"


def test_a_tournament_plays_the_game_it_names() -> None:
    """Issue 24: a tournament's tables play its game (Italian Burraco unless it names
    another), the game is saved with it, and a game without the tournament's table is
    refused, naming the games it may play."""
    from burraco.tournament.botplay import BotOptions, _jobs, play_round
    from burraco.variants import VP_TABLE_3

    t = Tournament(
        format="round-robin", kind="individual", deals=1, game="stbl", vp_table=VP_TABLE_3
    )
    t.pad_with_bots(2, "greedy")
    t.start_round()
    jobs = _jobs(t, BotOptions())
    assert [job.game for job in jobs] == ["stbl"]
    played = play_round(t, workers=1)
    assert len(played) == 1 and t.phase.value == "finished"
    assert Settings.from_dict(t.settings.to_dict()).game == "stbl"
    old = Settings().to_dict()
    del old["game"]
    assert Settings.from_dict(old).game == "italian"  # saved before the game was a setting
    with pytest.raises(TournamentError) as refused:
        Settings(kind="pairs", game="tresette")
    assert refused.value.code == "unknown_game"
    assert "buraco-fechado" in refused.value.params["games"]
