"""What each seat and each spectator receives of a table, and the telling of it to the seats.

A seat's state (its own view), a spectator's (the public view), the events, the scores
of a deal and of the match.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from burraco.errors import RuleError
from burraco.server.absence import absent_json
from burraco.server.messages import own_view_json, public_view_json, score_json
from burraco.server.table.live import LiveTable, Send, safe_send
from burraco.server.table.pause import waiting_for
from burraco.view import public_view_of

__all__ = ["Views", "common", "deal_over", "match_over", "public_event", "state"]


def public_event(
    version: int, seat: int | None, kind: str, payload: dict[str, Any]
) -> dict[str, Any]:
    """The ``event`` message of one entry of the log (what every seat hears of it).

    >>> public_event(3, 1, "action", {"action": "draw", "bot": True})
    {'type': 'event', 'version': 3, 'seat': 1, 'action': 'draw'}
    >>> public_event(4, None, "time-out", {})["action"]
    'time-out'
    """
    action = payload.get("action", kind)
    return {"type": "event", "version": version, "seat": seat, "action": action}


def deal_over(table: LiveTable, index: int, version: int) -> dict[str, Any]:
    """The score of deal ``index``, which the action of ``version`` ended."""
    match = table.match
    assert match is not None
    return {
        "type": "deal_over",
        "version": version,
        "deal": index + 1,
        "score": score_json(match.scores[index]),
        "totals": [
            sum(s.points[i] for s in match.scores[: index + 1]) for i in range(match.v.lines)
        ],
    }


def match_over(table: LiveTable) -> dict[str, Any]:
    """The end of the match: totals, winner, victory points, abandonment, absences."""
    match = table.match
    assert match is not None
    vp = None
    with contextlib.suppress(RuleError):
        vp = list(match.victory_points())
    return {
        "type": "match_over",
        "totals": list(match.totals),
        "winner": match.winner(),
        "victory_points": vp,
        "abandoned_by": None if match.abandoned_by < 0 else match.abandoned_by,
        "abandon_penalty": match.v.abandon_penalty,
        "absent": absent_json([s.kind for s in table.seats], table.turns),
        # Why a table made rated played unrated (server/results/fairplay.py), for the sheet.
        "unrated": table.row.unrated,
    }


def common(table: LiveTable) -> dict[str, Any]:
    """What every seat's state and a spectator's share at the table's version: the
    public view, the deals' scores, the end of the match. A broadcast builds it once for
    all the seats (a seat's view is the public view and what only the seat sees)."""
    match = table.match
    if match is None:
        return {}
    return {
        "view": public_view_json(public_view_of(match.deal), len(match.deals)),
        "scores": [score_json(s) for s in match.scores],
        "match_over": match_over(table) if match.is_over else None,
    }


def state(
    table: LiveTable,
    seat: int | None,
    info: dict[str, Any] | None = None,
    shared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What ``seat`` hears of the table; with no seat, what a spectator hears (the
    public view: no hand, nothing legal). ``shared`` is :func:`common` of the table at
    its version, when the caller has it already."""
    match = table.match
    info = info or table.info()
    message: dict[str, Any] = {
        "type": "state",
        "version": table.version,
        "table": info,
        "seat": seat,
        "view": None,
        "legal": [],
        "last": table.last,
        "clock": None,
        "deal_clock": None,
        "pause": None,
        "totals": info["totals"],
        "scores": [],
    }
    if seat is None:
        message["watching"] = True
    if match is None:
        return message
    deal = match.deal
    shared = shared or common(table)
    if seat is None:
        message["view"] = shared["view"]
    else:
        message["view"] = shared["view"] | own_view_json(match.view(seat))
    message["scores"] = shared["scores"]
    if match.is_over:
        # A page that comes back after the end builds the score sheet from this.
        message["match_over"] = shared["match_over"]
    # Between two deals nothing is legal: the next deal's actions are not even listed.
    if not match.is_over and deal.turn == seat and table.pause_until is None:
        message["legal"] = [str(a) for a in deal.legal_actions()]
    now = time.time()
    if table.deadline is not None and not match.is_over:
        message["clock"] = {
            "seat": deal.turn,
            "deadline": int(table.deadline * 1000),
            "seconds": max(0.0, round(table.deadline - now, 1)),
            # The player on turn has not opened the table since the deal began: the
            # clock first waits for them so many seconds (the absence wait), then runs
            # a whole move; 0 when it runs the move.
            "absent": max(0.0, round(table.absent_until - now, 1))
            if deal.turn in table.unseen
            else 0.0,
        }
    if table.pause_until is not None:
        message["pause"] = {
            "deal": len(match.scores),
            "until": int(table.pause_until * 1000),
            "seconds": max(0.0, round(table.pause_until - now, 1)),
            "ready": sorted(table.ready),
            "waiting": waiting_for(table),
        }
    elif table.row.deal_seconds and not match.is_over and table.status == "playing":
        end = table.deal_started + table.row.deal_seconds
        message["deal_clock"] = {
            "deadline": int(end * 1000),
            "seconds": max(0.0, round(end - now, 1)),
            "total": table.row.deal_seconds,
            "called": deal.timeout_turns >= 0,
        }
    return message


class Views:
    """Tells a table's seats their states, each its own view (the spectators' frames are
    queued by the step after it: :meth:`Step.show`)."""

    async def tell_seats(
        self, table: LiveTable, skip: Send | None = None, news: Sequence[dict[str, Any]] = ()
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Send each seat's sockets the ``news`` (a deal's score, the match's end), then
        its state (not to ``skip``, told already); the table's info and the public part
        built for the seats, for the spectators' frames."""
        info = table.info()
        shared: dict[str, Any] | None = None
        for seat, seat_state in enumerate(table.seats):
            if not seat_state.connections:
                continue
            shared = shared or common(table)
            message = state(table, seat, info, shared)
            for send in list(seat_state.connections):
                for said in news:
                    await safe_send(send, said)
                if send is not skip:
                    await safe_send(send, message)
        return info, shared

    @staticmethod
    async def send_all(table: LiveTable, message: dict[str, Any]) -> None:
        """One message to every socket of every seat (a deal's score, the match's end, chat)."""
        for seat_state in table.seats:
            for send in list(seat_state.connections):
                await safe_send(send, message)
