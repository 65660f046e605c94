"""The table under the research environments: a match played by action ids.

:class:`Table` keeps a :class:`~burraco.match.Match`, its deal in play and the
:class:`~burraco.encoding.Decisions` that play that deal one id at a time, and says
what each seat observes and may do. The PettingZoo and Gymnasium environments are
thin layers over it.

>>> from burraco import variant
>>> table = Table(variant("italian"), match_mode=False, reward_scale=1.0)
>>> table.start(seed=3)
>>> table.play_id(0), table.deal.phase     # draw: no deal ended, so no rewards
(None, 'play')
"""

from __future__ import annotations

import io
import operator
from collections.abc import Sequence
from functools import cache
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from burraco.actions import Action
from burraco.cards import cards_from_counts, format_cards
from burraco.deal import Deal
from burraco.encoding import (
    EXTEND_BASE,
    PICK_BASE,
    ActionSpace,
    Decisions,
    ObservationLayout,
    action_space,
    observation_layout,
    observe,
    returns,
)
from burraco.match import Match
from burraco.variants import Variant

__all__ = ["RENDER_MODES", "Table", "checked_render_mode", "observation_space"]

Observation = dict[str, npt.NDArray[Any]]

#: The render modes of both environments: "ansi" returns the text, "human" prints it.
RENDER_MODES = ("ansi", "human")


def checked_render_mode(mode: str | None) -> str | None:
    """``mode``, if an environment can render that way (or None: no rendering)."""
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"no render mode {mode!r} ({', '.join(RENDER_MODES)})")
    return mode


