"""What the server says, as JSON: a seat's view, scores, table information.

Every function here takes what one seat may see (a :class:`DealView`), what a spectator
may see (a :class:`PublicView`) or public data; nothing here can reach a hidden card.
What a socket says is read by :func:`read_message`, the one place a message is parsed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson

from burraco.cards import CARDS
from burraco.scoring import DealScore
from burraco.view import DealView, PublicView

__all__ = [
    "DEEPEST",
    "BadMessage",
    "cards",
    "own_view_json",
    "public_view_json",
    "read_message",
    "score_json",
    "table_points",
    "text_of",
    "view_json",
]

#: Levels of arrays and objects a socket's message may nest: the protocol's use two.
DEEPEST = 8


class BadMessage(ValueError):
    """A socket's message that is not one: the protocol's ``bad_message``, with why."""


def read_message(raw: str) -> dict[str, Any]:
    """A socket's message as a JSON object with a ``type``, or :class:`BadMessage`.

    JSON nested deeper than the parser's stack raises RecursionError (a RuntimeError,
    which the socket's loop took for a closed connection and dropped the socket); and
    anything nested deeper than :data:`DEEPEST` is no message of the protocol.

    >>> read_message('{"type": "ping"}')
    {'type': 'ping'}
    >>> read_message("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    burraco.server.messages.BadMessage: a message nests at most 8 levels of arrays and objects
    """
    try:
        message = json.loads(raw)
    except RecursionError:
        raise BadMessage(_TOO_DEEP) from None
    except ValueError as error:  # JSONDecodeError, and an integer of too many digits
        raise BadMessage(f"not JSON: {getattr(error, 'msg', error)}") from None
    if not _within(message, DEEPEST):
        raise BadMessage(_TOO_DEEP)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BadMessage("a message is a JSON object with a type")
    return message


def text_of(message: dict[str, Any]) -> str:
    """A message as the JSON text a socket is sent: every state of every seat at every
    action goes through here, so it is encoded by orjson (a tenth of the json module's
    time). Keys that are not strings are written as strings, as the json module does.

    >>> text_of({"type": "pong", "seats": {0: "Anna"}})
    '{"type":"pong","seats":{"0":"Anna"}}'
    """
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


_TOO_DEEP = f"a message nests at most {DEEPEST} levels of arrays and objects"


def _within(value: object, deepest: int) -> bool:
    """Whether ``value`` nests at most ``deepest`` levels of lists and dicts; without
    recursion, so that no depth the parser took can exhaust the stack here."""
    level: list[tuple[object, int]] = [(value, 0)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            if depth >= deepest:
                return False
            inner = item.values() if isinstance(item, dict) else item
            level.extend((x, depth + 1) for x in inner)
    return True


#: Each kind of card's text, written once: every state names every card in sight.
_TEXTS: tuple[str, ...] = tuple(str(card) for card in CARDS)


def cards(values: Sequence[int]) -> list[str]:
    """The cards' texts, in order.

    >>> cards([0, 13, 52])
    ['AS', 'AH', 'JK']
    """
    return [_TEXTS[c] for c in values]


def view_json(view: DealView, deal_number: int) -> dict[str, Any]:
    """A seat's view in the protocol's shape (docs/protocol.md): what everyone sees, and
    the seat's own hand, its partners' open hands, its line and the card it took."""
    return public_view_json(view, deal_number) | own_view_json(view)


def own_view_json(view: DealView) -> dict[str, Any]:
    """What only the seat sees of its view (:func:`view_json` less the public view): a
    broadcast builds the public part once and adds this to it for each seat."""
    own = {
        "hand": cards(view.hand),
        "partner_hands": {str(seat): cards(hand) for seat, hand in view.partner_hands},
        "line": view.line,
        "taken_single": None if view.taken_single < 0 else cards([view.taken_single])[0],
    }
    if view.pile_top is not None:
        # A closed pile just taken (buraco fechado, STBL): its top is melded first.
        own["pile_top"] = cards([view.pile_top])[0]
    return own


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
