"""Decisions as numbers and a seat's information as a tensor, for learning agents.

Agents of reinforcement learning choose among a fixed list of action ids and read a
fixed-size vector. A Burraco action does not fit one id: a new meld is any
multiset of cards. So a meld is laid in steps: the player *picks* its cards one
at a time, then commits them. Every other action is one id.

The action ids of a variant (:class:`ActionSpace`)::

    0  draw            1  take          2  redraw        3  pass
    4  meld            (commit the picked cards as a new meld)
    5  take-with       (canasta: commit the picked cards to meld the pile's top)
    6 + k              discard a card of kind k          (53 ids)
    59 + k             pick a card of kind k             (53 ids)
    112 + 53 * i + k   extend meld number i of the line with a card of kind k

A line has at most ``max_melds`` melds (the deck's cards over three), so the
space is fixed for a variant: 2020 ids in Italian Burraco, 2974 in canasta.

:class:`Decisions` plays a deal through those ids. Its mask allows a pick only if
some legal meld (or canasta take) holds the picked cards and that one, so every
pick can be completed and a commit is allowed exactly when the picked cards are a
legal action's cards. While cards are picked, only picks and commits are allowed.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian", players=2), seed=3)
>>> decisions = Decisions(deal)
>>> [decisions.space.describe(i) for i in decisions.legal_ids()]
['draw', 'take']
>>> decisions.apply(DRAW_ID)
Action.parse('draw')
>>> picks = decisions.space.path(Action.parse("meld 5S 6S 7S"))
>>> [decisions.space.describe(i) for i in picks]
['pick 5S', 'pick 6S', 'pick 7S', 'meld']

:func:`observe` gives one seat's observation (:class:`ObservationLayout` names its
parts); it holds nothing the seat may not see.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from burraco.actions import (
    DISCARD,
    DRAW,
    EXTEND,
    MELD,
    PASS,
    REDRAW,
    TAKE,
    Action,
    discard,
    extend_action,
    meld_action,
    take_action,
)
from burraco.cards import KINDS, cards_from_counts, counts_of, format_cards
from burraco.deal import DRAW_PHASE, PLAY_PHASE, Deal
from burraco.errors import IllegalMove
from burraco.melds import SEQUENCE, Meld
from burraco.refusals import Refusal
from burraco.variants import PerVariant, Variant

__all__ = [
    "DRAW_ID",
    "MELD_ID",
    "PASS_ID",
    "REDRAW_ID",
    "TAKE_ID",
    "TAKE_WITH_ID",
    "ActionSpace",
    "Decisions",
    "ObservationLayout",
    "Observer",
    "action_space",
    "observation_layout",
    "observe",
    "returns",
]

DRAW_ID: Final = 0
TAKE_ID: Final = 1
REDRAW_ID: Final = 2
PASS_ID: Final = 3
MELD_ID: Final = 4
TAKE_WITH_ID: Final = 5
DISCARD_BASE: Final = 6
PICK_BASE: Final = DISCARD_BASE + KINDS
EXTEND_BASE: Final = PICK_BASE + KINDS

_SIMPLE: Final = {DRAW: DRAW_ID, TAKE: TAKE_ID, REDRAW: REDRAW_ID, PASS: PASS_ID}
_SIMPLE_ACTIONS: Final = {
    DRAW_ID: Action(DRAW),
    TAKE_ID: Action(TAKE),
    REDRAW_ID: Action(REDRAW),
    PASS_ID: Action(PASS),
}
_NAMES: Final = ("draw", "take", "redraw", "pass", "meld", "take-with")
_PHASES: Final = (DRAW_PHASE, PLAY_PHASE)


@dataclass(frozen=True, slots=True)
class ActionSpace:
    """The fixed action ids of a variant (see the module's table)."""

    #: Melds a line may hold at most: the deck's cards over the smallest meld's three.
    max_melds: int

    @property
    def size(self) -> int:
        return EXTEND_BASE + KINDS * self.max_melds

    @staticmethod
    def discard_id(kind: int) -> int:
        return DISCARD_BASE + kind

    @staticmethod
    def pick_id(kind: int) -> int:
        return PICK_BASE + kind

    def extend_id(self, target: int, kind: int) -> int:
        if not 0 <= target < self.max_melds:
            raise ValueError(f"no meld number {target}: a line holds at most {self.max_melds}")
        return EXTEND_BASE + KINDS * target + kind

    def id_of(self, action: Action) -> int | None:
        """The one id that is this action; None for a meld or a canasta take with cards,
        which are laid in steps (:meth:`path`).

        >>> from burraco import variant
        >>> space = action_space(variant("italian"))
        >>> space.id_of(Action.parse("extend 2 8H")), space.id_of(Action.parse("meld 5S 6S 7S"))
        (238, None)
        """
        if action.kind == DISCARD:
            return DISCARD_BASE + action.cards[0]
        if action.kind == EXTEND:
            return self.extend_id(action.target, action.cards[0])
        if action.kind == MELD or action.cards:
            return None
        return _SIMPLE[action.kind]

    def path(self, action: Action) -> tuple[int, ...]:
        """The ids that play ``action``: its own id, or a pick per card and the commit."""
        single = self.id_of(action)
        if single is not None:
            return (single,)
        commit = MELD_ID if action.kind == MELD else TAKE_WITH_ID
        return (*(PICK_BASE + c for c in action.cards), commit)

    def describe(self, action_id: int) -> str:
        """The id in words: ``draw``, ``pick 7H``, ``extend 3 8H``, ``discard QS``."""
        if not 0 <= action_id < self.size:
            raise ValueError(f"no action id {action_id}: ids run from 0 to {self.size - 1}")
        if action_id < DISCARD_BASE:
            return _NAMES[action_id]
        if action_id < PICK_BASE:
            return f"discard {format_cards([action_id - DISCARD_BASE])}"
        if action_id < EXTEND_BASE:
            return f"pick {format_cards([action_id - PICK_BASE])}"
        target, kind = divmod(action_id - EXTEND_BASE, KINDS)
        return f"extend {target} {format_cards([kind])}"


def action_space(v: Variant) -> ActionSpace:
    """The action space of a variant.

    >>> from burraco import variant
    >>> action_space(variant("italian")).size, action_space(variant("canasta")).size
    (2020, 2974)
    """
    return _SPACES.of(v)


_SPACES: Final = PerVariant(lambda v: ActionSpace(max_melds=v.deck_size // 3))


class Decisions:
    """A deal played one action id at a time, with the cards picked for a meld.

    The deal is played only through :meth:`apply`, which applies an engine action
    when an id completes one and returns it (None for a pick).
    """

    __slots__ = ("_legal", "_open", "deal", "picked", "space")

    def __init__(self, deal: Deal, space: ActionSpace | None = None) -> None:
        self.deal = deal
        self.space = space or action_space(deal.v)
        #: The cards picked so far, a count per kind.
        self.picked: list[int] = [0] * KINDS
        self._legal: list[int] | None = None
        # The legal melds and takes with cards of this state that hold the picked cards:
        # (count per kind, action).
        self._open: list[tuple[list[int], Action]] = []

    @property
    def picking(self) -> bool:
        """Whether cards are picked and a commit is awaited."""
        return any(self.picked)

    def legal_ids(self) -> list[int]:
        """The allowed ids, ascending."""
        if self._legal is None:
            self._legal = self._list()
        return self._legal

    def mask(self) -> npt.NDArray[np.int8]:
        """The allowed ids as a 0/1 vector of the space's size."""
        mask = np.zeros(self.space.size, dtype=np.int8)
        mask[self.legal_ids()] = 1
        return mask

    def _list(self) -> list[int]:
        if self.picking:
            return self._picking_ids()
        ids: list[int] = []
        picks: set[int] = set()
        composite: list[tuple[list[int], Action]] = []
        for action in self.deal.legal_actions():
            kind = action.kind
            if kind == DISCARD:
                ids.append(DISCARD_BASE + action.cards[0])
            elif kind == EXTEND:
                # The engine numbers a line's melds below max_melds: a line holds no more.
                ids.append(EXTEND_BASE + KINDS * action.target + action.cards[0])
            elif kind == MELD or action.cards:
                composite.append((counts_of(action.cards), action))
                picks.update(action.cards)
            else:
                ids.append(_SIMPLE[kind])
        self._open = composite
        ids.extend(PICK_BASE + c for c in picks)
        ids.sort()
        return ids

    def _picking_ids(self) -> list[int]:
        picked = self.picked
        ids: set[int] = set()
        for counts, action in self._open:
            if counts == picked:
                ids.add(MELD_ID if action.kind == MELD else TAKE_WITH_ID)
            else:
                ids.update(PICK_BASE + c for c in action.cards if counts[c] > picked[c])
        return sorted(ids)

    def apply(self, action_id: int) -> Action | None:
        """Play an id: the engine action it completes, or None for a pick.

        An id the mask does not allow raises :class:`IllegalMove` and changes nothing.
        """
        try:
            action_id = operator.index(action_id)  # numpy's integers too; not 2.0 or "2"
        except TypeError:
            raise IllegalMove(
                Refusal("no_action_id", {"id": repr(action_id), "last": self.space.size - 1})
            ) from None
        if action_id not in self.legal_ids():
            words = self.space.describe(action_id) if 0 <= action_id < self.space.size else None
            raise IllegalMove(self._refusal(action_id), words)
        if PICK_BASE <= action_id < EXTEND_BASE:
            kind = action_id - PICK_BASE
            self.picked[kind] += 1
            self._open = [(c, a) for c, a in self._open if c[kind] >= self.picked[kind]]
            self._legal = None
            return None
        action = self.action_of(action_id)
        self.deal.apply(action)
        self.reset()
        return action

    def action_of(self, action_id: int) -> Action:
        """The engine action an allowed id other than a pick completes."""
        if action_id in _SIMPLE_ACTIONS:
            return _SIMPLE_ACTIONS[action_id]
        if action_id in (MELD_ID, TAKE_WITH_ID):
            cards = tuple(cards_from_counts(self.picked))
            return meld_action(cards) if action_id == MELD_ID else take_action(cards)
        if DISCARD_BASE <= action_id < PICK_BASE:
            return discard(action_id - DISCARD_BASE)
        if action_id >= EXTEND_BASE:
            target, kind = divmod(action_id - EXTEND_BASE, KINDS)
            return extend_action(target, kind)
        raise ValueError(f"{self.space.describe(action_id)} is a step, not an action")

    def copy(self) -> Decisions:
        """A copy on a clone of the deal, with the picks and what was listed (read-only
        once listed, so shared: listing again costs a search of the hand)."""
        other = Decisions(self.deal.clone(), self.space)
        other.picked = self.picked[:]
        other._legal = self._legal
        other._open = self._open
        return other

    def reset(self) -> None:
        """Forget the picked cards and what was listed (after the deal changed)."""
        self.picked = [0] * KINDS
        self._legal = None
        self._open = []

    def _refusal(self, action_id: int) -> Refusal:
        space = self.space
        if not 0 <= action_id < space.size:
            return Refusal("no_action_id", {"id": action_id, "last": space.size - 1})
        if self.deal.is_over:
            return Refusal("deal_over")
        if self.picking:
            if PICK_BASE <= action_id < EXTEND_BASE:
                card = format_cards([action_id - PICK_BASE])
                return Refusal("pick_fits_no_meld", {"card": card})
            picked = format_cards(cards_from_counts(self.picked))
            return Refusal("finish_the_pick", {"cards": picked})
        if PICK_BASE <= action_id < EXTEND_BASE:
            return Refusal("pick_fits_no_meld", {"card": format_cards([action_id - PICK_BASE])})
        if action_id in (MELD_ID, TAKE_WITH_ID):
            return Refusal("nothing_picked")
        try:
            self.deal.check(self.action_of(action_id))
        except IllegalMove as refused:
            return refused.refusal
        return Refusal("id_not_allowed", {"action": space.describe(action_id)})


# --- observations ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ObservationLayout:
    """Where each part of an observation lies in the flat vector: name -> (offset, shape)."""

    parts: tuple[tuple[str, int, tuple[int, ...]], ...]
    #: The length of the flat vector.
    size: int

    def extended(self, shapes: Sequence[tuple[str, tuple[int, ...]]]) -> ObservationLayout:
        """This layout with more parts after its own, each (name, shape)."""
        parts = list(self.parts)
        offset = self.size
        for name, shape in shapes:
            parts.append((name, offset, shape))
            offset += int(np.prod(shape))
        return ObservationLayout(tuple(parts), offset)

    def slice(self, name: str) -> slice:
        for part, offset, shape in self.parts:
            if part == name:
                return slice(offset, offset + int(np.prod(shape)))
        raise KeyError(name)

    def unflatten(self, vector: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The parts of a flat observation, each in its shape."""
        return {
            name: vector[offset : offset + int(np.prod(shape))].reshape(shape)
            for name, offset, shape in self.parts
        }


#: Per meld slot: present, sequence, set, wild meld, size, wildcards, lowest and highest
#: position (sequences, 1-14), the wildcard's position (0 when it floats), the set's rank.
MELD_FEATURES: Final = 10


@cache
def observation_layout(v: Variant) -> ObservationLayout:
    """The parts of a seat's observation in a variant. Seats and lines are counted from
    the observing seat: its own first, then in turn order.

    >>> from burraco import variant
    >>> layout = observation_layout(variant("italian", players=2))
    >>> layout.size, dict((n, s) for n, _, s in layout.parts)["melds"]
    (4874, (2, 36, 53))
    """
    m = action_space(v).max_melds
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("hand", (KINDS,)),  # own hand, a count per card kind
        ("picked", (KINDS,)),  # cards picked for a meld not yet committed
        ("pile", (KINDS,)),  # the face-up pile, a count per kind
        ("pile_top", (KINDS,)),  # the pile's top card, one-hot
        ("drawn", (KINDS,)),  # the card drawn this turn (the seat on turn), one-hot
        ("known", (v.players - 1, KINDS)),  # cards known in the other hands (or seen: open hands)
        ("melds", (v.lines, m, KINDS)),  # each meld's cards, a count per kind
        ("meld_info", (v.lines, m, MELD_FEATURES)),
        ("hand_sizes", (v.players,)),
        ("stock_size", (1,)),
        ("pile_size", (1,)),  # the whole pile, buried cards included
        ("pozzetti_left", (1,)),  # pozzetti nobody has taken
        ("has_pozzetto", (v.lines,)),
        ("opened", (v.lines,)),
        ("minimum", (v.lines,)),  # the points a line still needs to open (canasta)
        ("red_threes", (v.lines,)),
        ("scores", (v.lines,)),  # the match's score before this deal
        ("phase", (3,)),  # draw, play, over
        ("to_play", (1,)),
        ("final_turn", (1,)),
    ]
    return ObservationLayout((), 0).extended(shapes)


def _meld_features(meld: Meld) -> tuple[float, ...]:
    sequence = meld.kind == SEQUENCE
    return (
        1.0,
        float(sequence),
        float(not sequence and meld.rank > 0),
        float(not sequence and meld.rank == 0),
        float(len(meld.cards)),
        float(len(meld.wilds)),
        float(meld.lo if sequence else 0),
        float(meld.hi if sequence else 0),
        float(meld.gap if sequence else 0),
        float(meld.rank),
    )


class Observer:
    """Writes observations of one variant's deals (:func:`observe` keeps one a variant).

    A line's melds change a few times a deal, so their part of the vector is kept per
    line and rebuilt only when the line's melds are not the very objects of last time.
    """

    __slots__ = ("_blocks", "_kept", "at", "layout", "m", "size", "v")

    def __init__(self, v: Variant) -> None:
        self.v = v
        self.layout = observation_layout(v)
        self.size = self.layout.size
        self.at = {name: offset for name, offset, _ in self.layout.parts}
        self.m = action_space(v).max_melds
        self._kept: list[list[Meld]] = [[] for _ in range(v.lines)]
        self._blocks = [self._block([]) for _ in range(v.lines)]

    def _block(self, melds: list[Meld]) -> tuple[npt.NDArray[np.float32], ...]:
        cards = np.zeros((self.m, KINDS), dtype=np.float32)
        info = np.zeros((self.m, MELD_FEATURES), dtype=np.float32)
        for i, meld in enumerate(melds):
            for c in meld.cards:
                cards[i, c] += 1.0
            info[i] = _meld_features(meld)
        return cards.ravel(), info.ravel()

    def _line(self, deal: Deal, line: int) -> tuple[npt.NDArray[np.float32], ...]:
        melds = deal.melds[line]
        kept = self._kept[line]
        if len(melds) != len(kept) or any(a is not b for a, b in zip(melds, kept, strict=True)):
            self._kept[line] = list(melds)
            self._blocks[line] = self._block(melds)
        return self._blocks[line]

    def __call__(
        self,
        deal: Deal,
        seat: int,
        picked: Sequence[int] | None = None,
        scores: Sequence[int] | None = None,
    ) -> npt.NDArray[np.float32]:
        v = self.v
        at = self.at
        k = KINDS
        obs = np.zeros(self.size, dtype=np.float32)
        obs[at["hand"] : at["hand"] + k] = deal.hands[seat]
        if picked is not None and seat == deal.turn:
            obs[at["picked"] : at["picked"] + k] = picked
        pile = deal.pile
        hidden = deal.face_down_in_pile  # a closed pile: its top only
        if len(pile) > hidden:
            obs[at["pile"] : at["pile"] + k] = np.bincount(pile[hidden:], minlength=k)
            obs[at["pile_top"] + pile[-1]] = 1.0
        if seat == deal.turn and deal.drawn >= 0:
            obs[at["drawn"] + deal.drawn] = 1.0
        players = v.players
        open_partners = deal.partners(seat) if v.open_hands else ()
        row = at["known"]
        for i in range(1, players):
            other = (seat + i) % players
            seen = deal.hands[other] if other in open_partners else deal.known[other]
            if any(seen):
                obs[row : row + k] = seen
            row += k
        lines = v.lines
        line = deal.line_of[seat]
        size, info_size = self.m * k, self.m * MELD_FEATURES
        for j in range(lines):
            if deal.melds[(line + j) % lines]:
                cards, info = self._line(deal, (line + j) % lines)
                obs[at["melds"] + j * size : at["melds"] + (j + 1) * size] = cards
                obs[at["meld_info"] + j * info_size : at["meld_info"] + (j + 1) * info_size] = info
        # The counters from hand_sizes to final_turn lie together: one assignment.
        order = [(line + j) % lines for j in range(lines)]
        phase = deal.phase
        tail = [deal.sizes[(seat + i) % players] for i in range(players)]
        tail += (len(deal.stock), len(pile), len(deal.pozzetti))
        tail += [deal.has_pozzetto[x] for x in order]
        tail += [deal.opened[x] for x in order]
        tail += [deal.minimum[x] for x in order]
        tail += [deal.red_threes[x] for x in order]
        tail += [scores[x] for x in order] if scores is not None else [0] * lines
        tail += (phase == DRAW_PHASE, phase == PLAY_PHASE, phase not in _PHASES)
        tail += (deal.turn == seat and not deal.is_over, deal.final_turn)
        obs[at["hand_sizes"] :] = tail
        return obs


_OBSERVERS: Final = PerVariant(Observer)


def observe(
    deal: Deal,
    seat: int,
    picked: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
) -> npt.NDArray[np.float32]:
    """Seat ``seat``'s observation: a new flat float32 vector (:func:`observation_layout`).

    It reads only what the seat's :class:`~burraco.view.DealView` holds: re-dealing the
    cards the seat cannot see leaves it unchanged. ``picked`` are the cards picked by the
    seat on turn (counts per kind), ``scores`` the match's score per line before the deal.

    >>> from burraco import variant
    >>> deal = Deal.new(variant("italian", players=2), seed=3)
    >>> parts = observation_layout(deal.v).unflatten(observe(deal, 0))
    >>> int(parts["hand"].sum()), parts["hand_sizes"].tolist(), parts["phase"].tolist()
    (11, [11.0, 11.0], [1.0, 0.0, 0.0])
    """
    return _OBSERVERS.of(deal.v)(deal, seat, picked, scores)


def returns(deal: Deal) -> list[float]:
    """Each seat's return of an ended deal: its line's points less the mean of the other
    lines' points (so the returns of a table sum to zero); zeros while it is in play.

    >>> from burraco import variant
    >>> deal = Deal.new(variant("italian", players=2), seed=3)
    >>> returns(deal)
    [0.0, 0.0]
    """
    v = deal.v
    if not deal.is_over:
        return [0.0] * v.players
    points = deal.score().points
    total = sum(points)
    others = len(points) - 1
    return [
        float(points[line]) - (total - points[line]) / others
        for line in (v.line_of[seat] for seat in range(v.players))
    ]
