"""The reviews of finished deals: one stored review per deal and seat (``data``: the
review's JSON), the first kept, as a review asked again is the same question; the
review pool (``server/process/reviews.py``) writes them and the replay reads them.
"""

from __future__ import annotations

from sqlalchemy import insert, select

from burraco.storage import models
from burraco.storage.base import StoreBase
from burraco.storage.rows import ReviewRow, values_of


class Reviews(StoreBase):
    """The stored reviews of deals."""

    def save_review(self, row: ReviewRow) -> None:
        """Store a review; a deal's seat keeps its first stored review (a second is the same
        question asked again: its answer is already there)."""
        r = models.reviews
        with self._write() as c:
            existing = c.execute(
                select(r.c.deal).where(
                    (r.c.table_id == row.table_id) & (r.c.deal == row.deal) & (r.c.seat == row.seat)
                )
            ).first()
            if existing is None:
                c.execute(insert(r).values(**values_of(row)))

    def reviews(self, table_id: str) -> list[ReviewRow]:
        """A table's stored reviews, by deal and seat."""
        r = models.reviews
        query = select(r).where(r.c.table_id == table_id).order_by(r.c.deal, r.c.seat)
        return self._all(query, ReviewRow)
