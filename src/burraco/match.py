"""A match: deals one after another until a number of deals or a points target.

The first dealer is drawn at random; the deal then passes to the next player in
turn order. A match of a number of deals is won by the highest total (level is
a draw); a match to a target ends after the deal in which a line reaches it,
and the highest total wins (level at the top: another deal). In knock-out play
a tie is lost by the line that made the last move of the last deal (002).

The 3-player game (000) plays with pozzetti of 18 and 11 and partnerships that
form during the deal until all three players have 1000 points, then with three
pozzetti of 11; the 5-player game likewise until someone reaches 1005.
Buraco lines at half the target or more are vulnerable (001).

>>> from burraco import variant
>>> m = Match(variant("italian", deals=1), seed=3)
>>> m.is_over, len(m.deals)
(False, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from burraco.actions import Action
from burraco.deal import Deal
from burraco.errors import IllegalMove, RuleError
from burraco.refusals import Refusal
from burraco.scoring import DealScore
from burraco.variants import Variant
from burraco.view import DealView
from burraco.vp import Abandonment, abandonment, knockout_winner, victory_points

__all__ = ["Match"]

_MATCH_OVER: Final = Refusal("match_over")


class Match:
    """A whole match of a variant; ``legal_actions``, ``apply`` and ``view`` act on the
    deal in play, and a new deal starts by itself when one ends."""

    def __init__(
        self,
        v: Variant,
        seed: int | None = None,
        *,
        first_dealer: int | None = None,
        deck_orders: Sequence[Sequence[int]] | None = None,
        knockout: bool = False,
    ) -> None:
        self.v = v
        self.seed = seed
        self._rng = random.Random(seed)
        self.knockout = knockout
        self._deck_orders = [list(o) for o in deck_orders] if deck_orders else None
        self.first_dealer = (
            first_dealer if first_dealer is not None else self._rng.randrange(v.players)
        )
        self.totals = [0] * v.lines
        self.scores: list[DealScore] = []
        self.deals: list[Deal] = []
        self.phase = 1
        self.raised = [False] * v.lines
        self.abandoned: Abandonment | None = None
        self.abandoned_by = -1
        self._start_deal()

    # --- the deal in play -----------------------------------------------------------------

    @property
    def deal(self) -> Deal:
        return self.deals[-1]

    @property
    def is_over(self) -> bool:
        return self._over

    def legal_actions(self) -> list[Action]:
        return [] if self._over else self.deal.legal_actions()

    def is_legal(self, action: Action) -> bool:
        return not self._over and self.deal.is_legal(action)

    def check(self, action: Action) -> None:
        if self._over:
            raise IllegalMove(_MATCH_OVER, str(action))
        self.deal.check(action)

    def apply(self, action: Action | str) -> None:
        """Apply an action to the deal in play; when the deal ends, score it and deal again."""
        if self._over:
            raise IllegalMove(_MATCH_OVER, str(action))
        deal = self.deal
        deal.apply(action)
        if deal.is_over:
            self._finish_deal()

    def call_time_out(self) -> None:
        self.deal.call_time_out()

    def view(self, seat: int) -> DealView:
        return self.deal.view(seat)

    @property
    def turn(self) -> int:
        return self.deal.turn

    def score(self) -> tuple[int, ...]:
        """The match totals, per line (per player in the 3- and 5-player games)."""
        return tuple(self.totals)

    # --- deals ----------------------------------------------------------------------------

    def _start_deal(self) -> None:
        v = self.v
        dealer = (self.first_dealer + len(self.deals)) % v.players
        minimum = [0] * v.lines
        if v.vulnerable_at:
            for line, total in enumerate(self.totals):
                if self.raised[line]:
                    minimum[line] = v.vulnerable_penalty_minimum
                elif total >= v.vulnerable_at:
                    minimum[line] = v.vulnerable_minimum
        index = len(self.deals)
        if self._deck_orders is not None:
            if index >= len(self._deck_orders):
                raise RuleError(f"the match needs a deck order for deal {index + 1}")
            deal = Deal.from_deck(
                v, self._deck_orders[index], dealer=dealer, phase=self.phase, minimum=minimum
            )
        else:
            seed = self._rng.getrandbits(63)
            deal = Deal.new(v, seed, dealer=dealer, phase=self.phase, minimum=minimum)
        self.deals.append(deal)
        self._over = False

    def _finish_deal(self) -> None:
        v = self.v
        score = self.deal.score()
        self.scores.append(score)
        for line, points in enumerate(score.points):
            self.totals[line] += points
        for line, raised in enumerate(self.deal.minimum_raised):
            if raised:
                self.raised[line] = True
        if v.players in (3, 5) and self.phase == 1:
            if v.players == 3 and all(t >= v.phase_limit for t in self.totals):
                self.phase = 2
            if v.players == 5 and any(t >= v.phase_limit for t in self.totals):
                self.phase = 2
        # Only read from now on: kept without the collector's watch over its lists.
        self.deal.settle()
        if self._ends_now():
            self._over = True
            return
        self._start_deal()

    def _ends_now(self) -> bool:
        v = self.v
        top = max(self.totals)
        leaders = self.totals.count(top)
        if v.deals is not None and len(self.scores) >= v.deals:
            return True
        if v.target is not None and top >= v.target:
            return leaders == 1 or self.knockout
        return False

    # --- results --------------------------------------------------------------------------

    def winner(self) -> int | None:
        """The winning line (player in the 3- and 5-player games), or None for a draw."""
        if not self._over:
            return None
        if self.abandoned is not None:
            return 1 - self.v.line_of[self.abandoned_by] if self.v.lines == 2 else None
        top = max(self.totals)
        leaders = [i for i, t in enumerate(self.totals) if t == top]
        if len(leaders) == 1:
            return leaders[0]
        if self.knockout and self.v.lines == 2:
            last_mover = self.deals[-1].turn
            return knockout_winner(self.totals[0], self.totals[1], self.v.line_of[last_mover])
        return None

    def victory_points(self) -> tuple[int, int]:
        """VP of the two lines by the variant's table (the abandonment rule after an abandon)."""
        if self.v.lines != 2:
            raise RuleError("victory points are for two lines")
        if self.abandoned is not None:
            leaver = self.v.line_of[self.abandoned_by]
            a = self.abandoned
            return (a.leaver_vp, a.other_vp) if leaver == 0 else (a.other_vp, a.leaver_vp)
        return victory_points(self.totals[0] - self.totals[1], table=self.v.vp_table)

    def abandon(self, seat: int) -> Abandonment:
        """The seat abandons or runs out of time (002): the match ends, lost by its line."""
        if self._over:
            raise IllegalMove(_MATCH_OVER, "abandon")
        if self.v.lines != 2:
            raise RuleError("the abandonment rule is for two lines")
        leaver = self.v.line_of[seat]
        result = abandonment(
            self.totals[leaver],
            self.totals[1 - leaver],
            penalty=self.v.abandon_penalty,
            table=self.v.vp_table,
        )
        self.abandoned = result
        self.abandoned_by = seat
        self._over = True
        return result

    _over: bool
