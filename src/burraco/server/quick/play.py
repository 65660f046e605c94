"""Quick play: one button, a table of players of similar rating, bots after a wait.

A player chooses a game and a table size and presses "Play"; they wait in the queue of
that game with a *window* of ratings around their own. A table forms when enough players
of one queue have windows that share a rating; when nobody comes within the wait (20 s
by default, a room setting) and the player allowed it, bots fill the empty seats.

The rule, in rating points (a rating is OpenSkill's mu for that game, 25 for a newcomer
or a guest):

* a window is ``rating ± (gap + widen × seconds waited)``, at most ``± most``: narrow at
  first, wider the longer one waits;
* the oldest waiter is served first: the table gathers the waiters nearest their rating
  whose windows still share a rating with every window already gathered;
* registered players and guests queue apart: a table of registered players is rated, a
  table of guests is not;
* after ``wait_seconds`` a waiter who allowed bots is seated with those gathered who
  allowed bots too, and bots of the level whose rating for the game is nearest the
  people's take the empty seats (greedy when no bot's rating is known);
* "Play bots now" (:meth:`QuickQueue.hurry`): a waiter's wait for bots is over at once,
  bots allowed (nobody need wait out the 20 s in an empty room);
* in pairs (and trios) the lines are balanced: people spread over the lines, then the
  lines' rating sums as close as can be; seat ``s`` is in line ``s mod lines``.

:class:`QuickQueue` is the pure matcher (the clock is passed in); :class:`QuickPlay` is
the room's service around it: a task that matches every half second and seats each group
at a new table, and the tickets that tell each player where they sit, in this process's
memory. In a cluster the same rules run on a queue kept in Redis
(:class:`burraco.server.quick.redis_queue.RedisQuickPlay`, docs/cluster.md); both are a
:class:`QuickService`.

>>> queue = QuickQueue(QuickRules(wait_seconds=20))
>>> queue.join(Entry("a", "italian", 2, rating=25.0, registered=False, bots=True), now=0)
>>> queue.join(Entry("b", "italian", 2, rating=26.0, registered=False, bots=True), now=1)
>>> [[e.ticket if e else "bot" for e in g.seats] for g in queue.match(now=1)]
[['a', 'b']]
>>> queue.join(Entry("c", "italian", 2, rating=40.0, registered=True, bots=True), now=2)
>>> queue.match(now=10), queue.match(now=22)[0].bot
([], 'greedy')
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, Unpack

from burraco.server.process.background import cancel
from burraco.server.results.ratings import BOT_LEVELS, game_key
from burraco.variants import PRESETS, preset, variant

__all__ = [
    "Entry",
    "Group",
    "QuickPlay",
    "QuickQueue",
    "QuickRules",
    "QuickService",
    "Seated",
    "Waiter",
    "nearest_level",
    "quick_setups",
    "seating",
    "table_of",
    "waiting_answer",
]

log = logging.getLogger("burraco.quickplay")

#: A newcomer's rating (OpenSkill's mu before any match).
NEW_RATING = 25.0


def quick_setups() -> dict[str, tuple[int, ...]]:
    """The table sizes quick play offers for each game: every size of the preset, with
    its usual lines (4 in pairs, 6 in three pairs in italian and in two trios in buraco).

    >>> quick_setups()["online"]
    (2, 4)
    """
    return {name: tuple(sorted({p for p, _ in preset(name).tables})) for name in PRESETS}


@dataclass(frozen=True, slots=True)
class QuickRules:
    """How quick play matches (rating points are OpenSkill's mu)."""

    #: Seconds before bots may fill the empty seats.
    wait_seconds: float = 20.0
    #: Half-width of a new waiter's window of ratings.
    gap: float = 1.0
    #: What the half-width grows by in each second waited.
    widen: float = 0.3
    #: The widest half-width (so that no table is made of the best and the newest).
    most: float = 10.0

    def window(self, waited: float) -> float:
        """The half-width of the window of someone who has waited ``waited`` seconds.

        >>> QuickRules().window(0), QuickRules().window(10), QuickRules().window(600)
        (1.0, 4.0, 10.0)
        """
        return min(self.most, self.gap + self.widen * max(0.0, waited))


@dataclass(frozen=True, slots=True)
class Entry:
    """Someone who pressed "Play": their ticket, the game, their rating and choices."""

    ticket: str
    variant: str
    players: int
    rating: float
    registered: bool
    bots: bool
    name: str = ""
    user_id: int | None = None
    #: A person's bot account (docs/bots.md): it sits only with people who allow bots.
    program: bool = False

    @property
    def game(self) -> str:
        """The game of the entry's rating ("italian-4": the usual lines of the size)."""
        return game_key(variant(self.variant, players=self.players))


def refuses_bots(entry: Entry) -> bool:
    """A person who queued without bots: no bot sits at their table, a program's neither."""
    return not entry.bots and not entry.program


@dataclass(frozen=True, slots=True)
class Waiter:
    """An entry in the queue since ``since``."""

    entry: Entry
    since: float


@dataclass(frozen=True, slots=True)
class Group:
    """A table the queue has made: who sits where (None: a bot), and whether it is rated."""

    variant: str
    players: int
    lines: int
    seats: tuple[Entry | None, ...]
    rated: bool
    #: The bots' level (greedy when no seat is a bot's).
    bot: str
    #: When each person began to wait, by ticket.
    since: Mapping[str, float] = field(default_factory=dict)

    @property
    def people(self) -> list[Entry]:
        return [e for e in self.seats if e is not None]

    @property
    def bots(self) -> int:
        return sum(1 for e in self.seats if e is None)


def nearest_level(rating: float, bot_ratings: Mapping[str, float]) -> str:
    """The bot level whose rating is nearest ``rating``; greedy when none is known, and
    greedy among levels as near.

    >>> nearest_level(31.0, {"random": 12.0, "greedy": 24.0, "expert": 30.0})
    'expert'
    >>> nearest_level(31.0, {}), nearest_level(25.0, {"expert": 25.0, "greedy": 25.0})
    ('greedy', 'greedy')
    """
    known = [
        (abs(r - rating), level != "greedy", level)
        for level, r in bot_ratings.items()
        if level in BOT_LEVELS
    ]
    return min(known)[2] if known else "greedy"


def seating(
    people: list[Entry], bots: int, bot_rating: float, lines: int
) -> tuple[Entry | None, ...]:
    """The seats of a table of ``people`` and ``bots``: alone, in the order given; in
    partnerships (seat ``s`` in line ``s mod lines``), people spread over the lines as
    evenly as can be, then the lines' rating sums as close as can be.

    >>> def e(name, rating): return Entry(name, "italian", 4, rating, False, True)
    >>> [x.ticket for x in seating([e("a", 30), e("b", 28), e("c", 22), e("d", 20)], 0, 0, 2)]
    ['a', 'b', 'd', 'c']
    >>> [x.ticket if x else "bot" for x in seating([e("a", 25), e("b", 25)], 2, 25, 2)]
    ['a', 'b', 'bot', 'bot']
    """
    players = len(people) + bots
    members: list[Entry | None] = [*people, *([None] * bots)]
    if lines == players:
        return tuple(members)
    size = players // lines

    def rating(m: Entry | None) -> float:
        return bot_rating if m is None else m.rating

    best: tuple[tuple[int, float], tuple[int, ...]] | None = None
    for order in itertools.permutations(range(players)):
        teams = [order[i * size : (i + 1) * size] for i in range(lines)]
        # Each line's members once, in the order of the first member: skip the rest.
        if any(list(t) != sorted(t) for t in teams) or [t[0] for t in teams] != sorted(
            t[0] for t in teams
        ):
            continue
        counts = [sum(1 for i in t if members[i] is not None) for t in teams]
        sums = [sum(rating(members[i]) for i in t) for t in teams]
        key = (max(counts) - min(counts), round(max(sums) - min(sums), 9))
        if best is None or key < best[0]:
            best = (key, order)
    assert best is not None
    order = best[1]
    seats: list[Entry | None] = [None] * players
    for line in range(lines):
        for k, index in enumerate(order[line * size : (line + 1) * size]):
            seats[line + k * lines] = members[index]
    return tuple(seats)


class QuickQueue:
    """The waiters of every game, apart for registered players and guests (pure: no I/O;
    every method is given the time)."""

    def __init__(
        self,
        rules: QuickRules | None = None,
        bot_ratings: Mapping[str, Mapping[str, float]] | None = None,
    ) -> None:
        self.rules = rules or QuickRules()
        #: Each game's bot ratings, by level (``{"italian-2": {"greedy": 24.0, ...}}``).
        self.bot_ratings: Mapping[str, Mapping[str, float]] = bot_ratings or {}
        self._queues: dict[tuple[str, bool], dict[str, Waiter]] = {}
        self._where: dict[str, tuple[str, bool]] = {}
        #: The tickets whose holder asked for bots now: their wait for bots is over.
        self.hurried: set[str] = set()

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, ticket: object) -> bool:
        return ticket in self._where

    def join(self, entry: Entry, now: float) -> None:
        """Queue ``entry`` from ``now`` (a ticket already queued keeps its place)."""
        self.requeue([Waiter(entry, now)])

    def requeue(self, waiters: Iterable[Waiter]) -> None:
        """Queue waiters again with their own times (a table that could not be made)."""
        for w in waiters:
            if w.entry.ticket in self._where:
                continue
            key = (w.entry.game, w.entry.registered)
            self._queues.setdefault(key, {})[w.entry.ticket] = w
            self._where[w.entry.ticket] = key

    def hurry(self, ticket: str) -> bool:
        """Bots now: the waiter's wait for bots is over, and it takes them (the button is
        its holder's consent); False if the ticket does not wait.

        >>> queue = QuickQueue(QuickRules(wait_seconds=20))
        >>> queue.join(Entry("a", "italian", 2, 25.0, registered=False, bots=False), now=0)
        >>> queue.hurry("a"), [g.bots for g in queue.match(now=1)], queue.hurry("a")
        (True, [1], False)
        """
        key = self._where.get(ticket)
        if key is None:
            return False
        found = self._queues[key][ticket]
        self._queues[key][ticket] = Waiter(dataclasses.replace(found.entry, bots=True), found.since)
        self.hurried.add(ticket)
        return True

    def leave(self, ticket: str) -> bool:
        """Take a ticket out of the queue; False if it was not there."""
        self.hurried.discard(ticket)
        key = self._where.pop(ticket, None)
        if key is None:
            return False
        queue = self._queues[key]
        del queue[ticket]
        if not queue:
            del self._queues[key]
        return True

    def waiter(self, ticket: str) -> Waiter | None:
        key = self._where.get(ticket)
        return None if key is None else self._queues[key][ticket]

    def position(self, ticket: str) -> tuple[int, int]:
        """The place (1: the longest waiting) of a ticket in its queue, and the queue's size."""
        key = self._where[ticket]
        queue = self._queues[key]
        mine = queue[ticket].since
        return 1 + sum(1 for w in queue.values() if w.since < mine), len(queue)

    def sizes(self) -> dict[str, int]:
        """How many wait for each game (registered players and guests together)."""
        sizes: dict[str, int] = {}
        for (game, _), queue in self._queues.items():
            sizes[game] = sizes.get(game, 0) + len(queue)
        return sizes

    def match(self, now: float, absent: Iterable[str] = ()) -> list[Group]:
        """The tables that can be made at ``now``; their players leave the queue. The
        ``absent`` tickets (their page has stopped asking) wait in the queue unseated."""
        groups: list[Group] = []
        skipped = frozenset(absent)
        for key in list(self._queues):
            groups += self._match_queue(key, now, skipped)
        return groups

    def _match_queue(
        self, key: tuple[str, bool], now: float, absent: frozenset[str] = frozenset()
    ) -> list[Group]:
        queue = self._queues[key]
        first = next(iter(queue.values())).entry
        size, registered = first.players, key[1]
        by_rating = sorted(queue.values(), key=lambda w: (w.entry.rating, w.since))
        place = {w.entry.ticket: i for i, w in enumerate(by_rating)}
        widest = max(self.rules.window(now - w.since) for w in by_rating)
        # The absent are passed over as if already taken: nobody sits beside a ghost.
        taken: set[str] = set(absent)
        groups = []
        for anchor in sorted(queue.values(), key=lambda w: w.since):
            if anchor.entry.ticket in taken:
                continue
            found = self._gather(anchor, by_rating, place, taken, now, size - 1, widest, False)
            bots = 0
            if len(found) < size - 1:
                waited = now - anchor.since >= self.rules.wait_seconds
                if not (anchor.entry.bots and (waited or anchor.entry.ticket in self.hurried)):
                    continue
                found = self._gather(anchor, by_rating, place, taken, now, size - 1, widest, True)
                bots = size - 1 - len(found)
            chosen = [anchor, *found]
            taken.update(w.entry.ticket for w in chosen)
            groups.append(self._group(chosen, bots, registered))
        for ticket in taken - absent:
            self.leave(ticket)
        return groups

    def _gather(
        self,
        anchor: Waiter,
        by_rating: list[Waiter],
        place: dict[str, int],
        taken: set[str],
        now: float,
        need: int,
        widest: float,
        bots_only: bool,
    ) -> list[Waiter]:
        """The waiters nearest the anchor's rating whose windows share a rating with the
        anchor's and each other's, at most ``need``."""
        rating = anchor.entry.rating
        reach = self.rules.window(now - anchor.since)
        low, high = rating - reach, rating + reach
        found: list[Waiter] = []
        # A program sits only with people who allow bots: once one is gathered, nobody who
        # refused bots; once someone who refused bots is, no program.
        program, no_bots = anchor.entry.program, refuses_bots(anchor.entry)
        below, above = place[anchor.entry.ticket] - 1, place[anchor.entry.ticket] + 1
        while len(found) < need and (below >= 0 or above < len(by_rating)):
            # The nearer of the next one below and the next one above.
            down = rating - by_rating[below].entry.rating if below >= 0 else float("inf")
            up = by_rating[above].entry.rating - rating if above < len(by_rating) else float("inf")
            if down <= up:
                candidate, distance, below = by_rating[below], down, below - 1
            else:
                candidate, distance, above = by_rating[above], up, above + 1
            if distance > reach + widest:
                break  # nobody further can share a rating with the anchor
            if candidate.entry.ticket in taken or (bots_only and not candidate.entry.bots):
                continue
            if (candidate.entry.program and no_bots) or (program and refuses_bots(candidate.entry)):
                continue
            half = self.rules.window(now - candidate.since)
            lo, hi = (
                max(low, candidate.entry.rating - half),
                min(high, candidate.entry.rating + half),
            )
            if lo <= hi:
                low, high = lo, hi
                found.append(candidate)
                program = program or candidate.entry.program
                no_bots = no_bots or refuses_bots(candidate.entry)
        return found

    def _group(self, chosen: list[Waiter], bots: int, registered: bool) -> Group:
        people = [w.entry for w in chosen]
        first = people[0]
        v = variant(first.variant, players=first.players)
        mean = sum(e.rating for e in people) / len(people)
        level = nearest_level(mean, self.bot_ratings.get(first.game, {})) if bots else "greedy"
        bot_rating = self.bot_ratings.get(first.game, {}).get(level, mean)
        return Group(
            variant=v.name,
            players=v.players,
            lines=v.lines,
            seats=seating(people, bots, bot_rating, v.lines),
            rated=registered,
            bot=level,
            since={w.entry.ticket: w.since for w in chosen},
        )


