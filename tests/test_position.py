"""The position notation (docs/position.md): a deal's whole state, or a seat's view of it,
as one line of text.

1. Round trips over random legal play of every variant and table setup (and some options):
   ``Deal.from_position(deal.position())`` writes the same text, lists the same legal
   actions, gives every seat the same view and the same score, and plays on exactly like
   the original to the end of the deal; each seat's view loads into the same
   :class:`DealView` and writes the same text back.
2. Every slot of ``Deal`` is known to the notation.
3. A bad string is refused with a :class:`PositionError` naming the field and the problem.
4. ``compose`` sets up a deal from the parts a position maker cares about.
5. The examples of docs/position.md load.
6. The engine's API as a position maker meets it (issue 11): every name the documentation
   imports from ``burraco`` is exported, the per-line lists have one entry per line, the
   card drawn is a ``Card`` or None, the end reason None until the deal is over.

The default run is short; ``pytest -m slow`` plays many more deals
(``BURRACO_SLOW_EXAMPLES`` per setup, default 200).
"""

from __future__ import annotations

import dataclasses
import doctest
import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from positions import dealt, idle_turn, play
from test_rules_burraco_deal import IDLE, RUN, _runs_first

import burraco
from burraco import (
    Action,
    Card,
    Deal,
    DealView,
    IllegalMove,
    Match,
    PositionError,
    RuleError,
    compose,
    variant,
)
from burraco.actions import EXTEND, MELD
from burraco.cards import format_cards
from burraco.melds import SEQUENCE, read_meld
from burraco.position import DEAL_SLOTS, FIELDS
from burraco.variants import SETUPS, Variant

DOCS = Path(__file__).resolve().parents[1] / "docs" / "position.md"

#: Every table of every preset, then some options that change what a position holds.
CASES: list[tuple[str, int, int, dict[str, object], dict[str, object]]] = [
    *((name, players, lines, {}, {}) for name, players, lines in SETUPS),
    ("italian", 3, 3, {}, {"phase": 2}),
    ("italian", 5, 5, {}, {"phase": 2}),
    ("italian", 4, 2, {"open_hands": True}, {}),
    ("italian", 2, 2, {"semi_clean": False, "deals": 3, "vp_table": 4}, {}),
    ("buraco", 2, 2, {"max_wildcards": 12, "jokers": 2}, {}),
    ("buraco", 2, 2, {"canastra_real": True}, {"minimum": [75, 90]}),
    ("buraco", 2, 2, {"vulnerable_refuse": True}, {"minimum": [75, 75]}),
    ("canasta", 2, 2, {"open_draws_one": True}, {}),
    ("canasta", 4, 2, {}, {"minimum": [120, 90]}),
]
IDS = [
    f"{n}-{p}p-{ln}l" + "".join(f"-{k}={v}" for k, v in {**o, **d}.items())
    for n, p, ln, o, d in CASES
]

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
#: How many actions to play before writing the position (past the end: the deal is over).
STEPS = st.integers(min_value=0, max_value=350)
POLICIES = st.sampled_from(["uniform", "melder"])
SLOW_EXAMPLES = int(os.environ.get("BURRACO_SLOW_EXAMPLES", "200"))
MAX_ACTIONS = 5000


def make(case: tuple[str, int, int, dict[str, object], dict[str, object]], seed: int) -> Deal:
    name, players, lines, options, deal_options = case
    v = variant(name, players=players, lines=lines, **options)
    return Deal.new(v, seed=seed, **deal_options)  # type: ignore[arg-type]


def choose(deal: Deal, rng: random.Random, policy: str) -> Action | None:
    """A listed action (melds first with the ``melder`` policy), or None for the director's
    time-out, called now and then."""
    if deal.timeout_turns < 0 and rng.random() < 0.005:
        return None
    legal = deal.legal_actions()
    if policy == "melder" and rng.random() < 0.8:
        laying = [a for a in legal if a.kind in (MELD, EXTEND)]
        if laying:
            return rng.choice(laying)
    return rng.choice(legal)


def act(deal: Deal, action: Action | None) -> None:
    if action is None:
        deal.call_time_out()
    else:
        deal.apply(action)


def without_history(view: DealView) -> DealView:
    return dataclasses.replace(view, history=())


def check_views(deal: Deal, loaded: Deal, where: str) -> None:
    for seat in range(deal.v.players):
        expected = without_history(deal.view(seat))
        assert without_history(loaded.view(seat)) == expected, f"view of seat {seat}: {where}"
        text = deal.position(seat)
        assert text.startswith(f"bp1@{seat} "), where
        assert loaded.position(seat) == text, where
        view = DealView.from_position(text)
        assert view == expected, f"seat {seat}'s view from {text}: {where}"
        assert view.history == ()
        assert view.position() == text, where


