"""Burraco as a Gymnasium environment: one seat learns, the package's bots play the others.

The agent plays its seat by the action ids of :mod:`burraco.encoding`; between its
decisions the other seats are played by bots of a level (``random``, ``greedy`` or
``expert``, those of :func:`burraco.bots.arena.make_bot`). It observes a dict:
``"observation"``, its seat's :func:`~burraco.encoding.observe` vector, and
``"action_mask"``, the ids it may play now; ``info["action_mask"]`` holds the mask too.

>>> import gymnasium, burraco.research
>>> game = gymnasium.make("burraco/Burraco-v0", variant="italian", players=2, opponent="greedy")
>>> observation, info = game.reset(seed=7)
>>> observation, reward, terminated, truncated, info = game.step(int(info["action_mask"].argmax()))
>>> float(reward), terminated
(0.0, False)

The reward is zero until a deal ends, then the agent's
:func:`~burraco.encoding.returns` of it (points) times ``reward_scale``; an episode is
one deal, or a whole match with ``match=True`` (a reward at each deal's end). An id the
mask does not allow changes nothing: it is answered with ``illegal_reward`` points
(:data:`ILLEGAL_POINTS` by default), times ``reward_scale`` as the returns are, and
``info["illegal"]`` naming the rule, or, with ``illegal_reward=None``, raises
:class:`~burraco.errors.IllegalMove`.

An episode is truncated (``truncated=True``, no reward) at the agent's
``max_episode_steps``-th step of a deal (:data:`MAX_EPISODE_STEPS` by default, legal
ids and refused ones alike; ``None``: no limit). In match mode every deal of the match
has that many steps, since a match has no fixed number of deals. A masked random agent
takes at most about 260 steps a deal, so play that heeds the mask is never cut short,
and an agent that keeps playing refused ids pays ``100 * 1000`` points before the cut:
far more than any deal can cost it (:func:`burraco.research.spiel.utility_bound`).

``reset(seed=s)`` plays the deals of ``Match(v, seed=s)`` with bots seeded from ``s``;
the expert bot is reproducible only with ``expert_worlds`` (its default budget is time).
"""

from __future__ import annotations

import math
from typing import Any, Final

import gymnasium

from burraco.bots import Bot
from burraco.bots.arena import BOT_NAMES, make_bot
from burraco.errors import IllegalMove
from burraco.refusals import Refusal
from burraco.research import ENV_ID
from burraco.research._table import (
    RENDER_MODES,
    Observation,
    Table,
    checked_render_mode,
    observation_space,
)
from burraco.variants import Variant
from burraco.variants import variant as make_variant

__all__ = ["ENV_ID", "ILLEGAL_POINTS", "MAX_EPISODE_STEPS", "BurracoEnv"]

#: The points an id the mask does not allow costs by default: a closing bonus, the size of
#: a deal's usual result (returns run to a few hundred points), so the mask is worth heeding.
ILLEGAL_POINTS: Final = -100.0
#: The agent's steps in a deal after which the episode is truncated, by default.
MAX_EPISODE_STEPS: Final = 1000


