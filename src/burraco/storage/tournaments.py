"""The tournaments: each stored whole as one row (its state as JSON, the director's and
the entrants' token hashes), written over at each change; the director's desk
(``server/desk/book.py``) reads, saves and locks them.
"""

from __future__ import annotations

from sqlalchemy import insert, select, update

from burraco.storage import models
from burraco.storage.base import StoreBase
from burraco.storage.rows import TournamentRow, values_of


class Tournaments(StoreBase):
    """The tournaments' rows."""

    def save_tournament(self, row: TournamentRow) -> None:
        """Insert or replace a tournament's row."""
        with self._write() as c:
            found = c.execute(
                select(models.tournaments.c.id).where(models.tournaments.c.id == row.id)
            ).first()
            if found is None:
                c.execute(insert(models.tournaments).values(**values_of(row)))
            else:
                c.execute(
                    update(models.tournaments)
                    .where(models.tournaments.c.id == row.id)
                    .values(**values_of(row))
                )

    def tournament(self, tournament_id: str) -> TournamentRow | None:
        t = models.tournaments
        return self._first(select(t).where(t.c.id == tournament_id), TournamentRow)

    def tournaments(self) -> list[TournamentRow]:
        t = models.tournaments
        return self._all(select(t).order_by(t.c.created_at), TournamentRow)