# --- the room's service ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seated:
    """Where a ticket's holder sits."""

    table: str
    seat: int
    token: str

    def answer(self) -> dict[str, Any]:
        return {
            "status": "seated",
            "table": self.table,
            "seat": self.seat,
            "token": self.token,
            "url": f"/table/{self.table}",
        }


#: Makes a table: ``(kind, options, seats, bot, move_seconds, users, rated)`` → (table id,
#: tokens by seat). The room's :meth:`Room.create_seated` in the service.
SeatTable = Callable[..., Awaitable[tuple[str, dict[int, str]]]]


class QuickService(Protocol):
    """Quick play as the routes see it: in one process's memory (:class:`QuickPlay`) or
    in Redis for a cluster (:class:`~burraco.server.quick.redis_queue.RedisQuickPlay`)."""

    @property
    def rules(self) -> QuickRules: ...

    @property
    def expiry(self) -> float:
        """Seconds a ticket nobody asks about is kept."""
        ...

    async def enter(self, entry: Entry) -> dict[str, Any]:
        """Queue an entry (its ticket is new): the ticket and its first news; an account's
        earlier ticket is dropped."""
        ...

    async def ask(self, ticket: str) -> dict[str, Any] | None:
        """A ticket's news, its page asking (seated or waiting); None if unknown."""
        ...

    async def give_up(self, ticket: str) -> bool:
        """Give up a ticket (waiting or seated); False if it was unknown."""
        ...

    async def bots_now(self, ticket: str) -> dict[str, Any] | None:
        """ "Play bots now": the ticket's wait for bots is over (:meth:`QuickQueue.hurry`)
        and it is matched at once; its news (seated, unless the room is busy or another
        process took it first: then seated at the next round); None if unknown."""
        ...

    async def waiting(self) -> dict[str, int]:
        """How many wait for each game."""
        ...

    def start(self) -> None: ...

    async def stop(self) -> None: ...