class BurracoEnv(gymnasium.Env[dict[str, Any], Any]):
    """One seat of a deal (or a match) against bots.

    ``variant``, ``players``, ``lines`` and any other keyword (``target=``, ``deals=``,
    ...) go to :func:`burraco.variants.variant`. ``opponent`` is the level of the other
    lines' bots and ``partner`` that of the agent's partners (default: the opponent's);
    ``seat`` is the agent's seat. ``match``, ``reward_scale`` (above 0),
    ``illegal_reward`` (points, or None) and ``max_episode_steps`` (1 or more, or None) as
    in the module's text; ``expert_seconds`` and ``expert_worlds`` are the expert bot's
    budget per decision.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        variant: str = "italian",
        players: int = 2,
        lines: int | None = None,
        *,
        opponent: str = "greedy",
        partner: str | None = None,
        seat: int = 0,
        match: bool = False,
        reward_scale: float = 1.0,
        illegal_reward: float | None = ILLEGAL_POINTS,
        max_episode_steps: int | None = MAX_EPISODE_STEPS,
        expert_seconds: float = 1.0,
        expert_worlds: int | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        partner = opponent if partner is None else partner
        for role, level in (("opponent", opponent), ("partner", partner)):
            if level not in BOT_NAMES:
                raise ValueError(f"no bot level {level!r} for the {role} ({', '.join(BOT_NAMES)})")
        if isinstance(reward_scale, bool) or not (
            isinstance(reward_scale, int | float)
            and math.isfinite(reward_scale)
            and reward_scale > 0
        ):
            raise ValueError(f"reward_scale is a number above 0, not {reward_scale!r}")
        if illegal_reward is not None and not math.isfinite(illegal_reward):
            raise ValueError(
                f"illegal_reward is a number of points or None, not {illegal_reward!r}"
            )
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, int)
            or max_episode_steps < 1
        ):
            raise ValueError(
                f"max_episode_steps is 1 or more, or None (no limit), not {max_episode_steps!r}"
            )
        if lines is not None:
            options["lines"] = lines
        self.v: Variant = make_variant(variant, players=players, **options)
        if not 0 <= seat < self.v.players:
            raise ValueError(f"no seat {seat}: the seats run from 0 to {self.v.players - 1}")
        self.seat = seat
        self.render_mode = checked_render_mode(render_mode)
        #: The reward of a refused id, scaled as the returns are (None: it raises).
        self.illegal_reward = None if illegal_reward is None else illegal_reward * reward_scale
        self.max_episode_steps = max_episode_steps
        #: The agent's steps in the deal in play, and whether the episode was cut short.
        self._steps = 0
        self._truncated = False
        line_of = self.v.line_of
        #: The bot level of each seat (None: the agent's).
        self.levels: tuple[str | None, ...] = tuple(
            None if s == seat else partner if line_of[s] == line_of[seat] else opponent
            for s in range(self.v.players)
        )
        self._expert = (expert_seconds, expert_worlds)
        self._table = Table(self.v, match_mode=match, reward_scale=reward_scale)
        self._bots: dict[int, Bot] = {}
        self._pending = 0.0
        self.observation_space = observation_space(self.v)
        self.action_space = gymnasium.spaces.Discrete(self._table.space.size)

    @property
    def table(self) -> Table:
        """The match, its deal in play and the picked cards (for tests and tools)."""
        return self._table

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new deal (or match), played by the bots up to the agent's first decision.

        ``options`` are accepted for the API and not used.
        """
        super().reset(seed=seed)
        rng = self.np_random
        match_seed = seed if seed is not None else int(rng.integers(2**63))
        while True:
            seconds, worlds = self._expert
            self._bots = {
                s: make_bot(level, int(rng.integers(2**63)), seconds, worlds)
                for s, level in enumerate(self.levels)
                if level is not None
            }
            self._table.start(match_seed)
            self._steps, self._truncated = 0, False
            self._pending = self._bots_play()
            if not self._table.over:
                break
            # The bots ended the episode before the agent's first decision (a deal gone
            # out in its first turns): deal again, from the seeded generator.
            match_seed = int(rng.integers(2**63))
        observation = self._table.observe(self.seat)
        return observation, {"action_mask": observation["action_mask"].copy()}

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        table = self._table
        if table.over or self._truncated:
            refusal = Refusal("match_over" if table.match_mode else "deal_over")
            raise IllegalMove(refusal, "step: call reset() for a new episode")
        deal = table.deal
        try:
            rewards = table.play_id(action)
        except IllegalMove as refused:
            if self.illegal_reward is None:
                raise
            observation = table.observe(self.seat)
            info = {"action_mask": observation["action_mask"].copy(), "illegal": str(refused)}
            truncated = self._count_step(deal)
            return observation, float(self.illegal_reward), False, truncated, info
        reward = self._pending + (rewards[self.seat] if rewards is not None else 0.0)
        self._pending = 0.0
        reward += self._bots_play()
        observation = table.observe(self.seat)
        info = {"action_mask": observation["action_mask"].copy()}
        terminated = table.over
        truncated = not terminated and self._count_step(deal)
        return observation, float(reward), terminated, truncated, info

    def _count_step(self, deal: object) -> bool:
        """Count a step of the agent in ``deal``: whether the episode is now truncated."""
        self._steps = self._steps + 1 if self._table.deal is deal else 0
        limit = self.max_episode_steps
        self._truncated = limit is not None and self._steps >= limit
        return self._truncated

    def _bots_play(self) -> float:
        """The bots play until the agent is on turn or the episode ends: its rewards."""
        table, seat, total = self._table, self.seat, 0.0
        while not table.over and table.turn != seat:
            deal = table.deal
            turn = deal.turn
            action = self._bots[turn].choose(deal.view(turn), deal.legal_actions())
            rewards = table.play_action(action)
            if rewards is not None:
                total += rewards[seat]
        return total

    def render(self) -> str | None:
        names = [level or "you" for level in self.levels]
        names = [f"{name} {s}" if name != "you" else name for s, name in enumerate(names)]
        return self._table.show(self.render_mode, self.seat, names, "you")
