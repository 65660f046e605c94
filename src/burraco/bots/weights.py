"""The greedy player's weights: how much it values each kind of move, as data.

The greedy bot (and the expert's playouts, which are the greedy player) weigh lay-downs,
the pile and discards in rough points. Those numbers were set by hand; here they are a
frozen value, :data:`HAND_SET` by default, that a tuner can search over (``bench/tune.py``)
and that a small JSON file holds: a named set ships in the package as
``bots/greedy-NAME.json`` (:meth:`GreedyWeights.named`).

>>> w = GreedyWeights(danger_feeds=70.0)
>>> GreedyWeights.from_json(w.to_json()) == w
True
>>> GreedyWeights.from_dict({"danger_feed": 1})
Traceback (most recent call last):
...
ValueError: greedy weights: no weight 'danger_feed' (danger_feeds?)
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import asdict, dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from burraco.variants import Variant

__all__ = [
    "EXPERT_TABLES",
    "HAND_SET",
    "LEVEL_SET",
    "LEVEL_TABLES",
    "GreedyWeights",
    "expert_weights",
    "level_weights",
    "weight_names",
]


@dataclass(frozen=True, slots=True)
class GreedyWeights:
    """What the greedy player adds up, in rough points (a card's own points come on top)."""

    # A new meld laid down from the hand.
    #: Per card of the meld.
    meld_per_card: float = 10.0
    #: A meld laid down as a burraco at once.
    meld_burraco: float = 150.0
    #: A wildcard spent in a meld of fewer than six cards (kept for a burraco) ...
    meld_wild: float = 45.0
    #: ... and more per card the meld is short of six.
    meld_wild_short: float = 10.0
    #: Laying down the whole hand (the pozzetto in diretta, or going out).
    meld_all: float = 120.0

    # A card added to one of the line's melds.
    extend_per_card: float = 12.0
    #: The card makes the meld a burraco.
    extend_burraco: float = 160.0
    #: The card spoils a clean burraco (a wildcard in it).
    extend_spoils_clean: float = 250.0
    #: A wildcard spent short of a burraco, on a sequence and on a set.
    extend_wild_sequence: float = 60.0
    extend_wild_set: float = 40.0
    #: Adding the last card of the hand.
    extend_last: float = 100.0

    # Taking the pile: each card that fits the hand or the line's melds is worth this
    # more than its points; each that does not costs its points times ``pile_waste``
    # (``pile_waste_late`` once the stock is under ``pile_late_stock`` cards). The pile is
    # taken when the sum is above ``pile_above``.
    pile_fit: float = 15.0
    pile_waste: float = 0.5
    pile_waste_late: float = 1.0
    pile_late_stock: int = 20
    pile_above: float = 0.0

    # A discard: the lowest of use to the seat plus danger, less its points times
    # ``keep_points``, goes.
    #: Use: the card fits the hand, feeds the line's melds, is a wildcard.
    keep_fits_hand: float = 30.0
    keep_feeds_own: float = 25.0
    keep_wild: float = 200.0
    keep_points: float = 0.4
    #: Danger, per opponent: the card feeds its line's melds, fits the cards it is known to
    #: hold; less when it threw the card itself. The next seat counts ``danger_next`` times.
    danger_feeds: float = 60.0
    danger_held: float = 35.0
    danger_thrown: float = 20.0
    danger_next: float = 1.5
    #: Danger of any wildcard.
    danger_wild: float = 80.0
    #: The danger grows with the pile: times 1 + (cards in the pile) / ``danger_pile``.
    danger_pile: float = 6.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"greedy weights: {f.name} must be a number, not {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"greedy weights: {f.name} must be finite, not {value!r}")
        if self.danger_pile <= 0:
            raise ValueError(f"greedy weights: danger_pile must be above 0, not {self.danger_pile}")
        if not isinstance(self.pile_late_stock, int) or self.pile_late_stock < 0:
            raise ValueError(
                f"greedy weights: pile_late_stock must be a whole number of cards, not "
                f"{self.pile_late_stock!r}"
            )

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GreedyWeights:
        """Weights from a mapping of some of their names (the others keep :data:`HAND_SET`'s
        values); an unknown name is an error that names it."""
        if not isinstance(data, dict):
            raise ValueError(f"greedy weights: expected an object of weights, not {data!r}")
        names = {f.name for f in fields(cls)}
        for key in data:
            if key not in names:
                near = difflib.get_close_matches(str(key), sorted(names), n=1)
                hint = f" ({near[0]}?)" if near else ""
                raise ValueError(f"greedy weights: no weight {key!r}{hint}")
        values = dict(data)
        # A whole number of cards may be written as 20.0 by a tuner.
        late = values.get("pile_late_stock")
        if isinstance(late, float) and late.is_integer():
            values["pile_late_stock"] = int(late)
        return replace(HAND_SET, **values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> GreedyWeights:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"greedy weights: not JSON ({e})") from None
        return cls.from_dict(data)

    def save(self, path: Path) -> None:
        path.write_text(self.to_json())

    @classmethod
    def load(cls, path: Path) -> GreedyWeights:
        return cls.from_json(path.read_text())

    @classmethod
    def named(cls, name: str) -> GreedyWeights:
        """A weight set shipped in the package (``bots/greedy-NAME.json``); ``hand-set`` is
        :data:`HAND_SET`."""
        if name == "hand-set":
            return HAND_SET
        found = _NAMED.get(name)
        if found is None:
            shipped = resources.files("burraco.bots") / f"greedy-{name}.json"
            if not shipped.is_file():
                raise ValueError(f"no greedy weight set {name!r} ({', '.join(shipped_names())})")
            # One object per set: the greedy player keeps its memos by the weights object.
            found = _NAMED[name] = cls.from_json(shipped.read_text())
        return found

    def vector(self) -> list[float]:
        """The tunable weights (:func:`weight_names`), in that order."""
        return [float(getattr(self, name)) for name in weight_names()]

    @classmethod
    def of_vector(cls, values: list[float], base: GreedyWeights | None = None) -> GreedyWeights:
        """``base`` (:data:`HAND_SET`) with the tunable weights set to ``values``."""
        names = weight_names()
        if len(values) != len(names):
            raise ValueError(f"greedy weights: {len(values)} values for {len(names)} weights")
        changed: dict[str, Any] = dict(zip(names, map(float, values), strict=True))
        return replace(base or HAND_SET, **changed)


#: The weights the greedy player was written with.
HAND_SET: Final = GreedyWeights()
#: The shipped sets read so far, by name.
_NAMED: dict[str, GreedyWeights] = {}

#: The greedy level's tuned set: tuned on Italian for two (``bench/tune.py``).
LEVEL_SET: Final = "italian2"
#: The tables (variant, players, lines) where :data:`LEVEL_SET` beat the hand-set weights
#: with a 95% interval above zero (docs/research.md, "Tuning"); at canasta for two and
#: Italian for three it measured level, and the rest were not measured.
LEVEL_TABLES: Final = frozenset(
    {
        ("italian", 2, 2),
        ("italian", 4, 2),
        ("online", 2, 2),
        ("online", 4, 2),
        ("buraco", 2, 2),
        ("buraco", 3, 3),
        ("buraco", 4, 2),
        ("canasta", 4, 2),
    }
)


def level_weights(v: Variant) -> GreedyWeights:
    """The greedy level's weights for a table: :data:`LEVEL_SET` at the tables where it was
    measured to win (:data:`LEVEL_TABLES`), the hand-set weights elsewhere."""
    return _tuned_at(v, LEVEL_TABLES)


#: The tables where the expert's playouts and the ranking of its candidates play
#: :data:`LEVEL_SET` instead of the hand-set weights: at buraco for two the expert with the
#: hand-set ones lost to the greedy level (-145.9 MP a deal), with the tuned ones it plays
#: level with it or better (docs/research.md, "A stronger expert"); at Italian for two the
#: tuned set in its playouts made it weaker (-121.9), the rest was not measured.
EXPERT_TABLES: Final = frozenset({("buraco", 2, 2)})


def expert_weights(v: Variant) -> GreedyWeights:
    """The weights of the expert's playouts and candidates at a table: :data:`LEVEL_SET` at
    :data:`EXPERT_TABLES`, the hand-set ones elsewhere."""
    return _tuned_at(v, EXPERT_TABLES)


def _tuned_at(v: Variant, tables: frozenset[tuple[str, int, int]]) -> GreedyWeights:
    """:data:`LEVEL_SET` at the table of ``v`` if it is one of ``tables``, else the hand-set
    weights."""
    if (v.name, v.players, v.lines) in tables:
        return GreedyWeights.named(LEVEL_SET)
    return HAND_SET


def weight_names() -> tuple[str, ...]:
    """The weights a tuner moves: every one but the whole numbers (a count of cards)."""
    return tuple(f.name for f in fields(GreedyWeights) if f.name != "pile_late_stock")


def shipped_names() -> list[str]:
    """The names of the weight sets shipped in the package, ``hand-set`` first."""
    found = sorted(
        p.name[len("greedy-") : -len(".json")]
        for p in resources.files("burraco.bots").iterdir()
        if p.name.startswith("greedy-") and p.name.endswith(".json")
    )
    return ["hand-set", *found]
