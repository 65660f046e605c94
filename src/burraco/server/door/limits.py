"""What one visitor may ask of the room: sizes of requests and rates per address.

Every limit has a default that a person never meets and a script that floods the room
does; each is a ``burraco serve`` setting through a ``BURRACO_<NAME>`` variable (see
docs/operating.md). A rate is the ``limits`` library's notation: ``"20/minute"``,
``"5 per 10 seconds"``.

>>> Limits().create_table
'20/minute'
>>> rates = Rates(Limits(create_table="2/minute"))
>>> rates.hit("create_table", "10.0.0.1"), rates.hit("create_table", "10.0.0.1")
(None, None)
>>> 0 < rates.hit("create_table", "10.0.0.1") <= 60
True
>>> rates.hit("create_table", "10.0.0.2") is None   # another address has its own count
True
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from limits import parse

from burraco.server.door.capacity import from_env

__all__ = [
    "SHARED_KINDS",
    "SYNC_EVENTS",
    "TRY_LATER",
    "Budget",
    "Limits",
    "Lockout",
    "Rates",
    "SharedRates",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-visitor limits of the room."""

    #: Bytes of an HTTP request's body (413 past it, before it is read whole).
    body_bytes: int = 64 * 1024
    #: Bytes of one WebSocket message.
    message_bytes: int = 16 * 1024
    #: Rates per client address.
    create_table: str = "20/minute"
    join_table: str = "60/minute"
    create_tournament: str = "5/minute"
    pad_tournament: str = "10/minute"
    start_round: str = "10/minute"
    #: Presses of quick play's "Play" per address.
    quick_play: str = "30/minute"
    #: Reads of a table's reviews (``GET /api/tables/{id}/reviews``) per address: the
    #: replay page asks every 0.7 s while a review runs (14 in 10 s). A window of 10 s,
    #: not a minute: a flood is not let through a minute's worth at once.
    read_reviews: str = "40 per 10 seconds"
    #: Login attempts per address (a club's players may share one), and new accounts per
    #: address.
    log_in: str = "30/minute"
    sign_up: str = "30/hour"
    #: Wrong passwords for one name from one address before that pair must wait (the
    #: owner from another address never does); then the waits double from
    #: ``log_in_backoff`` seconds up to ``log_in_backoff_max`` (see :class:`Lockout`).
    log_in_free: int = 5
    log_in_backoff: float = 2.0
    log_in_backoff_max: float = 900.0
    #: Chat messages of one seat (all its sockets) or one spectator.
    chat_messages: str = "5 per 10 seconds"
    #: Messages one WebSocket may send (actions, hints, syncs, pings); past it they are
    #: dropped, with one "too_fast" answer, until the window allows more. The same figure
    #: is the socket's budget of work at its table (:class:`Budget`): a message costs 1, a
    #: sync more, by the events it resends.
    socket_messages: str = "60 per 10 seconds"
    #: Sockets one account (a person's or a bot's) may open, seats' and spectators',
    #: from however many addresses: a page reconnects a few times an evening, a program
    #: after a restart once a table; one opening and closing sockets in a loop is held to
    #: this (each opening costs the room a state, a sync, a seat coming online).
    account_sockets: str = "30/minute"
    #: Messages a bot account's socket may send (docs/bots.md): a program moves as fast as
    #: the table lets it, and this only stops a loop gone wrong. Its syncs cost it as
    #: much more as its budget is bigger: a program replays no more of a log than a person.
    bot_messages: str = "600 per 10 seconds"
    #: Bot accounts a person may hold, live API tokens a bot may hold, and tables (waiting
    #: or playing) a bot may sit at at once.
    bots_per_person: int = 3
    tokens_per_bot: int = 3
    bot_tables: int = 4
    #: Entrants a tournament may be padded to with bots.
    pad_size: int = 128
    #: Tables one online round may seat.
    round_tables: int = 64

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, overridden by ``BURRACO_<NAME>`` variables."""
        return from_env(cls)


#: What each rate counts, for the message of a refusal.
_WHAT = {
    "create_table": "new tables",
    "join_table": "joins",
    "create_tournament": "new tournaments",
    "pad_tournament": "paddings",
    "start_round": "rounds started",
    "quick_play": "quick-play requests",
    "read_reviews": "reads of reviews",
    "log_in": "login attempts",
    "sign_up": "new accounts",
    "account_sockets": "sockets opened by your account",
    "socket_messages": "messages",
    "bot_messages": "messages",
    "chat_messages": "chat messages",
}


class Rates:
    """The per-address counts of one process (a moving window in memory).

    The window is kept here, on the event loop, not in the ``limits`` library's memory
    storage: that one starts a thread to expire its entries after every idle moment of
    10 ms and scans every key from it, which under load cost the room more than a
    third of a millisecond of each socket message."""

    #: Hits between two sweeps of the addresses whose windows are empty.
    SWEEP = 4096

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        # (amount, seconds) of each kind, parsed from the limits' notation.
        self._items = {
            kind: (item.amount, float(item.get_expiry()))
            for kind, item in ((k, parse(getattr(limits, k))) for k in _WHAT)
        }
        self._hits: dict[tuple[str, str], deque[float]] = {}
        self._count = 0
        #: The cluster's counts (Redis), when the room is one process of several.
        self.shared: SharedRates | None = None

    def hit(self, kind: str, address: str) -> float | None:
        """Count one request of ``kind`` from ``address``: None if it may go on, else the
        seconds until it may."""
        amount, seconds = self._items[kind]
        now = time.monotonic()
        hits = self._hits.get((kind, address))
        if hits is None:
            self._count += 1
            if self._count % self.SWEEP == 0:
                self._sweep(now)
            hits = self._hits[(kind, address)] = deque(maxlen=max(1, amount))
        while hits and hits[0] <= now - seconds:
            hits.popleft()
        if len(hits) < amount:
            hits.append(now)
            return None
        return max(1.0, round(hits[0] + seconds - now, 1))

    def _sweep(self, now: float) -> None:
        """Forget the addresses none of whose requests still counts (memory stays bounded
        by the addresses seen within the longest window)."""
        for key, hits in list(self._hits.items()):
            if not hits or hits[-1] <= now - self._items[key[0]][1]:
                del self._hits[key]

    @staticmethod
    def what(kind: str) -> str:
        return _WHAT[kind]

    async def hit_anywhere(self, kind: str, address: str) -> float | None:
        """:meth:`hit`, counted across the cluster for a request's kind when the rates are
        :attr:`shared` (a socket's and a seat's messages live on one process: counted
        here)."""
        if self.shared is not None and kind in SHARED_KINDS:
            return await self.shared.hit(kind, address, self)
        return self.hit(kind, address)


#: The rates of HTTP requests: an address's requests reach any process of a cluster.
SHARED_KINDS: frozenset[str] = frozenset(
    {
        "create_table",
        "join_table",
        "create_tournament",
        "pad_tournament",
        "start_round",
        "quick_play",
        "read_reviews",
        "log_in",
        "sign_up",
        # An account's sockets may open on any process, from any address.
        "account_sockets",
    }
)

#: The close code of a socket its account opened too soon after too many others: the
#: page tries again later (its backoff).
TRY_LATER = 1013


class SharedRates:
    """The per-address rates of a cluster, in its Redis (the ``limits`` library's moving
    window there): the proxy sends an address's requests round the processes, and each
    process counting alone would let it make as many times its rate as there are
    processes. When Redis does not answer, each process counts alone (``local``): the
    rates still hold per process, and nobody is refused for want of Redis."""

    def __init__(self, redis_url: str) -> None:
        from limits.aio.storage import RedisStorage
        from limits.aio.strategies import MovingWindowRateLimiter

        self.storage = RedisStorage(
            f"async+{redis_url}", implementation="redispy", key_prefix="burraco:rate"
        )
        self.limiter = MovingWindowRateLimiter(self.storage)

    async def hit(self, kind: str, address: str, local: Rates) -> float | None:
        item = parse(getattr(local.limits, kind))
        try:
            if await self.limiter.hit(item, kind, address):
                return None
            stats = await self.limiter.get_window_stats(item, kind, address)
        except Exception as error:  # Redis away: each process counts alone meanwhile
            log.warning("rates counted per process (Redis: %s)", error)
            return local.hit(kind, address)
        return max(1.0, round(stats.reset_time - time.time(), 1))


@dataclass(frozen=True, slots=True)
class _Failures:
    count: int
    until: float
    last: float


class Lockout:
    """Wrong passwords counted per (address, name): past ``free`` of them that pair waits,
    twice as long after each further one, up to ``longest`` seconds; a right password
    clears it. The lock is the pair's alone, so whoever guesses from one address never
    locks the owner out from another (docs/operating.md says why there is no per-name
    cap across addresses). An attempt counts as it begins, before its password is
    checked, so that attempts sent at once cannot all slip through before the first
    fails.

    >>> now = [0.0]
    >>> lock = Lockout(Limits(log_in_free=2, log_in_backoff=1.0), clock=lambda: now[0])
    >>> [lock.attempt("10.0.0.1", "anna") for _ in range(3)]
    [None, None, 1.0]
    >>> lock.attempt("10.0.0.2", "anna") is None   # the owner, from home
    True
    >>> now[0] = 1.0; lock.attempt("10.0.0.1", "anna") is None
    True
    >>> lock.attempt("10.0.0.1", "anna")   # the third wrong one doubled the wait
    2.0
    >>> lock.succeeded("10.0.0.1", "anna"); lock.attempt("10.0.0.1", "anna") is None
    True
    """

    #: Pairs remembered at once; past it the longest quiet go first.
    MOST = 100_000

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.free = max(1, limits.log_in_free)
        self.first = limits.log_in_backoff
        self.longest = limits.log_in_backoff_max
        self.clock = clock
        self._pairs: OrderedDict[tuple[str, str], _Failures] = OrderedDict()

    def attempt(self, address: str, name: str) -> float | None:
        """Count one attempt of ``name`` from ``address``: None if it may be checked, else
        the seconds the pair must still wait (the attempt is then not counted)."""
        now = self.clock()
        key = (address, name)
        seen = self._pairs.get(key)
        # A pair quiet for twice the longest wait starts afresh.
        if seen is not None and now - seen.last > 2 * self.longest:
            seen = None
        if seen is not None and seen.until > now:
            return max(1.0, round(seen.until - now, 1))
        count = (seen.count if seen else 0) + 1
        until = now
        if count >= self.free:
            until = now + min(self.longest, self.first * 2 ** (count - self.free))
        self._pairs[key] = _Failures(count, until, now)
        self._pairs.move_to_end(key)
        while len(self._pairs) > self.MOST:
            self._pairs.popitem(last=False)
        return None

    def succeeded(self, address: str, name: str) -> None:
        """The right password: the pair's count starts again."""
        self._pairs.pop((address, name), None)


