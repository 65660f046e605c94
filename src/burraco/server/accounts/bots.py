"""Bot accounts: a person's programs that play in the room through the bot API.

A registered person makes a bot account from /account (at most ``bots_per_person``); the
room gives its API token once and keeps only its sha256, as for sessions and seats. The
token goes in ``Authorization: Bearer <token>`` on the room's own HTTP API and WebSocket
(accounts.Sessions); a person revokes it from the same page. A bot sits at most at
``bot_tables`` tables at once, talks in quick messages only, and is rated as a person
is, on the bots' leaderboard. A person challenges a bot from its player page: the
challenge is a table waiting for the bot, which accepts (joins) or declines it.

>>> from burraco.server.door.limits import Limits, Rates
>>> store = Store("sqlite://")
>>> from burraco.server.accounts.people import Accounts
>>> accounts = Accounts(store, Rates(Limits()))
>>> anna = store.create_user("Anna", "x")
>>> bots = BotAccounts(store, accounts, Limits())
>>> made, token = bots.create(anna, "AnnaBot")
>>> made.kind, made.owner_id == anna.id, token.startswith("bot_")
('bot', True, True)
>>> accounts.bot_of_token(token).name
'AnnaBot'
>>> bots.revoke(anna, "AnnaBot"), accounts.bot_of_token(token)
(1, None)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from burraco.server.accounts.people import Accounts
from burraco.server.door.limits import Limits
from burraco.server.table.errors import RoomError
from burraco.storage import BotTokenRow, ChallengeRow, NameTaken, Store, UserRow

__all__ = ["TOKEN_PREFIX", "Accepts", "BotAccounts", "Challenge", "Challenges"]

#: Every bot token begins so: a leaked one is easy to recognise (and to search for).
TOKEN_PREFIX = "bot_"
#: Characters of a token kept in clear, to tell a person's tokens apart.
HINT = 12


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: Closes a socket with a close code and a reason.
Close = Callable[[int, str], Awaitable[None]]
#: The close code of a socket whose token is unknown or revoked (docs/bots.md).
BAD_TOKEN_CODE = 4401


class BotAccounts:
    """The bot accounts of the room's people, their tokens, and a bot's cap of tables."""

    def __init__(self, store: Store, accounts: Accounts, limits: Limits) -> None:
        self.store = store
        self.accounts = accounts
        self.limits = limits
        #: The sockets bot tokens opened on this process: by bot, each one's close and
        #: its token's digest (a revoked token's sockets are closed at once).
        self._sockets: dict[int, dict[Close, str]] = {}
        #: Tells the cluster's other processes that a bot's token was revoked (None: the
        #: room is one process).
        self.tell_others: Callable[[int], Awaitable[None]] | None = None

    def create(self, owner: UserRow, name: str) -> tuple[UserRow, str]:
        """A new bot account of the person ``owner``, and its first token (given once)."""
        if owner.kind != "person":
            raise RoomError("forbidden", "only a person makes bot accounts", 403)
        most = self.limits.bots_per_person
        if len(self.store.bots_of(owner.id)) >= most:
            raise RoomError(
                "too_many_bots",
                f"a person holds at most {most} bot accounts",
                409,
                params={"n": most},
            )
        name = self.accounts.check_new_name(name)
        try:
            bot = self.store.create_user(name, "", "bot", owner.language, owner_id=owner.id)
        except NameTaken as error:
            raise RoomError(
                "name_taken", f"the name {name!r} is taken: choose another", 409
            ) from error
        self.accounts.names.refresh()
        return bot, self._issue(bot)

    def _issue(self, bot: UserRow) -> str:
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = BotTokenRow(_digest(token), bot.id, token[:HINT], time.time())
        self.store.add_bot_token(row)
        return token

    def own(self, owner: UserRow, name: str) -> UserRow:
        """The bot account ``name`` of ``owner``; 404 if the person holds no such bot."""
        bot = self.store.user_by_name(name) if len(name) <= 64 else None
        if bot is None or bot.owner_id != owner.id:
            raise RoomError(
                "no_bot", f"you hold no bot named {name[:64]!r}", 404, params={"name": name[:64]}
            )
        return bot

    def new_token(self, owner: UserRow, name: str) -> str:
        """Another token of a bot (at most ``tokens_per_bot`` live at once)."""
        bot = self.own(owner, name)
        live = [t for t in self.store.bot_tokens(bot.id) if t.revoked_at is None]
        most = self.limits.tokens_per_bot
        if len(live) >= most:
            raise RoomError(
                "too_many_tokens",
                f"a bot holds at most {most} live tokens: revoke one first",
                409,
                params={"n": most},
            )
        return self._issue(bot)

    def revoke(self, owner: UserRow, name: str, hint: str | None = None) -> int:
        """Revoke a bot's live tokens (the one whose first characters are ``hint``, or
        all); how many. Their sockets close with :meth:`revoked`."""
        return self.store.revoke_bot_tokens(self.own(owner, name).id, hint)

    async def revoked(self, owner: UserRow, name: str) -> None:
        """Close at once every socket of a token of the bot ``name`` that is revoked, on
        every process (issue 32: an open socket played on for 21 s after its token was
        revoked and refused over HTTP)."""
        bot = self.own(owner, name)
        await self.close_revoked(bot.id)
        if self.tell_others is not None:
            await self.tell_others(bot.id)

    def opened(self, bot_id: int, token: str, close: Close) -> None:
        """A socket opened with a bot's token on this process."""
        self._sockets.setdefault(bot_id, {})[close] = _digest(token)

    def closed(self, bot_id: int, close: Close) -> None:
        sockets = self._sockets.get(bot_id)
        if sockets is not None:
            sockets.pop(close, None)
            if not sockets:
                del self._sockets[bot_id]

    async def close_revoked(self, bot_id: int) -> int:
        """Close this process's sockets of the bot whose token is no longer live (told
        ``bad_token``, code 4401, as a socket opened with it now is); how many."""
        closing = [
            close
            for close, digest in list(self._sockets.get(bot_id, {}).items())
            if self.store.bot_by_token(digest) is None
        ]
        for close in closing:
            self.closed(bot_id, close)
            with contextlib.suppress(Exception):
                await close(BAD_TOKEN_CODE, "this bot token was revoked")
        return len(closing)

    def mine(self, owner: UserRow) -> list[dict[str, Any]]:
        """A person's bots and their tokens (first characters only), for /account."""
        return [
            {
                "name": bot.name,
                "created": bot.created_at,
                "tokens": [
                    {"hint": t.hint, "created": t.created_at, "revoked": t.revoked_at}
                    for t in self.store.bot_tokens(bot.id)
                ],
            }
            for bot in self.store.bots_of(owner.id)
        ]

    def admit_table(self, user: UserRow | None) -> None:
        """Nothing, or the 429 ``too_many_tables`` of a bot at its cap of tables (waiting or
        playing, in the database: every process of a cluster and every restart agree)."""
        if user is None or not user.program:
            return
        most = self.limits.bot_tables
        if len(self.store.seated(user.id)) >= most:
            raise RoomError(
                "too_many_tables",
                f"a bot sits at most at {most} tables at once: finish one first",
                429,
                params={"n": most},
            )


