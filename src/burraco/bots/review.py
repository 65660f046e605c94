"""The review of a deal: every decision of one seat weighed from that seat's information.

For a finished deal of a record, :func:`review_deal` replays the deal and, at each
decision of the seat (an action taken where more than one was legal), builds the seat's
view as it stood then (:func:`~burraco.view.view_of`: its hand, the table, what it knows
of the other hands) and weighs the action played against the expert's candidates
(:meth:`ExpertBot.candidates`, always its wide list: :func:`reviewer`). The cards the seat
could not see are sampled from that view (:meth:`Deal.resample`), never read from the
record; each candidate is played on in every sampled deal with the expert's playout policy
(the greedy player in every seat, for the expert's horizon of turns), and scored as the
expert scores a line (:meth:`ExpertBot.leaf`): the seat's line's total minus the best other
line's, in MP, the cards still in hand left out at the horizon.

Every candidate meets the same sampled deals (common random numbers). The cost of the
action played is measured on a split sample (:func:`split_cost`): the best candidate is
chosen on one half of the sampled deals and its difference with the action played measured
on the other half, both ways, averaged; so the cost is unbiased (the best of several noisy
means would lean it upward) and its standard error comes from the differences, deal by
deal. Sampled deals are added until that interval is narrow (:data:`TARGET_MARGIN`) or the
budget is spent (:func:`weigh`, the one judge the hint asks too). A decision is tagged only
when the low end of its cost's 95% interval passes a threshold (:data:`THRESHOLDS`): noise
alone tags nothing. A deal's total is the signed sum of the costs with its own interval.
``docs/review.md`` has the thresholds, the accuracy figure and what limits the estimate.

The sampler is seeded by the seed and the seat's public position (:func:`sampler`), so a
review is reproducible given a seed and a budget of sampled deals; a budget of time
depends on the machine's speed.

>>> from burraco import variant
>>> from burraco.bots.greedy import GreedyBot
>>> from burraco.match import Match
>>> from burraco.record import read_record, write_record
>>> match = Match(variant("italian", deals=1), seed=5)
>>> bot = GreedyBot()
>>> while not match.is_over:
...     match.apply(bot.choose(match.view(match.turn), match.legal_actions()))
>>> record = read_record(write_record(match))
>>> review = review_deal(record, deal=1, seat=0, worlds=4, seed=1)
>>> review.seat, review.deal, len(review.decisions) > 0
(0, 1, True)
>>> DealReview.from_json(review.to_json()) == review
True
"""

from __future__ import annotations

import gc
import json
import math
import random
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from burraco.actions import DISCARD, TAKE, Action
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import discarded_by
from burraco.deal import OVER, Deal
from burraco.errors import RuleError
from burraco.match import Match
from burraco.record import MatchRecord, ReplayError
from burraco.view import DealView

__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "THRESHOLDS",
    "Candidate",
    "DealReview",
    "Decision",
    "accuracy_of",
    "explain",
    "review_deal",
    "review_decisions",
    "review_position",
    "tag_of",
]

