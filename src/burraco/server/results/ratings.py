"""Ratings: OpenSkill's Plackett-Luce model over the sides of a finished match.

Each game and table size has its own rating (:func:`game_key`: "italian-2",
"italian-4", "buraco-4x4"...). A side is a match line: a player alone, or the
partners of a pair or a trio, rated together as a team; a table of three lines
is three sides. The sides rank by the match's result (:func:`match_ranks`): the
winner first, then by totals, level totals level; the line that abandoned or ran
out of time (002) last, and so the line of a person a bot played for most of the
match (absence.py): such lines are level among themselves, whatever the bots scored.

The rating shown is OpenSkill's *ordinal*, ``mu - 3 sigma`` (a rating the player
is very probably above), on a friendlier scale: ``1000 + 20 * ordinal``, rounded.
A newcomer (``mu`` 25, ``sigma`` 25/3) shows 1000; the leaderboard ranks by it.

>>> displayed(25.0, 25 / 3)
1000
>>> new = rate([["anna"], ["bruno"]], [0, 1], {})
>>> new["anna"].mu > 25 > new["bruno"].mu
True
>>> game_key(variant("italian", players=4)), game_key(variant("buraco", players=4, lines=4))
('italian-4', 'buraco-4x4')
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

from openskill.models import PlackettLuce

from burraco.variants import SETUPS, Variant, variant

if TYPE_CHECKING:
    from burraco.match import Match

__all__ = [
    "BASE",
    "BOT_LEVELS",
    "GAMES",
    "SCALE",
    "Skill",
    "displayed",
    "game_key",
    "game_variant",
    "leaving_lines",
    "line_ranks",
    "match_ranks",
    "rate",
]

#: The bot levels; each has an account of kind "bot" named after it, rated like a player
#: (accounts.RESERVED_NAMES keeps these names from people).
BOT_LEVELS: Final = ("random", "greedy", "expert", "learned")

#: The shown rating is ``BASE + SCALE * (mu - 3 sigma)``.
BASE: Final = 1000
SCALE: Final = 20

MODEL: Final = PlackettLuce()

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating: the mean ``mu`` of a player's skill and its uncertainty ``sigma``."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        return displayed(self.mu, self.sigma)


def displayed(mu: float, sigma: float) -> int:
    """The rating a player reads: ``1000 + 20 (mu - 3 sigma)``, rounded.

    >>> displayed(30.0, 2.0)
    1480
    """
    return round(BASE + SCALE * (mu - 3 * sigma))


# --- games --------------------------------------------------------------------------------


def _default_lines(name: str, players: int) -> int:
    # As variant() chooses them when only the players are given.
    if players in (3, 5):
        return players
    if players == 6:
        return 3 if name == "italian" else 2
    return 2


def game_key(v: Variant) -> str:
    """The game of a rating: the variant's name and its players, and its lines when they
    are not the usual ones (buraco's 4 alone, italian's 6 in two trios)."""
    return _key(v.name, v.players, v.lines)


def _key(name: str, players: int, lines: int) -> str:
    if lines == _default_lines(name, players):
        return f"{name}-{players}"
    return f"{name}-{players}x{lines}"


#: Every game that has a rating, in the order of the presets and their tables.
GAMES: Final = tuple(_key(name, players, lines) for name, players, lines in SETUPS)

_KEY: Final = re.compile(r"^([a-z][a-z-]*?)-(\d)(?:x(\d))?$")


def game_variant(key: str) -> Variant | None:
    """The table (with the preset's rules) of a game key, or None if no such game.

    >>> game_variant("italian-6x2").lines, game_variant("poker-2")
    (2, None)
    """
    found = _KEY.match(key)
    if found is None or key not in GAMES:
        return None
    name, players, lines = found.group(1), int(found.group(2)), found.group(3)
    if lines is None:
        return variant(name, players=players)
    return variant(name, players=players, lines=int(lines))


# --- ranks --------------------------------------------------------------------------------


def line_ranks(
    totals: Sequence[int],
    winner: int | None = None,
    loser: int | None = None,
    *,
    losers: Collection[int] = (),
) -> tuple[int, ...]:
    """Each line's rank, 0 the best, level lines level: the ``winner`` first (it may be
    level on points, in knock-out play), the ``loser`` (the line that abandoned) and the
    ``losers`` (lines counted as abandoning: a bot played for them) last and level, the
    others by their totals.

    >>> line_ranks([1200, 900, 1200])
    (0, 1, 0)
    >>> line_ranks([2100, 2100], winner=1)
    (1, 0)
    >>> line_ranks([1500, 300], winner=1, loser=0)
    (1, 0)
    >>> line_ranks([1500, 300, 900], loser=2, losers=[0])
    (1, 0, 1)
    """
    left = {*losers} | ({loser} if loser is not None else set())
    keys = [
        (True, True, 0) if i in left else (False, i != winner, -total)
        for i, total in enumerate(totals)
    ]
    order = sorted(set(keys))
    return tuple(order.index(k) for k in keys)


def match_ranks(match: Match, absent: Collection[int] = ()) -> tuple[int, ...]:
    """The ranks of a finished match's lines (players in the 3- and 5-player games); the
    lines of the ``absent`` seats (absence.py) rank last, as the line that abandoned."""
    return line_ranks(match.totals, match.winner(), losers=leaving_lines(match, absent))


def leaving_lines(match: Match, absent: Collection[int] = ()) -> frozenset[int]:
    """The lines that lose as leavers: the line that abandoned (or ran out of time), and
    the line of every ``absent`` seat (a seat a bot played for most of the match)."""
    seats = {*absent} | ({match.abandoned_by} if match.abandoned is not None else set())
    return frozenset(match.v.line_of[seat] for seat in seats)


# --- rating -------------------------------------------------------------------------------


def rate(
    teams: Sequence[Sequence[K]], ranks: Sequence[int], skills: Mapping[K, Skill]
) -> dict[K, Skill]:
    """The new skill of everyone in ``teams`` (one team per side, ranked by ``ranks``,
    0 the best, equal for a draw); a player missing from ``skills`` is a newcomer.

    Someone in several seats (two seats of one bot level) is rated in each as if they
    were several players of the same skill, and moves once: by the mean of their sides'
    moves of ``mu``, to the mean of their sides' new ``sigma`` (a level on both sides
    of a match wins and loses, which about cancel out).

    >>> new = rate([["greedy", "greedy"], ["expert", "expert"]], [1, 0], {})
    >>> round(new["expert"].mu - new["greedy"].mu, 3) > 0
    True
    """
    if len(teams) != len(ranks):
        raise ValueError(f"{len(teams)} teams but {len(ranks)} ranks")
    if len(teams) < 2 or any(not team for team in teams):
        raise ValueError("a rated match has at least two sides, each with a player")
    before = {k: skills.get(k, Skill()) for team in teams for k in team}
    teams_in = [
        [MODEL.rating(mu=before[k].mu, sigma=before[k].sigma) for k in team] for team in teams
    ]
    teams_out = MODEL.rate(teams_in, ranks=[float(r) for r in ranks])
    # Each side's move of each player (partners of one skill move alike), then their mean.
    moves: dict[K, dict[int, tuple[float, float]]] = {}
    for side, (team, out) in enumerate(zip(teams, teams_out, strict=True)):
        for k, rating in zip(team, out, strict=True):
            moves.setdefault(k, {})[side] = (rating.mu - before[k].mu, rating.sigma)
    return {
        k: Skill(
            before[k].mu + statistics.fmean(m for m, _ in seen.values()),
            statistics.fmean(s for _, s in seen.values()),
        )
        for k, seen in moves.items()
    }
