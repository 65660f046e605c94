"""Game records (``burraco.record``, ``docs/records.md``): round trips, replays of every
variant and table, tampered records, options, and golden playthroughs.

The golden records in ``tests/golden/`` are RandomBot-against-RandomBot matches of one
deal, written by :func:`golden_record`; they must match byte for byte. After an intended
change of behaviour, rewrite them with ``BURRACO_REGOLDEN=1 .venv/bin/pytest
tests/test_record.py`` and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

import pytest

from burraco import RuleError, variant
from burraco.actions import Action
from burraco.bots import RandomBot
from burraco.cards import format_cards, parse_cards
from burraco.match import Match
from burraco.record import (
    DealRecord,
    MatchRecord,
    RecordedAction,
    RecordError,
    ReplayError,
    format_record,
    load,
    options_of,
    read_record,
    record_of,
    replay,
    replay_steps,
    save,
    write_record,
)
from burraco.variants import SETUPS, VP_TABLE_4, Variant

GOLDEN_DIR = Path(__file__).parent / "golden"
DOCS = Path(__file__).parent.parent / "docs" / "records.md"
DATE = "2025-01-01"


def play_random(
    v: Variant, seed: int, time_out_at: int | None = None, stop_after: int | None = None
) -> Match:
    """RandomBot in every seat; the director calls the time-out before action
    ``time_out_at`` of the match; play stops (the match unfinished) after ``stop_after``."""
    match = Match(v, seed=seed)
    bots = [RandomBot(seed * 10 + s) for s in range(v.players)]
    played = 0
    while not match.is_over:
        if stop_after is not None and played >= stop_after:
            break
        if played == time_out_at:
            match.call_time_out()
        seat = match.turn
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions()))
        played += 1
    return match


def setup_id(setup: tuple[str, int, int]) -> str:
    return f"{setup[0]}-{setup[1]}p-{setup[2]}l"


@pytest.fixture(scope="module")
def short_text() -> str:
    """A finished one-deal italian match."""
    return write_record(play_random(variant("italian", deals=1), seed=4), date=DATE)


# --- round trips and replays of every table ---------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS, ids=setup_id)
def test_random_matches_replay_to_the_same_scores(setup: tuple[str, int, int]) -> None:
    name, players, lines = setup
    v = variant(name, players=players, lines=lines, deals=2)
    for seed in (1, 2):
        match = play_random(v, seed, time_out_at=15 if seed == 2 else None)
        text = write_record(match, names=[f"P{s}" for s in range(players)], date=DATE)
        record = read_record(text)
        assert format_record(record) == text  # write -> read -> write
        assert record.rules() == v
        again = replay(record)
        assert again.totals == match.totals
        assert [s.points for s in again.scores] == [s.points for s in match.scores]
        assert [d.history for d in again.deals] == [d.history for d in match.deals]
        assert write_record(again, names=record.names, date=DATE) == text


def test_scores_are_per_player_with_three_and_five_players() -> None:
    for players in (3, 5):
        match = play_random(variant("italian", players=players, deals=1), seed=3)
        record = read_record(write_record(match, date=DATE))
        assert record.lines == players
        assert record.deals[0].scores is not None
        assert len(record.deals[0].scores) == players
        assert record.result == tuple(match.totals)


def test_the_time_out_is_recorded_in_its_place() -> None:
    match = play_random(variant("online", players=4, deals=1), seed=5, time_out_at=9)
    text = write_record(match, date=DATE)
    lines = text.splitlines()
    index = lines.index("time-out")
    assert re.fullmatch(r"\d: \w+.*", lines[index - 1])
    record = read_record(text)
    actions = record.deals[0].actions
    assert [a.seat for a in actions].count(None) == 1
    assert actions[9] == RecordedAction(None, Action("time-out"))
    assert replay(record).deals[0].timeout_turns >= 0


def test_the_seat_of_each_action_is_the_seat_on_turn() -> None:
    match = play_random(variant("buraco", players=4, lines=4, deals=1), seed=8)
    record = record_of(match, date=DATE)
    shadow = Match(
        match.v, first_dealer=match.first_dealer, deck_orders=[match.deals[0].deck_order]
    )
    for recorded in record.deals[0].actions:
        assert recorded.seat == shadow.turn
        shadow.apply(recorded.action)


def test_an_unfinished_match_round_trips(tmp_path: Path) -> None:
    match = play_random(variant("italian", players=4, deals=3), seed=2, stop_after=40)
    assert not match.is_over
    path = tmp_path / "unfinished.txt"
    save(match, path, names=["N", "E", "S", "W"], event="club", date=DATE)
    text = path.read_text(encoding="utf-8")
    assert '[Termination "unterminated"]' in text
    record = load(path)
    assert record.deals[-1].scores is None
    assert format_record(record) == text
    again = replay(record)
    assert not again.is_over and again.totals == match.totals
    assert again.deal.history == match.deal.history
    # The match can go on from the replay.
    assert again.legal_actions() == match.legal_actions()


def test_a_finished_deal_in_a_running_match_is_followed_by_the_next_deck() -> None:
    v = variant("italian", deals=3)
    match = play_random(v, seed=6)
    first = len(match.deals[0].history) + len(match.deals[1].history)
    match = play_random(v, seed=6, stop_after=first)
    assert len(match.scores) == 2 and len(match.deals) == 3
    record = read_record(write_record(match, date=DATE))
    assert record.deals[-1].actions == () and record.deals[-1].scores is None
    assert replay(record).totals == match.totals


def test_an_abandoned_match_round_trips() -> None:
    match = play_random(variant("italian", deals=2), seed=9, stop_after=12)
    match.abandon(1)
    text = write_record(match, date=DATE)
    assert '[Termination "abandoned by seat 1"]' in text
    record = read_record(text)
    assert record.abandoned_by == 1
    again = replay(record)
    assert again.abandoned == match.abandoned
    assert again.victory_points() == match.victory_points()


def test_replay_steps_yield_after_each_action(short_text: str) -> None:
    record = read_record(short_text)
    steps = list(replay_steps(record))
    assert len(steps) == len(record.deals[0].actions)
    assert [s.index for s in steps] == list(range(1, len(steps) + 1))
    assert steps[-1].match.is_over


# --- options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("italian", {"semi_clean": False, "vp_table": VP_TABLE_4, "deals": 2}),
        ("italian", {"players": 4, "open_hands": True, "semi_inner": True, "deals": 1}),
        ("italian", {"players": 6, "lines": 2, "burraco_before_pozzetto": False, "deals": 1}),
        ("online", {"players": 4, "deals": 5, "move_seconds": 30}),
        ("buraco", {"target": 2000, "classic_values": True, "deals": 1}),
        ("buraco", {"scoring_500": True, "jokers": 2, "deals": 1}),
        ("canasta", {"closing_bonus": 200, "red_three_bonus": 0, "deals": 1}),
    ],
)
def test_options_round_trip(name: str, options: dict[str, object]) -> None:
    v = variant(name, **options)
    match = play_random(v, seed=1)
    text = write_record(match, date=DATE)
    record = read_record(text)
    assert record.rules() == v
    assert record.options == options_of(v)
    for option, value in options_of(v):
        assert f'[Option "{option}={value!r}"]' in text
    assert replay(record).totals == match.totals


def test_options_are_only_those_that_differ_from_the_preset_for_the_table() -> None:
    assert options_of(variant("italian", players=5)) == ()  # 3 decks, 6 jokers: the preset
    assert options_of(variant("italian", semi_clean=False)) == (("semi_clean", False),)
    assert options_of(variant("buraco", target=2000)) == (
        ("vulnerable_at", 1000),
        ("target", 2000),
    )


def test_an_option_in_the_text_is_read_as_a_literal(short_text: str) -> None:
    text = short_text.replace(
        '[Option "deals=1"]', '[Option "deals=1"]\n[Option "semi_clean=False"]'
    )
    assert read_record(text).rules().semi_clean is False
    bad = short_text.replace('[Option "deals=1"]', "[Option \"deals=__import__('os')\"]")
    with pytest.raises(RecordError, match=r"line 6: option deals: .* is not a literal"):
        read_record(bad)
    with pytest.raises(RecordError, match="line 6: no option 'colour'"):
        read_record(short_text.replace('[Option "deals=1"]', '[Option "colour=1"]'))


# --- tampered records -------------------------------------------------------------------------


def _line_of(text: str, prefix: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def test_a_changed_action_is_reported_with_its_line(short_text: str) -> None:
    record = read_record(short_text)
    actions = record.deals[0].actions
    k = next(i for i, a in enumerate(actions) if a.action.kind == "discard")
    # Replay up to the discard, then discard a card the player does not hold.
    match = Match(
        record.rules(), first_dealer=record.first_dealer, deck_orders=[record.deals[0].deck]
    )
    for recorded in actions[:k]:
        match.apply(recorded.action)
    hand = match.deal.hand(match.turn)
    card = next(c for c in parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS") if c not in hand)
    number = actions[k].line
    lines = short_text.splitlines()
    lines[number - 1] = f"{actions[k].seat}: discard {card}"
    with pytest.raises(ReplayError) as caught:
        replay(read_record("\n".join(lines) + "\n"))
    message = str(caught.value)
    assert message == (
        f"line {number}: deal 1, action {k + 1} ({actions[k].seat}: discard {card}) is illegal: "
        f"the hand does not hold {card}"
    )
    assert caught.value.line == number
    assert isinstance(caught.value, RuleError)


def test_an_action_by_the_wrong_seat_is_reported(short_text: str) -> None:
    number = _line_of(short_text, "0: ")
    lines = short_text.splitlines()
    lines[number - 1] = "1" + lines[number - 1][1:]
    with pytest.raises(
        ReplayError, match=rf"line {number}: deal 1, action \d+ \(1: .*\): it is seat 0's turn"
    ):
        replay(read_record("\n".join(lines) + "\n"))


def test_a_changed_deck_is_reported(short_text: str) -> None:
    record = read_record(short_text)
    deck = list(record.deals[0].deck)
    # Swap the first two cards of different kinds: the hands change.
    other = next(i for i, c in enumerate(deck) if c != deck[0])
    deck[0], deck[other] = deck[other], deck[0]
    swapped = short_text.replace(format_cards(record.deals[0].deck), format_cards(deck))
    with pytest.raises(ReplayError, match=r"^line \d+: deal 1"):
        replay(read_record(swapped))
    # A card replaced by another: the deck is not a deck of the variant.
    wrong = list(record.deals[0].deck)
    wrong[wrong.index(parse_cards("JK")[0])] = parse_cards("AS")[0]
    broken = short_text.replace(format_cards(record.deals[0].deck), format_cards(wrong))
    deck_line = _line_of(short_text, "[Deck")
    with pytest.raises(
        ReplayError, match=rf"line {deck_line}: deal 1: .* \(too many AS; missing JK\)"
    ):
        replay(read_record(broken))


def test_a_changed_score_or_result_is_reported(short_text: str) -> None:
    record = read_record(short_text)
    scores = record.deals[0].scores
    assert scores is not None
    old = f'[Score "{scores[0]} {scores[1]}"]'
    new = f'[Score "{scores[0] + 5} {scores[1]}"]'
    score_line = _line_of(short_text, "[Score")
    with pytest.raises(
        ReplayError, match=rf"line {score_line}: deal 1: the record gives the score"
    ):
        replay(read_record(short_text.replace(old, new)))
    result_line = _line_of(short_text, "[Result")
    text = re.sub(r'\[Result "[^"]*"\]', '[Result "1 2"]', short_text)
    with pytest.raises(ReplayError, match=rf"line {result_line}: the record gives the result 1 2"):
        replay(read_record(text))
    text = short_text.replace('[End "', '[End "x')
    with pytest.raises(ReplayError, match="deal 1 ended by"):
        replay(read_record(text))


def test_a_missing_or_extra_action_is_reported(short_text: str) -> None:
    lines = short_text.splitlines()
    last = _line_of(short_text, "[End") - 1  # the deal's last action
    shorter = lines[: last - 1] + lines[last:]
    with pytest.raises(ReplayError, match="deal 1 is not over after its"):
        replay(read_record("\n".join(shorter) + "\n"))
    longer = [*lines[:last], lines[last - 1], *lines[last:]]
    with pytest.raises(
        ReplayError, match=rf"line {last + 1}: deal 1, action \d+ .*: the deal is already over"
    ):
        replay(read_record("\n".join(longer) + "\n"))


def test_a_wrong_dealer_is_reported(short_text: str) -> None:
    dealer = read_record(short_text).deals[0].dealer
    text = short_text.replace(f'[Dealer "{dealer}"]', f'[Dealer "{1 - dealer}"]')
    with pytest.raises(ReplayError, match=f"deal 1: the dealer is seat {dealer}"):
        replay(read_record(text))


# --- reading ----------------------------------------------------------------------------------


def test_comments_blank_lines_and_tag_order_are_free(short_text: str) -> None:
    lines = short_text.splitlines()
    variant_line = lines.index('[Variant "italian"]')
    lines.insert(variant_line, "{ a comment")
    lines.insert(variant_line + 1, "  that spans lines }")
    lines = [line + "  { note }" if line.startswith("0:") else line for line in lines]
    date = lines.pop(0)
    lines.insert(lines.index('[Termination "normal"]'), date)
    record = read_record("\n\n".join(lines))
    assert record == read_record(short_text)
    assert format_record(record) == short_text


def test_names_and_events_are_escaped() -> None:
    match = play_random(variant("italian", deals=1), seed=2)
    names = ['Anna "the ace"', "C:\\Bruno"]
    text = write_record(match, names=names, event="Sala {1}", date=DATE)
    assert '[Seat0 "Anna \\"the ace\\""]' in text
    record = read_record(text)
    assert record.names == tuple(names) and record.event == "Sala {1}"
    assert format_record(record) == text


def test_unknown_header_tags_are_kept(short_text: str) -> None:
    text = short_text.replace('[Termination "normal"]', '[Termination "normal"]\n[Site "Roma"]')
    record = read_record(text)
    assert record.tags == (("Site", "Roma"),)
    assert format_record(record) == text


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('[Variant "italian"]\n', "", r"^line 1: the header has no \[Variant\] tag"),
        ('"italian"', '"tresette"', r"the variant cannot be built: no variant 'tresette'"),
        ('[Players "2"]', '[Players "two"]', r"Players must be a whole number, not 'two'"),
        ('[Players "2"]', '[Players "7"]', r"Players must be 2 to 6, not 7"),
        ('[Lines "2"]', '[Lines "3"]', r"Lines must be 2 to 2, not 3"),
        ("Deal 1", "Deal 2", r"expected Deal 1, not 'Deal 2'"),
        ("Deal 1", "Hand 1", r"expected a header tag or 'Deal 1', not 'Hand 1'"),
        ('[Dealer "', '[Dealer "9', r"Dealer must be 0 to 1"),
        ('[Deck "', '[Deck "11H ', r"deal 1: not a card: '11H'"),
        ("\n1: ", "\n7: ", r"the seat must be 0 to 1, not 7"),
        ("\n1: ", "\n1: fold ", r"not an action: 'fold"),
        ("\n1: ", "\n1 ", r"an action line is 'SEAT: ACTION' or 'time-out'"),
        ('[Score "', '[Score "5 ', r"Score needs 2 numbers, one per match line"),
        ('[End "', '[Dealer "0"]\n[End "', r"deal 1: \[Dealer\] comes once, before the actions"),
        ('[Termination "normal"]', '[Termination "won"]', r"Termination is normal, unterminated"),
        ('[Seat0 "A"]\n', "", r"name every seat 0 to 1, or none"),
        ('[Date "', '[Date "x" x', r"a tag is \[Name \"value\"\]"),
        ('[Result "', '{ [Result "', r"a comment opened with '\{' is never closed"),
        ('[Result "', '[Dealer "0"]\n[Result "', r"\[Dealer\] belongs to a deal"),
        ('[Players "2"]', '[Players "2"]\n[Players "2"]', r"\[Players\] is given twice"),
        (
            '[Option "deals=1"]',
            '[Option "deals=1"]\n[Option "deals=2"]',
            r"option deals is given twice",
        ),
    ],
)
def test_malformed_records_name_the_line(old: str, new: str, message: str) -> None:
    text = write_record(
        play_random(variant("italian", deals=1), seed=4), names=["A", "B"], date=DATE
    )
    broken = text.replace(old, new, 1)
    assert broken != text
    with pytest.raises(RecordError, match=message) as caught:
        read_record(broken)
    assert isinstance(caught.value, ValueError)
    # The line named is the first changed line (or line 1 for a missing tag).
    changed = next(
        n
        for n, (a, b) in enumerate(zip(broken.splitlines(), text.splitlines(), strict=False), 1)
        if a != b
    )
    assert caught.value.line == (1 if new == "" and "Variant" in old else changed)
    assert str(caught.value).startswith(f"line {caught.value.line}: ")


def test_end_and_score_go_together(short_text: str) -> None:
    text = re.sub(r'\[End "[^"]*"\]\n', "", short_text)
    line = _line_of(text, "[Score")
    with pytest.raises(
        RecordError, match=rf"^line {line}: deal 1: \[End\] and \[Score\] go together"
    ):
        read_record(text)


def test_a_record_needs_a_deal_to_replay() -> None:
    record = MatchRecord("italian", 2, 2)
    with pytest.raises(ReplayError, match="the record has no deal"):
        replay(record)
    deal = DealRecord(dealer=0, deck=tuple(parse_cards("AS")))
    with pytest.raises(ReplayError, match="deal 1: the deck must hold the 108 cards"):
        replay(MatchRecord("italian", 2, 2, deals=(deal,)))


def test_the_example_in_the_docs_replays() -> None:
    doc = DOCS.read_text(encoding="utf-8")
    start = doc.index("```\n[Event") + 4
    example = doc[start : doc.index("```", start)]
    record = read_record(example)
    assert format_record(record) == example
    assert replay(record).totals == list(record.result or ())


# --- golden playthroughs ----------------------------------------------------------------------


class Golden(NamedTuple):
    variant: str
    players: int
    lines: int
    seed: int
    #: The director calls the time-out before this action of the match.
    time_out_at: int | None = None

    @property
    def filename(self) -> str:
        time_out = "-timeout" if self.time_out_at is not None else ""
        return f"{self.variant}-{self.players}p-{self.lines}l-seed{self.seed}{time_out}.txt"


GOLDEN = [
    Golden("italian", 2, 2, 1),
    Golden("italian", 3, 3, 2),
    Golden("online", 2, 2, 3),
    Golden("online", 4, 2, 4, time_out_at=30),
    Golden("buraco", 2, 2, 5),
    Golden("buraco", 4, 2, 6),
    Golden("canasta", 2, 2, 7),
    Golden("canasta", 4, 2, 8),
]


def golden_record(case: Golden) -> str:
    """The record of a one-deal RandomBot match: the golden playthrough of ``case``."""
    v = variant(case.variant, players=case.players, lines=case.lines, deals=1)
    match = play_random(v, case.seed, time_out_at=case.time_out_at)
    names = [f"RandomBot {case.seed * 10 + s}" for s in range(case.players)]
    return write_record(match, names=names, event="golden playthrough", date=DATE)


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c.filename)
def test_golden_playthroughs(case: Golden) -> None:
    text = golden_record(case)
    path = GOLDEN_DIR / case.filename
    if os.environ.get("BURRACO_REGOLDEN") == "1":
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.exists(), f"{path} is missing: run BURRACO_REGOLDEN=1 pytest {__file__}"
    golden = path.read_bytes().decode("utf-8")
    assert text == golden, f"{path.name} differs from the play: the engine's behaviour changed"
    record = read_record(golden)
    assert replay(record).totals == list(record.result or ())


def test_every_golden_file_has_a_case() -> None:
    expected = {case.filename for case in GOLDEN}
    assert {p.name for p in GOLDEN_DIR.glob("*.txt")} <= expected