INACCURACY: Final = "inaccuracy"
MISTAKE: Final = "mistake"
BLUNDER: Final = "blunder"
#: The least cost (MP) of each tag, worst first; a decision takes the worst tag whose
#: threshold the low end of its cost's 95% interval reaches. A plain burraco is worth
#: 100 (a clean one 200), closing 100, a pozzetto not taken -100: a blunder gives away
#: about one of those; a mistake half of one; an inaccuracy the worth of a card or two.
THRESHOLDS: Final = ((BLUNDER, 100.0), (MISTAKE, 50.0), (INACCURACY, 20.0))
#: The candidates a review weighs besides the action played: the greedy player's best
#: discards and lay-downs, its own list whatever an expert searches (an expert pruned to
#: fewer must not shrink the review's verdicts).
REVIEW_DISCARDS: Final = 4
REVIEW_LAYS: Final = 2
#: The normal quantile of a two-sided 95% interval.
Z95: Final = 1.96
#: Student's t quantiles of a two-sided 95% interval by degrees of freedom (a few sampled
#: deals give a wider interval than the normal one); between two entries, the one of
#: fewer degrees (the wider); 1.98 from 120 on.
_T95: Final = (
    (1, 12.71),
    (2, 4.30),
    (3, 3.18),
    (4, 2.78),
    (5, 2.57),
    (6, 2.45),
    (7, 2.36),
    (8, 2.31),
    (9, 2.26),
    (10, 2.23),
    (12, 2.18),
    (15, 2.13),
    (20, 2.09),
    (25, 2.06),
    (30, 2.04),
    (60, 2.00),
    (120, 1.98),
)
#: The cost (MP) at which a decision's accuracy falls to 1/e (see :func:`accuracy_of`).
ACCURACY_SCALE: Final = 100.0
#: The fewest sampled deals a weighed decision gets, whatever its time: each half of the
#: split sample needs a few for a standard error.
MIN_WORLDS: Final = 8
#: The fewest sampled deals a budget may name: two in each half.
LEAST_WORLDS: Final = 4
#: The half-width (MP) of the cost's 95% interval a decision samples for: a decision
#: stops when it is reached (or at its cap of sampled deals or of time). Narrower than
#: the least tag, so an inaccuracy can be told from noise.
TARGET_MARGIN: Final = 20.0
#: The most sampled deals a decision takes when the budget names only a time.
MAX_WORLDS: Final = 256
#: A closed pile's playouts go to the deal's end, several times the cost of an open
#: pile's six turns: its decisions get this many times the time, for the same width.
CLOSED_PILE_TIME: Final = 4.0

#: Why the better action is better, as the sampled deals show it (docs/review.md):
#: it ends the deal by closing; it takes a pozzetto the action played leaves; the action
#: played (a discard) lets the next opponent take the pile far more often; or only the
#: points.
CLOSE: Final = "close"
POZZETTO: Final = "pozzetto"
PILE: Final = "pile"
POINTS: Final = "points"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One action weighed at a decision: its mean outcome (MP, the seat's line against
    the best other line) over the sampled deals."""

    action: str
    mean: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the seat: what it played, the best action found and the cost."""

    #: The action's number in the deal (1 for the deal's first action, as in the record).
    index: int
    #: The deal's turn count when the decision was taken (``Deal.turns``).
    turn: int
    phase: str
    played: str
    best: str
    #: The best candidate's mean minus the played action's (MP); 0 when it is the best.
    cost: float
    #: The standard error of ``cost``, from the differences deal by deal.
    error: float
    #: How many sampled deals every candidate was played in (0: nothing to weigh, the
    #: played action was the only candidate).
    worlds: int
    #: ``inaccuracy``, ``mistake``, ``blunder`` or None.
    tag: str | None
    #: Why the best is better (:data:`CLOSE`, :data:`POZZETTO`, :data:`PILE`, :data:`POINTS`).
    reason: str
    #: For :data:`PILE`: the shares of sampled deals in which the next opponent took the
    #: pile after the played action and after the best one.
    pile_taken: tuple[float, float] = (0.0, 0.0)
    candidates: tuple[Candidate, ...] = ()
    #: Half the width of the cost's 95% interval (Student's t for the sampled deals).
    margin: float = 0.0
    #: The budget ran out before the interval was as narrow as :data:`TARGET_MARGIN`: a
    #: rough figure.
    rough: bool = False
    #: Why the best action is good, in the hint's words (a code of
    #: :data:`burraco.bots.hints.WHY` and its parameters): the hint and the review say it
    #: alike.
    why: str = ""
    why_params: dict[str, str | int] = field(default_factory=dict)

    @property
    def beyond_noise(self) -> bool:
        """Whether the cost's 95% interval lies above zero: the action played lost
        something for sure, not only in the sample's noise."""
        return self.weighed and self.low > 0

    @property
    def low(self) -> float:
        """The low end of the cost's 95% interval."""
        return self.cost - self.margin

    @property
    def high(self) -> float:
        return self.cost + self.margin

    @property
    def weighed(self) -> bool:
        return self.worlds > 0


