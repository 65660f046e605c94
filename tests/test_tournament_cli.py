"""Bot tournaments, table cards, exports and ``burraco tournament`` on the command line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from burraco.cli import app
from burraco.tournament import Phase, Tournament, TournamentError
from burraco.tournament.botplay import (
    BotOptions,
    BotTable,
    play_bot_table,
    play_round,
    play_tournament,
)
from burraco.tournament.printing import (
    standings_csv,
    standings_html,
    standings_text,
    table_cards_html,
    table_cards_text,
)

runner = CliRunner()


def _bots(n: int, **options: object) -> Tournament:
    t = Tournament(**options)  # type: ignore[arg-type]
    t.pad_with_bots(n, ["greedy", "random"])
    return t


# --- bot play -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "bots"),
    [(2, ("greedy", "random")), (4, ("greedy", "random")), (2, ("learned", "greedy"))],
)
def test_a_bot_table_plays_the_round_s_deals(players: int, bots: tuple[str, str]) -> None:
    job = BotTable(1, 1, players, 3, bots, seed=11, knockout=False)
    played = play_bot_table(job)
    assert played.deals == 3 and played.time_outs == 0
    assert all(total % 5 == 0 for total in played.totals)
    assert played.last_mover_line in (0, 1) and played.decisions > 0


def test_a_bot_table_is_the_same_for_the_same_seed() -> None:
    job = BotTable(2, 3, 4, 3, ("greedy", "greedy"), seed=5, knockout=False)
    a, b = play_bot_table(job), play_bot_table(job)
    assert (a.totals, a.decisions, a.last_mover_line) == (b.totals, b.decisions, b.last_mover_line)


def test_the_decision_clock_calls_the_time_out_in_every_deal() -> None:
    clock = BotOptions(clock=20)
    job = BotTable(1, 1, 4, 3, ("random", "random"), seed=3, knockout=False, options=clock)
    played = play_bot_table(job)
    assert played.time_outs == 3 and played.deals == 3
    # Time-out after 20 decisions, then one more turn each: short deals.
    assert played.decisions < 3 * 60
    with pytest.raises(TournamentError, match="at least one decision"):
        BotOptions(clock=0)


def test_play_round_enters_every_table_and_closes_the_round() -> None:
    t = _bots(7, format="mitchell", kind="individual", rounds=2)
    t.start_round()
    seen = []
    played = play_round(t, workers=1, on_table=seen.append)
    assert t.phase is Phase.CLOSED
    assert len(played) == len(seen) == 3
    assert all(r.closed for r in t.rounds)
    assert {s.played for s in t.standings()} == {0, 1}


def test_bot_tournaments_are_the_same_with_one_or_two_workers() -> None:
    def run(workers: int) -> list[tuple[int, int, int]]:
        t = _bots(8, format="danish", kind="pairs", rounds=2, seed=4)
        play_tournament(t, workers=workers)
        assert t.phase is Phase.FINISHED
        return [(s.entrant, s.vp, s.mp) for s in t.standings()]

    assert run(1) == run(2)


def test_a_knockout_bot_tournament_finds_a_champion() -> None:
    t = _bots(5, format="knockout", kind="individual")
    play_tournament(t, workers=1)
    assert t.phase is Phase.FINISHED and t.champion() is not None
    assert sum(len(r.tables) for r in t.rounds) == 4


def test_bot_play_refuses_a_human_line() -> None:
    t = Tournament(kind="individual", format="round-robin")
    t.register("Anna")
    t.pad_with_bots(2)
    with pytest.raises(TournamentError, match=r"line 1 \(Anna\) is not a bot"):
        play_tournament(t, workers=1)


# --- table cards and exports --------------------------------------------------------------------


def _club_night() -> Tournament:
    t = Tournament(name="Club <night>", format="danish", kind="pairs", rounds=2)
    for pair in [("Anna", "Bruno"), ("Carla", "Dario"), ("Elena", "Fabio")]:
        t.register(pair)
    t.start_round()
    return t


def test_table_cards_show_table_lines_seats_and_byes() -> None:
    t = _club_night()
    text = table_cards_text(t)
    assert text.startswith("Club <night>, round 1: 1 table\n")
    assert "Table 1" in text and "N-S:" in text and "E-W:" in text and "Bye" in text
    (a,) = t.current_round.tables  # type: ignore[union-attr]
    seats = t.seats(a)
    assert f"N {seats['N']}  S {seats['S']}  E {seats['E']}  W {seats['W']}" in text
    html = table_cards_html(t)
    assert html.startswith("<!DOCTYPE html>") and "Club &lt;night&gt;" in html
    assert "<script" not in html and "http" not in html  # self-contained
    assert html.count('class="card"') == 1 and 'class="card bye"' in html
    with pytest.raises(TournamentError, match="there is no round 3"):
        table_cards_text(t, 3)


def test_individual_table_cards_seat_north_and_south() -> None:
    t = Tournament(kind="individual", format="round-robin", seeding="registration")
    for name in ("Anna", "Bruno"):
        t.register(name)
    t.start_round()
    assert "N: 1 Anna" in table_cards_text(t) and "S: 2 Bruno" in table_cards_text(t)


def test_standings_export_as_csv_html_and_text() -> None:
    t = _club_night()
    (a,) = t.current_round.tables  # type: ignore[union-attr]
    t.enter_result(a.table, 1500, 900)
    standings = t.standings()
    rows = list(csv.DictReader(io.StringIO(standings_csv(standings))))
    assert [int(r["rank"]) for r in rows] == [1, 2, 3]
    assert rows[0]["entrant"] == str(a.first) and rows[0]["vp"] == "15"
    assert rows[0]["mp"] == "600" and rows[0]["played"] == "1"
    html = standings_html(t)
    assert "<table>" in html and "+600" in html and "a bye is worth 12 VP" in html
    assert "Rank" in standings_text(standings).splitlines()[0]


# --- the command line ---------------------------------------------------------------------------


def test_run_plays_a_bot_tournament_and_prints_the_standings(tmp_path: Path) -> None:
    save, csv_path, html_path = tmp_path / "t.json", tmp_path / "s.csv", tmp_path / "s.html"
    result = runner.invoke(
        app,
        [
            "tournament",
            "run",
            "--format",
            "danish",
            "--pairs",
            "6",
            "--rounds",
            "2",
            "--bots",
            "greedy,random",
            "--workers",
            "1",
            "--save",
            str(save),
            "--csv",
            str(csv_path),
            "--html",
            str(html_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "final standings" in result.output
    assert "6 pairs, 2 rounds, 6 tables, 18 deals" in result.output
    for header in ("Rank", "Entrant", "VP", "MP diff", "Played"):
        assert header in result.output
    saved = Tournament.load(save)
    assert saved.phase is Phase.FINISHED
    assert len(csv_path.read_text().splitlines()) == 7
    assert "<table>" in html_path.read_text()
    shown = runner.invoke(app, ["tournament", "show", str(save), "--cards", "2"])
    assert shown.exit_code == 0, shown.output
    assert "round 2: 3 tables" in shown.output and "final standings" in shown.output
    # show writes the saved tournament's standings as run wrote them (the same options).
    again = tmp_path / "again.csv", tmp_path / "again.html"
    options = ["--csv", str(again[0]), "--html", str(again[1])]
    shown = runner.invoke(app, ["tournament", "show", str(save), *options])
    assert shown.exit_code == 0, shown.output
    assert again[0].read_text() == csv_path.read_text()
    assert again[1].read_text() == html_path.read_text()


def test_run_individual_with_a_clock_and_an_average_bye() -> None:
    result = runner.invoke(
        app,
        [
            "tournament",
            "run",
            "--format",
            "round-robin",
            "--players",
            "3",
            "--bots",
            "greedy",
            "--clock",
            "10",
            "--bye",
            "average",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "3 players, 3 rounds, 3 tables, 9 deals, 9 time-outs" in result.output
    assert "a bye is worth the line's average" in result.output.replace(" \n", " ")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--format", "swiss"], "no format 'swiss'"),
        (["--bots", "genius"], "no bot level 'genius'"),
        (["--pairs", "4", "--players", "4"], "--pairs or --players, not both"),
        (["--deals", "5"], "no VP table for a round of 5 deals"),
        (["--format", "round-robin", "--pairs", "4", "--rounds", "9"], "has 3 rounds, not 9"),
    ],
)
def test_run_refuses_bad_options(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, ["tournament", "run", "--workers", "1", *arguments])
    assert result.exit_code == 2
    assert message in result.output.replace("\n", " ")


def test_pairings_show_a_mitchell_movement() -> None:
    result = runner.invoke(
        app, ["tournament", "pairings", "--format", "mitchell", "--pairs", "6", "--rounds", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "round 1: 3 tables" in result.output and "round 2: 3 tables" in result.output
    assert "round 3" not in result.output
    assert "N Pair 1N  S Pair 1S" in result.output


def test_pairings_of_a_danish_movement_follow_random_results() -> None:
    result = runner.invoke(
        app, ["tournament", "pairings", "--format", "danish", "--players", "5", "--rounds", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "results drawn at random" in result.output
    assert result.output.count("Bye") == 3


def test_show_refuses_a_file_that_is_not_a_tournament(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": "record"}))
    result = runner.invoke(app, ["tournament", "show", str(path)])
    assert result.exit_code == 2 and "not a saved tournament" in result.output
