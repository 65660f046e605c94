"""The ``burraco`` command (``burraco.cli``), driven through typer's CliRunner with the
player's input piped in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from burraco.cli import app
from burraco.record import load, read_record, replay

GOLDEN_DIR = Path(__file__).parent / "golden"
runner = CliRunner()


def test_variants_lists_the_four_presets() -> None:
    result = runner.invoke(app, ["variants"])
    assert result.exit_code == 0, result.output
    for name in ("italian", "online", "buraco", "canasta"):
        assert name in result.output
    assert "semi_clean" in result.output
    assert "4 in pairs" in result.output


def test_variants_lists_the_brazilian_rooms_games() -> None:
    result = runner.invoke(app, ["variants"])
    assert result.exit_code == 0, result.output
    for name in ("buraco-aberto", "buraco-fechado", "stbl"):
        assert name in result.output


def test_a_closed_pile_shows_its_top_in_the_terminal() -> None:
    """Buraco fechado: the terminal shows the pile's top card and how many lie under it."""
    result = runner.invoke(
        app, ["play", "--variant", "stbl", "--seed", "4", "--deals", "1"], input="1\n" * 3000
    )
    assert result.exit_code == 0, result.output
    assert "face down)" in result.output
    assert "Deal 1 is over" in result.output


def test_variants_shows_one_preset_or_refuses_an_unknown_one() -> None:
    result = runner.invoke(app, ["variants", "canasta"])
    assert result.exit_code == 0
    assert "canasta" in result.output and "italian" not in result.output
    result = runner.invoke(app, ["variants", "tresette"])
    assert result.exit_code == 2
    assert "no variant 'tresette'" in result.output


