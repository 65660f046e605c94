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
) -> tuple[A, dict[A, float]]:
    """The candidate with the best mean value over sampled worlds, and every mean.

    At least one world is always sampled; ties go to the earlier candidate.
    """
    if not candidates:
        raise ValueError("no candidate to choose from")
    totals = [0.0] * len(candidates)
    worlds = 0
    start = time.perf_counter()
    deadline = None if budget.seconds is None else start + budget.seconds
    while True:
        if budget.worlds is not None and worlds >= budget.worlds:
            break
        if deadline is not None and worlds:
            # Stop when one more world, at the mean pace so far, would overrun the time.
            now = time.perf_counter()
            if now + (now - start) / worlds > deadline:
                break
        world = sample(rng)
        for k, action in enumerate(candidates):
            totals[k] += value(world, action)
        worlds += 1
    means = {a: t / worlds for a, t in zip(candidates, totals, strict=True)}
    best = max(range(len(candidates)), key=lambda k: (totals[k], -k))
    return candidates[best], means
