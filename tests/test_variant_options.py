"""Every option of every variant is checked when the variant is made (burraco.variants):
a value of the wrong type, out of its range or at odds with the other options is refused
with a SetupError naming the option, and the position reader refuses it the same way."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burraco import Deal, variant
from burraco.errors import SetupError
from burraco.match import Match
from burraco.position import PositionError
from burraco.variants import OPTION_NAMES, SETUPS, VP_TABLE_3, VP_TABLE_4, Variant


def refused(name: str = "italian", **options: Any) -> SetupError:
    with pytest.raises(SetupError) as caught:
        variant(name, **options)
    return caught.value


def bad_values(option: str) -> list[Any]:
    """Values of the wrong type or below the range for an option, from its preset's type."""
    default = getattr(variant("italian"), option)
    if isinstance(default, bool):
        return [1, "True", None]
    if option == "values":
        return [(1, 2), (-5,) * 14, "30,15", 5]
    if option == "vp_table":
        return [5, ((100, 12), (50, 13)), ((50, 9),), ((50, 21),), (), ((50, 10, 1),), "3x"]
    wrong_type = ["7", 7.0, True]
    if option in ("target", "deals"):
        return [0, -5, *wrong_type]
    return [-1, *wrong_type]


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_every_option_refuses_a_value_of_the_wrong_type_or_range(option: str) -> None:
    for value in bad_values(option):
        error = refused(**{option: value})
        assert error.option == option, (value, str(error))
        assert f"option {option}=" in str(error)


@pytest.mark.parametrize(
    ("options", "option", "words"),
    [
        ({"vp_table": 5}, "vp_table", "a VP table is a tuple of (upper end of the band"),
        ({"target": -5}, "target", "a points target is above 0"),
        ({"hand_size": 0}, "hand_size", "a hand is dealt at least one card"),
        ({"hand_size": 60}, "hand_size", "108 cards are too few for this table"),
        ({"deals": 0}, "deals", "a match has at least one deal"),
        ({"target": None}, "target", "a match needs a number of deals or a points target"),
        ({"jokers": 3}, "jokers", "a game is played with 0, 2, 4 or 6"),
        ({"jokers": 6}, "jokers", "2 deck(s) bring at most 4 jokers"),
        ({"decks": 0}, "decks", "a game is played with at least one deck"),
        ({"set_max": 2}, "set_max", "a set's size is 0 (no limit) or at least 3"),
        ({"burraco_length": 2}, "burraco_length", "a burraco is a meld, of at least three"),
        ({"max_wildcards": 2}, "max_wildcards", "several wildcards in a sequence"),
        ({"clean_bonus": -100}, "clean_bonus", "never negative"),
        ({"values": (30, 15)}, "values", "14 card values"),
        ({"semi_clean": "no"}, "semi_clean", "True or False, not 'no'"),
        ({"deal_minutes": 0}, "deal_minutes", "a deal lasts at least a minute"),
        ({"vp_table": ((100, 12), (50, 13))}, "vp_table", "VP table bands must grow"),
    ],
)
def test_a_refusal_names_the_option_and_the_rule(
    options: dict[str, Any], option: str, words: str
) -> None:
    error = refused(**options)
    assert error.option == option
    assert words in str(error)


def test_with_options_checks_as_variant_does() -> None:
    base = variant("italian")
    for options in ({"vp_table": 5}, {"hand_size": 0}, {"target": -5}):
        with pytest.raises(SetupError) as caught:
            base.with_options(**options)
        assert str(caught.value) == str(refused(**options))


def test_a_vp_table_option_is_refused_when_made_not_at_the_matchs_end() -> None:
    # It was accepted, and a match of it crashed with a TypeError when its VP were counted.
    with pytest.raises(SetupError, match="vp_table"):
        Match(variant("italian", vp_table=5, deals=1), seed=1)


