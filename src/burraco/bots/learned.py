"""The learned bot: a small value network, trained by self-play, that scores each legal action.

The network is a Q-function in the manner of Deep Monte-Carlo (DouZero): it reads a
compact summary of what the seat sees (:func:`state_features`) and a description of
one legal engine action (:func:`action_features`), and estimates the seat's final
return of the deal (its line's points less the other line's, over 1000) if it plays
that action. The bot plays the action of highest value. The training lives in
:mod:`burraco.research.iterate`; here is only the inference, with numpy, so the room
runs it on the core dependencies.

Weights ship for Italian Burraco for two (``learned_italian2.npz``) and, when trained,
for four in pairs (``learned_italian4.npz``); the features read the partner's part for
four. At any other table (another variant, a table without weights) it plays as the
greedy bot does, which :meth:`LearnedBot.plays` tells beforehand.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian", players=2), seed=7)
>>> bot = LearnedBot()
>>> while not deal.is_over:
...     legal = deal.legal_actions()
...     action = bot.choose(deal.view(deal.turn), legal)
...     assert action in legal
...     deal.apply(action)
>>> deal.end_reason in ("closed", "stock", "stall")
True
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from burraco.actions import DISCARD, DRAW, EXTEND, MELD, PASS, REDRAW, TAKE, Action
from burraco.bots.greedy import GreedyBot, discarded_by
from burraco.cards import KINDS
from burraco.melds import SEQUENCE, SET, Meld, extended, grade_of, is_wild, meld_bonus, tables_for
from burraco.variants import Variant
from burraco.view import DealView

__all__ = [
    "ACTION_SIZE",
    "FEATURES_VERSION",
    "STATE_SIZE",
    "LearnedBot",
    "Policy",
    "action_features",
    "default_policy",
    "shipped_policy",
    "state_features",
    "trained_for",
]

#: Bumped whenever the features change, so old weights are refused instead of misread.
#: Version 2 added the partner's part (four in pairs); a version-1 file reads as version 2
#: with zero weights on those inputs (:func:`Policy.load`), the very same player.
FEATURES_VERSION: Final = 2
#: The variant the features are made for, and its tables (players, in two lines).
TRAINED_VARIANT: Final = "italian"
TRAINED_TABLES: Final = (2, 4)
#: The shipped weights, by the number of players.
WEIGHTS_FILES: Final = {2: "learned_italian2.npz", 4: "learned_italian4.npz"}
WEIGHTS_FILE: Final = WEIGHTS_FILES[2]

_KIND_NAMES: Final = (DRAW, TAKE, REDRAW, PASS, MELD, EXTEND, DISCARD)
_KIND_INDEX: Final = {name: i for i, name in enumerate(_KIND_NAMES)}

# --- the state: what the seat sees, from its own line's side --------------------------

#: The card-count blocks of the state, 53 numbers each.
STATE_BLOCKS: Final = (
    "hand",
    "pile",
    "pile_top",
    "known_opponent",  # taken from the pile by the opponents and not played
    "thrown_opponent",  # discarded by the opponents (cards they did not want)
    "own_melded",
    "opponent_melded",
    "known_partner",  # four in pairs: taken from the pile by the partner and not played
)
#: Per line (own, then the opponents'): melds, sequences, sets, cards melded, clean,
#: semi-clean and dirty burracos, melds one or two cards short of one, melds holding a
#: wildcard, the longest meld, points on the table (cards and bonuses), pozzetto taken.
LINE_FEATURES: Final = 12
#: Hand sizes (own, opponents'), stock, pile, pozzetti left, draw phase, play phase, last
#: round, turns played, the points of the own hand, the card drawn this turn is a wildcard;
#: then (version 2) the partner's hand size, the next seat's (who may take the discard),
#: four at the table.
SCALARS: Final = 14
STATE_SIZE: Final = len(STATE_BLOCKS) * KINDS + 2 * LINE_FEATURES + SCALARS

# --- an action ---------------------------------------------------------------------------

#: After the kind (one-hot) and the cards out of and into the hand (53 each): for a meld
#: or an extension, the meld after it: sequence, set, size, wildcards, size before,
#: becomes a burraco, its grade (clean, semi-clean, dirty), the points laid and the bonus
#: won; for a discard: the opponents' melds it fits, the own melds it fits, a wildcard,
#: its value; the hand's size after, whether it empties the hand; for a take, the pile's
#: cards that fit the hand or the own melds.
ACTION_EXTRA: Final = 18
ACTION_SIZE: Final = len(_KIND_NAMES) + 2 * KINDS + ACTION_EXTRA


#: The inputs version 2 added, by their place in the version-2 state: the partner block
#: (after the seven first blocks) and the three last scalars.
_V1_STATE: Final = 406


def _added_inputs() -> list[int]:
    partner = list(range(7 * KINDS, 8 * KINDS))
    scalars = list(range(STATE_SIZE - 3, STATE_SIZE))
    return partner + scalars


def trained_for(v: Variant | None) -> bool:
    """Whether the features fit this table: Italian Burraco for two, or four in pairs."""
    return (
        v is not None and v.name == TRAINED_VARIANT and v.players in TRAINED_TABLES and v.lines == 2
    )


@functools.lru_cache(maxsize=4096)
def _meld_summary(meld: Meld, v: Variant) -> tuple[int, int, int, float]:
    """A meld's grade index (0 none, 1 clean, 2 semi-clean, 3 dirty), whether it holds a
    wildcard, its size and its points with the bonus."""
    grade = grade_of(meld, v)
    index = 0 if grade is None else {"clean": 1, "semi-clean": 2}.get(grade, 3)
    points = sum(v.value(c) for c in meld.cards)
    return index, int(bool(meld.wilds)), len(meld.cards), float(points + meld_bonus(meld, v))


def _counts(cards: Sequence[int]) -> npt.NDArray[np.float32]:
    return np.bincount(np.asarray(cards, dtype=np.intp), minlength=KINDS).astype(np.float32)


def _line_features(melds: Sequence[Meld], v: Variant, pozzetto: bool) -> list[float]:
    sequences = sets = cards = wild = longest = 0
    grades = [0, 0, 0, 0]
    near = 0
    points = 0.0
    length = v.burraco_length
    for meld in melds:
        grade, has_wild, size, worth = _meld_summary(meld, v)
        grades[grade] += 1
        sequences += meld.kind == SEQUENCE
        sets += meld.kind == SET
        cards += size
        wild += has_wild
        longest = max(longest, size)
        near += length - 2 <= size < length
        points += worth
    return [
        len(melds) / 8,
        sequences / 8,
        sets / 8,
        cards / 40,
        grades[1] / 2,
        grades[2] / 2,
        grades[3] / 2,
        near / 4,
        wild / 8,
        longest / 10,
        points / 1000,
        float(pozzetto),
    ]


def state_features(view: DealView) -> npt.NDArray[np.float32]:
    """The seat's state as ``STATE_SIZE`` numbers: read from its view only, so nothing it
    may not see can enter. The opponents are summed; at four, the partner's known cards
    and hand size have their own inputs (the line's melds are the partner's too).

    >>> from burraco import Deal, variant
    >>> deal = Deal.new(variant("italian", players=2), seed=3)
    >>> x = state_features(deal.view(deal.turn))
    >>> x.shape, float(x[:KINDS].sum())
    ((462,), 11.0)
    """
    v = view.rules
    if v is None:
        raise ValueError("the view carries no rules: the learned bot needs the variant")
    line = view.line
    others = [s for s in range(view.players) if view.line_of[s] != line]
    partners = [s for s in range(view.players) if view.line_of[s] == line and s != view.seat]
    x = np.zeros(STATE_SIZE, dtype=np.float32)
    k = KINDS
    x[0:k] = _counts(view.hand)
    if view.pile:
        x[k : 2 * k] = _counts(view.pile)
        x[2 * k + view.pile[-1]] = 1.0
    for s in others:
        if view.known and view.known[s]:
            x[3 * k : 4 * k] += _counts(view.known[s])
    thrown = discarded_by(view)
    for s in others:
        for c in thrown[s]:
            x[4 * k + c] = 1.0
    own = view.melds[line]
    opponents = [m for j, melds in enumerate(view.melds) if j != line for m in melds]
    for block, melds in ((5, own), (6, opponents)):
        row = block * k
        for meld in melds:
            for c in meld.cards:
                x[row + c] += 1.0
    for s in partners:
        if view.known and view.known[s]:
            x[7 * k : 8 * k] += _counts(view.known[s])
    at = len(STATE_BLOCKS) * k
    x[at : at + LINE_FEATURES] = _line_features(own, v, view.has_pozzetto[line])
    at += LINE_FEATURES
    opponent_pozzetto = any(p for j, p in enumerate(view.has_pozzetto) if j != line)
    x[at : at + LINE_FEATURES] = _line_features(opponents, v, opponent_pozzetto)
    at += LINE_FEATURES
    hand_points = sum(v.value(c) for c in view.hand)
    x[at : at + SCALARS] = [
        len(view.hand) / 11,
        sum(view.hand_sizes[s] for s in others) / 11 / len(others),
        view.stock_size / 60,
        len(view.pile) / 20,
        len(view.pozzetti) / 2,
        float(view.phase == "draw"),
        float(view.phase == "play"),
        float(view.final_turn),
        view.turns / 100,
        hand_points / 100,
        float(view.drawn is not None and is_wild(view.drawn)),
        sum(view.hand_sizes[s] for s in partners) / 11,
        view.hand_sizes[(view.seat + 1) % view.players] / 11,
        float(view.players == 4),
    ]
    return x


def action_features(view: DealView, legal: Sequence[Action]) -> npt.NDArray[np.float32]:
    """One row of ``ACTION_SIZE`` numbers per legal action, in order.

    >>> from burraco import Deal, variant
    >>> deal = Deal.new(variant("italian", players=2), seed=3)
    >>> action_features(deal.view(deal.turn), deal.legal_actions()).shape
    (2, 131)
    """
    v = view.rules
    if v is None:
        raise ValueError("the view carries no rules: the learned bot needs the variant")
    tables = tables_for(v)
    line = view.line
    own = view.melds[line]
    opponents = [m for j, melds in enumerate(view.melds) if j != line for m in melds]
    hand = len(view.hand)
    length = v.burraco_length
    k = KINDS
    out_at = len(_KIND_NAMES)
    in_at = out_at + k
    at = in_at + k
    rows = np.zeros((len(legal), ACTION_SIZE), dtype=np.float32)
    for i, action in enumerate(legal):
        row = rows[i]
        kind = action.kind
        row[_KIND_INDEX[kind]] = 1.0
        for c in action.cards:
            row[out_at + c] += 1.0
        after = hand - len(action.cards)
        if kind == TAKE and not action.cards:
            for c in view.pile:
                row[in_at + c] += 1.0
            after = hand + len(view.pile)
            counts = _counts(view.hand) + _counts(view.pile)
            fits = sum(
                1 for c in view.pile if counts[c] >= 2 or any(c in tables.fit_kinds(m) for m in own)
            )
            row[at + 17] = fits / 10
        elif kind in (DRAW, REDRAW):
            after = hand + v.draw_count
        if kind in (MELD, EXTEND) or (kind == TAKE and action.cards):
            before: Meld | None = None
            if kind == EXTEND:
                before = own[action.target]
                made = extended(before, action.cards[0], v)
            else:
                made = tables.reading(tuple(sorted(action.cards)))
            if isinstance(made, Meld):
                grade, wild, size, worth = _meld_summary(made, v)
                old = _meld_summary(before, v) if before is not None else (0, 0, 0, 0.0)
                row[at] = float(made.kind == SEQUENCE)
                row[at + 1] = float(made.kind == SET)
                row[at + 2] = size / 10
                row[at + 3] = float(wild)
                row[at + 4] = old[2] / 10
                row[at + 5] = float(size >= length > old[2])
                if grade:
                    row[at + 5 + grade] = 1.0
                row[at + 9] = sum(v.value(c) for c in action.cards) / 100
                row[at + 10] = (worth - old[3] - row[at + 9] * 100) / 200
        elif kind == DISCARD:
            card = action.cards[0]
            row[at + 11] = sum(1 for m in opponents if card in tables.fit_kinds(m)) / 4
            row[at + 12] = sum(1 for m in own if card in tables.fit_kinds(m)) / 4
            row[at + 13] = float(is_wild(card))
            row[at + 14] = v.value(card) / 30
        row[at + 15] = after / 11
        row[at + 16] = float(after == 0 and kind in (MELD, EXTEND, DISCARD))
    return rows


@dataclass(frozen=True, slots=True, eq=False)
class Policy:
    """The network's weights: ``(W, b)`` per layer, W of shape (inputs, outputs); ReLU
    between layers, one output (the value of an action), for the table of ``players``."""

    layers: tuple[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]], ...]
    #: The table it was trained for: Italian Burraco for this many players.
    players: int = 2

    def __post_init__(self) -> None:
        if not self.layers:
            raise ValueError("a policy needs at least one layer")
        if self.players not in TRAINED_TABLES:
            raise ValueError(
                f"the features fit Italian Burraco for {' or '.join(map(str, TRAINED_TABLES))} "
                f"players, not {self.players}"
            )
        inputs = self.layers[0][0].shape[0]
        if inputs != STATE_SIZE + ACTION_SIZE:
            raise ValueError(
                f"the first layer takes {inputs} inputs, the features are "
                f"{STATE_SIZE} + {ACTION_SIZE} (features version {FEATURES_VERSION})"
            )
        for j, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or b.shape != (w.shape[1],):
                raise ValueError(f"layer {j}: weights {w.shape} do not fit bias {b.shape}")
            if j and w.shape[0] != self.layers[j - 1][0].shape[1]:
                raise ValueError(f"layer {j} takes {w.shape[0]} inputs, not the previous outputs")
        if self.layers[-1][0].shape[1] != 1:
            raise ValueError("the last layer must have one output, the action's value")

    @classmethod
    def random(cls, hidden: Sequence[int] = (256, 128), seed: int = 0, players: int = 2) -> Policy:
        """Untrained weights (He initialization), for tests and a training's start."""
        rng = np.random.default_rng(seed)
        sizes = [STATE_SIZE + ACTION_SIZE, *hidden, 1]
        return cls(
            tuple(
                (
                    (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32),
                    np.zeros(b, dtype=np.float32),
                )
                for a, b in itertools.pairwise(sizes)
            ),
            players,
        )

    def values(
        self, state: npt.NDArray[np.float32], actions: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """The value of each action (a row of ``actions``) in the state: one matrix product
        per layer, all the actions at once."""
        # einsum, not BLAS: a threaded BLAS waits for a second core on a busy machine,
        # milliseconds for products this small; einsum's own loop stays in this thread.
        w, b = self.layers[0]
        h: npt.NDArray[np.float32] = np.einsum("ij,jk->ik", actions, w[STATE_SIZE:])
        h += np.einsum("j,jk->k", state, w[:STATE_SIZE]) + b
        for w, b in self.layers[1:]:
            h = np.einsum("ij,jk->ik", np.maximum(h, 0.0), w) + b
        return h[:, 0]

    def save(self, path: Path) -> None:
        """Write the weights to an ``.npz`` file, with the features' version and table."""
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "version": np.array(FEATURES_VERSION),
            "variant": np.array(TRAINED_VARIANT),
            "players": np.array(self.players),
        }
        for j, (w, b) in enumerate(self.layers):
            arrays[f"w{j}"] = w
            arrays[f"b{j}"] = b
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path | str) -> Policy:
        """Read weights written by :meth:`save`; refuse those of other features. Version-1
        weights (two players, before the partner's inputs) read with zero weights on the
        inputs version 2 added: for two players those are empty or not read, so the
        network values every action exactly as before."""
        with np.load(path, allow_pickle=False) as data:
            found = int(data["version"]) if "version" in data else None
            if found not in (1, FEATURES_VERSION):
                raise ValueError(
                    f"{path}: weights of features version {found}, this bot reads "
                    f"version {FEATURES_VERSION} (or 1)"
                )
            layers = []
            j = 0
            while f"w{j}" in data:
                layers.append((data[f"w{j}"].astype(np.float32), data[f"b{j}"].astype(np.float32)))
                j += 1
            players = int(data["players"]) if "players" in data else 2
        if found == 1 and layers:
            w, b = layers[0]
            if w.shape[0] != _V1_STATE + ACTION_SIZE:
                raise ValueError(f"{path}: a version-1 first layer of {w.shape[0]} inputs")
            keep = np.setdiff1d(np.arange(STATE_SIZE + ACTION_SIZE), _added_inputs())
            wide = np.zeros((STATE_SIZE + ACTION_SIZE, w.shape[1]), dtype=np.float32)
            wide[keep] = w
            layers[0] = (wide, b)
        return cls(tuple(layers), players)


