"""Movements (``burraco.tournament.movements``): round-robin, Mitchell, Danish, knock-out.

The Danish pairing is checked against a brute force over every pairing of small
fields: it must have the fewest repeat meetings possible (none when one can be
avoided), give the bye to the lowest line of those with the fewest byes that
allows that, and be the pairing closest to the standings order.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burraco.tournament import TournamentError
from burraco.tournament.movements import (
    Pairing,
    bracket_order,
    danish,
    knockout_bracket,
    knockout_round,
    knockout_rounds,
    mitchell,
    mitchell_groups,
    mitchell_rounds,
    round_robin,
    round_robin_rounds,
)


def _check_round(pairing: Pairing, lines: Sequence[int]) -> None:
    """Every line plays exactly once or has a bye; tables are numbered once each."""
    seated = [x for _, a, b in pairing.tables for x in (a, b)] + list(pairing.byes)
    assert sorted(seated) == sorted(lines)
    numbers = [n for n, _, _ in pairing.tables]
    assert len(set(numbers)) == len(numbers)
    assert len(pairing.byes) == len(lines) % 2


# --- round-robin ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 27))
def test_round_robin_everyone_meets_everyone_exactly_once(n: int) -> None:
    lines = [10 * i + 3 for i in range(n)]  # ids need not be 1..n
    rounds = round_robin_rounds(n)
    assert rounds == (n - 1 if n % 2 == 0 else n)
    meetings: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    for r in range(1, rounds + 1):
        pairing = round_robin(lines, r)
        _check_round(pairing, lines)
        meetings.update(pairing.meetings())
        byes.update(pairing.byes)
    assert set(meetings) == {frozenset(p) for p in itertools.combinations(lines, 2)}
    assert set(meetings.values()) == {1}
    # In an odd field each line has exactly one bye.
    assert byes == (Counter(lines) if n % 2 else Counter())


@pytest.mark.parametrize("n", [4, 6, 10])
def test_round_robin_fixed_line_changes_side(n: int) -> None:
    lines = list(range(1, n + 1))
    sides = [n in (a for _, a, _ in round_robin(lines, r).tables) for r in range(1, n)]
    assert True in sides and False in sides


def test_round_robin_refuses_rounds_outside_the_cycle() -> None:
    with pytest.raises(TournamentError, match="rounds 1 to 3"):
        round_robin([1, 2, 3, 4], 4)
    with pytest.raises(TournamentError, match="at least two lines"):
        round_robin([1], 1)
    with pytest.raises(TournamentError, match="repeats a line"):
        round_robin([1, 2, 2, 3], 1)


# --- Mitchell ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 41))
def test_mitchell_lines_meet_the_other_group_once_and_never_their_own(n: int) -> None:
    lines = list(range(101, 101 + n))
    north_south, east_west = mitchell_groups(lines)
    ns, ew = set(north_south), {x for x in east_west if x is not None}
    assert ns | ew == set(lines) and not ns & ew
    meetings: Counter[frozenset[int]] = Counter()
    tables_of: dict[int, set[int]] = defaultdict(set)
    byes: Counter[int] = Counter()
    for r in range(1, mitchell_rounds(n) + 1):
        pairing = mitchell(lines, r)
        _check_round(pairing, lines)
        for number, a, b in pairing.tables:
            assert a in ns and b in ew  # North-South sits first; never two of a group
            tables_of[a].add(number)
        meetings.update(pairing.meetings())
        byes.update(pairing.byes)
    assert set(meetings.values()) <= {1}
    assert set(meetings) == {frozenset((a, b)) for a in ns for b in ew}
    # North-South lines never move.
    assert all(len(numbers) == 1 for numbers in tables_of.values())
    if n % 2:
        assert byes == Counter(ns)  # the phantom meets each North-South line once
    else:
        assert not byes


def test_mitchell_east_west_moves_one_table_up() -> None:
    lines = list(range(1, 11))
    where = {}
    for r in (1, 2, 3):
        for number, _, b in mitchell(lines, r).tables:
            where[r, b] = number
    for b in (2, 4, 6, 8, 10):
        assert where[2, b] == where[1, b] % 5 + 1
        assert where[3, b] == where[2, b] % 5 + 1


# --- Danish -----------------------------------------------------------------------------------


def _pairings(lines: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every perfect pairing of ``lines`` (even)."""
    if not lines:
        yield []
        return
    first, rest = lines[0], lines[1:]
    for i, partner in enumerate(rest):
        for others in _pairings(rest[:i] + rest[i + 1 :]):
            yield [(first, partner), *others]