def test_vp_tables_by_their_deals_and_as_lists() -> None:
    assert variant("italian", vp_table=4).vp_table == VP_TABLE_4
    assert variant("italian", vp_table="3").vp_table == VP_TABLE_3
    assert variant("italian").with_options(vp_table=4).vp_table == VP_TABLE_4
    # Options kept as JSON (a room's tables) come back as lists: a variant keeps tuples.
    listed = variant("italian", vp_table=[[50, 10], [100, 12]], values=[5] * 14)
    assert listed == variant("italian", vp_table=((50, 10), (100, 12)), values=(5,) * 14)
    assert hash(listed) == hash(
        variant("italian", vp_table=((50, 10), (100, 12)), values=(5,) * 14)
    )


def test_every_preset_at_every_table_passes_its_own_checks() -> None:
    for name, players, lines in SETUPS:
        v = variant(name, players=players, lines=lines)
        assert v.with_options() == v


def test_a_setup_error_keeps_its_option_when_pickled() -> None:
    error = refused(hand_size=0)
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), str(again), again.option) == (SetupError, str(error), "hand_size")


#: Whole-number options whose only rule of their own is a least value (no relation to
#: another option at the values tried), with that least value.
PLAIN = {
    "dead_stock": 0,
    "opening_minimum": 0,
    "stall_rounds": 0,
    "vulnerable_at": 0,
    "vulnerable_minimum": 0,
    "phase_limit": 0,
    "move_seconds": 0,
    "deal_minutes": 1,
    "target": 1,
    "deals": 1,
    "draw_count": 1,
    "burraco_length": 3,
    "closing_bonus": 0,
    "clean_bonus": 0,
    "red_three_bonus": 0,
    "abandon_penalty": 0,
}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(PLAIN)), st.integers(-(10**6), 10**6))
def test_a_whole_number_option_is_taken_exactly_from_its_least_value(
    option: str, value: int
) -> None:
    if value >= PLAIN[option]:
        assert getattr(variant("italian", **{option: value}), option) == value
    else:
        assert refused(**{option: value}).option == option


@settings(max_examples=100, deadline=None)
@given(st.integers(-5, 60), st.sampled_from([(2, 2), (4, 2), (6, 3)]))
def test_a_hand_size_is_taken_when_the_deck_deals_it(size: int, table: tuple[int, int]) -> None:
    players, lines = table
    try:
        v = variant("italian", players=players, lines=lines, hand_size=size)
    except SetupError as error:
        assert error.option == "hand_size"
        base = variant("italian", players=players, lines=lines)
        pozzetti = base.pozzetto_size * base.lines
        assert size < 1 or players * size + pozzetti + 3 > base.deck_size
    else:
        deal = Deal.new(v, seed=size)
        assert all(sum(deal.hands[s]) == size for s in range(players))


# --- the position reader refuses the same options with the same error -----------------------


def with_options(text: str) -> str:
    fields = Deal.new(variant("italian"), seed=3).position().split(" ")
    fields[1] = f"italian/2/2;{text}"
    return " ".join(fields)


@pytest.mark.parametrize(
    "options",
    [
        {"vp_table": 5},
        {"target": -5},
        {"hand_size": 0},
        {"semi_clean": 1},
        {"values": (1, 2)},
        {"jokers": 6},
    ],
)
def test_the_position_reader_refuses_an_option_with_the_variants_error(
    options: dict[str, Any],
) -> None:
    expected = refused(**options)
    text = with_options(";".join(f"{k}={v!r}".replace(" ", "") for k, v in options.items()))
    with pytest.raises(PositionError) as caught:
        Deal.from_position(text)
    assert caught.value.where == "field 2 (variant)"
    assert caught.value.reason == f"the options do not make a variant: {expected}"
    cause = caught.value.__cause__
    assert isinstance(cause, SetupError) and cause.option == expected.option


def test_every_option_is_checked() -> None:
    # A new option of Variant must say what values it takes (bad_values finds one for it).
    names = {f.name for f in dataclasses.fields(Variant)}
    assert set(OPTION_NAMES) == names - {"name", "family", "players", "lines", "line_of"}
    for option in OPTION_NAMES:
        assert bad_values(option)
