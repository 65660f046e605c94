"""Accounts and what opens them: people and bot accounts (a name unique whatever its case:
:func:`name_key`, else :class:`NameTaken`), a bot account's API tokens (their hashes
only, revoked not deleted), the challenges people make to bots, and the sessions of
logged-in pages (their hashes only; one query per request finds the account and its
session).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from burraco.storage import models
from burraco.storage.base import StoreBase
from burraco.storage.errors import NameTaken
from burraco.storage.rows import BotTokenRow, ChallengeRow, SessionRow, UserRow, values_of


class Accounts(StoreBase):
    """Accounts, bot tokens, challenges to bots and sessions."""

    # --- accounts and sessions ------------------------------------------------------------

    def create_user(
        self,
        name: str,
        password_hash: str,
        kind: str = "person",
        language: str = "en",
        owner_id: int | None = None,
    ) -> UserRow:
        """A new account (``owner_id``: a bot account's person); :class:`NameTaken` if its
        name (whatever its case) is taken."""
        now = time.time()
        values = {
            "name": name,
            "name_key": name_key(name),
            "password_hash": password_hash,
            "kind": kind,
            "language": language,
            "created_at": now,
            "owner_id": owner_id,
        }
        try:
            with self._write() as c:
                result = c.execute(insert(models.users).values(**values))
                user_id = int(result.inserted_primary_key[0])  # type: ignore[index]
        except IntegrityError as error:
            raise NameTaken(f"the name {name!r} is taken") from error
        return UserRow(id=user_id, **values)  # type: ignore[arg-type]

    def user(self, user_id: int) -> UserRow | None:
        return self._first(select(models.users).where(models.users.c.id == user_id), UserRow)

    def user_by_name(self, name: str) -> UserRow | None:
        u = models.users
        return self._first(select(u).where(u.c.name_key == name_key(name)), UserRow)

    def user_names(self, after: int = 0) -> list[tuple[int, str, str]]:
        """The id, name and kind of every account made after account ``after`` (the room
        keeps their look-alike skeletons: server/accounts/names.py)."""
        t = models.users
        with self.engine.connect() as c:
            rows = c.execute(
                select(t.c.id, t.c.name, t.c.kind).where(t.c.id > after).order_by(t.c.id)
            ).all()
        return [(int(r.id), str(r.name), str(r.kind)) for r in rows]

    def users(self, user_ids: Sequence[int]) -> dict[int, UserRow]:
        if not user_ids:
            return {}
        found = self._all(select(models.users).where(models.users.c.id.in_(user_ids)), UserRow)
        return {u.id: u for u in found}

    def update_user(self, user_id: int, **values: str) -> None:
        """Change an account's ``password_hash`` or ``language``."""
        allowed = {"password_hash", "language"}
        if not values or set(values) - allowed:
            raise ValueError(f"an account's {sorted(allowed)} may change, not {sorted(values)}")
        with self._write() as c:
            c.execute(update(models.users).where(models.users.c.id == user_id).values(**values))

    def bots_of(self, owner_id: int) -> list[UserRow]:
        """The bot accounts a person made, the oldest first."""
        u = models.users
        query = select(u).where(u.c.owner_id == owner_id).order_by(u.c.id)
        return self._all(query, UserRow)

    def add_bot_token(self, row: BotTokenRow) -> None:
        with self._write() as c:
            c.execute(insert(models.bot_tokens).values(**values_of(row)))

    def bot_tokens(self, user_id: int) -> list[BotTokenRow]:
        """A bot account's tokens, revoked ones too, the oldest first."""
        t = models.bot_tokens
        query = select(t).where(t.c.user_id == user_id).order_by(t.c.created_at)
        return self._all(query, BotTokenRow)

    def revoke_bot_tokens(self, user_id: int, hint: str | None = None) -> int:
        """Revoke a bot account's live tokens (those starting with ``hint``; all of them
        with None); how many."""
        t = models.bot_tokens
        condition = (t.c.user_id == user_id) & t.c.revoked_at.is_(None)
        if hint is not None:
            condition = condition & (t.c.hint == hint)
        with self._write() as c:
            done = c.execute(update(t).where(condition).values(revoked_at=time.time()))
        return int(done.rowcount or 0)

    def bot_by_token(self, id_hash: str) -> UserRow | None:
        """The bot account a live token of this hash opens (one query: every request of a
        bot asks)."""
        t, u = models.bot_tokens, models.users
        query = (
            select(u)
            .join(t, t.c.user_id == u.c.id)
            .where((t.c.id_hash == id_hash) & t.c.revoked_at.is_(None))
        )
        return self._first(query, UserRow)

    # --- challenges ---------------------------------------------------------------------------

    def add_challenge(self, row: ChallengeRow) -> None:
        with self._write() as c:
            c.execute(insert(models.challenges).values(**values_of(row)))

    def challenge(self, challenge_id: str) -> ChallengeRow | None:
        ch = models.challenges
        return self._first(select(ch).where(ch.c.id == challenge_id), ChallengeRow)

    def pending_challenges(
        self, since: float, *, bot_id: int | None = None, table_id: str | None = None
    ) -> list[ChallengeRow]:
        """The challenges still pending made at ``since`` or later, of a bot or a table,
        the oldest first."""
        ch = models.challenges
        condition = (ch.c.status == "pending") & (ch.c.created_at >= since)
        if bot_id is not None:
            condition = condition & (ch.c.bot_id == bot_id)
        if table_id is not None:
            condition = condition & (ch.c.table_id == table_id)
        query = select(ch).where(condition).order_by(ch.c.created_at, ch.c.id)
        return self._all(query, ChallengeRow)

    def answer_challenge(
        self, challenge_id: str, bot_id: int, status: str, since: float
    ) -> ChallengeRow | None:
        """Mark the bot's pending challenge (made at ``since`` or later) ``status``; the
        challenge, or None if it is not pending. One UPDATE ... WHERE status = 'pending':
        of two processes answering the same challenge, only one changes it."""
        ch = models.challenges
        condition = (
            (ch.c.id == challenge_id)
            & (ch.c.bot_id == bot_id)
            & (ch.c.status == "pending")
            & (ch.c.created_at >= since)
        )
        with self._write() as c:
            done = c.execute(
                update(ch).where(condition).values(status=status, answered_at=time.time())
            )
            if done.rowcount != 1:
                return None
            found = c.execute(select(ch).where(ch.c.id == challenge_id)).first()
        return None if found is None else ChallengeRow(**found._mapping)

    def forget_challenges(self, before: float) -> int:
        """Delete the challenges made before ``before`` (answered or expired long ago)."""
        ch = models.challenges
        with self._write() as c:
            done = c.execute(delete(ch).where(ch.c.created_at < before))
        return int(done.rowcount or 0)

    # --- sessions -------------------------------------------------------------------------------

    def create_session(self, row: SessionRow) -> None:
        with self._write() as c:
            c.execute(insert(models.sessions).values(**values_of(row)))

    def session(self, id_hash: str) -> tuple[UserRow, SessionRow] | None:
        """The account and session of this hash, if the session has not expired (one query:
        every request of a logged-in page asks)."""
        s, u = models.sessions, models.users
        with self.engine.connect() as c:
            r = c.execute(
                select(u, s)
                .join(s, s.c.user_id == u.c.id)
                .where((s.c.id_hash == id_hash) & (s.c.expires_at > time.time()))
            ).first()
        if r is None:
            return None
        user = UserRow(**{k: r._mapping[u.c[k]] for k in UserRow.__slots__})
        return user, SessionRow(**{k: r._mapping[s.c[k]] for k in SessionRow.__slots__})

    def delete_sessions(self, user_id: int, keep: str | None = None) -> None:
        """End every session of an account (but ``keep``): after a password change, say."""
        s = models.sessions
        condition = s.c.user_id == user_id
        if keep is not None:
            condition = condition & (s.c.id_hash != keep)
        with self._write() as c:
            c.execute(delete(s).where(condition | (s.c.expires_at <= time.time())))

    def delete_session(self, id_hash: str) -> None:
        with self._write() as c:
            c.execute(delete(models.sessions).where(models.sessions.c.id_hash == id_hash))


def name_key(name: str) -> str:
    """What makes two account names the same: case and surrounding spaces do not.

    >>> name_key(" Giulia ") == name_key("GIULIA")
    True
    """
    return name.strip().casefold()