#: The longest move clock of a table (server/routes/tables.py's bodies).
MOST_SECONDS = 3600


@dataclass(frozen=True, slots=True)
class Accepts:
    """The challenges a bot's program accepts, as it says when it asks for them (``GET
    /api/bot/challenges?games=italian-2,buraco&seconds=10-120&rated=true``): its games
    (a variant, or a variant and its players, ``italian-2``; None: all), the move clocks
    it can keep, and rated or unrated only (None: both). The others are declined for it.

    >>> accepts = Accepts.read("italian-2, buraco", "10-120", None)
    >>> accepts.refusal({"variant": "italian", "players": 2, "move_seconds": 40})
    >>> accepts.refusal({"variant": "italian", "players": 4, "move_seconds": 40})
    'italian-4 is not among its games (buraco, italian-2)'
    >>> accepts.refusal({"variant": "buraco", "players": 4, "move_seconds": 5})
    'a move clock of 5 s is out of its range (10 to 120 s)'
    >>> Accepts.read(None, None, False).refusal({"variant": "italian", "players": 2,
    ...     "move_seconds": 40, "rated": True})
    'it plays unrated matches only'
    """

    games: frozenset[str] | None = None
    seconds: tuple[int, int] = (1, MOST_SECONDS)
    rated: bool | None = None

    @classmethod
    def read(cls, games: str | None, seconds: str | None, rated: bool | None) -> Accepts:
        """From the query's fields; a RoomError naming the field a program got wrong."""
        named = None
        if games:
            named = frozenset(g.strip().lower() for g in games.split(",") if g.strip())
        lowest, highest = 1, MOST_SECONDS
        if seconds:
            low, _, high = seconds.partition("-")
            try:
                lowest, highest = int(low), int(high or low)
            except ValueError:
                lowest = highest = -1
            if not 1 <= lowest <= highest:
                raise RoomError(
                    "bad_message",
                    f"seconds is a move clock's range, as 10-120 (1 s at least): not "
                    f"{seconds[:20]!r}",
                    422,
                )
        return cls(named, (lowest, highest), rated)

    def refusal(self, options: dict[str, Any]) -> str | None:
        """Why the bot declines a challenge of these options (None: it fits)."""
        broken = self.broken(options)
        return None if broken is None else broken[1]

    def broken(self, options: dict[str, Any]) -> tuple[str, str] | None:
        """The field of a challenge these options break, and why (None: it fits).

        >>> Accepts.read("buraco", None, None).broken({"variant": "italian", "players": 2})
        ('variant', 'italian-2 is not among its games (buraco)')
        """
        variant, players = str(options.get("variant")), options.get("players")
        game = f"{variant}-{players}"
        if self.games is not None and not {variant, game} & self.games:
            return "variant", f"{game} is not among its games ({', '.join(sorted(self.games))})"
        clock = int(options.get("move_seconds") or 0)
        lowest, highest = self.seconds
        if not lowest <= clock <= highest:
            why = f"a move clock of {clock} s is out of its range ({lowest} to {highest} s)"
            return "move_seconds", why
        if self.rated is not None and bool(options.get("rated")) != self.rated:
            return "rated", f"it plays {'rated' if self.rated else 'unrated'} matches only"
        return None

    def json(self) -> str:
        """As kept in Redis for the cluster's other processes (:meth:`of_json`).

        >>> accepts = Accepts.read("italian-2", "10-120", True)
        >>> Accepts.of_json(accepts.json()) == accepts
        True
        """
        games = sorted(self.games) if self.games is not None else None
        return json.dumps({"games": games, "seconds": list(self.seconds), "rated": self.rated})

    @classmethod
    def of_json(cls, text: str) -> Accepts:
        data = json.loads(text)
        games = frozenset(data["games"]) if data["games"] is not None else None
        low, high = data["seconds"]
        return cls(games, (int(low), int(high)), data["rated"])


