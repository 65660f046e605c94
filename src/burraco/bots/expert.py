"""A search bot for hidden information: determinized rollouts with the greedy player.

At each decision that matters (draw or take, which card to discard, whether
to lay down more or discard now) the expert deals the cards it cannot see at random, many
times, consistently with what it knows (:meth:`Deal.resample`: the cards taken
from the pile stay in the hands that took them, every hand keeps its size), and
plays each candidate action on with :class:`GreedyBot` in every seat, to the
end of the deal (scored as the deal scores it) or for a horizon of turns, where a
leaf value stands for the outcome: the melded cards and bonuses and the pozzetto not
yet taken, with the cards still in hand not counted (they are mostly melded later). The candidate with the best mean score difference for its line
wins. All candidates are weighed on the same sampled deals, so the luck of the
sample cancels between them; a candidate clearly beaten on the deals so far drops out
of the race and leaves its share of the budget to the others.

A playout is a simulation inside the expert's own sampled deal, so the greedy player
reads that deal in place (:meth:`GreedyBot.playout`: the hand on turn and the table,
what the seat's view would hold, with no frozen view built), lists only the actions it
would play, and the deal performs them without checking them again; its choices are the
greedy player's own.

Its budget is a time per decision (1 second by default) or a number of sampled
deals; its choices depend only on its view and its seed.
"""

from __future__ import annotations

import gc
import random
import zlib
from collections.abc import Sequence
from operator import mul
from typing import Literal

from burraco.actions import DISCARD, Action
from burraco.bots.greedy import GreedyBot, discarded_by
from burraco.bots.search import Budget, pimc
from burraco.bots.weights import HAND_SET, GreedyWeights, expert_weights
from burraco.cards import KINDS
from burraco.deal import OVER, Deal
from burraco.melds import Meld, meld_bonus, meld_points
from burraco.variants import PerVariant, Variant
from burraco.view import DealView

__all__ = ["ExpertBot", "line_totals"]

#: Each meld's points and bonus, by the meld object (held, so its id is not reused).
_WORTH: dict[int, tuple[Meld, int]] = {}
_WORTH_LIMIT = 1 << 15
#: Each variant's points per card kind.
_KIND_VALUES: PerVariant[tuple[int, ...]] = PerVariant(
    lambda v: tuple(v.value(c) for c in range(KINDS))
)