@dataclass(frozen=True, slots=True)
class DealReview:
    """One seat's decisions in one deal, their summed cost and an accuracy."""

    #: The deal's number in the record (from 1).
    deal: int
    seat: int
    variant: str
    players: int
    decisions: tuple[Decision, ...]
    #: The summed cost (MP) of the seat's decisions (each unbiased, signed: a sum of
    #: noise is near zero), and its standard error (the decisions' variances add).
    cost: float
    error: float
    #: 0-100: the mean of exp(-cost / ACCURACY_SCALE) over the weighed decisions, a cost
    #: within its noise counting as none.
    accuracy: float
    seed: int
    seconds: float | None
    worlds: int | None
    horizon: int | None
    #: How long the review took (seconds).
    elapsed: float = field(default=0.0, compare=False)
    #: Half the width of the summed cost's 95% interval (1.96 standard errors).
    margin: float = 0.0
    #: The decisions whose cost is beyond noise, and those whose figure is rough.
    beyond: int = 0
    rough: int = 0

    def tagged(self, tag: str) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.tag == tag)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealReview:
        try:
            decisions = tuple(
                Decision(
                    **{
                        **d,
                        "pile_taken": tuple(d.get("pile_taken", (0.0, 0.0))),
                        "candidates": tuple(Candidate(**c) for c in d.get("candidates", ())),
                        "why_params": dict(d.get("why_params", {})),
                    }
                )
                for d in data["decisions"]
            )
            return cls(**{**data, "decisions": decisions})
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a deal review: {error}") from error

    @classmethod
    def from_json(cls, text: str) -> DealReview:
        return cls.from_dict(json.loads(text))


def quantile95(worlds: int | None) -> float:
    """The factor of a standard error that makes a 95% interval from ``worlds`` sampled
    deals (Student's t; the normal 1.96 when None).

    >>> quantile95(4), quantile95(11), quantile95(None)
    (3.18, 2.23, 1.96)
    """
    if worlds is None:
        return Z95
    if worlds < 2:
        return math.inf
    factor = math.inf
    for df, t in _T95:
        if worlds - 1 >= df:
            factor = t
    return factor


def tag_of(cost: float, error: float, worlds: int | None = None) -> str | None:
    """The tag a cost earns: the worst whose threshold the low end of its 95% interval
    reaches (a cost within its noise of a threshold does not reach it); ``worlds``, the
    sampled deals it comes from, widens the interval when they are few.

    >>> tag_of(150, 10), tag_of(150, 40), tag_of(30, 1), tag_of(30, 20)
    ('blunder', 'mistake', 'inaccuracy', None)
    >>> tag_of(150, 20, worlds=3), tag_of(150, 20)
    ('mistake', 'blunder')
    """
    low = cost - quantile95(worlds) * error
    for tag, threshold in THRESHOLDS:
        if low >= threshold:
            return tag
    return None