def check_round_trip(
    case: tuple[str, int, int, dict[str, object], dict[str, object]],
    seed: int,
    steps: int,
    policy: str,
) -> None:
    deal = make(case, seed)
    rng = random.Random(seed)
    where = f"case {case}, seed {seed}, {steps} steps, policy {policy}"
    for _ in range(steps):
        if deal.is_over:
            break
        act(deal, choose(deal, rng, policy))
    text = deal.position()
    loaded = Deal.from_position(text)
    where += f", position {text}"
    assert loaded.position() == text, where
    assert loaded.history == [] and loaded.deck_order == ()
    assert loaded.legal_actions() == deal.legal_actions(), where
    assert loaded.score() == deal.score(), where
    check_views(deal, loaded, where)
    # Both play on with the same actions, to the end of the deal.
    played = 0
    while not deal.is_over:
        assert played < MAX_ACTIONS, where
        legal = deal.legal_actions()
        assert loaded.legal_actions() == legal, f"after {played} more actions: {where}"
        action = choose(deal, rng, policy)
        act(deal, action)
        act(loaded, action)
        assert loaded.position() == deal.position(), f"after {action}: {where}"
        played += 1
    assert loaded.is_over and loaded.end_reason == deal.end_reason, where
    assert loaded.score() == deal.score(), where