def waiting_answer(
    waiter: Waiter, now: float, rules: QuickRules, position: int, size: int
) -> dict[str, Any]:
    """A waiting ticket's news: how long it has waited, when bots may come, its place."""
    bots_at = waiter.since + rules.wait_seconds if waiter.entry.bots else None
    return {
        "status": "waiting",
        "variant": waiter.entry.variant,
        "players": waiter.entry.players,
        "waited": round(now - waiter.since, 1),
        "wait_seconds": rules.wait_seconds,
        "bots_at": None if bots_at is None else round(bots_at * 1000),
        "position": position,
        "queue": size,
    }


def table_of(
    group: Group, bot_ids: Mapping[str, int]
) -> tuple[list[tuple[str, str]], dict[int, int]]:
    """A group's seats as a new table takes them ((name, kind) by seat) and the accounts
    sitting (people's, and the bots' of the group's level)."""
    seats: list[tuple[str, str]] = []
    users: dict[int, int] = {}
    for i, entry in enumerate(group.seats):
        if entry is None:
            seats.append((f"{group.bot} bot {i}", "bot"))
            if group.bot in bot_ids:
                users[i] = bot_ids[group.bot]
        else:
            seats.append((entry.name, "human"))
            if entry.user_id is not None:
                users[i] = entry.user_id
    return seats, users


