"""Movements: who meets whom, round by round.

A movement seats the lines of a field (its entrants: players or pairs, each
named here by its id) at tables, two lines a table, one round at a time. A line
left over in an odd field has a bye. Four movements:

* **round-robin** (small fields): everyone meets everyone once, by the circle
  method: ``n - 1`` rounds for an even field, ``n`` rounds (a bye each) for an
  odd one;
* **Mitchell**: two fixed groups; the first (North-South) stays at its table,
  the second (East-West) moves one table up each round, so every line meets
  every line of the other group once and never one of its own;
* **Danish**: each round pairs the lines by the current standings, 1st v 2nd,
  3rd v 4th..., avoiding repeat meetings while possible (see :func:`danish`);
* **knock-out**: a seeded bracket (1 v 16, 8 v 9, ...), byes to the top seeds
  when the field is not a power of two; winners meet in bracket order.

>>> round_robin([1, 2, 3, 4], 1)
Pairing(tables=((1, 1, 4), (2, 2, 3)), byes=(), repeats=0)
>>> mitchell([1, 2, 3, 4, 5], 2).tables, mitchell([1, 2, 3, 4, 5], 2).byes
(((2, 3, 2), (3, 5, 4)), (1,))
>>> danish([1, 2, 3, 4], met={1: {2}, 2: {1}})
Pairing(tables=((1, 1, 3), (2, 2, 4)), byes=(), repeats=0)
>>> knockout_bracket([1, 2, 3, 4, 5])
[1, None, 4, 5, 2, None, 3, None]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from burraco.tournament.errors import TournamentError

__all__ = [
    "DANISH_BUDGET",
    "Pairing",
    "bracket_order",
    "danish",
    "knockout_bracket",
    "knockout_round",
    "knockout_rounds",
    "mitchell",
    "mitchell_groups",
    "mitchell_rounds",
    "round_robin",
    "round_robin_rounds",
]

#: Steps of the Danish search for the fewest repeats (candidates tried) before it falls back
#: to the maximum matching as it is (a few tenths of a second).
DANISH_BUDGET: Final = 50_000


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round of a movement.

    ``tables`` holds ``(table number, first line, second line)``; the first line
    sits North-South. ``byes`` are the lines without a table this round, and
    ``repeats`` counts the tables whose two lines had met before.
    """

    tables: tuple[tuple[int, int, int], ...]
    byes: tuple[int, ...] = ()
    repeats: int = 0

    def meetings(self) -> set[frozenset[int]]:
        """The meetings of this round, each as the set of its two lines."""
        return {frozenset((a, b)) for _, a, b in self.tables}


def _check_field(lines: Sequence[int]) -> None:
    if len(lines) < 2:
        raise TournamentError("round_needs_two_lines", lines=len(lines))
    if len(set(lines)) != len(lines):
        raise TournamentError("line_repeated")


def _check_round(kind: str, round_number: int, total: int) -> None:
    if not 1 <= round_number <= total:
        raise TournamentError("movement_has_no_round", format=kind, total=total, round=round_number)


def _numbered(pairs: Sequence[tuple[int, int]]) -> tuple[tuple[int, int, int], ...]:
    return tuple((number, a, b) for number, (a, b) in enumerate(pairs, start=1))


# --- round-robin ------------------------------------------------------------------------------


def round_robin_rounds(lines: int) -> int:
    """The rounds of a whole round-robin: ``n - 1`` for an even field, ``n`` for an odd one.

    >>> round_robin_rounds(8), round_robin_rounds(7)
    (7, 7)
    """
    return lines - 1 if lines % 2 == 0 else lines