def fast(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
@fast(8)
@given(seed=SEEDS, steps=STEPS, policy=POLICIES)
# Found on buraco-2p-2l-max_wildcards=12-jokers=2: a 2 going home read the meld's other 2 as fixed.
@example(seed=353296, steps=0, policy="uniform")
def test_positions_round_trip_and_play_on_alike(
    case: tuple[str, int, int, dict[str, object], dict[str, object]],
    seed: int,
    steps: int,
    policy: str,
) -> None:
    check_round_trip(case, seed, steps, policy)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
@fast(SLOW_EXAMPLES)
@given(seed=SEEDS, steps=STEPS, policy=POLICIES)
def test_slow_positions_round_trip(
    case: tuple[str, int, int, dict[str, object], dict[str, object]],
    seed: int,
    steps: int,
    policy: str,
) -> None:
    check_round_trip(case, seed, steps, policy)


@pytest.mark.parametrize("case", CASES[:1] + CASES[8:9] + CASES[13:14], ids=["it", "bu", "ca"])
def test_every_step_of_a_deal_round_trips(
    case: tuple[str, int, int, dict[str, object], dict[str, object]],
) -> None:
    """One whole deal of each family: every position, and every seat's view, at every step."""
    deal = make(case, 11)
    rng = random.Random(11)
    while True:
        loaded = Deal.from_position(deal.position())
        assert loaded.position() == deal.position()
        assert loaded.legal_actions() == deal.legal_actions()
        check_views(deal, loaded, f"{case} after {len(deal.history)} actions")
        if deal.is_over:
            break
        act(deal, choose(deal, rng, "melder"))


# --- the slots ------------------------------------------------------------------------------


def test_the_notation_knows_every_slot_of_a_deal() -> None:
    """A slot added to Deal must be written in a position (or said to be derived)."""
    # The compiled Deal (mypyc) keeps no __slots__ but lists its attributes alike.
    compiled = vars(Deal).get("__mypyc_attrs__")
    slots = set(Deal.__slots__ if compiled is None else compiled)
    assert set(DEAL_SLOTS) == slots, (
        f"unknown to the notation: {sorted(slots - set(DEAL_SLOTS))}; "
        f"gone from Deal: {sorted(set(DEAL_SLOTS) - slots)}"
    )
    written = {place.split()[0] for place in DEAL_SLOTS.values() if place[:3] != "not"}
    assert written <= set(FIELDS)


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
def test_the_melds_and_lines_fields_have_one_item_per_line(
    name: str, players: int, lines: int
) -> None:
    """Issue 11: the per-line lists are sized by the table's lines, not its seats."""
    deal = Deal.new(variant(name, players=players, lines=lines), seed=4)
    fields = deal.position().split()
    assert len(fields[FIELDS.index("melds")].split("/")) == lines
    assert len(fields[FIELDS.index("lines")].split("/")) == lines
    assert len(fields[FIELDS.index("seats")].split("/")) == players
    assert Deal.from_position(deal.position()).position() == deal.position()
    if players > lines:
        # one item per seat is one per line too many
        per_seat = with_field(FIELDS.index("lines"), "/".join(["o"] * players), deal.position())
        with pytest.raises(PositionError, match=f"{players} entries separated by / for {lines}"):
            Deal.from_position(per_seat)


def test_a_view_position_keeps_the_card_drawn() -> None:
    deal = Deal.new(variant("italian", players=4), seed=6)
    deal.apply("draw")
    seat = deal.turn
    view = deal.view(seat)
    assert view.drawn is not None and f"drawn={view.drawn}" in view.position()
    loaded = DealView.from_position(view.position())
    assert loaded.drawn == view.drawn and loaded.end_reason is None
    other = DealView.from_position(deal.position(seat=(seat + 1) % 4))
    assert other.drawn is None


# --- the history is not part of a position --------------------------------------------------


def test_the_dealers_redraw_survives_a_position() -> None:
    """buraco: the dealer may draw again right after the first draw; a loaded deal (no
    history) knows it from its state."""
    deal = Deal.new(variant("buraco"), seed=3)
    deal.apply("draw")
    loaded = Deal.from_position(deal.position())
    assert "drawn=" in deal.position() and "first" in deal.position()
    assert Action.parse("redraw") in loaded.legal_actions()
    assert loaded.legal_actions() == deal.legal_actions()
    loaded.apply("redraw")
    deal.apply("redraw")
    assert loaded.position() == deal.position()
    with pytest.raises(IllegalMove, match="only once"):
        loaded.apply("redraw")


def test_no_redraw_after_a_meld() -> None:
    for seed in range(100):
        deal = Deal.new(variant("buraco"), seed=seed)
        deal.apply("draw")
        lay = next((a for a in deal.legal_actions() if a.kind == MELD), None)
        if lay is not None:
            break
    assert lay is not None
    deal.apply(lay)
    loaded = Deal.from_position(deal.position())
    for d in (deal, loaded):
        with pytest.raises(IllegalMove, match="right after the first draw"):
            d.apply("redraw")


def test_a_time_out_is_kept() -> None:
    deal = Deal.new(variant("italian"), seed=5)
    deal.apply("draw")
    deal.call_time_out()
    text = deal.position()
    assert "timeout=2" in text
    loaded = Deal.from_position(text)
    rng = random.Random(1)
    while not deal.is_over:
        action = rng.choice(deal.legal_actions())
        deal.apply(action)
        loaded.apply(action)
    assert loaded.is_over and loaded.end_reason == deal.end_reason == "time-out"
    assert loaded.position() == deal.position()


# --- melds and their readings ---------------------------------------------------------------


def with_meld(v: Variant, token: str) -> str:
    """A position of ``v`` whose line 0 holds one meld, written as ``token``."""
    cards = token.split("(")[0]
    fields = compose(v, melds=[[cards]]).position().split()
    fields[8] = token + fields[8][fields[8].index("/") :]
    return " ".join(fields)


@pytest.mark.parametrize(
    ("name", "token", "reading", "written"),
    [
        # buraco with several wildcards: each keeps its place; read afresh the cards would
        # put 2C at 4 and 2D at 5, so the position writes the reading.
        ("buraco-12", "2D2C6H7H8H(6-8@4.5)", (6, 8, 0, (4, 5), "2D 2C"), None),
        ("buraco-12", "2C2D6H7H8H(6-8@4.5)", (6, 8, 0, (4, 5), "2C 2D"), "2C2D6H7H8H"),
        # italian: a wildcard at an end floats (place 0); a gap's wildcard has its place.
        ("italian", "JK3H4H5H(3-5@0)", (3, 5, 0, (), "JK"), "JK3H4H5H"),
        ("italian", "3H4HJK6H(3-6@5)", (3, 6, 5, (), "JK"), "3H4HJK6H"),
        ("italian", "JKQHKHAH(12-14@0)", (12, 14, 0, (), "JK"), "JKQHKHAH"),
        ("italian", "AH2H3H2S(1-3@0)", (1, 3, 0, (), "2S"), "AH2H3H2S"),
        # A 2H standing free before 3H 4H 5H: read afresh it would be a natural 2.
        ("italian", "2H3H4H5H(3-5@0)", (3, 5, 0, (), "2H"), None),
        # buraco: a wildcard keeps its place at an end.
        ("buraco", "2C5H6H7H(5-7@4)", (5, 7, 4, (), "2C"), "2C5H6H7H"),
    ],
)
def test_a_meld_keeps_its_reading(
    name: str, token: str, reading: tuple[object, ...], written: str | None
) -> None:
    v = variant("buraco", max_wildcards=12, jokers=2) if name == "buraco-12" else variant(name)
    deal = Deal.from_position(with_meld(v, token))
    m = deal.melds[0][0]
    assert m.kind == SEQUENCE
    assert (m.lo, m.hi, m.gap, m.fixed, format_cards(m.wilds)) == reading
    assert deal.position().split()[8].split("/")[0] == (written or token)
    assert (read_meld(m.cards, v) == m) == (written is not None)


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("3H4H5H(3-6)", "places 4 cards, not 3"),
        ("3H4H5H(5-3)", "LO-HI are the places"),
        ("3H5H4H(3-5)", "place 4 holds 5H, not 4H"),
        ("3H4HJK6H(3-6@4)", "4H stands as a wildcard but is not one"),
        ("JK3H4H5H(1-3@0)", "JK stands where a natural card should"),
        ("3H4H7H6H(3-6@5)", "7H stands as a wildcard but is not one"),
        ("JK3H4H5H(3-5@0.6)", "only a single wildcard"),
        ("JK2C3H4H(3-4@1.2)", "at most 1 wildcard(s) in italian"),
        ("JK3H4H(3-4@3)", "hold naturals"),
        ("AH2H3H4H5H6H7H8H9H10HJHQHKHAHJK(1-14@0)", "at most 14 cards"),
        ("AH2H3H4H5H6H7H8H9H10HJHQHKHAH(1-14)", "one natural ace at most"),
    ],
)
def test_a_reading_that_is_not_a_sequence_is_refused(token: str, problem: str) -> None:
    text = BASE.split()
    text[8] = token + "/-"
    with pytest.raises(PositionError) as caught:
        Deal.from_position(" ".join(text))
    assert "field 9 (melds), line 0, meld 0" in str(caught.value)
    assert "is not a sequence" in str(caught.value) and problem in str(caught.value)


