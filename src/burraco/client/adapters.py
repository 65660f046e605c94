"""Engine-level players through the client: the house bots, and an agent of action ids.

Both need the engine's own view of the seat, which the client asks of the room as a
position (the socket's ``position`` message: exactly what the seat may see) and reads
with :meth:`~burraco.view.DealView.from_position`. A chooser that wants it says so with
its ``position`` attribute; it then finds the text in ``view["position"]``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from burraco.actions import Action
from burraco.bots.arena import make_bot
from burraco.deal import Deal
from burraco.encoding import Decisions, action_space, observe
from burraco.view import DealView

__all__ = ["Agent", "EngineChooser", "house", "research_agent"]

#: An agent of :mod:`burraco.research`: an observation (``{"observation": vector,
#: "action_mask": mask}``, as PettingZoo's ``last()`` and Gymnasium give it) to an id.
Agent = Callable[[Mapping[str, npt.NDArray[Any]]], int]


class EngineChooser:
    """A chooser over the engine's view: ``pick(view, legal, totals) -> Action``."""

    #: The client asks the room for the seat's position before each decision.
    position = True

    def __init__(
        self, pick: Callable[[DealView, Sequence[Action], Sequence[int]], Action], name: str
    ) -> None:
        self.pick = pick
        self.name = name

    def __call__(self, view: dict[str, Any], legal: list[str]) -> str:
        seen = DealView.from_position(str(view["position"]))
        actions = [Action.parse(text) for text in legal]
        totals = [int(t) for t in view.get("totals", ())]
        return str(self.pick(seen, actions, totals))

    def __repr__(self) -> str:
        return f"<{self.name}>"


def house(level: str, seed: int = 0, seconds: float = 1.0) -> EngineChooser:
    """A house bot (``random``, ``greedy``, ``expert`` with ``seconds`` to think,
    ``learned``) as a chooser: it runs in the client's process, the room's own code.

    >>> choose = house("greedy")
    >>> deal = Deal.new(__import__("burraco").variant("italian"), seed=3)
    >>> view = {"position": deal.position(seat=deal.turn)}
    >>> choose(view, [str(a) for a in deal.legal_actions()]) in ("draw", "take")
    True
    """
    bot = make_bot(level, seed, seconds)

    def pick(view: DealView, legal: Sequence[Action], _: Sequence[int]) -> Action:
        return bot.choose(view, legal)

    return EngineChooser(pick, f"house bot {level}")


def research_agent(agent: Agent, seed: int = 0) -> EngineChooser:
    """An agent trained on :mod:`burraco.research`, unchanged, as a chooser: it is shown
    the observation and the mask of allowed ids of its seat (``burraco.encoding``), as in
    training, and answers ids; a meld is picked card by card, then committed. The cards
    the seat cannot see are dealt at random (:meth:`Deal.resample`), which the observation
    never reads.

    >>> import numpy as np
    >>> first = research_agent(lambda seen: int(np.flatnonzero(seen["action_mask"])[0]))
    >>> deal = Deal.new(__import__("burraco").variant("italian"), seed=3)
    >>> first({"position": deal.position(seat=deal.turn), "totals": [0, 0]}, ["draw", "take"])
    'draw'
    """
    rng = random.Random(seed)

    def pick(view: DealView, legal: Sequence[Action], totals: Sequence[int]) -> Action:
        deal = Deal.resample(view, rng)
        decisions = Decisions(deal, action_space(deal.v))
        scores = list(totals) if len(totals) == deal.v.lines else None
        # Every pick narrows the melds still possible: a pick can always be completed.
        for _ in range(deal.v.deck_size + 2):
            seen: dict[str, npt.NDArray[Any]] = {
                "observation": observe(deal, view.seat, picked=decisions.picked, scores=scores),
                "action_mask": decisions.mask(),
            }
            action = decisions.apply(int(agent(seen)))
            if action is not None:
                return action
        raise RuntimeError("the agent picked cards without ever committing a meld")

    return EngineChooser(pick, "research agent")


def masked_argmax(scores: npt.NDArray[Any], mask: npt.NDArray[Any]) -> int:
    """The allowed id of highest score (a policy's usual last step)."""
    return int(np.flatnonzero(mask)[np.argmax(np.asarray(scores)[mask.astype(bool)])])