def accuracy_of(decisions: Sequence[Decision]) -> float:
    """0-100: the mean over the weighed decisions of 100·exp(-cost / 100 MP), a cost within
    its noise (its 95% interval reaching zero) counting as none; a decision played as the
    best found scores 100, one that costs a plain burraco's 100 MP beyond noise scores 37.
    100 when nothing was weighed.

    >>> def d(cost, margin):
    ...     return Decision(1, 0, "play", "b", "a", cost, margin / 2, 8, None, "points",
    ...                     margin=margin)
    >>> round(accuracy_of([d(0.0, 0.0), d(100.0, 10.0)]), 1), accuracy_of([d(30.0, 40.0)])
    (68.4, 100.0)
    """
    weighed = [d for d in decisions if d.weighed]
    if not weighed:
        return 100.0
    return (
        100.0
        * sum(math.exp(-d.cost / ACCURACY_SCALE) if d.beyond_noise else 1.0 for d in weighed)
        / len(weighed)
    )


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One candidate played on in one sampled deal."""

    value: float
    closed: bool
    pozzetto: bool
    pile_taken: bool


class _Playout:
    """The expert's playout, valued by the expert's own leaf (:meth:`ExpertBot.leaf`, for
    its horizon of turns: :meth:`ExpertBot.playout_turns`), also noting what the action
    did: it closed the deal, it took a pozzetto, the next opponent took the pile."""

    def __init__(self, expert: ExpertBot) -> None:
        self.expert = expert

    def __call__(self, world: Deal, action: Action, seat: int, thrown: list[set[int]]) -> _Outcome:
        deal = world.clone()
        line = deal.line_of[seat]
        had_pozzetto = bool(deal.has_pozzetto) and deal.has_pozzetto[line]
        deal.apply(action)
        thrown = [set(cards) for cards in thrown]
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
        policy = self.expert.policy  # (the table's: set by the expert's candidates)
        turns = self.expert.playout_turns(deal)
        stop = deal.turns + (1 << 30 if turns is None else turns)
        # What the seat's own turn brings, the action and the greedy rest of the turn:
        # the close, the pozzetto (noted when the turn passes or the deal ends).
        closed = pozzetto = False
        own_turn = True
        pile_taken = False
        first_other = True
        while True:
            if own_turn and (deal.phase == OVER or deal.turn != seat):
                own_turn = False
                closed = deal.phase == OVER and deal.closer >= 0
                closed = closed and deal.line_of[deal.closer] == line
                pozzetto = bool(deal.has_pozzetto) and deal.has_pozzetto[line] and not had_pozzetto
            if deal.phase == OVER or deal.turns >= stop:
                break
            chosen = policy.playout(deal, thrown)
            if first_other and deal.turn != seat:
                # The next seat's first action: does it take the pile the seat left?
                pile_taken = chosen.kind == TAKE and deal.line_of[deal.turn] != line
                first_other = False
            if chosen.kind == DISCARD:
                thrown[deal.turn].add(chosen.cards[0])
            deal._perform(chosen)
        if own_turn:
            closed = deal.phase == OVER and deal.closer >= 0 and deal.line_of[deal.closer] == line
            pozzetto = bool(deal.has_pozzetto) and deal.has_pozzetto[line] and not had_pozzetto
        return _Outcome(float(self.expert.leaf(deal, seat)), closed, pozzetto, pile_taken)


@dataclass(frozen=True, slots=True)
class Split:
    """An unbiased cost from a split sample (cross-fitting): the best candidate chosen on
    the even sampled deals is measured against ``played`` on the odd ones, the best of the
    odd ones on the even ones, and the two measures averaged. A candidate is never both
    chosen and measured on the same sampled deals, so the luck that made it look best
    does not count in its cost (the winner's curse)."""

    #: The mean difference, MP (the chosen candidate's outcome minus the played one's).
    cost: float
    #: Its standard error (the halves' variances of the mean, averaged: they are
    #: independent given the choices).
    error: float
    #: The sampled deals of the smaller half (Student's t for the interval).
    worlds: int

    @property
    def margin(self) -> float:
        return quantile95(self.worlds) * self.error


def split_cost(values: Sequence[Sequence[float]], played: int) -> Split:
    """The cross-fitted cost of candidate ``played`` from ``values[world][candidate]``.

    >>> split_cost([[0, 10], [0, 12], [0, 8], [0, 10]], 0)
    Split(cost=10.0, error=0.7071067811865476, worlds=2)
    >>> split_cost([[5, 0, 0], [0, 5, 0], [5, 0, 0], [0, 5, 0]], 2).cost   # noise alone
    0.0
    """
    halves = (values[0::2], values[1::2])
    costs: list[float] = []
    variances: list[float] = []
    for choose, measure in (halves, halves[::-1]):
        k = len(choose[0])
        means = [sum(w[j] for w in choose) for j in range(k)]
        # A tie keeps the action played: nothing to tell them apart.
        best = max(range(k), key=lambda j: (means[j], j == played))
        diffs = [w[best] - w[played] for w in measure]
        n = len(diffs)
        mean = sum(diffs) / n
        costs.append(mean)
        variances.append(sum((x - mean) ** 2 for x in diffs) / (n - 1) / n if n > 1 else 0.0)
    return Split(
        (costs[0] + costs[1]) / 2,
        math.sqrt(variances[0] + variances[1]) / 2,
        min(len(halves[0]), len(halves[1])),
    )


@dataclass(frozen=True, slots=True)
class Weighing:
    """The candidates of a decision (the one measured first) and their outcomes on each
    sampled deal, as the review and the hint weigh them (:func:`weigh`)."""

    options: tuple[Action, ...]
    outcomes: tuple[tuple[_Outcome, ...], ...]
    #: The budget ran out before the measured candidate's interval reached the target.
    rough: bool

    def values(self) -> list[list[float]]:
        return [[o.value for o in world] for world in self.outcomes]

    def means(self) -> list[float]:
        n = len(self.outcomes)
        return [sum(w[k].value for w in self.outcomes) / n for k in range(len(self.options))]

    def best(self) -> int:
        """The candidate of the best mean over every sampled deal (a tie keeps the first,
        the action played)."""
        means = self.means()
        return max(range(len(self.options)), key=lambda k: (means[k], k == 0))


def sampler(view: DealView, seed: int, purpose: str = "review") -> random.Random:
    """The random source of a decision's sampled deals, from the seed, the seat's public
    position and the purpose (``"review"`` or ``"hint"``). The hint and the review of its
    decision sample different deals on purpose: an action chosen as the best of the very
    deals that measure it looks better there than it is, and the review would credit a
    hint's follower with points it did not win (-9 MP a decision, measured)."""
    key = f"{purpose}|{seed}|{view.seat}|{view.turns}|{len(view.history)}|{view.hand}"
    return random.Random(zlib.crc32(key.encode()))


def weigh(
    view: DealView,
    legal: Sequence[Action],
    played: Action | None,
    rng: random.Random,
    *,
    seconds: float | None,
    worlds: int | None,
    horizon: int | None = 6,
    width: float = TARGET_MARGIN,
) -> Weighing:
    """The one judge of a decision, for the review and the hint alike: the expert's wide
    list of candidates (``played`` first, else the greedy player's choice), each played on
    in the same sampled deals with the expert's playouts and valued by its leaf.

    Sampled deals are added two at a time (one to each half of the split) until the
    cross-fitted cost of every candidate has a 95% interval no wider than ``width`` (a
    rule that does not depend on which candidate was played), or ``worlds`` are sampled,
    or the time is spent (``seconds``; a closed pile's playouts go to the deal's end and
    get :data:`CLOSED_PILE_TIME` times as long). A decision stopped by its budget before
    the width is ``rough``.
    """
    expert = reviewer(horizon)
    options: list[Action] = [] if played is None else [played]
    for a in expert.candidates(view, legal):
        if a not in options:
            options.append(a)
    if len(options) == 1:
        return Weighing(tuple(options), (), False)
    assert view.rules is not None
    playout = _Playout(expert)
    seat = view.seat
    thrown = discarded_by(view)
    cap = worlds if worlds is not None else MAX_WORLDS
    limit = None
    if seconds is not None:
        limit = seconds * (1.0 if view.rules.pile_open else CLOSED_PILE_TIME)
    least = min(MIN_WORLDS, cap)
    outcomes: list[tuple[_Outcome, ...]] = []
    rough = False
    start = time.perf_counter()
    # As in the expert's search: the playouts make no cycles, the cyclic collector waits
    # until the decision is weighed.
    collecting = gc.isenabled()
    gc.disable()
    try:
        while len(outcomes) < cap:
            n = len(outcomes)
            if n >= least and n % 2 == 0:
                if _widest(outcomes, len(options)) <= width:
                    break
                if limit is not None:
                    now = time.perf_counter()
                    if now + 2 * (now - start) / n > start + limit:
                        rough = True
                        break
            world = Deal.resample(view, rng)
            outcomes.append(tuple(playout(world, a, seat, thrown) for a in options))
        else:
            rough = _widest(outcomes, len(options)) > width
    finally:
        if collecting:
            gc.enable()
    return Weighing(tuple(options), tuple(outcomes), rough)


def _widest(outcomes: Sequence[Sequence[_Outcome]], candidates: int) -> float:
    """The widest half-interval of the candidates' split costs (each half's best is chosen
    once: asked after every second sampled deal, this must stay cheap beside a playout).

    >>> o = [[_Outcome(v, False, False, False) for v in w] for w in ([0, 9], [0, 11]) * 2]
    >>> _widest(o, 2) == max(split_cost([[0, 9], [0, 11]] * 2, k).margin for k in (0, 1))
    True
    """
    values = [[o.value for o in w] for w in outcomes]
    halves = (values[0::2], values[1::2])
    chosen = []
    for half in halves:
        means = [sum(w[j] for w in half) for j in range(candidates)]
        chosen.append(max(range(candidates), key=lambda j: means[j]))
    widest = 0.0
    for k in range(candidates):
        variance = 0.0
        for best, measure in zip(chosen, halves[::-1], strict=True):
            if best == k:
                continue
            diffs = [w[best] - w[k] for w in measure]
            n = len(diffs)
            mean = sum(diffs) / n
            variance += sum((x - mean) ** 2 for x in diffs) / (n - 1) / n if n > 1 else 0.0
        widest = max(widest, quantile95(len(halves[1])) * math.sqrt(variance) / 2)
    return widest


def _decision(index: int, view: DealView, played: Action, weighing: Weighing) -> Decision:
    from burraco.bots.hints import why_of

    options, outcomes = weighing.options, weighing.outcomes
    if not outcomes:
        why, params = why_of(view, played)
        return Decision(
            index,
            view.turns,
            view.phase,
            str(played),
            str(played),
            0.0,
            0.0,
            0,
            None,
            POINTS,
            why=why,
            why_params=params,
        )
    n = len(outcomes)
    means = weighing.means()
    best = weighing.best()
    candidates = tuple(
        sorted(
            (Candidate(str(a), round(m, 2)) for a, m in zip(options, means, strict=True)),
            key=lambda c: -c.mean,
        )
    )
    split = split_cost(weighing.values(), 0)

    def share(k: int, what: Callable[[_Outcome], bool]) -> float:
        return sum(1 for o in outcomes if what(o[k])) / n

    pile = (share(0, lambda o: o.pile_taken), share(best, lambda o: o.pile_taken))
    if best == 0:
        reason = POINTS
    elif share(best, lambda o: o.closed) > 0.5 and share(0, lambda o: o.closed) < 0.5:
        reason = CLOSE
    elif share(best, lambda o: o.pozzetto) > 0.5 and share(0, lambda o: o.pozzetto) < 0.5:
        reason = POZZETTO
    elif played.kind == DISCARD and pile[0] >= pile[1] + 0.25:
        reason = PILE
    else:
        reason = POINTS
    why, params = why_of(view, options[best])
    return Decision(
        index,
        view.turns,
        view.phase,
        str(played),
        str(options[best]),
        round(split.cost, 2),
        round(split.error, 2),
        n,
        tag_of(split.cost, split.error, split.worlds),
        reason,
        (round(pile[0], 3), round(pile[1], 3)),
        candidates,
        round(split.margin, 2),
        weighing.rough,
        why,
        params,
    )


def review_position(
    deal: Deal,
    played: Action | str,
    *,
    seconds: float | None = 0.5,
    worlds: int | None = None,
    seed: int = 0,
    horizon: int | None = 6,
    index: int = 1,
) -> Decision:
    """The review of one decision: ``played`` by the seat on turn of ``deal``, weighed from
    that seat's view only (the deal's hidden cards are never read: the view is all the
    review takes from it). ``index`` numbers the decision (and seeds its sampler).

    >>> from burraco import compose, variant
    >>> deal = compose(variant("italian"), ["3H 4H 5H 7S 7S 7C JK 9D 9D KC QC"], turn=0)
    >>> review_position(deal, "draw", worlds=8).played
    'draw'
    """
    action = Action.parse(played) if isinstance(played, str) else played
    if deal.is_over:
        raise ValueError("the deal is over: no decision to review")
    legal = deal.legal_actions()
    if action not in legal:
        raise ValueError(f"{action} is not legal here: only a legal action is reviewed")
    view = deal.view(deal.turn)
    return _review_view(view, legal, action, index, seconds, worlds, seed, horizon, 0)


def _review_view(
    view: DealView,
    legal: Sequence[Action],
    played: Action,
    index: int,
    seconds: float | None,
    worlds: int | None,
    seed: int,
    horizon: int | None,
    deal_number: int,
) -> Decision:
    """Weigh one decision from the seat's view and the legal actions (which the seat on
    turn knows: they follow from its hand and the table)."""
    _check_budget(seconds, worlds)
    rng = sampler(view, seed)
    if len(legal) < 2:
        return _decision(index, view, played, Weighing((played,), (), False))
    weighing = weigh(view, legal, played, rng, seconds=seconds, worlds=worlds, horizon=horizon)
    return _decision(index, view, played, weighing)


def reviewer(horizon: int | None = 6) -> ExpertBot:
    """The expert whose eyes a review weighs with: its playouts, its leaf value (the hands
    left out at the cutoff, a deal played out scored as it scores) and ``horizon``, but a
    wide list of candidates (:data:`REVIEW_DISCARDS`, :data:`REVIEW_LAYS`)."""
    return ExpertBot(horizon=horizon, discards=REVIEW_DISCARDS, lays=REVIEW_LAYS)


def _check_budget(seconds: float | None, worlds: int | None) -> None:
    if seconds is None and worlds is None:
        raise ValueError("a review needs a budget: seconds or worlds a decision")
    if worlds is not None and worlds < LEAST_WORLDS:
        raise ValueError(
            f"a review needs at least {LEAST_WORLDS} sampled deals a decision (two to choose"
            f" the best on, two to measure its cost on), not {worlds}"
        )
    if seconds is not None and seconds <= 0:
        raise ValueError(f"the time a decision must be positive, not {seconds}")


def _deal_before(record: MatchRecord, deal: int) -> Match:
    """The match replayed up to the first action of its deal number ``deal`` (from 1)."""
    if not 1 <= deal <= len(record.deals):
        raise ValueError(f"the record has {len(record.deals)} deals; there is no deal {deal}")
    match = Match(
        record.rules(),
        record.seed,
        first_dealer=record.first_dealer,
        deck_orders=[d.deck for d in record.deals],
        knockout=record.knockout,
    )
    for number, d in enumerate(record.deals[: deal - 1], 1):
        for k, recorded in enumerate(d.actions, 1):
            _act(match, recorded.seat, recorded.action, f"deal {number}, action {k}")
    return match


def _act(match: Match, seat: int | None, action: Action, where: str) -> None:
    try:
        if seat is None:
            match.call_time_out()
        else:
            if seat != match.deal.turn:
                raise RuleError(f"it is seat {match.deal.turn}'s turn, not seat {seat}'s")
            match.apply(action)
    except RuleError as error:
        raise ReplayError(0, f"{where} ({action}) cannot be replayed: {error}") from error


def review_decisions(
    record: MatchRecord,
    deal: int,
    seat: int,
    *,
    seconds: float | None = 0.5,
    worlds: int | None = None,
    seed: int = 0,
    horizon: int | None = 6,
) -> Iterator[tuple[int, int, Decision]]:
    """Each decision of ``seat`` in deal number ``deal`` (from 1), weighed as it comes:
    yields (decisions so far, the deal's actions of the seat with a choice, the decision).

    ``seconds`` bounds the sampling of one decision, ``worlds`` the number of sampled
    deals (the first reached; at least one is needed). Raise ValueError for a deal or seat
    the record lacks or a deal not finished, and :class:`ReplayError` for a record whose
    actions cannot be replayed.
    """
    _check_budget(seconds, worlds)
    if not 0 <= seat < record.players:
        raise ValueError(f"no seat {seat} at a table of {record.players}")
    match = _deal_before(record, deal)
    d = record.deals[deal - 1]
    if not d.is_over:
        raise ValueError(f"deal {deal} is not finished: only a finished deal is reviewed")
    if len(match.deals) < deal:
        raise ReplayError(d.line, f"the match is over before deal {deal}")
    state = match.deals[deal - 1]
    # Count the seat's decisions first (a replay of the public actions), for progress.
    total = _choices(state.clone(), d.actions, seat)
    done = 0
    for k, recorded in enumerate(d.actions, 1):
        if recorded.seat == seat and not state.is_over:
            legal = state.legal_actions()
            if len(legal) > 1:
                if recorded.action not in legal:
                    raise ReplayError(
                        recorded.line, f"deal {deal}, action {k} ({recorded}) is illegal"
                    )
                view = state.view(seat)
                decision = _review_view(
                    view, legal, recorded.action, k, seconds, worlds, seed, horizon, deal
                )
                done += 1
                yield done, total, decision
        _act(match, recorded.seat, recorded.action, f"deal {deal}, action {k}")


def _choices(deal: Deal, actions: Sequence[Any], seat: int) -> int:
    count = 0
    for recorded in actions:
        if deal.is_over:
            break
        if recorded.seat is None:
            deal.call_time_out()
            continue
        if recorded.seat == seat and len(deal.legal_actions()) > 1:
            count += 1
        try:
            deal.apply(recorded.action)
        except RuleError:
            break
    return count


def review_deal(
    record: MatchRecord,
    deal: int,
    seat: int,
    *,
    seconds: float | None = 0.5,
    worlds: int | None = None,
    seed: int = 0,
    horizon: int | None = 6,
    progress: Callable[[int, int], None] | None = None,
) -> DealReview:
    """The review of ``seat``'s decisions in deal number ``deal`` (from 1) of ``record``.

    ``progress(done, total)`` is called after each decision. See :func:`review_decisions`
    for the budget and the errors.
    """
    start = time.perf_counter()
    decisions = []
    for done, total, decision in review_decisions(
        record, deal, seat, seconds=seconds, worlds=worlds, seed=seed, horizon=horizon
    ):
        decisions.append(decision)
        if progress is not None:
            progress(done, total)
    # Each decision's cost is unbiased (split_cost), signed: a sum of costs within noise
    # stays near zero instead of growing with every decision. The decisions' samples are
    # independent: their variances add.
    cost = sum(d.cost for d in decisions)
    error = math.sqrt(sum(d.error**2 for d in decisions))
    rules = record.rules()
    return DealReview(
        deal=deal,
        seat=seat,
        variant=rules.name,
        players=rules.players,
        decisions=tuple(decisions),
        cost=round(cost, 2),
        error=round(error, 2),
        accuracy=round(accuracy_of(decisions), 1),
        seed=seed,
        seconds=seconds,
        worlds=worlds,
        horizon=horizon,
        elapsed=round(time.perf_counter() - start, 3),
        margin=round(Z95 * error, 2),
        beyond=sum(1 for d in decisions if d.beyond_noise),
        rough=sum(1 for d in decisions if d.rough),
    )


def explain(decision: Decision) -> str:
    """The reason of a decision's cost in English words, the better action said as the
    hint says it (:data:`burraco.bots.hints.WHY`); the room says it in each player's
    language from the same fields.

    >>> explain(Decision(3, 2, "play", "discard 7H", "discard KS", 140.0, 12.0, 64,
    ...                  "blunder", "pile", (0.8, 0.1), margin=24.0, why="discard_safe",
    ...                  why_params={"card": "KS"}))
    'better: discard KS: no opponent meld can take it. After discard 7H the next opponent took the pile in 80% of the sampled deals (10% after discard KS); about 140 MP lost (± 24).'
    >>> explain(Decision(4, 2, "play", "discard 7H", "discard KS", 12.0, 10.0, 64, None,
    ...                  "points", margin=20.0))
    'discard KS scored higher over 64 sampled deals, within noise: 12 MP (± 20), nothing lost for sure.'
    """
    from burraco.bots.hints import WHY

    rough = " (rough: its budget ran out early)" if decision.rough else ""
    if decision.best == decision.played:
        return f"{decision.played} was the best action found{rough}."
    if not decision.beyond_noise:
        return (
            f"{decision.best} scored higher over {decision.worlds} sampled deals, within noise:"
            f" {decision.cost:.0f} MP (± {decision.margin:.0f}), nothing lost for sure{rough}."
        )
    lost = f"about {decision.cost:.0f} MP lost (± {decision.margin:.0f}){rough}"
    said = decision.best
    if decision.why in WHY:
        said = WHY[decision.why].format(**decision.why_params)
    better = f"better: {said}."
    if decision.reason == CLOSE:
        return f"{better} It closes the deal; {lost}."
    if decision.reason == POZZETTO:
        return f"{better} It takes the pozzetto now; {lost}."
    if decision.reason == PILE:
        after, best = decision.pile_taken
        return (
            f"{better} After {decision.played} the next opponent took the pile in "
            f"{after:.0%} of the sampled deals ({best:.0%} after {decision.best}); {lost}."
        )
    return f"{better} Over {decision.worlds} sampled deals; {lost}."
