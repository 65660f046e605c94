"""What the server says, as JSON: a seat's view, scores, table information.

Every function here takes what one seat may see (a :class:`DealView`), what a spectator
may see (a :class:`PublicView`) or public data; nothing here can reach a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from burraco.scoring import DealScore
from burraco.view import DealView, PublicView

__all__ = ["cards", "public_view_json", "score_json", "table_points", "view_json"]


def cards(values: Sequence[int]) -> list[str]:
    from burraco.cards import CARDS

    return [str(CARDS[c]) for c in values]


def view_json(view: DealView, deal_number: int) -> dict[str, Any]:
    """A seat's view in the protocol's shape (docs/protocol.md): what everyone sees, and
    the seat's own hand, its partners' open hands, its line and the card it took."""
    return public_view_json(view, deal_number) | {
        "hand": cards(view.hand),
        "partner_hands": {str(seat): cards(hand) for seat, hand in view.partner_hands},
        "line": view.line,
        "taken_single": None if view.taken_single < 0 else cards([view.taken_single])[0],
    }


def public_view_json(view: PublicView | DealView, deal_number: int) -> dict[str, Any]:
    """A spectator's view in the protocol's shape: a seat's view without ``hand``,
    ``partner_hands``, ``line`` and ``taken_single`` (docs/protocol.md, watching). It
    reads only the fields a :class:`PublicView` has, whichever view it is given."""
    return {
        "phase": view.phase,
        "turn": view.turn,
        "dealer": view.dealer,
        "deal": deal_number,
        "hand_sizes": list(view.hand_sizes),
        "line_of": list(view.line_of),
        "melds": [[cards(m.cards) for m in line] for line in view.melds],
        **table_points(view),
        "pile": cards(view.pile),
        "pile_hidden": view.pile_hidden,
        "stock": view.stock_size,
        "pozzetti": list(view.pozzetti),
        "has_pozzetto": list(view.has_pozzetto),
        "pozzetto_face_down": list(view.pozzetto_face_down),
        "red_threes": list(view.red_threes),
        "opened": list(view.opened),
        "minimum": list(view.minimum),
        "final_turn": view.final_turn,
        "end_reason": view.end_reason,
    }


def table_points(view: DealView | PublicView) -> dict[str, Any]:
    """What the melds on the table show: each meld's grade once it is a burraco (canastra,
    canasta), and each line's points so far (its melded cards and bonuses)."""
    from burraco.melds import grade_of, meld_bonus, meld_points

    v = view.rules
    if v is None:
        return {"grades": [[None for _ in line] for line in view.melds], "line_points": []}
    return {
        "grades": [[grade_of(m, v) for m in line] for line in view.melds],
        "line_points": [
            sum(meld_points(m, v) + meld_bonus(m, v) for m in line) for line in view.melds
        ],
    }


def score_json(score: DealScore) -> dict[str, Any]:
    return {
        "lines": [
            {
                "line": ls.line,
                "seats": list(ls.seats),
                "melded": ls.melded,
                "in_hand": ls.in_hand,
                "burracos": [[grade, bonus] for grade, bonus in ls.burracos],
                "closing": ls.closing,
                "pozzetto_penalty": ls.pozzetto_penalty,
                "relancinho": ls.relancinho,
                "red_threes": ls.red_threes,
                "total": ls.total,
            }
            for ls in score.lines
        ],
        "points": list(score.points),
        "end_reason": score.end_reason,
        "closer": score.closer,
    }