def test_play_and_quit_at_once() -> None:
    result = runner.invoke(app, ["play", "--seed", "1"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert "Your hand (11)" in result.output
    assert "Line 1: Bot 1 " in result.output
    assert "You left the match." in result.output


def test_help_lists_the_legal_actions() -> None:
    result = runner.invoke(app, ["play", "--seed", "1"], input="?\nhelp\nquit\n")
    assert result.exit_code == 0
    assert re.search(r"1 draw\s+2 take", result.output)


def test_an_illegal_action_prints_the_rule_and_asks_again() -> None:
    result = runner.invoke(
        app, ["play", "--seed", "1"], input="meld 5H 6H 7H\nfold\n99\ndraw\nquit\n"
    )
    assert result.exit_code == 0
    output = result.output
    assert "Illegal: meld 5H 6H 7H: first draw from the stock or take the pile" in output
    assert "not an action: 'fold'" in output
    assert "No action 99: choose 1 to 2." in output
    assert "This turn: draw" in output


def test_play_a_whole_match_with_the_first_legal_action_each_time(tmp_path: Path) -> None:
    path = tmp_path / "match.txt"
    result = runner.invoke(
        app,
        ["play", "--seed", "3", "--deals", "2", "--save", str(path), "--name", "Anna"],
        input="help\n" + "1\n" * 3000,
    )
    assert result.exit_code == 0, result.output
    assert "Deal 1 is over" in result.output
    assert "Deal 2 is over" in result.output
    assert "The match is over" in result.output
    assert re.search(r"(won the match|The match is a draw)", result.output)
    assert "VP Anna " in result.output
    record = load(path)
    assert record.names == ("Anna", "Bot 1")
    assert record.termination == "normal"
    assert replay(record).totals == list(record.result or ())


@pytest.mark.parametrize(
    "args",
    [
        ["--variant", "italian", "--players", "3"],
        ["--variant", "italian", "--players", "6", "--lines", "2", "--seat", "4"],
        ["--variant", "online", "--players", "4", "--seat", "1"],
        ["--variant", "buraco", "--players", "4", "--lines", "4"],
        ["--variant", "canasta", "--players", "4", "-o", "red_three_bonus=0"],
        ["--variant", "buraco-aberto"],
        ["--variant", "buraco-fechado", "--players", "4", "--seat", "1"],
        ["--variant", "stbl", "--players", "4"],
    ],
)
def test_play_other_tables(args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "match.txt"
    result = runner.invoke(
        app, ["play", "--seed", "2", "--deals", "1", "--save", str(path), *args], input="1\n" * 3000
    )
    assert result.exit_code == 0, result.output
    assert "Deal 1 is over" in result.output
    record = load(path)
    assert replay(record).is_over


def test_quitting_saves_an_unfinished_record(tmp_path: Path) -> None:
    path = tmp_path / "left.txt"
    result = runner.invoke(
        app, ["play", "--seed", "4", "--save", str(path)], input="draw\n1\n1\nquit\n"
    )
    assert result.exit_code == 0
    record = load(path)
    assert record.termination == "unterminated"
    assert not replay(record).is_over


def test_play_refuses_a_table_the_variant_does_not_have() -> None:
    result = runner.invoke(app, ["play", "--variant", "canasta", "--players", "3"])
    assert result.exit_code == 2
    assert "canasta is played by 2 players alone or 4 in pairs" in result.output
    result = runner.invoke(app, ["play", "--deals", "2", "--target", "500"])
    assert result.exit_code == 2
    assert "give --deals or --target, not both" in result.output
    result = runner.invoke(app, ["play", "--seat", "5"])
    assert result.exit_code == 2
    assert "no seat 5" in result.output


@pytest.mark.parametrize("path", sorted(GOLDEN_DIR.glob("*.txt")), ids=lambda p: p.name)
def test_replay_prints_the_deals_and_the_final_scores(path: Path) -> None:
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    record = read_record(path.read_text(encoding="utf-8"))
    assert "Deal 1 · dealer" in result.output
    assert "Score sheet" in result.output
    totals = record.result or ()
    assert re.search(r"Total\s*│\s*" + r"\s*│\s*".join(str(t) for t in totals), result.output)


def test_replay_step_does_not_wait_without_a_terminal() -> None:
    path = GOLDEN_DIR / "italian-2p-2l-seed1.txt"
    result = runner.invoke(app, ["replay", str(path), "--step"])
    assert result.exit_code == 0, result.output
    record = load(path)
    count = len(record.deals[0].actions)
    assert f"deal 1 · action {count}" in result.output
    assert "Score sheet" in result.output


def test_replay_of_a_tampered_record_names_the_line(tmp_path: Path) -> None:
    text = (GOLDEN_DIR / "italian-2p-2l-seed1.txt").read_text(encoding="utf-8")
    tampered = re.sub(r'\[Score "(-?\d+) ', r'[Score "\g<1>5 ', text)
    path = tmp_path / "tampered.txt"
    path.write_text(tampered, encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "deal 1: the record gives the score" in result.output
    path.write_text('[Variant "italian"]\nnonsense\n', encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "line 2:" in result.output


def test_the_bot_commands_read_their_bots_alike(tmp_path: Path) -> None:
    """arena, simulate and ratings take bots comma separated and refuse one that is not a
    bot by its name, with the bots there are, in red on one line, status 2."""
    for command in (
        ["arena", "--bots", "greedy, wizard"],
        ["simulate", "--out", str(tmp_path), "--bots", "greedy,wizard"],
        ["ratings", "--levels", "greedy,wizard,", "--no-database"],
    ):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, command
        assert result.output == "no bot 'wizard' (random, greedy, expert, learned)\n", command
    result = runner.invoke(app, ["ratings", "--levels", "greedy, greedy", "--no-database"])
    assert result.exit_code == 2
    assert result.output == "rating matches need at least two different bot levels\n"


def test_arena_counts_its_boards_then_reports_each_bot() -> None:
    result = runner.invoke(
        app, ["arena", "--bots", "greedy,random", "--deals", "2", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    bar, rest = result.output.split("\n", 1)
    assert re.match(r"^boards\b.* 1/1 ", bar), bar
    assert "italian, 2 players: 1 boards" in rest
    assert re.search(r"│ greedy │ .* 2/2 \(100\.0%\) │", rest), rest