@functools.cache
def shipped_policy(players: int) -> Policy | None:
    """The shipped weights for Italian Burraco for ``players`` (read once), or None when
    none ship for that table."""
    name = WEIGHTS_FILES.get(players)
    if name is None:
        return None
    source = resources.files("burraco.bots").joinpath(name)
    if not source.is_file():
        return None
    with resources.as_file(source) as path:
        return Policy.load(path)


def default_policy() -> Policy:
    """The shipped weights for two players."""
    policy = shipped_policy(2)
    if policy is None:
        raise FileNotFoundError(f"the package ships no {WEIGHTS_FILE}")
    return policy


class LearnedBot:
    """Plays the action the network values most (at Italian Burraco for two, and for four
    when its weights ship; at any other table the greedy bot's move). ``policy`` plays
    at the table it was trained for (None: the shipped weights, each at its table). With
    ``epsilon`` it plays a random legal action that often instead (exploration)."""

    def __init__(
        self, policy: Policy | None = None, seed: int | None = None, epsilon: float = 0.0
    ) -> None:
        self.policies: dict[int, Policy] = {}
        if policy is not None:
            self.policies[policy.players] = policy
        else:
            for players in TRAINED_TABLES:
                shipped = shipped_policy(players)
                if shipped is not None:
                    self.policies[players] = shipped
        self.epsilon = epsilon
        self.rng = random.Random(seed)
        # The greedy level's move (its weights for the table), whose rating it ships there.
        self._greedy = GreedyBot(seed, weights=None)

    @property
    def policy(self) -> Policy | None:
        """The weights for two players (None if it has none)."""
        return self.policies.get(2)

    @staticmethod
    def plays(v: Variant | None) -> bool:
        """Whether the shipped network plays at this table (else the greedy bot's moves)."""
        return v is not None and trained_for(v) and shipped_policy(v.players) is not None

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        policy = self.policies.get(view.players) if trained_for(view.rules) else None
        if policy is None:
            return self._greedy.choose(view, legal)
        if self.epsilon and self.rng.random() < self.epsilon:
            return legal[self.rng.randrange(len(legal))]
        values = policy.values(state_features(view), action_features(view, legal))
        return legal[int(np.argmax(values))]