#: Events a sync resends for one unit of a socket's budget (a person's; a program's costs
#: scale with its bigger budget): an event is a small message, the state at the end of a
#: sync a big one, so a sync of 200 events costs a person 21 messages.
SYNC_EVENTS = 10


@dataclass(frozen=True, slots=True)
class Budget:
    """One socket's work at its table: a token bucket of ``size`` units, ``rate`` of them
    regained a second, each message paying its cost (issue 32: nine programs syncing a
    long log 60 times a second each froze every table, where a message count let them).

    ``scale`` is how many times a person's budget this is (a program's: 10 by default):
    a sync costs it as many times more, so that its bigger budget buys moves, not replays.
    A sync's cost is capped at half the bucket, so that a person reloading a long match
    still has half a budget to play with; the cap is what a flood of them pays.

    >>> budget = Budget.of(Limits().socket_messages, now=0.0)
    >>> budget.sync_cost(0), budget.sync_cost(200), budget.sync_cost(5000)
    (1, 21, 30)
    >>> budget.pay(21, now=0.0).units, budget.pay(100, now=0.0) is None
    (39.0, True)
    >>> spent = budget.pay(30, now=0.0).pay(30, now=0.0)
    >>> spent.pay(1, now=0.0) is None, spent.pay(1, now=1.0).units   # 6 units a second
    (True, 5.0)
    >>> Budget.of(Limits().bot_messages, now=0.0).sync_cost(200)   # a program's: 10 times
    210
    """

    size: float
    rate: float
    units: float
    at: float
    scale: float = 1.0
    #: The table's version a sync last brought this socket to (-1: no sync yet): the
    #: events up to it were sent on this socket, and are not sent on it again.
    synced: int = -1
    #: Whether the last message was refused for want of units (one ``too_fast`` a burst).
    short: bool = False

    @classmethod
    def of(cls, rate: str, now: float, person: str | None = None) -> Budget:
        """A full budget of ``rate`` (the limits' notation), ``person`` the rate of a
        person's socket it is compared with (the default's)."""
        size, per = _per_second(rate)
        _, person_per = _per_second(person or Limits().socket_messages)
        return cls(size, per, size, now, max(1.0, per / person_per))

    def sync_cost(self, events: int) -> int:
        """The cost of a sync that resends ``events`` events and the state."""
        cost = self.scale * (1 + -(-events // SYNC_EVENTS))
        return int(min(cost, max(1.0, self.size // 2)))

    def pay(self, cost: int, now: float) -> Budget | None:
        """The budget after a message of ``cost``, or None if it cannot pay it yet."""
        units = min(self.size, self.units + max(0.0, now - self.at) * self.rate)
        if units < cost:
            return None
        return replace(self, units=units - cost, at=now, short=False)

    def wait(self, cost: int, now: float) -> float:
        """Seconds until a message of ``cost`` may be paid."""
        units = min(self.size, self.units + max(0.0, now - self.at) * self.rate)
        return max(0.0, (cost - units) / self.rate)


def _per_second(rate: str) -> tuple[float, float]:
    """A rate's amount and the units it regains a second."""
    item = parse(rate)
    return float(item.amount), item.amount / float(item.get_expiry())