# --- errors ---------------------------------------------------------------------------------

BASE = Deal.new(variant("italian"), seed=7).position()
VIEW = Deal.new(variant("italian"), seed=7).position(seat=1)
VIEW0 = Deal.new(variant("italian"), seed=7).position(seat=0)


def with_field(index: int, value: str, text: str = BASE) -> str:
    fields = text.split()
    fields[index] = value
    return " ".join(fields)


def first_card_of_hand(replacement: str) -> str:
    fields = BASE.split()
    hands = fields[3]
    first = re.match(r"(?:10|[2-9AJQK])[SHDC]|JK", hands)
    assert first is not None
    fields[3] = replacement + hands[first.end() :]
    return " ".join(fields)


def loosened_card(index: int, change: Callable[[str], str]) -> str:
    """BASE with the first card of field ``index`` holding a 10 written otherwise."""
    fields = BASE.split()
    found = re.search(r"10[SHDC]", fields[index])
    assert found is not None
    card = found.group(0)
    fields[index] = fields[index].replace(card, change(card), 1)
    return " ".join(fields)


#: The reader takes the writer's form only (docs/position.md): how each other form is refused.
LOOSE: list[tuple[str, str, list[str]]] = [
    (
        "double space",
        BASE.replace(" ", "  ", 1),
        ["position: character 5 is a second space", "separated by single spaces", "normalize"],
    ),
    ("tab", BASE.replace(" ", "\t", 1), ["position: character 4 is a tab", "single spaces"]),
    ("line break", BASE + "\n", [f"character {len(BASE) + 1} is a line break"]),
    ("leading", " " + BASE, ["character 1 is a space before the first field"]),
    ("trailing", BASE + " ", [f"character {len(BASE) + 1} is a space after the last field"]),
    (
        "lower case",
        loosened_card(4, str.lower),
        ["field 5 (stock)", "is written 10", "in upper case, with 10 for ten", "normalize"],
    ),
    ("T for 10", loosened_card(4, lambda card: "T" + card[2:]), ["field 5 (stock)", "'T"]),
    (
        "variant case",
        with_field(1, "Italian/2/2"),
        ["field 2 (variant)", "'Italian/2/2' is written 'italian/2/2'", "preset's own name"],
    ),
    ("alias", with_field(1, "burraco/2/2"), ["'burraco/2/2' is written 'italian/2/2'"]),
    (
        "options' order",
        with_field(1, "italian/2/2;deals=3;target=None"),
        ["is written 'italian/2/2;target=None;deals=3'", "in the order of Variant's fields"],
    ),
    ("option as the preset", with_field(1, "italian/2/2;deals=None"), ["is written 'italian/2/2'"]),
]


