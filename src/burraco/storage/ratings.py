"""What finished matches leave on their players: each seat's result, the ratings they move
(written in one transaction that holds the players first, so that two matches of one
player ending at once apply one after the other), the leaderboards and a player's
totals; then fair play: the counts the daily cap and the farm detector read, the flags
that freeze a rating, the moderators' decisions and their audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, case, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from burraco.storage import models
from burraco.storage.base import StoreBase
from burraco.storage.rows import FlagRow, ModerationRow, RatingRow, ResultRow, UserRow, values_of


class Ratings(StoreBase):
    """Results, ratings, flags and the moderators' log."""

    if TYPE_CHECKING:
        # Accounts' (accounts.py), which Store composes beside this part.
        def users(self, user_ids: Sequence[int]) -> dict[int, UserRow]: ...

    # --- ratings and results ----------------------------------------------------------------

    def ratings(self, user_id: int) -> list[RatingRow]:
        r_ = models.ratings
        return self._all(select(r_).where(r_.c.user_id == user_id).order_by(r_.c.game), RatingRow)

    def ratings_for(self, game: str, user_ids: Sequence[int]) -> dict[int, RatingRow]:
        if not user_ids:
            return {}
        r_ = models.ratings
        query = select(r_).where((r_.c.game == game) & r_.c.user_id.in_(user_ids))
        return {r.user_id: r for r in self._all(query, RatingRow)}

    def leaderboard(
        self, game: str, limit: int = 50, offset: int = 0, kind: str | None = None
    ) -> list[tuple[UserRow, RatingRow]]:
        """The rated of a game, the highest ``mu - 3 sigma`` first (OpenSkill's ordinal);
        banned accounts are left off."""
        r_, u = models.ratings, models.users
        query = (
            select(u, r_)
            .join(r_, r_.c.user_id == u.c.id)
            .where((r_.c.game == game) & (u.c.role != "banned"))
            .order_by((r_.c.mu - 3 * r_.c.sigma).desc(), u.c.id)
            .limit(limit)
            .offset(offset)
        )
        if kind is not None:
            query = query.where(u.c.kind == kind)
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        user_fields = UserRow.__slots__
        rating_fields = RatingRow.__slots__
        return [
            (
                UserRow(**{k: r._mapping[u.c[k]] for k in user_fields}),
                RatingRow(**{k: r._mapping[r_.c[k]] for k in rating_fields}),
            )
            for r in rows
        ]

    def save_results(self, rows: Sequence[ResultRow], ratings: Sequence[RatingRow] = ()) -> bool:
        """Store a finished match's results and the ratings they moved, in one transaction;
        False (and nothing written) if this match's results are stored already."""
        if not rows:
            return False
        try:
            with self._write() as c:
                _put_results(c, rows, ratings)
        except IntegrityError:
            return False
        return True

    def rate_results(
        self,
        rows: Sequence[ResultRow],
        game: str,
        rate: Callable[[Mapping[int, RatingRow]], tuple[Sequence[ResultRow], Sequence[RatingRow]]],
    ) -> bool:
        """Store a rated match's results and the ratings they move, in one transaction that
        holds its players first: their ratings in ``game`` are read inside it, ``rate`` makes
        the rows and the new ratings of them, and both are written before anyone else may
        read those ratings. Two matches of one player ending at once on two processes so
        apply one after the other, each to the rating the other left (no update lost).
        False (and nothing written) if this match's results are stored already."""
        if not rows:
            return False
        accounts = sorted({row.user_id for row in rows if row.user_id is not None})
        r_, s_ = models.ratings, models.results
        try:
            with self._write() as c:
                _hold_players(c, accounts, self.wait_seconds)
                stored = select(s_.c.seat).where(s_.c.table_id == rows[0].table_id).limit(1)
                if c.execute(stored).first() is not None:
                    return False  # another process (or a restart) rated this match first
                query = select(r_).where((r_.c.game == game) & r_.c.user_id.in_(accounts))
                before = {r.user_id: RatingRow(**r._mapping) for r in c.execute(query).all()}
                _put_results(c, *rate(before))
        except IntegrityError:
            return False
        return True

    def add_ratings(self, ratings: Sequence[RatingRow]) -> int:
        """Insert the ratings whose account has none in their game yet, holding those
        accounts as :meth:`rate_results` does: a rating stored meanwhile by a match (on
        any process) is kept, never replaced. How many were inserted."""
        r_ = models.ratings
        added = 0
        with self._write() as c:
            _hold_players(c, sorted({rating.user_id for rating in ratings}), self.wait_seconds)
            for rating in ratings:
                where = (r_.c.user_id == rating.user_id) & (r_.c.game == rating.game)
                if c.execute(select(r_.c.user_id).where(where)).first() is None:
                    c.execute(insert(r_).values(**values_of(rating)))
                    added += 1
        return added

    def put_ratings(self, ratings: Sequence[RatingRow]) -> None:
        """Insert or replace ratings (the bots' rating matches)."""
        with self._write() as c:
            for rating in ratings:
                _put_rating(c, rating)

    def rated_pairs_since(
        self, user_ids: Sequence[int], since: float
    ) -> dict[tuple[int, int], int]:
        """How many rated matches each two of ``user_ids`` played on opposite lines since
        ``since``, by pair of ids (the lower first): the daily cap's count."""
        if len(user_ids) < 2:
            return {}
        a, b = models.results.alias("a"), models.results.alias("b")
        query = (
            select(a.c.user_id, b.c.user_id, func.count(func.distinct(a.c.table_id)))
            .join(b, (a.c.table_id == b.c.table_id) & (a.c.line != b.c.line))
            .where(
                a.c.user_id.in_(user_ids)
                & b.c.user_id.in_(user_ids)
                & (a.c.user_id < b.c.user_id)
                & a.c.rated
                & (a.c.finished_at >= since)
            )
            .group_by(a.c.user_id, b.c.user_id)
        )
        with self.engine.connect() as c:
            return {(int(x), int(y)): int(n) for x, y, n in c.execute(query).all()}

    def unrate_table(self, table_id: str, reason: str) -> None:
        """A table made rated plays unrated, for ``reason`` (server/results/fairplay.py)."""
        with self._write() as c:
            c.execute(
                update(models.tables)
                .where(models.tables.c.id == table_id)
                .values(rated=False, unrated=reason)
            )

    def rated_games(
        self, user_id: int, since: float
    ) -> tuple[list[ResultRow], list[ResultRow], dict[int, UserRow]]:
        """What the farm detector reads of an account: its rated results since ``since``,
        the other seats' results at those tables, and the accounts of those seats."""
        r_ = models.results
        mine = self._all(
            select(r_)
            .where((r_.c.user_id == user_id) & r_.c.rated & (r_.c.finished_at >= since))
            .order_by(r_.c.finished_at),
            ResultRow,
        )
        if not mine:
            return [], [], {}
        ids = [row.table_id for row in mine]
        others = self._all(select(r_).where(r_.c.table_id.in_(ids)), ResultRow)
        others = [row for row in others if row.user_id != user_id]
        accounts = self.users(sorted({user_id} | {r.user_id for r in others if r.user_id}))
        return mine, others, accounts

    # --- fair play: flags, roles and the moderators' log ----------------------------------

    def flag(self, user: UserRow, reason: str, now: float) -> bool:
        """Mark an account for review (its rating frozen until cleared), with its line in
        the audit log (by "detector"); False if it is flagged or banned already."""
        f_, user_id = models.flags, user.id
        with self._write() as c:
            found = c.execute(select(f_.c.status).where(f_.c.user_id == user_id)).first()
            if found is not None and found.status in ("flagged", "banned"):
                return False
            values = {"status": "flagged", "reason": reason[:200], "flagged_at": now}
            if found is None:
                c.execute(insert(f_).values(user_id=user_id, **values))
            else:
                c.execute(update(f_).where(f_.c.user_id == user_id).values(**values))
            c.execute(
                insert(models.moderation_log).values(
                    created_at=now,
                    moderator="detector",
                    action="flag",
                    user_id=user_id,
                    name=user.name,
                    note=reason[:200],
                )
            )
        return True

    def flag_of(self, user_id: int) -> FlagRow | None:
        f_ = models.flags
        return self._first(select(f_).where(f_.c.user_id == user_id), FlagRow)

    def flags(self, statuses: Sequence[str] = ("flagged",)) -> list[FlagRow]:
        f_ = models.flags
        query = select(f_).where(f_.c.status.in_(statuses)).order_by(f_.c.flagged_at)
        return self._all(query, FlagRow)

    def frozen(self, user_ids: Sequence[int]) -> set[int]:
        """Those of ``user_ids`` whose rating does not move: flagged or banned."""
        if not user_ids:
            return set()
        f_ = models.flags
        query = select(f_.c.user_id).where(
            f_.c.user_id.in_(user_ids) & f_.c.status.in_(("flagged", "banned"))
        )
        with self.engine.connect() as c:
            return {int(x) for x in c.execute(query).scalars()}

    def decide(
        self, user: UserRow, action: str, moderator: str, now: float, note: str = ""
    ) -> None:
        """A moderator's decision on an account, with its line in the audit log, in one
        transaction: ``clear`` (the flag lifted), ``reset`` (its ratings back to a
        newcomer's, the flag lifted), ``ban`` (no login, off the leaderboards, no rated
        play), ``grant``/``revoke`` (the moderator role)."""
        f_, u = models.flags, models.users
        status = {"clear": "cleared", "reset": "cleared", "ban": "banned"}.get(action)
        with self._write() as c:
            if status is not None:
                decided = {"status": status, "decided_at": now}
                done = c.execute(update(f_).where(f_.c.user_id == user.id).values(**decided))
                if done.rowcount == 0:
                    c.execute(
                        insert(f_).values(
                            user_id=user.id, reason=note[:200], flagged_at=now, **decided
                        )
                    )
            if action == "reset":
                c.execute(delete(models.ratings).where(models.ratings.c.user_id == user.id))
            role = {"ban": "banned", "grant": "moderator", "revoke": ""}.get(action)
            if role is not None:
                c.execute(update(u).where(u.c.id == user.id).values(role=role))
            if action == "ban":
                c.execute(delete(models.sessions).where(models.sessions.c.user_id == user.id))
            c.execute(
                insert(models.moderation_log).values(
                    created_at=now,
                    moderator=moderator,
                    action=action,
                    user_id=user.id,
                    name=user.name,
                    note=note[:200],
                )
            )

    def moderation_log(self, user_id: int | None = None, limit: int = 100) -> list[ModerationRow]:
        m = models.moderation_log
        query = select(m).order_by(m.c.id.desc()).limit(limit)
        if user_id is not None:
            query = query.where(m.c.user_id == user_id)
        return self._all(query, ModerationRow)

    def results(
        self,
        *,
        user_id: int | None = None,
        table_id: str | None = None,
        table_ids: Sequence[str] | None = None,
        limit: int = 1000,
        offset: int = 0,
    ) -> list[ResultRow]:
        """Results of one player (the latest first), of one table or of several (by table
        and seat: a page of matches reads its tables' results in one query)."""
        r_ = models.results
        query = select(r_)
        if user_id is not None:
            query = query.where(r_.c.user_id == user_id).order_by(r_.c.finished_at.desc())
        if table_id is not None:
            query = query.where(r_.c.table_id == table_id).order_by(r_.c.seat)
        if table_ids is not None:
            query = query.where(r_.c.table_id.in_(table_ids)).order_by(r_.c.table_id, r_.c.seat)
        return self._all(query.limit(limit).offset(offset), ResultRow)

    def result_totals(self, user_id: int) -> dict[str, dict[str, int]]:
        """A player's results summed per game: matches, wins, draws, points, deals,
        burracos by grade, closes, pozzetti and abandoned matches."""
        r_ = models.results

        def count(condition: Any) -> Any:
            return func.sum(case((condition, 1), else_=0))

        columns = {
            "matches": func.count(),
            "wins": count(r_.c.outcome == "win"),
            "draws": count(r_.c.outcome == "draw"),
            "points": func.sum(r_.c.points),
            "deals": func.sum(r_.c.deals),
            "burracos_clean": func.sum(r_.c.burracos_clean),
            "burracos_semi": func.sum(r_.c.burracos_semi),
            "burracos_dirty": func.sum(r_.c.burracos_dirty),
            "closes": func.sum(r_.c.closes),
            "pozzetti": func.sum(r_.c.pozzetti),
            "abandoned": count(r_.c.abandoned),
        }
        query = (
            select(r_.c.game, *(c.label(k) for k, c in columns.items()))
            .where(r_.c.user_id == user_id)
            .group_by(r_.c.game)
            .order_by(r_.c.game)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return {r.game: {k: int(r._mapping[k] or 0) for k in columns} for r in rows}


def _hold_players(c: Connection, user_ids: Sequence[int], wait_seconds: float) -> None:
    """Take the lock that makes one rating update of these accounts wait for another,
    as the transaction's first statement. PostgreSQL: their account rows (a newcomer has
    no rating row to lock yet), FOR NO KEY UPDATE (rows referring to the account are not
    held up) and in the order of their ids, so two matches sharing players cannot each
    wait for the other. SQLite: the database's write lock (BEGIN IMMEDIATE), so the
    ratings read next are the latest."""
    if c.dialect.name == "sqlite":
        c.exec_driver_sql("BEGIN IMMEDIATE")
    elif user_ids:
        u = models.users
        c.execute(text(f"SET LOCAL lock_timeout = {max(1, round(wait_seconds * 1000))}"))
        held = select(u.c.id).where(u.c.id.in_(user_ids)).order_by(u.c.id)
        c.execute(held.with_for_update(key_share=True))


def _put_results(c: Connection, rows: Sequence[ResultRow], ratings: Sequence[RatingRow]) -> None:
    """Write a match's results and the ratings they moved (a second time: IntegrityError)."""
    for row in rows:
        c.execute(insert(models.results).values(**values_of(row)))
    for rating in ratings:
        _put_rating(c, rating)


def _put_rating(c: Connection, rating: RatingRow) -> None:
    """Replace the rating of its account and game, or insert it if there is none."""
    r_ = models.ratings
    where = (r_.c.user_id == rating.user_id) & (r_.c.game == rating.game)
    done = c.execute(update(r_).where(where).values(**values_of(rating)))
    if done.rowcount == 0:
        c.execute(insert(r_).values(**values_of(rating)))