def _closeness(pairs: Sequence[tuple[int, int]], order: Sequence[int]) -> tuple[int, ...]:
    """From the top of the standings, each line's opponent's place (lines already
    placed as an opponent skipped): smaller is closer to the standings order."""
    place = {line: i for i, line in enumerate(order)}
    partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}
    key, done = [], set()
    for line in order:
        if line in done or line not in partner:
            continue
        key.append(place[partner[line]])
        done |= {line, partner[line]}
    return tuple(key)


def _brute_force(
    order: list[int], met: dict[int, set[int]], byes: dict[int, int]
) -> tuple[int, int | None, tuple[int, ...]]:
    """The fewest repeats, the bye, and the closeness of the best pairing."""
    fewest = min(byes.get(x, 0) for x in order)
    options: list[tuple[int, int, tuple[int, ...], int | None]] = []
    candidates: list[int | None] = (
        [x for x in order if byes.get(x, 0) == fewest] if len(order) % 2 else [None]
    )
    for bye in candidates:
        rest = [x for x in order if x != bye]
        for pairs in _pairings(rest):
            repeats = sum(1 for a, b in pairs if b in met.get(a, set()))
            # Fewest repeats; then the lowest line with the bye; then the closest pairing.
            low = -order.index(bye) if bye is not None else 0
            options.append((repeats, low, _closeness(pairs, order), bye))
    repeats, _, key, bye = min(options)
    return repeats, bye, key


