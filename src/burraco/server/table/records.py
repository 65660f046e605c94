"""What a table leaves behind: its record, its finished deals, its replay, what a review reads.

The record is the text of record.py, published once the match is over; the replay is
every position of the match, all hands open. A review of a seat's finished deal
(server/process/reviews.py) reads the record too: anyone's once the match is over, and before
that only the seat's own player's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from burraco.server.messages import cards, score_json, view_json
from burraco.server.table.errors import RoomError
from burraco.server.table.live import LiveTable, fair_play_refusal
from burraco.storage import Store

__all__ = ["Records"]


class Records:
    """What a table leaves behind: published when its match (or its deal) is over."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def record(self, table: LiveTable) -> str:
        if table.status != "over":
            raise RoomError("forbidden", "the record is published when the match is over", 409)
        text = self.store.record(table.id)
        if text is None:
            raise RoomError("not_found", "no record for this table", 404)
        return text

    @staticmethod
    def finished_deal(table: LiveTable, number: int) -> dict[str, Any]:
        """Deal ``number`` of a table once it has ended, as it lay on the table: every
        line's melds (public), the pozzetti taken, the score. Nothing of a deal in play."""
        match = table.match
        if match is None or number > len(match.scores):
            raise RoomError("forbidden", f"deal {number} has not ended", 409)
        deal = match.deals[number - 1]
        view = deal.view(0)
        return {
            "deal": number,
            "melds": [[cards(m.cards) for m in line] for line in view.melds],
            "has_pozzetto": list(view.has_pozzetto),
            "line_of": list(view.line_of),
            "score": score_json(match.scores[number - 1]),
        }

    def replay(self, table: LiveTable) -> dict[str, Any]:
        """Every position of a finished match, all hands open, for the replay page."""
        from burraco.record import read_record, replay_steps

        text = self.record(table)
        record = read_record(text)
        frames: list[dict[str, Any]] = []
        for step in replay_steps(record):
            deal = step.match.deals[step.deal - 1]
            view = view_json(deal.view(deal.turn), step.deal)
            view["hands"] = [cards(deal.hand(s)) for s in range(deal.players)]
            frames.append(
                {"seat": step.action.seat, "action": str(step.action.action), "view": view}
            )
        return {"record": text, "frames": frames}

    def review_access(
        self, table: LiveTable, holder: Callable[[], int], with_record: bool = False
    ) -> dict[str, Any]:
        """What the asker may review at this table: every seat once the match is over (its
        record is public), else only the seat ``holder()`` says the asker plays (None when
        none), and nothing during a rated or tournament match (fair play); the deals that have ended; with ``with_record`` the record to review (built
        from the match in play before its end, never shown to the asker)."""
        match = table.match
        if match is None:
            raise RoomError("forbidden", "the match has not started", 409)
        refusal = fair_play_refusal(table.row, "analysis")
        if refusal is not None:
            raise refusal
        over = table.status == "over"
        seat: int | None = None
        if not over:
            try:
                seat = holder()
            except RoomError:
                seat = None
        access: dict[str, Any] = {
            "over": over,
            "seat": seat,
            "deals": len(match.scores),
            "players": match.v.players,
        }
        if with_record:
            if over:
                access["record"] = self.record(table)
            else:
                from burraco.record import format_record, record_of

                access["record"] = format_record(record_of(match))
        return access