@dataclass(frozen=True, slots=True)
class Challenge:
    """A person's challenge to a bot: a table waiting for it, its seat kept."""

    id: str
    table: str
    seat: int
    challenger: str
    bot_id: int
    bot: str
    options: dict[str, Any]
    created: float

    def json(self) -> dict[str, Any]:
        return {
            "challenge": self.id,
            "table": self.table,
            "seat": self.seat,
            "from": self.challenger,
            "bot": self.bot,
            "created": self.created,
        } | self.options


class Challenges:
    """The challenges waiting for a bot's answer, in the database: every process of a
    cluster sees the same ones, a restart keeps them, and of two answers to one challenge
    only the first counts (the store changes it only while it is pending)."""

    #: Seconds a challenge waits for its bot's answer.
    TIMEOUT = 600.0
    #: Seconds an answered (or expired) challenge is kept, for its status to be asked.
    KEPT = 86_400.0

    def __init__(self, store: Store) -> None:
        self.store = store
        #: What each bot's program last said it accepts (its latest ``GET
        #: /api/bot/challenges``), by bot id: a challenge outside it is refused when it is
        #: sent, so that it never waits for the bot's answer (issue 32).
        self.declared: dict[int, Accepts] = {}
        #: The cluster's Redis (None: one process): what a program said on one process
        #: holds on every other, and outlives a restart of the one it said it to.
        self.shared: Any = None

    async def declare(self, bot_id: int, accepts: Accepts) -> None:
        """Remember what the bot's program accepts (the latest it said wins)."""
        self.declared[bot_id] = accepts
        if self.shared is not None:
            with contextlib.suppress(Exception):  # Redis away: this process knows it still
                await self.shared.set(_declared_key(bot_id), accepts.json(), ex=int(self.KEPT))

    async def accepts(self, bot_id: int) -> Accepts | None:
        """What the bot's program last said it accepts (None: it never said, so far as
        this process or the cluster knows: every challenge waits for its answer)."""
        if self.shared is not None:
            with contextlib.suppress(Exception):
                said = await self.shared.get(_declared_key(bot_id))
                if said is not None:
                    self.declared[bot_id] = Accepts.of_json(str(said))
        return self.declared.get(bot_id)

    def _since(self) -> float:
        """When the oldest challenge still waiting was made."""
        return time.time() - self.TIMEOUT

    def status(self, challenge_id: str) -> str:
        """pending, accepted, declined, or gone (none such, or its time ran out)."""
        found = self.store.challenge(challenge_id)
        if found is None or (found.status == "pending" and found.created_at < self._since()):
            return "gone"
        return found.status

    def add(self, challenge: Challenge) -> None:
        # Old challenges go as new ones come: the table stays as small as the traffic.
        self.store.forget_challenges(time.time() - self.KEPT)
        self.store.add_challenge(_row(challenge))

    def of_bot(self, bot_id: int) -> list[Challenge]:
        return [_challenge(r) for r in self.store.pending_challenges(self._since(), bot_id=bot_id)]

    def take(self, challenge_id: str, bot_id: int, answer: str) -> Challenge:
        """The bot's challenge ``challenge_id``, answered (no longer pending); 404 if there
        is none pending (answered already, here or by another process, or expired)."""
        found = self.store.answer_challenge(challenge_id, bot_id, answer, self._since())
        if found is None:
            raise RoomError("not_found", f"no challenge {challenge_id[:32]!r} for you", 404)
        return _challenge(found)

    def check_join(self, table_id: str, user_id: int | None) -> None:
        """A table that waits for a challenged bot takes no one else meanwhile."""
        found = self.holds(table_id, None)
        if found is not None and found.bot_id != user_id:
            raise RoomError(
                "forbidden",
                f"this table waits for the bot {found.bot} (a challenge)",
                409,
                params={"seat": found.seat},
            )

    def holds(self, table_id: str, seat: int | None) -> Challenge | None:
        """The pending challenge that keeps a seat of this table for its bot."""
        for row in self.store.pending_challenges(self._since(), table_id=table_id):
            if seat is None or seat == row.seat:
                return _challenge(row)
        return None


def _declared_key(bot_id: int) -> str:
    return f"burraco:accepts:{bot_id}"


def _row(challenge: Challenge) -> ChallengeRow:
    return ChallengeRow(
        id=challenge.id,
        table_id=challenge.table,
        seat=challenge.seat,
        challenger=challenge.challenger,
        bot_id=challenge.bot_id,
        bot=challenge.bot,
        options=json.dumps(challenge.options),
        status="pending",
        created_at=challenge.created,
    )


def _challenge(row: ChallengeRow) -> Challenge:
    return Challenge(
        id=row.id,
        table=row.table_id,
        seat=row.seat,
        challenger=row.challenger,
        bot_id=row.bot_id,
        bot=row.bot,
        options=json.loads(row.options),
        created=row.created_at,
    )