@pytest.mark.parametrize(("name", "text", "expected"), LOOSE, ids=[b[0] for b in LOOSE])
def test_only_the_writers_form_is_read(name: str, text: str, expected: list[str]) -> None:
    with pytest.raises(PositionError) as caught:
        Deal.from_position(text)
    for part in expected:
        assert part in str(caught.value), f"{part!r} not in {str(caught.value)!r}"
    # normalize reads the looser form, and writes the one the reader takes.
    variant_field = {
        "options' order": "italian/2/2;target=None;deals=3",
    }
    assert burraco.position.normalize(text) == with_field(1, variant_field.get(name, "italian/2/2"))


#: White space a person might put between two fields.
GAPS = st.sampled_from([" ", "  ", "\t", " \t ", "\n"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(CASES),
    SEEDS,
    st.integers(min_value=0, max_value=200),
    st.booleans(),
    st.lists(GAPS, min_size=14, max_size=14),
    st.booleans(),
)
def test_normalize_gives_the_writers_form_back(
    case: tuple[str, int, int, dict[str, object], dict[str, object]],
    seed: int,
    steps: int,
    seen: bool,
    gaps: list[str],
    lower: bool,
) -> None:
    deal = make(case, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if deal.is_over:
            break
        act(deal, choose(deal, rng, "uniform"))
    text = deal.position(seat=deal.turn) if seen else deal.position()
    fields = text.split(" ")
    if lower:  # the cards in lower case, and the preset's name too
        fields = [f.lower() if k in (3, 4, 5, 6, 8, 11) else f for k, f in enumerate(fields)]
        fields[1] = fields[1][0].upper() + fields[1][1:]
    loose = gaps[0].strip() + "".join(g + f for g, f in zip(gaps[1:], fields, strict=False))
    assert burraco.position.normalize(loose) == text
    assert burraco.position.normalize(text) == text


def test_normalize_refuses_what_the_reader_refuses() -> None:
    for name, text, expected in BAD:
        if name == "view":  # a seat's view is a position too: normalize writes it back
            assert burraco.position.normalize(text) == text
            continue
        with pytest.raises(PositionError) as caught:
            burraco.position.normalize(text)
        assert all(part in str(caught.value) for part in expected), (name, str(caught.value))


BAD: list[tuple[str, str, list[str]]] = [
    ("fields", " ".join(BASE.split()[:-1]), ["13 fields", "this one has 12"]),
    ("empty", "", ["is not a position"]),
    ("version", with_field(0, "bp9"), ["field 1 (version)", "bp9", "version bp1"]),
    ("tag", with_field(0, "fen"), ["field 1 (version)", "'fen' is not a version tag"]),
    ("variant", with_field(1, "tresette/2/2"), ["field 2 (variant)", "no variant 'tresette'"]),
    ("table", with_field(1, "italian/7/2"), ["field 2 (variant)", "not by 7 players"]),
    ("variant form", with_field(1, "italian"), ["field 2 (variant)", "NAME/PLAYERS/LINES"]),
    ("option", with_field(1, "italian/2/2;colour=1"), ["field 2 (variant)", "no option 'colour'"]),
    ("literal", with_field(1, "italian/2/2;target=lots"), ["option 'target=lots'", "literal"]),
    ("twice", with_field(1, "italian/2/2;deals=3;deals=4"), ["option deals is given twice"]),
    ("seat", with_field(2, "0/2/draw"), ["field 3 (turn)", "turn: no seat 2", "seats 0 to 1"]),
    ("dealer", with_field(2, "x/1/draw"), ["field 3 (turn)", "dealer: 'x' is not a whole number"]),
    ("phase", with_field(2, "0/1/bid"), ["field 3 (turn)", "no phase 'bid'"]),
    ("card", first_card_of_hand("11S"), ["field 4 (hands), seat 0", "'11S'", "is not a card"]),
    ("deck", first_card_of_hand("JK"), ["cards", "too many JK", "missing 2S"]),
    ("seats", with_field(3, BASE.split()[3] + "/-"), ["field 4 (hands)", "3 entries", "2 seats"]),
    ("hidden", with_field(4, "#63"), ["field 5 (stock)", "counts hidden cards", "whole deal"]),
    ("meld", with_field(8, "5H6H8S/-"), ["field 9 (melds), line 0, meld 0", "is not a meld"]),
    (
        "reading",
        with_field(8, "3H4H5H(3-6)/-"),
        ["field 9 (melds), line 0, meld 0", "is not a sequence", "places 4 cards, not 3"],
    ),
    ("meld text", with_field(8, "3H4H5H(x)/-"), ["field 9 (melds)", "is not a meld"]),
    ("line", with_field(9, "q/o"), ["field 10 (lines), line 0", "'q'"]),
    ("line twice", with_field(9, "oo/o"), ["field 10 (lines), line 0", "given twice"]),
    ("line of", with_field(10, "0/7"), ["field 11 (seats), seat 1", "no line 7"]),
    ("known", with_field(11, "-/ZZ"), ["field 12 (known), seat 1", "'ZZ'", "is not a card"]),
    ("key", with_field(12, "first,colour=3"), ["field 13 (state)", "no key 'colour'"]),
    ("flag", with_field(12, "first=1"), ["field 13 (state)", "first is a flag"]),
    ("end", with_field(12, "first,end=stall"), ["end=stall but the phase is draw"]),
    ("reason", with_field(12, "end=bored"), ["field 13 (state), end", "no end 'bored'"]),
    ("over", with_field(2, "0/1/over"), ["field 13 (state)", "no end=REASON"]),
    ("pending", with_field(12, "pending=3"), ["field 13 (state), pending", "meld 3 of line 1"]),
    ("closer", with_field(12, "closer=4"), ["field 13 (state), closer", "no seat 4"]),
    ("drawn", with_field(12, "drawn=5H5S"), ["field 13 (state), drawn", "drawn is one card"]),
    (
        "view",
        VIEW,
        ["field 1 (version)", "'bp1@1' is seat 1's view", "cannot be played as a full deal"],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_position_is_refused_saying_where_and_what(text: str, expected: list[str]) -> None:
    with pytest.raises(PositionError) as caught:
        Deal.from_position(text)
    message = str(caught.value)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"
    assert isinstance(caught.value, RuleError) and not isinstance(caught.value, IllegalMove)


def fuzz_bases() -> list[str]:
    out = []
    for name, players, lines in SETUPS[::3]:
        deal = Deal.new(variant(name, players=players, lines=lines), seed=players)
        rng = random.Random(players)
        for _ in range(60):
            deal.apply(rng.choice(deal.legal_actions()))
        out += [deal.position(), deal.position(deal.turn)]
    return out


FUZZ_BASES = fuzz_bases()
EDITS = st.lists(
    st.tuples(
        st.sampled_from(["delete", "insert", "replace"]),
        st.floats(min_value=0, max_value=1, exclude_max=True),
        st.sampled_from("0123456789/|#,;=-@()._ ASHDCJKQTmoprvtx"),
    ),
    min_size=1,
    max_size=3,
)


@fast(300)
@given(base=st.sampled_from(FUZZ_BASES), edits=EDITS)
def test_a_mangled_position_loads_or_says_why(
    base: str, edits: list[tuple[str, float, str]]
) -> None:
    """Any string gives a deal (or a view) that writes itself back, or a PositionError;
    never another exception."""
    text = list(base)
    for kind, where, char in edits:
        at = int(where * len(text))
        if kind == "delete":
            del text[at]
        elif kind == "insert":
            text.insert(at, char)
        else:
            text[at] = char
    mangled = "".join(text)
    for load in (Deal.from_position, DealView.from_position):
        try:
            loaded = load(mangled)
        except PositionError:
            continue
        again = loaded.position()
        assert load(again).position() == again


VIEW_BAD: list[tuple[str, str, list[str]]] = [
    ("whole", BASE, ["field 1 (version)", "is a whole deal, not a seat's view"]),
    ("no seat", with_field(0, "bp1@5", VIEW), ["field 1 (version)", "seats are 0 to 1"]),
    (
        "a hidden hand shown",
        with_field(3, BASE.split()[3], VIEW),
        ["field 4 (hands), seat 0", "shows no card here", "#11"],
    ),
    ("own hand counted", with_field(3, "#11/#11", VIEW), ["field 4 (hands), seat 1", "shows"]),
    ("stock shown", with_field(4, BASE.split()[4], VIEW), ["field 5 (stock)", "#11"]),
    ("count", with_field(4, "#60", VIEW), ["cards", "make 105, not the 108"]),
    (
        "not on turn",
        with_field(12, "first,drawn=5H", VIEW0),
        ["field 13 (state), drawn", "seat 0 is not on turn"],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [b[1:] for b in VIEW_BAD], ids=[b[0] for b in VIEW_BAD]
)
def test_a_bad_view_is_refused(text: str, expected: list[str]) -> None:
    with pytest.raises(PositionError) as caught:
        DealView.from_position(text)
    for part in expected:
        assert part in str(caught.value), f"{part!r} not in {caught.value!s}"


@pytest.mark.parametrize("name", ["italian", "buraco", "canasta"])
def test_a_loaded_view_resamples_into_a_playable_deal(name: str) -> None:
    """From what a seat knows to a deal to play on: ``Deal.resample`` deals the unseen cards."""
    deal = Deal.new(variant(name), seed=4)
    rng = random.Random(4)
    for _ in range(25):
        deal.apply(rng.choice(deal.legal_actions()))
    view = DealView.from_position(deal.position(deal.turn))
    guess = Deal.resample(view, random.Random(0))
    assert guess.view(deal.turn) == view
    assert guess.legal_actions() == deal.legal_actions()


def test_a_view_never_shows_a_hidden_card() -> None:
    deal = Deal.new(variant("canasta", players=4), seed=2)
    for _ in range(20):
        deal.apply(random.Random(len(deal.history)).choice(deal.legal_actions()))
    for seat in range(4):
        fields = deal.position(seat).split()
        hands = fields[3].split("/")
        for s, hand in enumerate(hands):
            assert hand.startswith("#") == (s != seat), fields
        assert fields[4].startswith("#")
        assert "|" not in fields[5] or fields[5].startswith("#")


# --- compose ----------------------------------------------------------------------------------


def test_compose_sets_up_the_hands_the_pile_and_the_stock_top() -> None:
    v = variant("italian")
    deal = compose(
        v, ["3H 4H 5H 7S 7S 7C JK 9D 9D KC QC", None], pile="8H", stock_top="6H 2C", turn=0
    )
    assert format_cards(deal.hand(0)) == "7S 7S 3H 4H 5H 9D 9D 7C QC KC JK"
    assert len(deal.hand(1)) == 11 and [len(p) for p in deal.pozzetti] == [11, 11]
    assert len(deal.stock) == 108 - 22 - 22 - 1
    assert deal.turn == 0 and deal.phase == "draw" and deal.history == []
    deal.apply("draw")
    assert str(deal.hand(0)[5]) == "6H"
    assert Deal.from_position(deal.position()).position() == deal.position()
    # The rest is in a fixed order, or shuffled by a seed.
    assert compose(v).position() == compose(v).position()
    assert compose(v, seed=1).position() != compose(v).position()
    assert compose(v, seed=1).position() == compose(v, seed=1).position()


def test_compose_with_melds_on_the_table() -> None:
    v = variant("canasta")
    deal = compose(
        v,
        ["5S 5S 6H 6D 9C 9C KD"],
        melds=[["QH QC JK", "7S 7D 7C 7H"], []],
        pile="6C",
        turn=0,
    )
    assert deal.opened[0] and not deal.opened[1]
    assert [str(m) for m in deal.melds[0]] == ["QH QC JK", "7S 7H 7D 7C"]
    assert Action.parse("take 6H 6D") in deal.legal_actions()
    text = deal.position()
    assert text.split()[8].startswith("QHQCJK,7S7H7D7C/")
    assert Deal.from_position(text).legal_actions() == deal.legal_actions()


def test_compose_refuses_what_cannot_be_dealt() -> None:
    v = variant("canasta")
    with pytest.raises(PositionError, match="red 3s are laid aside"):
        compose(v, ["3H 5S 5S"])
    with pytest.raises(PositionError, match=r"melds, line 0, meld 0: QH JK JK is not a meld"):
        compose(v, melds=[["QH JK JK"]])
    with pytest.raises(PositionError, match="too many JK"):
        compose(variant("buraco"), ["JK"])
    with pytest.raises(PositionError, match=r"hands, seat 0: 'ZZ'"):
        compose(v, ["ZZ"])
    with pytest.raises(PositionError, match="no seat 3"):
        compose(v, turn=3)


# --- the documentation ----------------------------------------------------------------------


def doc_positions() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip().startswith("bp1")]


def test_the_documented_positions_load() -> None:
    found = doc_positions()
    assert len(found) >= 3
    for text in found:
        if text.startswith("bp1@"):
            assert DealView.from_position(text).position() == text
        else:
            deal = Deal.from_position(text)
            assert deal.position() == text
            assert deal.legal_actions() or deal.is_over


def test_the_documented_examples_run() -> None:
    failures, tried = doctest.testfile(str(DOCS), module_relative=False, report=True)
    assert tried >= 10 and failures == 0


def test_the_documented_variant_agrees_with_records() -> None:
    """The variant field writes the options as a game record does (docs/records.md)."""
    v: Variant = variant("online", players=4, deals=5, semi_clean=False)
    text = compose(v).position()
    assert text.split()[1] == "online/4/2;semi_clean=False;deals=5"
    assert Deal.from_position(text).v == v


# --- the engine's API, for positions built from outside (issue 11) ---------------------------


def test_every_name_the_documentation_imports_from_burraco_is_exported() -> None:
    root = Path(__file__).resolve().parents[1]
    names: set[str] = set()
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for found in re.findall(r"from burraco import ([\w, ]+)", path.read_text()):
            names |= {name.strip() for name in found.split(",")}
    assert {"Match", "Deal", "compose", "variant"} <= names
    assert names <= set(burraco.__all__), sorted(names - set(burraco.__all__))
    assert all(hasattr(burraco, name) for name in burraco.__all__)
    assert burraco.Match is Match


#: The per-line lists of a deal: indexed by line_of[seat], one entry per line of the table.
PER_LINE = (
    "has_pozzetto",
    "melds",
    "red_threes",
    "relancinhos",
    "opened",
    "minimum",
    "minimum_raised",
    "pending_value",
)


def _sized_by_lines(deal: Deal) -> None:
    lines = deal.v.lines
    for name in PER_LINE:
        assert len(getattr(deal, name)) == lines, name
    for view in (deal.view(0), deal.view(deal.players - 1)):
        for name in PER_LINE:
            assert len(getattr(view, name)) == lines, name
    assert max(deal.line_of) < lines


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
def test_the_per_line_lists_have_one_entry_per_line(name: str, players: int, lines: int) -> None:
    v = variant(name, players=players, lines=lines)
    deal = Deal.new(v, seed=1)
    _sized_by_lines(deal)
    rng = random.Random(2)
    for _ in range(40):
        if deal.is_over:
            break
        deal.apply(rng.choice(deal.legal_actions()))
    _sized_by_lines(deal)
    _sized_by_lines(Deal.resample(deal.view(deal.turn), random.Random(3)))


@pytest.mark.parametrize("players", [3, 5])
def test_the_per_line_lists_keep_their_size_when_partnerships_form(players: int) -> None:
    v = variant("italian", players=players)
    deal = _runs_first(v, 1)
    assert len(set(deal.line_of)) < v.lines  # a line was given up
    _sized_by_lines(deal)
    runner = deal.line_of[1]
    assert deal.has_pozzetto[runner] and sum(deal.has_pozzetto) == 1


def test_the_minimum_is_given_per_line() -> None:
    v = variant("buraco", players=4, lines=2)
    deal = Deal.new(v, seed=1, minimum=[75, 90])
    assert deal.minimum == [75, 90] and deal.opened == [False, False]
    with pytest.raises(RuleError, match="per line, not per seat"):
        Deal.new(v, seed=1, minimum=[75, 90, 75, 90])
    # a match of pairs passes each line's minimum: the vulnerable line opens with 75
    match = Match(v, first_dealer=0)
    match.totals = [v.vulnerable_at, 0]
    match._start_deal()
    assert match.deal.minimum == [v.vulnerable_minimum, 0]


def test_the_card_drawn_is_a_card_or_none() -> None:
    deal = dealt(variant("italian"), {1: RUN, 0: IDLE}, up="9C", stock="5D")
    assert deal.view(1).drawn is None and deal.view(0).drawn is None
    play(deal, "draw")
    drawn = deal.view(1).drawn
    assert isinstance(drawn, Card) and str(drawn) == "5D"
    assert deal.view(0).drawn is None  # only the seat on turn knows it
    again = Deal.resample(deal.view(1), random.Random(1))
    assert again.view(1).drawn == drawn
    play(deal, "discard 5D")
    assert deal.view(0).drawn is None and deal.view(1).drawn is None


def test_the_end_reason_is_none_until_the_deal_is_over() -> None:
    deal = dealt(variant("italian"), {1: RUN, 0: IDLE}, up="9C")
    assert deal.end_reason is None and deal.view(0).end_reason is None
    assert deal.score().end_reason is None
    assert Deal.resample(deal.view(1), random.Random(1)).end_reason is None
    assert Deal.from_position(deal.position()).end_reason is None
    deal.call_time_out()
    idle_turn(deal)
    idle_turn(deal)
    assert deal.end_reason == "time-out" == deal.view(0).end_reason == deal.score().end_reason
