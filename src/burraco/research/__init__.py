"""The research environment: Burraco for learning agents (the ``research`` extra).

- :mod:`burraco.research.aec`: a PettingZoo AEC environment, every seat an agent
  (``burraco.research.aec.env(variant="italian", players=4)``).
- :mod:`burraco.research.gym`: a Gymnasium environment, one seat against the bots,
  registered as ``burraco/Burraco-v0``.
- :mod:`burraco.research.spiel` (OpenSpiel), :mod:`burraco.research.simulate`
  (self-play trajectories) and :mod:`burraco.research.iterate` (the learned level's
  trainer: imitation of a teacher, then Deep Monte-Carlo).

Both play by the action ids and observations of :mod:`burraco.encoding`. Importing
this package registers the Gymnasium id (when Gymnasium is installed) and nothing
else; the submodules load when first used::

    import gymnasium, burraco.research
    game = gymnasium.make("burraco/Burraco-v0", variant="italian", players=2, opponent="greedy")
    observation, info = game.reset(seed=7)
    mask = observation["action_mask"]
    observation, reward, terminated, truncated, info = game.step(int(mask.argmax()))

``gymnasium.make("burraco.research:burraco/Burraco-v0", ...)`` imports this package
itself. (Gymnasium 1.x no longer loads environments from package entry points.)
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

__all__ = ["ENV_ID"]

#: The Gymnasium id of :class:`burraco.research.gym.BurracoEnv`.
ENV_ID: Final = "burraco/Burraco-v0"


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # the research extra is not installed: nothing to register
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="burraco.research.gym:BurracoEnv")


def __getattr__(name: str) -> ModuleType:
    # ``burraco.research.aec`` after ``import burraco.research`` alone.
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as missing:
            if missing.name != f"{__name__}.{name}":
                raise  # the submodule is there, a library it needs is not
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_register()
