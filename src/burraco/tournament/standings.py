"""Standings: the lines ranked by VP, then MP difference, then head-to-head.

The standings are computed from the table results and the byes, never kept,
so they are always those of the results entered so far. Lines level on VP and
MP difference are separated by head-to-head: the VP they scored against each
other (with more than two level, in the mini-league of those lines). Lines
still level keep the order of the draw (the tournament's seeding).

>>> from burraco.tournament.tables import Entrant, TableAssignment, score_table
>>> from burraco.variants import VP_TABLE_3
>>> field = [Entrant(1, ("Anna",)), Entrant(2, ("Bruno",)), Entrant(3, ("Carla",))]
>>> results = [score_table(TableAssignment(1, 1, 1, 2), 900, 1200, VP_TABLE_3)]
>>> [(s.rank, s.name, s.vp, s.mp) for s in standings_of(field, results, [(1, 3)], VP_TABLE_3)]
[(1, 'Bruno', 13, 300), (2, 'Carla', 12, 155), (3, 'Anna', 7, -300)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from burraco.tournament.tables import ByeRule, Entrant, TableResult
from burraco.vp import VPTable

__all__ = ["Standing", "standings_of"]


@dataclass(frozen=True, slots=True)
class Standing:
    """A line's place in the standings.

    ``vp`` and ``mp`` (the MP difference) include the byes; ``played`` counts
    the tables played, ``byes`` the rounds with a bye. ``stage`` is, in a
    knock-out, the number of rounds the line has come through (it ranks first).
    """

    rank: int
    entrant: int
    name: str
    vp: int
    mp: int
    played: int
    byes: int
    wins: int
    draws: int
    losses: int
    stage: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def standings_of(
    field: Sequence[Entrant],
    results: Iterable[TableResult],
    byes: Iterable[tuple[int, int]],
    table: VPTable,
    bye_rule: ByeRule | None = None,
    stage: Mapping[int, int] | None = None,
) -> list[Standing]:
    """Rank ``field`` (in the order of the draw) by its ``results`` and ``byes``
    (``(round, line)`` pairs, scored by ``bye_rule``, 12 VP by default).

    ``stage`` ranks first when given (a knock-out: how far each line came).
    """
    rule = bye_rule or ByeRule()
    vp: dict[int, int] = defaultdict(int)
    mp: dict[int, int] = defaultdict(int)
    played: dict[int, list[tuple[int, int]]] = defaultdict(list)
    wins: dict[int, int] = defaultdict(int)
    draws: dict[int, int] = defaultdict(int)
    head: dict[tuple[int, int], int] = defaultdict(int)
    all_results = list(results)
    for r in all_results:
        for line in (r.first, r.second):
            line_vp, line_mp = r.vp_of(line), r.mp_of(line)
            vp[line] += line_vp
            mp[line] += line_mp
            played[line].append((line_vp, line_mp))
            head[line, r.opponent(line)] += line_vp
            if r.winner is None:
                draws[line] += 1
            elif r.winner == line:
                wins[line] += 1
    bye_count: dict[int, int] = defaultdict(int)
    for _, line in byes:
        bye_count[line] += 1
    for line, count in bye_count.items():
        bye_vp, bye_mp = rule.score(table, played[line])
        vp[line] += count * bye_vp
        mp[line] += count * bye_mp
    stages = stage or {}
    position = {e.id: i for i, e in enumerate(field)}

    def key(line: int) -> tuple[int, int, int]:
        return (-stages.get(line, 0), -vp[line], -mp[line])

    ordered = sorted(position, key=lambda line: (key(line), position[line]))
    ranked: list[int] = []
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and key(ordered[end]) == key(ordered[start]):
            end += 1
        level = tuple(ordered[start:end])
        # Head-to-head: the VP each scored against the others of the level group.
        ranked.extend(
            sorted(
                level,
                key=lambda line: (-sum(head[line, other] for other in level), position[line]),
            )
        )
        start = end
    names = {e.id: e.name for e in field}
    return [
        Standing(
            rank=rank,
            entrant=line,
            name=names[line],
            vp=vp[line],
            mp=mp[line],
            played=len(played[line]),
            byes=bye_count[line],
            wins=wins[line],
            draws=draws[line],
            losses=len(played[line]) - wins[line] - draws[line],
            stage=stages.get(line, 0),
        )
        for rank, line in enumerate(ranked, start=1)
    ]
