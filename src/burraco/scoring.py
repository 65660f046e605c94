"""Scoring a deal: each line's points with their breakdown.

A line scores the values of all its melded cards, minus the values of the cards
left in its players' hands (a pozzetto taken and not yet played counts as
hand), plus each burraco's bonus, plus the closing bonus, minus 100 if it never
took its pozzetto (000, 002). Brazil's rooms count a morto taken by a discard, whose
taker's turn has not come again when the deal ends, as never taken (docs/brazil.md). Buraco adds Relancinho and the batida; canasta
adds red 3s and doubles the hand of a player who never melded.

In the 3- and 5-player games a pair formed during the deal scores together,
and each partner gets half of the pair's total, rounded down to a multiple of 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from burraco.melds import grade_of, meld_bonus, meld_points
from burraco.variants import Variant

if TYPE_CHECKING:
    from burraco.deal import Deal

__all__ = ["DealScore", "LineScore", "card_points", "score_deal"]


@dataclass(frozen=True, slots=True)
class LineScore:
    """One line's score for a deal, with its parts."""

    line: int
    seats: tuple[int, ...]
    #: The values of the line's melded cards.
    melded: int
    #: Minus the values of the cards left in hand (and of a pozzetto not yet played).
    in_hand: int
    #: Each burraco (canastra, canasta) bonus, as (grade, bonus).
    burracos: tuple[tuple[str, int], ...]
    closing: int
    pozzetto_penalty: int
    relancinho: int
    red_threes: int

    @property
    def bonus(self) -> int:
        return sum(b for _, b in self.burracos)

    @property
    def total(self) -> int:
        return (
            self.melded
            + self.in_hand
            + self.bonus
            + self.closing
            + self.pozzetto_penalty
            + self.relancinho
            + self.red_threes
        )


@dataclass(frozen=True, slots=True)
class DealScore:
    """The score of a deal: one :class:`LineScore` per line that played, and the points
    of each line of the match (each player in the 3- and 5-player games)."""

    lines: tuple[LineScore, ...]
    #: Points per match line (``variant.line_of`` at the start of the deal).
    points: tuple[int, ...]
    #: How the deal ended (``Deal.end_reason``); None for a provisional score.
    end_reason: str | None
    closer: int

    def __str__(self) -> str:
        rows = []
        for ls in self.lines:
            seats = ",".join(map(str, ls.seats))
            rows.append(
                f"line {ls.line} (seats {seats}): melded {ls.melded}, hand {ls.in_hand}, "
                f"bonus {ls.bonus}, closing {ls.closing}, pozzetto {ls.pozzetto_penalty}"
                f"{f', relancinho {ls.relancinho}' if ls.relancinho else ''}"
                f"{f', red 3s {ls.red_threes}' if ls.red_threes else ''} = {ls.total}"
            )
        return "\n".join(rows)


def card_points(card: int, v: Variant) -> int:
    """The points of one card in a variant.

    >>> from burraco import variant, parse_cards
    >>> [card_points(c, variant("italian")) for c in parse_cards("JK 2H AS 8C 3D")]
    [30, 20, 15, 10, 5]
    """
    return v.value(card)


def score_deal(deal: Deal) -> DealScore:
    v = deal.v
    values = v.values
    lines: list[LineScore] = []
    line_total: dict[int, int] = {}
    for line in sorted(set(deal.line_of)):
        seats = tuple(s for s in range(v.players) if deal.line_of[s] == line)
        melds = deal.melds[line]
        melded = sum(meld_points(m, v) for m in melds)
        in_hand = 0
        unused = False
        for seat in seats:
            hand = deal.hands[seat]
            points = sum(n * values[0 if c == 52 else c % 13 + 1] for c, n in enumerate(hand) if n)
            pending = deal.pending_pozzetto[seat]
            if pending is not None and _unused_morto_untaken(deal, line):
                unused = True
            elif pending is not None:
                points += sum(values[0 if c == 52 else c % 13 + 1] for c in pending)
            if v.double_unmelded_hand and not deal._melded_seat[seat]:
                points *= 2
            in_hand -= points
        burracos = tuple(
            (grade, meld_bonus(m, v)) for m in melds if (grade := grade_of(m, v)) is not None
        )
        closing = v.closing_bonus if deal.closer >= 0 and deal.line_of[deal.closer] == line else 0
        untaken = not deal.has_pozzetto[line] or unused
        penalty = -v.no_pozzetto_penalty if v.pozzetti and untaken else 0
        score = LineScore(
            line=line,
            seats=seats,
            melded=melded,
            in_hand=in_hand,
            burracos=burracos,
            closing=closing,
            pozzetto_penalty=penalty,
            relancinho=deal.relancinhos[line] * v.relancinho_bonus,
            red_threes=deal.red_threes[line] * v.red_three_bonus if v.red_threes else 0,
        )
        lines.append(score)
        line_total[line] = score.total
    match_points: list[int] = []
    for match_line in range(v.lines):
        if v.players in (3, 5):
            seat = match_line
            line = deal.line_of[seat]
            shared = sum(1 for s in range(v.players) if deal.line_of[s] == line)
            total = line_total[line]
            match_points.append(_half_down(total) if shared > 1 else total)
        else:
            match_points.append(line_total[match_line])
    return DealScore(tuple(lines), tuple(match_points), deal.end_reason, deal.closer)


def _unused_morto_untaken(deal: Deal, line: int) -> bool:
    """Whether a morto of ``line`` taken by a discard and still face down (its taker's
    turn has not come again) counts as never taken: with the option, once the deal has
    ended (a provisional score counts it as hand: its turn may still come), unless the
    line itself went out, since it could go out only with its morto (docs/brazil.md)."""
    if not deal.v.unused_morto_untaken or deal.end_reason is None:
        return False
    return not (deal.went_out and deal.line_of[deal.closer] == line)


def _half_down(total: int) -> int:
    """Half a pair's total, rounded down to a multiple of 5 (000's 3- and 5-player games).

    >>> _half_down(455), _half_down(-105), _half_down(-100)
    (225, -55, -50)
    """
    return total // 10 * 5