@cache
def _bounds(v: Variant) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The least and greatest value of each entry of an observation in a match of ``v``."""
    layout = observation_layout(v)
    low = np.zeros(layout.size, dtype=np.float32)
    high = np.ones(layout.size, dtype=np.float32)  # the flags and one-hot parts
    copies = max(v.decks, v.jokers)  # of one card kind
    cards = v.deck_size
    most = {
        "hand": copies,
        "picked": copies,
        "pile": copies,
        "known": copies,
        "melds": copies,
        "hand_sizes": cards,
        "stock_size": cards,
        "pile_size": cards,
        "pozzetti_left": v.players,
        # What a line needs to open: the variant's minimum, or a vulnerable line's.
        "minimum": max(v.opening_minimum, v.vulnerable_minimum, v.vulnerable_penalty_minimum),
        "red_threes": 2 * v.decks,
    }
    for name, value in most.items():
        high[layout.slice(name)] = value
    # Per meld: four flags, its size and wildcards, three positions (1-14), a set's rank.
    features = np.array([1, 1, 1, 1, cards, cards, 14, 14, 14, 13], dtype=np.float32)
    info = layout.slice("meld_info")
    high[info] = np.tile(features, (info.stop - info.start) // len(features))
    # The match's scores have no bound: a line may even stand below zero.
    low[layout.slice("scores")] = -np.inf
    high[layout.slice("scores")] = np.inf
    return low, high


def observation_space(v: Variant) -> gymnasium.spaces.Dict:
    """A seat's observation space: the encoded observation and the mask of allowed ids.

    >>> from burraco import variant
    >>> space = observation_space(variant("italian"))
    >>> space["observation"].shape, space["action_mask"].shape
    ((4874,), (2020,))
    """
    low, high = _bounds(v)
    size = action_space(v).size
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (size,), dtype=np.int8),
        }
    )


class Table:
    """A match of a variant played by action ids (the seat on turn's) and engine actions
    (a bot's). With ``match_mode`` off, the episode is the match's first deal.

    Rewards come only when a deal ends: each seat's :func:`~burraco.encoding.returns`
    times ``reward_scale``.
    """

    __slots__ = (
        "before",
        "deal",
        "decisions",
        "layout",
        "match",
        "match_mode",
        "reward_scale",
        "space",
        "v",
    )

    def __init__(self, v: Variant, *, match_mode: bool, reward_scale: float) -> None:
        self.v = v
        self.space: ActionSpace = action_space(v)
        self.layout: ObservationLayout = observation_layout(v)
        self.match_mode = match_mode
        self.reward_scale = float(reward_scale)
        self.match = Match(v, seed=0)
        self.deal: Deal = self.match.deal
        self.decisions = Decisions(self.deal, self.space)
        #: The match's totals before the deal in play, per line.
        self.before: tuple[int, ...] = tuple(self.match.totals)

    def start(self, seed: int) -> None:
        """A new match: ``Match(v, seed=seed)``, so a seed gives the same deals."""
        self.match = Match(self.v, seed=seed)
        self._new_deal()

    def _new_deal(self) -> None:
        self.deal = self.match.deal
        self.decisions = Decisions(self.deal, self.space)
        self.before = tuple(self.match.totals)

    @property
    def over(self) -> bool:
        """Whether the episode is over: the deal, or the match in match mode."""
        return self.match.is_over if self.match_mode else self.deal.is_over

    @property
    def turn(self) -> int:
        return self.deal.turn

    def play_id(self, action_id: int) -> list[float] | None:
        """Play an id of the seat on turn: each seat's reward when it ends a deal, else None.

        An id the mask does not allow raises :class:`~burraco.errors.IllegalMove` and
        changes nothing.
        """
        decisions = self.decisions
        try:
            index = operator.index(action_id)
        except TypeError:
            index = -1
        if PICK_BASE <= index < EXTEND_BASE or index not in decisions.legal_ids():
            # A pick changes only the picked cards; anything refused raises, naming the rule.
            decisions.apply(action_id)
            return None
        return self.play_action(decisions.action_of(index))

    def play_action(self, action: Action) -> list[float] | None:
        """Play a legal engine action of the seat on turn (a bot's): as :meth:`play_id`."""
        deal = self.deal
        # Through the match, so that an ended deal is scored and the next one dealt.
        self.match.apply(action)
        if not deal.is_over:
            self.decisions.reset()
            return None
        scale = self.reward_scale
        rewards = [r * scale for r in returns(deal)]
        if self.match_mode and not self.match.is_over:
            self._new_deal()
        else:
            self.decisions.reset()
        return rewards

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's encoded observation (a new array)."""
        return observe(self.deal, seat, picked=self.decisions.picked, scores=self.before)

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """The ids the seat may play now (a new array): none unless it is on turn."""
        if seat != self.deal.turn or self.deal.is_over:
            return np.zeros(self.space.size, dtype=np.int8)
        return self.decisions.mask()

    def observe(self, seat: int) -> Observation:
        return {"observation": self.observation(seat), "action_mask": self.mask(seat)}

    def show(
        self, mode: str | None, seat: int, names: Sequence[str], you: str | None
    ) -> str | None:
        """An environment's ``render()``: the text in "ansi" mode, printed in "human" mode
        (and None), a warning without a render mode."""
        if mode is None:
            gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        text = self.render(seat, names, you, mode == "ansi")
        if mode == "human":
            print(text, end="")
            return None
        return text

    def render(self, seat: int, names: Sequence[str], you: str | None, ansi: bool) -> str:
        """The table as ``seat`` sees it, as text (with colours when ``ansi``)."""
        # The command line's table picture; imported here, as it pulls in typer and rich.
        from rich.console import Console, Group
        from rich.text import Text

        from burraco.cli import render_table

        deal = self.deal
        number = next(i for i, d in enumerate(self.match.deals) if d is deal) + 1
        state = "over" if deal.is_over else f"{names[deal.turn]} to play"
        title = f"{self.v.name} · deal {number} · dealer {names[deal.dealer]} · {state}"
        parts = [render_table(deal.view(seat), self.match, names, title=title, you=you)]
        if self.decisions.picking and seat == deal.turn:
            picked = self.decisions.picked
            cards = format_cards(cards_from_counts(picked))
            parts.append(Text(f"Picked for a meld: {cards}", style="bold"))
        out = io.StringIO()
        console = Console(file=out, width=100, force_terminal=ansi, no_color=not ansi)
        console.print(Group(*parts))
        return out.getvalue()