@st.composite
def danish_fields(draw: st.DrawFn) -> tuple[list[int], dict[int, set[int]], dict[int, int]]:
    n = draw(st.integers(2, 11))
    ids = draw(st.permutations(list(range(1, n + 1))))
    density = draw(st.sampled_from([0.0, 0.2, 0.4, 0.6, 0.8, 1.0]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    met: dict[int, set[int]] = defaultdict(set)
    for a, b in itertools.combinations(ids, 2):
        if rng.random() < density:
            met[a].add(b)
            met[b].add(a)
    byes = {x: rng.randrange(2) for x in ids} if draw(st.booleans()) else {}
    return list(ids), dict(met), byes


@settings(max_examples=400, deadline=None)
@given(danish_fields())
def test_danish_matches_the_brute_force_on_small_fields(
    field: tuple[list[int], dict[int, set[int]], dict[int, int]],
) -> None:
    order, met, byes = field
    pairing = danish(order, met, byes)
    _check_round(pairing, order)
    repeats, bye, key = _brute_force(order, met, byes)
    pairs = [(a, b) for _, a, b in pairing.tables]
    assert pairing.repeats == sum(1 for a, b in pairs if b in met.get(a, set()))
    assert pairing.repeats == repeats  # no repeat while one can be avoided; else the fewest
    if bye is not None:
        assert pairing.byes == (bye,)
    assert _closeness(pairs, order) == key  # the pairing closest to the standings


@settings(max_examples=200, deadline=None)
@given(danish_fields())
def test_danish_fallback_still_has_the_fewest_repeats(
    field: tuple[list[int], dict[int, set[int]], dict[int, int]],
) -> None:
    """With the search cut short at once, the maximum matching alone gives the fewest."""
    order, met, byes = field
    pairing = danish(order, met, byes, budget=1)
    _check_round(pairing, order)
    assert pairing.repeats == _brute_force(order, met, byes)[0]


def test_danish_pairs_the_standings_in_order_when_nobody_has_met() -> None:
    pairing = danish(list(range(1, 9)), {})
    assert [(a, b) for _, a, b in pairing.tables] == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert [n for n, _, _ in pairing.tables] == [1, 2, 3, 4]


def test_danish_swaps_with_the_next_candidate_after_a_meeting() -> None:
    met = {1: {2}, 2: {1}}
    assert [(a, b) for _, a, b in danish([1, 2, 3, 4], met).tables] == [(1, 3), (2, 4)]
    # The bottom two have met: the search goes back up rather than repeat.
    met = {3: {4}, 4: {3}}
    assert [(a, b) for _, a, b in danish([1, 2, 3, 4], met).tables] == [(1, 3), (2, 4)]


def test_danish_bye_goes_to_the_lowest_line_without_one() -> None:
    assert danish([1, 2, 3, 4, 5], {}).byes == (5,)
    assert danish([1, 2, 3, 4, 5], {}, {5: 1, 4: 1}).byes == (3,)


def _simulate(n: int, rounds: int, seed: int) -> tuple[list[int], dict[int, set[int]]]:
    """A Danish tournament of ``n`` lines of random strength: standings and meetings."""
    rng = random.Random(seed)
    strength = {x: rng.gauss(0, 1) for x in range(1, n + 1)}
    vp: dict[int, float] = dict.fromkeys(strength, 0.0)
    met: dict[int, set[int]] = defaultdict(set)
    byes: dict[int, int] = defaultdict(int)
    for _ in range(rounds):
        order = sorted(vp, key=lambda x: -vp[x])
        pairing = danish(order, met, byes)
        assert pairing.repeats == 0
        for _, a, b in pairing.tables:
            met[a].add(b)
            met[b].add(a)
            edge = strength[a] - strength[b] + rng.gauss(0, 1)
            share = max(0, min(20, round(10 + 4 * edge)))
            vp[a] += share
            vp[b] += 20 - share
        for x in pairing.byes:
            byes[x] += 1
            vp[x] += 12
    return sorted(vp, key=lambda x: -vp[x]), met


@pytest.mark.parametrize("n", [500, 501])
def test_danish_pairs_500_lines_after_eight_rounds_quickly_and_without_repeats(n: int) -> None:
    order, met = _simulate(n, 8, seed=n)
    start = time.perf_counter()
    pairing = danish(order, met)
    elapsed = time.perf_counter() - start
    _check_round(pairing, order)
    assert pairing.repeats == 0
    assert elapsed < 2.0  # the bench (bench/pairing.py) shows well under a second


def test_danish_small_field_runs_out_of_new_opponents_with_fewest_repeats() -> None:
    # Four lines after three rounds have all met: every table is a repeat.
    met = {x: {1, 2, 3, 4} - {x} for x in (1, 2, 3, 4)}
    pairing = danish([1, 2, 3, 4], met)
    assert pairing.repeats == 2
    assert [(a, b) for _, a, b in pairing.tables] == [(1, 2), (3, 4)]


# --- knock-out --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_bracket_order_meets_top_and_bottom_and_keeps_1_and_2_apart(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    for a, b in zip(order[0::2], order[1::2], strict=True):
        assert a + b == size + 1
    if size >= 2:
        half = size // 2
        assert (1 in order[:half]) != (2 in order[:half])


def test_bracket_order_refuses_a_size_that_is_not_a_power_of_two() -> None:
    with pytest.raises(TournamentError, match="power of two"):
        bracket_order(6)


@pytest.mark.parametrize("n", range(2, 34))
def test_knockout_byes_go_to_the_top_seeds_and_the_field_halves(n: int) -> None:
    seeds = list(range(1, n + 1))
    slots = knockout_bracket(seeds)
    first = knockout_round(slots)
    _check_round_knockout(first, seeds)
    size = len(slots)
    assert sorted(first.byes) == list(range(1, size - n + 1))
    rng = random.Random(n)
    alive: list[int | None] = list(slots)
    rounds = 0
    while len(alive) > 1:
        pairing = knockout_round(alive)
        winners: list[int | None] = []
        for a, b in zip(alive[0::2], alive[1::2], strict=True):
            winners.append(a if b is None else b if a is None else rng.choice((a, b)))
        alive = winners
        rounds += 1
        assert not pairing.byes or rounds == 1  # byes only in the first round
    assert rounds == knockout_rounds(n)


def _check_round_knockout(pairing: Pairing, lines: Sequence[int]) -> None:
    seated = [x for _, a, b in pairing.tables for x in (a, b)] + list(pairing.byes)
    assert sorted(seated) == sorted(lines)
