"""The bots' rating matches: the bot levels play whole matches against each other at one
game's table, and OpenSkill rates them as it rates players (ratings.py), so that each
level has a rating on the players' scale before anyone plays it.

Each line of a match is one level (a pair of the same level plays as a team); the
levels take the lines in every order in turn, so each meets each from every seat.

>>> from burraco import variant
>>> schedule(["random", "greedy"], lines=2, matches=3)
[('random', 'greedy'), ('greedy', 'random'), ('random', 'greedy')]
>>> games = play_matches(variant("italian", deals=1), ["random", "greedy"], matches=2, workers=1)
>>> [g.levels for g in games]
[('random', 'greedy'), ('greedy', 'random')]
>>> sorted(rate_matches(games))
['greedy', 'random']
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from burraco.bots.arena import make_bot
from burraco.match import Match
from burraco.server.results.ratings import Skill, game_key, match_ranks, rate
from burraco.variants import Variant

__all__ = ["LevelRating", "Played", "play_matches", "rate_matches", "schedule", "write_defaults"]


@dataclass(frozen=True, slots=True)
class Played:
    """One rating match: the level of each line, their totals and ranks (0 the best)."""

    seed: int
    levels: tuple[str, ...]
    totals: tuple[int, ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LevelRating:
    """A level's rating after its matches."""

    level: str
    skill: Skill
    matches: int
    wins: int


def schedule(levels: Sequence[str], lines: int, matches: int) -> list[tuple[str, ...]]:
    """The level of each line, match by match: every ordered choice of different levels
    in turn (every rotation of all the levels when there are more lines than levels)."""
    if len(levels) < 2:
        raise ValueError("rating matches need at least two bot levels")
    if lines <= len(levels):
        # Each meeting of levels in all its seatings, then the next meeting.
        orders = [
            order
            for meeting in itertools.combinations(levels, lines)
            for order in itertools.permutations(meeting)
        ]
    else:
        n = len(levels)
        orders = [tuple(levels[(line + r) % n] for line in range(lines)) for r in range(n)]
    return [orders[i % len(orders)] for i in range(matches)]


def play_match(v: Variant, levels: Sequence[str], seed: int, expert_seconds: float) -> Played:
    """Play one whole match, each line's seats played by its line's level."""
    bots = [
        make_bot(levels[v.line_of[seat]], seed * 131 + seat, expert_seconds)
        for seat in range(v.players)
    ]
    match = Match(v, seed=seed)
    while not match.is_over:
        seat = match.deal.turn
        match.apply(bots[seat].choose(match.view(seat), match.legal_actions()))
    return Played(seed, tuple(levels), tuple(match.totals), match_ranks(match))


def play_matches(
    v: Variant,
    levels: Sequence[str],
    *,
    matches: int,
    seed: int = 0,
    expert_seconds: float = 0.05,
    workers: int = 2,
    progress: Callable[[int, int], None] | None = None,
) -> list[Played]:
    """Play the rating matches of :func:`schedule`, in ``workers`` processes; in the
    order of the schedule whatever the order they end in."""
    for level in levels:
        make_bot(level)
    plan = schedule(levels, v.lines, matches)
    seeds = [seed * 1_000_003 + i for i in range(matches)]
    if workers <= 1:
        played = []
        for i, (order, s) in enumerate(zip(plan, seeds, strict=True)):
            played.append(play_match(v, order, s, expert_seconds))
            if progress:
                progress(i + 1, matches)
        return played
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(play_match, v, order, s, expert_seconds)
            for order, s in zip(plan, seeds, strict=True)
        ]
        results = []
        for i, future in enumerate(futures):
            results.append(future.result())
            if progress:
                progress(i + 1, matches)
        return results


def rate_matches(
    played: Sequence[Played], start: Mapping[str, Skill] | None = None
) -> dict[str, LevelRating]:
    """Rate the levels match after match, from ``start`` (newcomers by default)."""
    skills: dict[str, Skill] = dict(start or {})
    counts: dict[str, int] = {}
    wins: dict[str, int] = {}
    for game in played:
        lines = len(game.levels)
        teams = [[game.levels[line]] for line in range(lines)]
        skills.update(rate(teams, game.ranks, skills))
        for level in set(game.levels):
            counts[level] = counts.get(level, 0) + 1
        if game.ranks.count(0) == 1:
            winner = game.levels[game.ranks.index(0)]
            wins[winner] = wins.get(winner, 0) + 1
    return {
        level: LevelRating(level, skills[level], counts[level], wins.get(level, 0))
        for level in sorted(counts, key=lambda k: -skills[k].ordinal)
    }


def write_defaults(
    path: Path,
    v: Variant,
    ratings: Mapping[str, LevelRating],
    *,
    matches: int,
    seed: int,
    expert_seconds: float,
) -> None:
    """Put one game's ratings into the shipped file (results.DEFAULTS), keeping the
    other games'."""
    data: dict[str, Any] = {"games": {}, "runs": {}}
    if path.is_file():
        data = json.loads(path.read_text())
    data["about"] = (
        "The bot levels' ratings shipped for a fresh database: burraco ratings "
        "--write-defaults (mu and sigma of OpenSkill's Plackett-Luce model)."
    )
    key = game_key(v)
    data.setdefault("games", {})[key] = {
        r.level: {
            "mu": round(r.skill.mu, 4),
            "sigma": round(r.skill.sigma, 4),
            "matches": r.matches,
        }
        for r in ratings.values()
    }
    data.setdefault("runs", {})[key] = {
        "matches": matches,
        "seed": seed,
        "expert_seconds": expert_seconds,
    }
    ordered = {
        "about": data["about"],
        "games": dict(sorted(data["games"].items())),
        "runs": dict(sorted(data["runs"].items())),
    }
    path.write_text(json.dumps(ordered, indent=2) + "\n")