async def make_table(
    group: Group,
    seat_table: SeatTable,
    bot_accounts: Callable[[str], Mapping[str, tuple[int, float | None]]],
) -> tuple[str, dict[int, str]]:
    """Make a matched group's table (its people, and bots rated as their levels): its id
    and the tokens of its people's seats. Both queues, in memory and in Redis, seat so."""
    game = game_key(variant(group.variant, players=group.players))
    bot_ids = {level: account for level, (account, _) in bot_accounts(game).items()}
    seats, users = table_of(group, bot_ids)
    return await seat_table(
        group.variant,
        {"players": group.players},
        seats,
        bot=group.bot,
        users=users,
        rated=group.rated,
    )


class MatcherSettings(TypedDict, total=False):
    """What a quick play is given besides its tables (:class:`Matcher`)."""

    rules: QuickRules | None
    interval: float
    expiry: float
    alive: float
    clock: Callable[[], float]
    bot_accounts: Callable[[str], Mapping[str, tuple[int, float | None]]] | None
    may_seat: Callable[[], bool]


class Matcher:
    """The task that matches a quick-play queue every ``interval`` seconds, from
    :meth:`start` to :meth:`stop`: one for the queue in memory and the one in Redis.

    What both are given: where a group sits (``seat_table``), the queue's rules, the
    matching's pace, how long a ticket nobody asks about lives (``expiry``) and how
    recently its page must have asked to be seated (``alive``), the clock, each game's
    bot accounts, and whether the room takes new tables now (``may_seat``)."""

    def __init__(
        self,
        seat_table: SeatTable,
        *,
        rules: QuickRules | None = None,
        interval: float = 0.5,
        expiry: float = 60.0,
        alive: float = 5.0,
        clock: Callable[[], float] = time.time,
        bot_accounts: Callable[[str], Mapping[str, tuple[int, float | None]]] | None = None,
        may_seat: Callable[[], bool] = lambda: True,
    ) -> None:
        self.seat_table = seat_table
        self.rules = rules or QuickRules()
        self.interval = interval
        self.expiry = expiry
        self.alive = alive
        # Wall time, not monotonic: the processes of a cluster compare each other's times.
        self.clock = clock
        #: A game's bot accounts, by level: (account id, rating; None if not rated yet).
        self.bot_accounts = bot_accounts or (lambda game: {})
        #: False while the room turns new tables away (it is busy): the queue waits.
        self.may_seat = may_seat
        self._task: asyncio.Task[None] | None = None

    async def tick(self) -> list[Group]:
        """One round of matching: the groups seated."""
        raise NotImplementedError

    def start(self) -> None:
        """Match every ``interval`` seconds until :meth:`stop`."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.tick()
            except Exception:
                log.exception("quick play")


class QuickPlay(Matcher):
    """The room's quick play: a queue, a task that matches it, and each ticket's outcome.

    Tickets are secrets: only their holder learns the seat's token. A ticket nobody asks
    about for ``expiry`` seconds is dropped (the page polls every second or so). A ticket
    is seated only while its page asks: once asked about after "Play", and within the
    last ``alive`` seconds. A table is made of people whose page is waiting, never of
    tickets a script pressed and left."""

    def __init__(self, seat_table: SeatTable, **settings: Unpack[MatcherSettings]) -> None:
        super().__init__(seat_table, **settings)
        self.queue = QuickQueue(self.rules)
        self.seated: dict[str, Seated] = {}
        self.touched: dict[str, float] = {}
        #: The tickets asked about since "Play" (the page is waiting on them).
        self.asked: set[str] = set()
        self.accounts: dict[int, str] = {}

    def join(self, entry: Entry) -> dict[str, Any]:
        """Queue an entry (its ticket is new); an account's earlier ticket is dropped."""
        now = self.clock()
        if entry.user_id is not None:
            earlier = self.accounts.get(entry.user_id)
            if earlier is not None:
                self.leave(earlier)
            self.accounts[entry.user_id] = entry.ticket
        self.queue.join(entry, now)
        self.touched[entry.ticket] = now
        answer = self.status(entry.ticket, asked=False)
        assert answer is not None
        return {"ticket": entry.ticket} | answer

    def status(self, ticket: str, *, asked: bool = True) -> dict[str, Any] | None:
        """A ticket's news: seated (where, with the seat's token) or waiting (for how
        long, until when bots may come, its place in the queue); None if unknown.
        ``asked``: its page asks (not the answer to "Play" itself)."""
        now = self.clock()
        if ticket in self.seated:
            self.touched[ticket] = now
            return self.seated[ticket].answer()
        waiter = self.queue.waiter(ticket)
        if waiter is None:
            return None
        self.touched[ticket] = now
        if asked:
            self.asked.add(ticket)
        position, size = self.queue.position(ticket)
        return waiting_answer(waiter, now, self.rules, position, size)

    # The service's doors (QuickService): this queue answers at once.

    async def enter(self, entry: Entry) -> dict[str, Any]:
        return self.join(entry)

    async def ask(self, ticket: str) -> dict[str, Any] | None:
        return self.status(ticket)

    async def give_up(self, ticket: str) -> bool:
        return self.leave(ticket)

    async def bots_now(self, ticket: str) -> dict[str, Any] | None:
        if self.queue.hurry(ticket):
            self.status(ticket)  # its page asks: it is there to sit
            await self.tick()
        return self.status(ticket)

    async def waiting(self) -> dict[str, int]:
        return self.queue.sizes()

    def leave(self, ticket: str) -> bool:
        """Give up a ticket (waiting or seated); False if it was unknown."""
        known = self.queue.leave(ticket) | (self.seated.pop(ticket, None) is not None)
        self.touched.pop(ticket, None)
        self.asked.discard(ticket)
        for user_id, mine in list(self.accounts.items()):
            if mine == ticket:
                del self.accounts[user_id]
        return known

    def expire(self, now: float) -> list[str]:
        """Drop the tickets nobody asked about for ``expiry`` seconds."""
        gone = [t for t, seen in self.touched.items() if now - seen > self.expiry]
        for ticket in gone:
            self.leave(ticket)
        return gone

    async def tick(self) -> list[Group]:
        """One round: expire, refresh the bots' ratings, match, seat each group."""
        now = self.clock()
        self.expire(now)
        if not len(self.queue) or not self.may_seat():
            return []
        games = self.queue.sizes()
        self.queue.bot_ratings = {
            game: {level: r for level, (_, r) in self.bot_accounts(game).items() if r is not None}
            for game in games
        }
        absent = [
            t for t, seen in self.touched.items() if t not in self.asked or now - seen > self.alive
        ]
        groups = self.queue.match(now, absent)
        for group in groups:
            await self._seat(group)
        return groups

    async def _seat(self, group: Group) -> None:
        try:
            table, tokens = await make_table(group, self.seat_table, self.bot_accounts)
        except Exception:
            # The database refused, say: the people wait on, in their places.
            log.exception("seating a quick-play table")
            self.queue.requeue(Waiter(e, group.since[e.ticket]) for e in group.people)
            return
        for i, entry in enumerate(group.seats):
            if entry is not None and entry.ticket in self.touched:
                self.seated[entry.ticket] = Seated(table, i, tokens[i])
                self.asked.discard(entry.ticket)


def new_ticket() -> str:
    """A ticket: a secret only its holder knows."""
    return secrets.token_urlsafe(18)
