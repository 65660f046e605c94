"""Burraco as a PettingZoo AEC environment: every seat an agent, one action id at a time.

The agents are the seats, ``seat_0`` to ``seat_{n-1}``; the one on turn is
``agent_selection``. An agent observes, as PettingZoo's classic games do, a dict:
``"observation"``, its seat's :func:`~burraco.encoding.observe` vector (float32,
:func:`~burraco.encoding.observation_layout` names the parts), and ``"action_mask"``,
the ids it may play now (int8, all zero when it is not on turn). The action space is
``Discrete(action_space(v).size)``: the ids of :mod:`burraco.encoding`, where a new
meld is laid by picking its cards one id at a time and then committing them.

>>> from burraco.research.aec import env
>>> game = env(variant="italian", players=2)
>>> game.reset(seed=7)
>>> observation, reward, terminated, truncated, info = game.last()
>>> game.step(int(observation["action_mask"].nonzero()[0][0]))  # the first allowed id

Rewards come when a deal ends: each seat gets :func:`~burraco.encoding.returns` of the
deal (its line's points less the mean of the other lines'; they sum to zero) times
``reward_scale``. With ``match=False`` an episode is one deal; with ``match=True`` it
is a whole :class:`~burraco.match.Match`, with a reward at the end of each deal and the
match's score before the deal in the observation's ``"scores"`` part.

An id the mask does not allow (or no id at all) raises
:class:`~burraco.errors.IllegalMove`, whose message names the rule, and changes
nothing; no wrapper turns it into a penalty. ``reset(seed=s)`` plays the deals of
``Match(v, seed=s)``; later resets without a seed follow from it.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from burraco.errors import IllegalMove
from burraco.refusals import Refusal
from burraco.research._table import (
    RENDER_MODES,
    Observation,
    Table,
    checked_render_mode,
    observation_space,
)
from burraco.variants import Variant
from burraco.variants import variant as make_variant

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> raw_env:
    """The environment (the options of :class:`raw_env`).

    It makes PettingZoo's order checks itself (a step or an observation before
    ``reset()`` fails as ``OrderEnforcingWrapper`` makes it fail) rather than through
    that wrapper, whose forwarding of every attribute cost a fifth of a step. No
    out-of-bounds or illegal-move wrapper: an id that may not be played raises the
    engine's :class:`~burraco.errors.IllegalMove` with the rule's name instead.
    """
    return raw_env(**kwargs)


class raw_env(AECEnv):  # type: ignore[misc]  # pettingzoo has no type hints
    """A deal (or a match) of a variant, its seats the agents.

    ``variant``, ``players``, ``lines`` and any other keyword (``target=``,
    ``deals=``, ...) go to :func:`burraco.variants.variant`. ``match`` plays a whole
    match per episode; ``reward_scale`` multiplies the rewards; ``render_mode`` is
    ``"ansi"`` (:meth:`render` returns the text) or ``"human"`` (prints it).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "burraco_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "italian",
        players: int = 2,
        lines: int | None = None,
        *,
        match: bool = False,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if lines is not None:
            options["lines"] = lines
        self.v: Variant = make_variant(variant, players=players, **options)
        self.render_mode = checked_render_mode(render_mode)
        self._table = Table(self.v, match_mode=match, reward_scale=reward_scale)
        self.possible_agents = [f"seat_{seat}" for seat in range(self.v.players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # One space object per agent, so that each can be seeded apart.
        self.observation_spaces = {a: observation_space(self.v) for a in self.possible_agents}
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(self._table.space.size) for a in self.possible_agents
        }
        self._rng = random.Random()
        self._rewarded = False
        self._started = False
        self.agents: list[str] = []

    # --- the game seen from outside -------------------------------------------------------

    @property
    def table(self) -> Table:
        """The match, its deal in play and the picked cards (for tests and tools)."""
        return self._table

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Observation:
        if not self._started:
            EnvLogger.error_observe_before_reset()
        return self._table.observe(self._seat[agent])

    def render(self) -> str | None:
        table = self._table
        return table.show(self.render_mode, table.turn, self.possible_agents, None)

    def close(self) -> None:
        pass

    # --- play -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new deal (or match): that of ``Match(v, seed=seed)`` when a seed is given.

        ``options`` are accepted for the API and not used.
        """
        if seed is not None:
            self._rng = random.Random(seed)
        else:
            seed = self._rng.getrandbits(63)
        self._table.start(seed)
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._table.turn]

    def step(self, action: int | None) -> None:
        """Play an id of the agent on turn (None for an agent whose episode is over).

        An id the mask does not allow raises :class:`~burraco.errors.IllegalMove` and
        changes nothing.
        """
        if not self._started:
            EnvLogger.error_step_before_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        if action is None:
            last = table.space.size - 1
            raise IllegalMove(Refusal("no_action_id", {"id": "None", "last": last}))
        rewards = table.play_id(action)
        self._cumulative_rewards[agent] = 0.0
        if rewards is not None:
            self.rewards = {a: rewards[self._seat[a]] for a in self.agents}
            self._accumulate_rewards()
            self._rewarded = True
        elif self._rewarded:  # the last step's rewards are over
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        if table.over:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[table.turn]