class ExpertBot:
    """Determinized search with greedy rollouts, within a budget.

    ``seconds`` bounds the time of one decision; ``worlds`` bounds the number of
    sampled deals instead (reproducible whatever the machine's speed). ``discards`` and
    ``lays`` are how many of the greedy player's best discards and lay-downs it searches
    (four and two: fewer lost at every table of two, docs/research.md, "A stronger
    expert"). ``horizon`` is
    the number of turns a playout plays (None: to the end of the deal; with a closed
    pile, always to the end). With ``race``
    (standard errors), a candidate clearly beaten by the leader on the worlds so far is
    dropped and the rest of the budget goes to the others (see :func:`pimc`); None plays
    every candidate in every world. ``weights`` are the greedy player's, in its playouts
    and in choosing its candidates (by default ``"table"``: the hand-set ones but where
    :func:`~burraco.bots.weights.expert_weights` names others; None: the greedy level's for
    the table, :func:`~burraco.bots.weights.level_weights`); ``ranking``, the weights
    that choose the candidates alone (those of the playouts by default). With ``prior``
    (standard errors), the ranking's own choice stands unless the search beats it clearly
    (:func:`pimc`).

    A playout cut at the horizon is valued by its leaf (:func:`line_totals`): the melds and
    bonuses as they stand, the points still in hand times ``hand_weight`` (0 by default: cards
    held mid-deal are mostly melded later; counted in full, they made the expert shun the pile
    and dump points: docs/research.md, "A stronger expert") and each meld one card short of a
    burraco worth ``near`` times the least bonus. A playout that reaches the end of the deal
    counts as the deal scores.
    """

    def __init__(
        self,
        seconds: float = 1.0,
        worlds: int | None = None,
        seed: int = 0,
        discards: int = 4,
        lays: int = 2,
        horizon: int | None = 6,
        race: float | None = 2.5,
        weights: GreedyWeights | Literal["table"] | None = "table",
        hand_weight: float = 0.0,
        near: float = 0.0,
        ranking: GreedyWeights | Literal["playouts"] | None = "playouts",
        prior: float | None = None,
    ) -> None:
        self.seconds = seconds
        self.worlds = worlds
        self.horizon = horizon
        self.race = race
        self.seed = seed
        self.discards = discards
        self.lays = lays
        self.hand_weight = hand_weight
        self.near = near
        self.prior = prior
        self.weights = weights
        self.ranking = ranking
        #: The greedy player of the playouts (for the table of the last decision).
        self.policy = GreedyBot(weights=HAND_SET if weights == "table" else weights)
        #: The greedy player that lists and ranks the candidates.
        self.ranker = self.policy if ranking == "playouts" else GreedyBot(weights=ranking)
        self.last_values: dict[Action, float] = {}

    def for_table(self, v: Variant) -> None:
        """Set the greedy players for the table of ``v``, when the weights follow the table
        (:func:`~burraco.bots.weights.expert_weights`)."""
        if self.weights != "table":
            return
        weights = expert_weights(v)
        if self.policy.weights is not weights:
            self.policy = GreedyBot(weights=weights)
            if self.ranking == "playouts":
                self.ranker = self.policy

    def candidates(self, view: DealView, legal: Sequence[Action]) -> list[Action]:
        """The actions worth a search, the greedy player's choice first: draw or take; at
        the discard, greedy's best discards and lay-downs. Other lay-downs follow the greedy
        player."""
        assert view.rules is not None
        self.for_table(view.rules)
        first = self.ranker.choose(view, legal)
        if view.phase == "draw":
            # Every way to draw, the greedy player's first (the choice a prior keeps).
            return [first, *(a for a in legal if a != first)]
        if first.kind != DISCARD:
            return [first]
        ranked = self.ranker.ranked(view, legal)
        chosen = [first]
        discards = [a for a in ranked if a.kind == DISCARD][: self.discards]
        lays = [a for a in ranked if a.kind != DISCARD][: self.lays]
        for a in (*lays, *discards):
            if a not in chosen:
                chosen.append(a)
        return chosen

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        options = self.candidates(view, legal)
        if len(options) == 1:
            return options[0]
        # The seed and the public position fix the sampled deals: same view, same choice.
        key = f"{self.seed}|{view.seat}|{len(view.history)}|{view.hand}".encode()
        rng = random.Random(zlib.crc32(key))
        budget = Budget(worlds=self.worlds) if self.worlds else Budget(seconds=self.seconds)
        seat = view.seat
        # Each seat's discards so far: the same in every sampled deal, read once.
        thrown = discarded_by(view)
        # The playouts make no reference cycles, so the cyclic collector waits until the
        # search is over: its full passes walk every object the engine's and the memos'
        # tables hold, a pause that would eat into the time of the decision.
        collecting = gc.isenabled()
        gc.disable()
        try:
            best, self.last_values = pimc(
                options,
                sample=lambda r: Deal.resample(view, r),
                value=lambda world, action: self._rollout(world, action, seat, thrown),
                rng=rng,
                budget=budget,
                race=self.race,
                prior=self.prior,
            )
        finally:
            if collecting:
                gc.enable()
        return best

    def _rollout(self, world: Deal, action: Action, seat: int, thrown: list[set[int]]) -> float:
        deal = world.clone()
        deal.apply(action)
        thrown = [set(cards) for cards in thrown]
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
        self.policy.play_on(deal, thrown, self.playout_turns(deal))
        return self.leaf(deal, seat)

    def playout_turns(self, deal: Deal) -> int | None:
        """How many turns a playout from ``deal`` plays: the horizon, or to the end of the
        deal (None) with a closed pile."""
        if not deal.v.pile_open:
            # A closed pile (buraco fechado, STBL): the cards under its top are dealt at
            # random in each sampled deal, and a short playout counts the many a take
            # brings as points in hand, not as the melds they grow: with 6 turns the expert
            # left the pile to the greedy player (-65 MP a deal at buraco-fechado for two,
            # [-145, +14]; played to the end, +102 [-38, +241] on 30 boards).
            return None
        return self.horizon

    def leaf(self, deal: Deal, seat: int) -> float:
        """The value of a playout's last position for ``seat``: its line's total minus the
        best other line's, the deal's own score when it is over, else the leaf value
        (:func:`line_totals` with ``hand_weight`` and ``near``)."""
        if deal.phase == OVER:
            totals = line_totals(deal)
        else:
            totals = line_totals(deal, self.hand_weight, self.near)
        mine = totals.pop(deal.line_of[seat])
        return mine - (max(totals.values()) if totals else 0)


def line_totals(deal: Deal, hand_weight: float = 1.0, near: float = 0.0) -> dict[int, float]:
    """Each line's provisional total, as :meth:`Deal.score` counts it (``LineScore.total``),
    without building the score's breakdown: the end of every playout asks for it.
    ``hand_weight`` scales the points still in hand (a cutoff's leaf value: cards in hand
    mid-deal are mostly melded later, not lost)."""
    v = deal.v
    points_of = _KIND_VALUES.of(v)
    line_of = deal.line_of
    worth = _WORTH
    totals: dict[int, float] = {}
    near_size = v.burraco_length - 1
    near_bonus = near * v.dirty_bonus
    for line in sorted(set(line_of)):
        total: float = 0
        for m in deal.melds[line]:
            known = worth.get(id(m))
            if known is None or known[0] is not m:
                if len(worth) >= _WORTH_LIMIT:
                    worth.clear()
                known = worth[id(m)] = (m, meld_points(m, v) + meld_bonus(m, v))
            total += known[1]
            if near and len(m.cards) == near_size:
                total += near_bonus
        untaken = v.pozzetti and not deal.has_pozzetto[line]
        # A morto taken by a discard and unused when the deal ends counts as never taken
        # (scoring.py, docs/brazil.md).
        unused = (
            v.unused_morto_untaken
            and deal.end_reason is not None
            and not (deal.went_out and line_of[deal.closer] == line)
        )
        for seat in range(v.players):
            if line_of[seat] != line:
                continue
            hand = deal.hands[seat]
            points = sum(map(mul, hand, points_of))
            pending = deal.pending_pozzetto[seat]
            if pending is not None and unused:
                untaken = True
            elif pending is not None:
                points += sum(points_of[c] for c in pending)
            if v.double_unmelded_hand and not deal._melded_seat[seat]:
                points *= 2
            total -= points * hand_weight
        if deal.closer >= 0 and line_of[deal.closer] == line:
            total += v.closing_bonus
        if untaken:
            total -= v.no_pozzetto_penalty
        total += deal.relancinhos[line] * v.relancinho_bonus
        if v.red_threes:
            total += deal.red_threes[line] * v.red_three_bonus
        totals[line] = total
    return totals