def round_robin(lines: Sequence[int], round_number: int) -> Pairing:
    """Round ``round_number`` (from 1) of the round-robin of ``lines``, by the circle method.

    The last line (or, in an odd field, the bye) keeps its place; the others
    turn round it one place a round. The fixed line changes side every round.

    >>> [round_robin([1, 2, 3], r).byes for r in (1, 2, 3)]
    [(1,), (2,), (3,)]
    """
    _check_field(lines)
    _check_round("round-robin", round_number, round_robin_rounds(len(lines)))
    slots: list[int | None] = [*lines, None] if len(lines) % 2 else list(lines)
    size = len(slots)
    turn = round_number - 1
    circle = [slots[(i + turn) % (size - 1)] for i in range(size - 1)]
    circle.append(slots[-1])
    pairs: list[tuple[int, int]] = []
    byes: list[int] = []
    for i in range(size // 2):
        a, b = circle[i], circle[size - 1 - i]
        if i == 0 and turn % 2:
            a, b = b, a
        if a is None or b is None:
            byes.extend(x for x in (a, b) if x is not None)
        else:
            pairs.append((a, b))
    return Pairing(_numbered(pairs), tuple(byes))


# --- Mitchell ---------------------------------------------------------------------------------


def mitchell_groups(lines: Sequence[int]) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
    """The two groups of a Mitchell: North-South (stationary) and East-West (moving).

    Lines go to the groups alternately, so the order of the field (the draw or
    the seeding) is shared fairly; in an odd field the East-West group has a
    phantom (``None``), and the line it meets has a bye.

    >>> mitchell_groups([1, 2, 3, 4, 5])
    ((1, 3, 5), (2, 4, None))
    """
    _check_field(lines)
    north_south = tuple(lines[0::2])
    east_west: tuple[int | None, ...] = tuple(lines[1::2])
    if len(east_west) < len(north_south):
        east_west = (*east_west, None)
    return north_south, east_west


def mitchell_rounds(lines: int) -> int:
    """The rounds of a whole Mitchell: one per table, ``ceil(n / 2)``.

    >>> mitchell_rounds(10), mitchell_rounds(11)
    (5, 6)
    """
    return (lines + 1) // 2


def mitchell(lines: Sequence[int], round_number: int) -> Pairing:
    """Round ``round_number`` (from 1) of the Mitchell of ``lines``.

    Table ``t`` keeps its North-South line all through; East-West line ``j``
    sits at table ``j + r`` (counting tables round) in round ``r + 1``. Tables
    keep their numbers, so the table of a bye is missing from the list.

    >>> mitchell([1, 2, 3, 4], 1).tables
    ((1, 1, 2), (2, 3, 4))
    >>> mitchell([1, 2, 3, 4], 2).tables
    ((1, 1, 4), (2, 3, 2))
    """
    north_south, east_west = mitchell_groups(lines)
    size = len(north_south)
    _check_round("Mitchell", round_number, size)
    turn = round_number - 1
    tables: list[tuple[int, int, int]] = []
    byes: list[int] = []
    for t, first in enumerate(north_south):
        second = east_west[(t - turn) % size]
        if second is None:
            byes.append(first)
        else:
            tables.append((t + 1, first, second))
    return Pairing(tuple(tables), tuple(byes))


# --- Danish -----------------------------------------------------------------------------------


def danish(
    order: Sequence[int],
    met: Mapping[int, Collection[int]],
    byes: Mapping[int, int] | None = None,
    *,
    budget: int = DANISH_BUDGET,
) -> Pairing:
    """A Danish round: the lines paired by the standings, avoiding repeat meetings.

    ``order`` is the standings, best first; ``met`` gives, for each line, the
    lines it has already met; ``byes`` how many byes each line has had.

    In an odd field the bye goes to the lowest line of those with the fewest
    byes, unless that makes a repeat meeting unavoidable where another of them
    would not. The others are paired from the top: the first unpaired line
    meets the next unpaired line it has not met, unless that would leave the
    lines below with no pairing free of repeats, in which case it takes the
    next candidate (the classic swap). A maximum matching of the lines that
    have not met (Edmonds' blossoms) answers that question at each step, so the
    search never has to go back: the pairing found is the one closest to the
    standings order (comparing, from the top, each line's opponent) with no
    repeat meeting. When no such pairing exists, the matching gives the fewest
    repeats possible, and a backtracking search finds the closest pairing with
    that many; should it run past ``budget`` steps, the matching, built from
    the top, is used as it is.

    >>> danish([1, 2, 3, 4, 5], met={}, byes={5: 1}).byes
    (4,)
    >>> danish([1, 2, 3, 4], met={1: {2, 3}, 2: {1}, 3: {1}})
    Pairing(tables=((1, 1, 4), (2, 2, 3)), byes=(), repeats=0)
    >>> danish([1, 2], met={1: {2}, 2: {1}}).repeats
    1
    """
    lines = list(order)
    _check_field(lines)
    if len(lines) % 2 == 0:
        pairs, repeats = _pair_in_order(lines, met, budget)
        return Pairing(_numbered(pairs), (), repeats)
    counts = byes or {}
    fewest = min(counts.get(line, 0) for line in lines)
    best: tuple[int, list[tuple[int, int]], int] | None = None
    for bye in reversed(lines):
        if counts.get(bye, 0) != fewest:
            continue
        pairs, repeats = _pair_in_order([x for x in lines if x != bye], met, budget)
        if best is None or repeats < best[2]:
            best = (bye, pairs, repeats)
        if repeats == 0:
            break
    assert best is not None
    bye, pairs, repeats = best
    return Pairing(_numbered(pairs), (bye,), repeats)


def _pair_in_order(
    lines: Sequence[int], met: Mapping[int, Collection[int]], budget: int
) -> tuple[list[tuple[int, int]], int]:
    """Pair ``lines`` (even, in standings order): the pairs and the number of repeats."""
    position = {line: i for i, line in enumerate(lines)}
    seen: list[set[int]] = [
        {position[other] for other in met.get(line, ()) if other in position and other != line}
        for line in lines
    ]
    # Meetings count both ways, whichever side the history was written from.
    for i, others in enumerate(seen):
        for j in others:
            seen[j].add(i)
    mate = _maximum_matching(seen)
    repeats = mate.count(-1) // 2
    if not repeats:
        found = _closest_perfect(seen, mate)
    else:
        found = _search(seen, repeats, budget) or _from_matching(mate)
    return [(lines[a], lines[b]) for a, b in found], repeats


def _closest_perfect(seen: list[set[int]], mate: list[int]) -> list[tuple[int, int]]:
    """The pairing without repeats closest to the order, given one (``mate``).

    From the top, each line takes the first line below it that it has not met
    and that leaves the lines below a pairing without repeats. ``mate`` is such
    a pairing of the lines still to pair, and it answers the question: the line
    ``a`` may take ``b`` if the two lines they leave (their partners in
    ``mate``) can be joined by an alternating path among the rest, which
    rebuilds the pairing around the new table. The backtracking search this
    replaces gets lost at the bottom of a crowded field; this never goes back.
    """
    size = len(seen)
    alive = [True] * size
    pairs: list[tuple[int, int]] = []
    for a in range(size):
        if not alive[a]:
            continue
        alive[a] = False
        for b in range(a + 1, size):
            if not alive[b] or b in seen[a]:
                continue
            if mate[a] == b:
                break
            a_mate, b_mate = mate[a], mate[b]
            alive[b] = False
            mate[a_mate] = mate[b_mate] = -1
            if b_mate not in seen[a_mate]:  # the two left over have not met: they sit together
                mate[a_mate], mate[b_mate] = b_mate, a_mate
                mate[a], mate[b] = b, a
                break
            if _augment(seen, mate, a_mate, alive):
                mate[a], mate[b] = b, a
                break
            mate[a], mate[a_mate], mate[b], mate[b_mate] = a_mate, a, b_mate, b
            alive[b] = True
        b = mate[a]
        alive[b] = False
        pairs.append((a, b))
    return pairs


def _search(seen: list[set[int]], allowance: int, budget: int) -> list[tuple[int, int]] | None:
    """Backtracking from the top: the pairing closest to the order with at most
    ``allowance`` repeats, or None if there is none (or the budget runs out)."""
    size = len(seen)
    free = [True] * size
    # For each line, how many free lines it has met: a free line with none left to meet
    # needs a repeat, which prunes the search as soon as the bottom gets crowded.
    met_free = [len(s) for s in seen]
    most_met = max(met_free, default=0)
    remaining = size
    used = 0
    steps = 0
    stack: list[tuple[int, int, bool]] = []

    def occupy(x: int, taken: bool) -> None:
        free[x] = not taken
        step = -1 if taken else 1
        for y in seen[x]:
            met_free[y] += step

    def dead() -> bool:
        if remaining - 1 > most_met:
            return False
        stuck = sum(1 for x in range(size) if free[x] and met_free[x] >= remaining - 1)
        return used + (stuck + 1) // 2 > allowance

    a, b = 0, 0
    while True:
        paired = False
        c = b + 1
        while c < size:
            steps += 1
            if steps > budget:
                return None
            if free[c]:
                repeat = c in seen[a]
                if not repeat or used < allowance:
                    occupy(a, True)
                    occupy(c, True)
                    remaining -= 2
                    used += repeat
                    if not dead():
                        paired = True
                        stack.append((a, c, repeat))
                        break
                    occupy(a, False)
                    occupy(c, False)
                    remaining += 2
                    used -= repeat
            c += 1
        if paired:
            if remaining == 0:
                return [(x, y) for x, y, _ in stack]
            a = next(x for x in range(a + 1, size) if free[x])
            b = a
            continue
        if not stack:
            return None
        a, b, repeat = stack.pop()
        occupy(a, False)
        occupy(b, False)
        remaining += 2
        used -= repeat


def _from_matching(mate: list[int]) -> list[tuple[int, int]]:
    """Pairs from a matching, in order of their better line; unmatched lines (who have all
    met each other) paired in order among themselves."""
    pairs = [(a, b) for a, b in enumerate(mate) if a < b]
    left = [a for a, b in enumerate(mate) if b == -1]
    pairs.extend(zip(left[0::2], left[1::2], strict=True))
    return sorted(pairs)


def _maximum_matching(seen: list[set[int]]) -> list[int]:
    """A maximum matching of the lines that have not met (Edmonds' blossoms), started
    from the greedy pairing from the top so that it stays close to the order.

    ``mate[i]`` is the line matched with ``i``, or -1.
    """
    size = len(seen)
    mate = [-1] * size
    for v in range(size):
        if mate[v] == -1:
            for u in range(v + 1, size):
                if mate[u] == -1 and u not in seen[v]:
                    mate[v], mate[u] = u, v
                    break
    alive = [True] * size
    for root in range(size):
        if mate[root] == -1:
            _augment(seen, mate, root, alive)
    return mate


def _augment(seen: list[set[int]], mate: list[int], root: int, alive: list[bool]) -> bool:
    """Look for an augmenting path from the unmatched ``root`` among the ``alive`` lines
    (an edge joins two lines that have not met) and flip it; False (and ``mate`` as it
    was) if there is none. Edmonds' algorithm: odd cycles (blossoms) shrink to their base.
    """
    size = len(seen)
    parent = [-1] * size
    base = list(range(size))
    used = [False] * size
    used[root] = True
    queue = [root]
    # From the bottom up: the path then changes tables low in the order, which keeps the
    # pairing near the top as the search from the top chose it.
    candidates = [x for x in range(size - 1, -1, -1) if alive[x]]

    def common_base(a: int, b: int) -> int:
        marked = [False] * size
        while True:
            a = base[a]
            marked[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if marked[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        met = seen[v]
        for to in candidates:
            if to == v or to in met or base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                b = common_base(v, to)
                blossom = [False] * size
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in candidates:
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    while to != -1:
                        v = parent[to]
                        after = mate[v]
                        mate[to], mate[v] = v, to
                        to = after
                    return True
                used[mate[to]] = True
                queue.append(mate[to])
    return False


# --- knock-out --------------------------------------------------------------------------------


def knockout_rounds(lines: int) -> int:
    """The rounds of a knock-out of ``lines``: enough to halve the field to one.

    >>> knockout_rounds(16), knockout_rounds(17), knockout_rounds(2)
    (4, 5, 1)
    """
    if lines < 2:
        raise TournamentError("knockout_needs_two_lines", lines=lines)
    return (lines - 1).bit_length()


def bracket_order(size: int) -> list[int]:
    """The seeds in bracket order for a bracket of ``size`` (a power of two): seed 1 meets
    the lowest seed, and seeds 1 and 2 can meet only in the final.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise TournamentError("bracket_size", size=size)
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_bracket(seeds: Sequence[int]) -> list[int | None]:
    """The first round's bracket: the lines in seed order put in their places; the empty
    places (``None``) are byes, and fall against the top seeds."""
    _check_field(seeds)
    size = 1 << (len(seeds) - 1).bit_length()
    return [seeds[s - 1] if s <= len(seeds) else None for s in bracket_order(size)]


def knockout_round(slots: Sequence[int | None]) -> Pairing:
    """The tables of a knock-out round: neighbours in the bracket meet; a line whose
    neighbour's place is empty has a bye (and goes through).

    >>> knockout_round([1, None, 4, 5])
    Pairing(tables=((1, 4, 5),), byes=(1,), repeats=0)
    """
    if len(slots) < 2 or len(slots) % 2:
        raise TournamentError("bracket_round_odd", places=len(slots))
    pairs: list[tuple[int, int]] = []
    byes: list[int] = []
    for a, b in zip(slots[0::2], slots[1::2], strict=True):
        if a is None and b is None:
            raise TournamentError("bracket_empty_meet")
        if a is not None and b is not None:
            pairs.append((a, b))
        else:
            byes.extend(x for x in (a, b) if x is not None)
    return Pairing(_numbered(pairs), tuple(byes))
