"""Determinized search (Perfect Information Monte Carlo), over any game.

The searching player cannot see every card. It samples whole states consistent
with what it knows (worlds), plays each candidate action in each world and
scores the outcome (by a rollout, a heuristic, or both); the candidate with the
best mean wins. All candidates meet the same worlds, so the luck of a sample
cancels between them. The game is given as two functions, so the same search
plays Burraco here and gin rummy through OpenSpiel (``bench/gin_check.py``).

>>> import random
>>> # A toy: guess a hidden coin; the action that matches the world scores 1.
>>> choice, values = pimc(
...     ["heads", "tails"],
...     sample=lambda rng: "heads" if rng.random() < 0.8 else "tails",
...     value=lambda world, action: float(world == action),
...     rng=random.Random(1),
...     budget=Budget(worlds=200),
... )
>>> choice, round(values["heads"], 1)
('heads', 0.8)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Budget", "pimc"]

A = TypeVar("A", bound=Hashable)
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one decision may search: a time, a number of worlds, or both (first reached)."""

    seconds: float | None = None
    worlds: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.worlds is None:
            raise ValueError("a budget needs seconds or worlds")


def pimc(
    candidates: Sequence[A],
    sample: Callable[[random.Random], W],
    value: Callable[[W, A], float],
    rng: random.Random,
    budget: Budget,
    *,
    race: float | None = None,
    race_after: int = 10,
    prior: float | None = None,
) -> tuple[A, dict[A, float]]:
    """The candidate with the best mean value over sampled worlds, and every mean.

    At least one world is always sampled; ties go to the earlier candidate. With a time
    budget, the search stops when one more world, at the pace so far, would overrun it.

    With ``race`` (a number of standard errors), the candidates race: from ``race_after``
    worlds on, a candidate is no longer played once the leader (the best mean still in
    the race) beats it by more than ``race`` standard errors of their difference, world
    by world; the rest of the budget goes to the candidates still in the race, and the
    choice is made among them. A candidate's mean is over the worlds it was played in.

    With ``prior`` (a number of standard errors), the first candidate (a policy's own
    choice) is the choice unless the best beats it by more than ``prior`` standard errors
    of their difference, world by world (or the race dropped it): a few noisy worlds
    overrule the policy only when they are clear.
    """
    if not candidates:
        raise ValueError("no candidate to choose from")
    n = len(candidates)
    totals = [0.0] * n
    played = [0] * n
    active = list(range(n))
    # Per pair of candidates, the sums of their differences and of their squares, over the
    # worlds both were played in (every world while both are in the race).
    paired = race is not None or prior is not None
    pair_sum = [[0.0] * n for _ in range(n)] if paired else []
    pair_sq = [[0.0] * n for _ in range(n)] if paired else []
    worlds = 0
    evaluations = 0
    start = time.perf_counter()
    deadline = None if budget.seconds is None else start + budget.seconds
    while True:
        if budget.worlds is not None and worlds >= budget.worlds:
            break
        if deadline is not None and worlds:
            # Stop when one more world, at the mean pace so far, would overrun the time.
            now = time.perf_counter()
            if now + (now - start) / evaluations * len(active) > deadline:
                break
        world = sample(rng)
        values = {}
        for k in active:
            x = value(world, candidates[k])
            values[k] = x
            totals[k] += x
            played[k] += 1
        evaluations += len(active)
        worlds += 1
        if paired and len(active) > 1:
            for i in active:
                row_sum, row_sq, x = pair_sum[i], pair_sq[i], values[i]
                for j in active:
                    if j > i:
                        d = x - values[j]
                        row_sum[j] += d
                        row_sq[j] += d * d
            if race is not None and worlds >= race_after:
                active = _race(active, totals, worlds, pair_sum, pair_sq, race)
    means = {a: totals[k] / played[k] for k, a in enumerate(candidates) if played[k]}
    best = max(active, key=lambda k: (totals[k], -k))
    # (A first candidate the race dropped was beaten clearly: the best stands.)
    unclear = best != 0 and 0 in active and prior is not None
    if unclear and not _clear_lead(-pair_sum[0][best], pair_sq[0][best], worlds, prior or 0.0):
        best = 0
    return candidates[best], means


def _clear_lead(lead: float, squares: float, worlds: int, z: float) -> bool:
    """Whether one candidate leads another by more than ``z`` standard errors of their
    difference: ``lead`` sums the first's value minus the second's, ``squares`` the squares
    of those differences, over ``worlds`` worlds."""
    if worlds < 2:
        return False
    mean = lead / worlds
    variance = max(0.0, squares / worlds - mean * mean) * worlds / (worlds - 1)
    return mean > 0 and mean * mean * worlds > z * z * variance


def _race(
    active: list[int],
    totals: list[float],
    worlds: int,
    pair_sum: list[list[float]],
    pair_sq: list[list[float]],
    race: float,
) -> list[int]:
    """The candidates still in the race after this world (see :func:`pimc`)."""
    leader = max(active, key=lambda k: (totals[k], -k))
    kept = []
    for k in active:
        if k == leader:
            kept.append(k)
            continue
        # The leader's lead over k, world by world.
        if leader < k:
            total, squares = pair_sum[leader][k], pair_sq[leader][k]
        else:
            total, squares = -pair_sum[k][leader], pair_sq[k][leader]
        if not _clear_lead(total, squares, worlds, race):
            kept.append(k)
    return kept
