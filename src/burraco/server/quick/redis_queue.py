"""Quick play for a cluster: the queue, the tickets and the seating in Redis.

The same rules as one process's :class:`~burraco.server.quick.play.QuickPlay` (the
matcher is the same pure :class:`~burraco.server.quick.play.QuickQueue`, rebuilt from
Redis at each round), but every process of the cluster sees one queue: players who
press "Play" on different processes meet, a ticket may be asked about on any process,
and a ticket outlives the process that gave it. The keys (docs/cluster.md):

* ``burraco:quick:t:{ticket}``, a hash: the entry (JSON), its queue, ``since``,
  ``touched``, ``asked``, its account, ``hurry`` once its holder asked for bots now,
  and once seated ``table``, ``seat``, ``token``
  (``claim`` while a process seats it). It expires ``expiry`` seconds after the last
  time its page asked.
* ``burraco:quick:q:{game}:{registered|guests}``, a sorted set of the tickets waiting in
  that queue, by the time they began to wait; ``burraco:quick:queues`` names them all.
  A ticket is in its queue exactly while it waits (not while claimed, nor once seated).
* ``burraco:quick:account:{id}``: an account's one ticket across the cluster.
* ``burraco:quick:claims``, a sorted set: the tickets being seated, by the end of the
  claim's lease.

Every process matches every half second. Seating is optimistic and atomic: a process
that found a group *takes* its tickets with one Lua script, which takes all of them only
if all still wait (else none: another process was first); then it makes the table and
records the seats with a second script, only for tickets its claim still holds. So a
ticket is never seated twice and a group never gets two tables. A process that dies
between the two leaves a claim whose lease (:data:`CLAIM_SECONDS`) runs out: its tickets
wait again, in their places.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
from typing import Any, Unpack

from burraco.server.quick.play import (
    Entry,
    Group,
    Matcher,
    MatcherSettings,
    QuickQueue,
    Seated,
    SeatTable,
    Waiter,
    make_table,
    waiting_answer,
)
from burraco.server.table.errors import RoomError

__all__ = ["CLAIM_SECONDS", "PREFIX", "RedisQuickPlay"]

log = logging.getLogger("burraco.quickplay")

PREFIX = "burraco:quick:"
#: A process that took a group's tickets has this long to record their seats; past it
#: (the process died) the tickets wait again.
CLAIM_SECONDS = 30.0
#: What a player hears when Redis cannot be reached.
UNREACHABLE = "quick play's queue cannot be reached right now; try again in a moment"

# Queue a new ticket and say how it stands; an account's earlier ticket is dropped in the
# same step, so that two "Play" at once on two processes leave one ticket.
# ARGV: ticket, entry, queue, now, expiry (ms), account ('' for a guest).
_JOIN = """
local P = 'burraco:quick:'
local ticket, queue, now, expiry, account = ARGV[1], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if account ~= '' then
  local akey = P .. 'account:' .. account
  local earlier = redis.call('GET', akey)
  if earlier then
    local ekey = P .. 't:' .. earlier
    local q = redis.call('HGET', ekey, 'queue')
    if q then redis.call('ZREM', q, earlier) end
    redis.call('ZREM', P .. 'claims', earlier)
    redis.call('DEL', ekey)
  end
  redis.call('SET', akey, ticket, 'PX', expiry)
end
local tkey = P .. 't:' .. ticket
redis.call('HSET', tkey, 'entry', ARGV[2], 'queue', queue, 'since', now, 'touched', now,
  'asked', '0', 'account', account)
redis.call('PEXPIRE', tkey, expiry)
redis.call('ZADD', queue, now, ticket)
redis.call('SADD', P .. 'queues', queue)
return cjson.encode({entry = ARGV[2], since = now, position = redis.call('ZRANK', queue, ticket) + 1,
  size = redis.call('ZCARD', queue)})
"""

# A ticket's page asks: touch it (and its account's key), and say how it stands.
# ARGV: ticket, now, expiry (ms), asked ('1': its page, '0': the answer to "Play").
_ASK = """
local P = 'burraco:quick:'
local ticket = ARGV[1]
local tkey = P .. 't:' .. ticket
if redis.call('EXISTS', tkey) == 0 then return false end
redis.call('HSET', tkey, 'touched', ARGV[2])
redis.call('PEXPIRE', tkey, ARGV[3])
local h = redis.call('HMGET', tkey, 'entry', 'queue', 'since', 'account', 'table', 'seat', 'token')
if h[4] and h[4] ~= '' then
  local akey = P .. 'account:' .. h[4]
  if redis.call('GET', akey) == ticket then redis.call('PEXPIRE', akey, ARGV[3]) end
end
if h[5] then
  return cjson.encode({table = h[5], seat = h[6], token = h[7]})
end
if ARGV[4] == '1' then redis.call('HSET', tkey, 'asked', '1') end
local rank = redis.call('ZRANK', h[2], ticket)
return cjson.encode({entry = h[1], since = h[3], position = rank and rank + 1 or 1,
  size = redis.call('ZCARD', h[2])})
"""

# "Play bots now": a waiting ticket's wait for bots is over, bots allowed; its page asks.
# ARGV: ticket, now, expiry (ms). Returns 1, or 0 if the ticket does not wait.
_HURRY = """
local P = 'burraco:quick:'
local ticket = ARGV[1]
local tkey = P .. 't:' .. ticket
local h = redis.call('HMGET', tkey, 'entry', 'queue')
if not h[2] or not redis.call('ZSCORE', h[2], ticket) then return 0 end
local entry = cjson.decode(h[1])
entry['bots'] = true
redis.call('HSET', tkey, 'entry', cjson.encode(entry), 'hurry', '1', 'touched', ARGV[2],
  'asked', '1')
redis.call('PEXPIRE', tkey, ARGV[3])
return 1
"""

# Give a ticket up, waiting, claimed or seated. ARGV: ticket.
_LEAVE = """
local P = 'burraco:quick:'
local ticket = ARGV[1]
local tkey = P .. 't:' .. ticket
local h = redis.call('HMGET', tkey, 'queue', 'account')
if not h[1] then return 0 end
redis.call('ZREM', h[1], ticket)
redis.call('ZREM', P .. 'claims', ticket)
if h[2] ~= '' and redis.call('GET', P .. 'account:' .. h[2]) == ticket then
  redis.call('DEL', P .. 'account:' .. h[2])
end
redis.call('DEL', tkey)
return 1
"""

# Take a group's tickets for seating: all of them if all still wait, else none.
# ARGV: claim, lease's end, tickets...
_TAKE = """
local P = 'burraco:quick:'
for i = 3, #ARGV do
  local q = redis.call('HGET', P .. 't:' .. ARGV[i], 'queue')
  if not q or not redis.call('ZSCORE', q, ARGV[i]) then return 0 end
end
for i = 3, #ARGV do
  local tkey = P .. 't:' .. ARGV[i]
  redis.call('ZREM', redis.call('HGET', tkey, 'queue'), ARGV[i])
  redis.call('HSET', tkey, 'claim', ARGV[1])
  redis.call('ZADD', P .. 'claims', ARGV[2], ARGV[i])
end
return 1
"""

# Record the seats of the tickets the claim still holds. ARGV: claim, then (ticket,
# table, seat, token) for each person. Returns how many were recorded.
_SEAT = """
local P = 'burraco:quick:'
local n = 0
for i = 2, #ARGV, 4 do
  local tkey = P .. 't:' .. ARGV[i]
  if redis.call('HGET', tkey, 'claim') == ARGV[1] then
    redis.call('HSET', tkey, 'table', ARGV[i + 1], 'seat', ARGV[i + 2], 'token', ARGV[i + 3])
    redis.call('HDEL', tkey, 'claim', 'asked')
    redis.call('ZREM', P .. 'claims', ARGV[i])
    n = n + 1
  end
end
return n
"""

# Put back in their queues, in their places, the tickets a claim holds (the table could
# not be made). ARGV: claim, tickets...
_REQUEUE = """
local P = 'burraco:quick:'
for i = 2, #ARGV do
  local tkey = P .. 't:' .. ARGV[i]
  if redis.call('HGET', tkey, 'claim') == ARGV[1] then
    local h = redis.call('HMGET', tkey, 'queue', 'since')
    redis.call('HDEL', tkey, 'claim')
    redis.call('ZADD', h[1], h[2], ARGV[i])
    redis.call('ZREM', P .. 'claims', ARGV[i])
  end
end
return 1
"""

# The claims whose lease has run out (their process died while seating): their tickets
# wait again, in their places. ARGV: now.
_RECOVER = """
local P = 'burraco:quick:'
local due = redis.call('ZRANGEBYSCORE', P .. 'claims', '-inf', ARGV[1])
for _, ticket in ipairs(due) do
  redis.call('ZREM', P .. 'claims', ticket)
  local tkey = P .. 't:' .. ticket
  if redis.call('HEXISTS', tkey, 'claim') == 1 then
    local h = redis.call('HMGET', tkey, 'queue', 'since')
    redis.call('HDEL', tkey, 'claim')
    redis.call('ZADD', h[1], h[2], ticket)
  end
end
return #due
"""


def queue_key(entry: Entry) -> str:
    """The sorted set of the entry's queue: its game, registered players or guests.

    >>> queue_key(Entry("t", "italian", 4, 25.0, registered=True, bots=True))
    'burraco:quick:q:italian-4:registered'
    """
    return f"{PREFIX}q:{entry.game}:{'registered' if entry.registered else 'guests'}"


def _entry(raw: str) -> Entry:
    return Entry(**json.loads(raw))


class RedisQuickPlay(Matcher):
    """Quick play over Redis (a :class:`~burraco.server.quick.play.QuickService`):
    ``redis`` is an asyncio client that answers strings (``decode_responses``)."""

    def __init__(
        self, redis: Any, seat_table: SeatTable, **settings: Unpack[MatcherSettings]
    ) -> None:
        super().__init__(seat_table, **settings)
        self.redis = redis
        self._scripts = {
            name: redis.register_script(text)
            for name, text in {
                "join": _JOIN,
                "ask": _ASK,
                "leave": _LEAVE,
                "hurry": _HURRY,
                "take": _TAKE,
                "seat": _SEAT,
                "requeue": _REQUEUE,
                "recover": _RECOVER,
            }.items()
        }
        #: Groups this process found but another took first (they race on one queue).
        self.lost = 0

    async def _run_script(self, name: str, *args: Any) -> Any:
        """Run one of the scripts; Redis out of reach is a 503 the page may retry (the
        queue is unchanged: a script runs whole or not at all)."""
        from redis.exceptions import RedisError

        try:
            return await self._scripts[name](keys=[], args=[str(a) for a in args])
        except RedisError as error:
            raise RoomError("unavailable", UNREACHABLE, 503) from error

    @property
    def _expiry_ms(self) -> int:
        return max(1, round(self.expiry * 1000))

    # --- the doors ------------------------------------------------------------------------

    async def enter(self, entry: Entry) -> dict[str, Any]:
        now = self.clock()
        account = "" if entry.user_id is None else str(entry.user_id)
        raw = json.dumps(dataclasses.asdict(entry))
        found = await self._run_script(
            "join", entry.ticket, raw, queue_key(entry), repr(now), self._expiry_ms, account
        )
        # Told from the join itself: a "Play" of the same account on another process
        # a moment later may already have dropped this ticket.
        return {"ticket": entry.ticket} | self._news(json.loads(found), now)

    async def ask(self, ticket: str) -> dict[str, Any] | None:
        return await self._ask(ticket, asked=True)

    async def _ask(self, ticket: str, *, asked: bool) -> dict[str, Any] | None:
        now = self.clock()
        raw = await self._run_script("ask", ticket, repr(now), self._expiry_ms, int(asked))
        if raw is None:
            return None
        return self._news(json.loads(raw), now)

    def _news(self, found: dict[str, Any], now: float) -> dict[str, Any]:
        """A ticket's answer from what a script found: its seat, or its wait."""
        if "table" in found:
            return Seated(found["table"], int(found["seat"]), found["token"]).answer()
        waiter = Waiter(_entry(found["entry"]), float(found["since"]))
        return waiting_answer(waiter, now, self.rules, int(found["position"]), int(found["size"]))

    async def give_up(self, ticket: str) -> bool:
        return bool(await self._run_script("leave", ticket))

    async def bots_now(self, ticket: str) -> dict[str, Any] | None:
        if await self._run_script("hurry", ticket, repr(self.clock()), self._expiry_ms):
            await self.tick()
        return await self._ask(ticket, asked=True)

    async def waiting(self) -> dict[str, int]:
        from redis.exceptions import RedisError

        sizes: dict[str, int] = {}
        try:
            keys = sorted(await self.redis.smembers(PREFIX + "queues"))
            counts = [int(await self.redis.zcard(key)) for key in keys]
        except RedisError as error:
            raise RoomError("unavailable", UNREACHABLE, 503) from error
        for key, count in zip(keys, counts, strict=True):
            if count:
                game = key.removeprefix(PREFIX + "q:").rsplit(":", 1)[0]
                sizes[game] = sizes.get(game, 0) + count
        return sizes

    # --- matching -------------------------------------------------------------------------

    async def _load(self, now: float) -> tuple[QuickQueue, list[str]]:
        """The queue as Redis holds it now, and the tickets whose page is not waiting."""
        queue = QuickQueue(self.rules)
        absent: list[str] = []
        for key in await self.redis.smembers(PREFIX + "queues"):
            tickets: list[str] = await self.redis.zrange(key, 0, -1)
            if not tickets:
                continue
            async with self.redis.pipeline(transaction=False) as pipe:
                for ticket in tickets:
                    pipe.hmget(f"{PREFIX}t:{ticket}", "entry", "since", "touched", "asked", "hurry")
                rows = await pipe.execute()
            expired = []
            for ticket, (raw, since, touched, asked, hurry) in zip(tickets, rows, strict=True):
                if raw is None:
                    expired.append(ticket)  # its hash lapsed: nobody asked for too long
                    continue
                queue.requeue([Waiter(_entry(raw), float(since))])
                if hurry == "1":
                    queue.hurry(ticket)
                if asked != "1" or now - float(touched) > self.alive:
                    absent.append(ticket)
            if expired:
                await self.redis.zrem(key, *expired)
        return queue, absent

    async def tick(self) -> list[Group]:
        """One round: claims of dead processes back in the queue, match, seat each group
        this process is the first to take."""
        now = self.clock()
        await self._run_script("recover", repr(now))
        if not self.may_seat():
            return []
        queue, absent = await self._load(now)
        if not len(queue):
            return []
        queue.bot_ratings = {
            game: {level: r for level, (_, r) in self.bot_accounts(game).items() if r is not None}
            for game in queue.sizes()
        }
        seated = []
        for group in queue.match(now, absent):
            if await self._seat(group):
                seated.append(group)
        return seated

    async def _seat(self, group: Group) -> bool:
        claim = secrets.token_hex(8)
        tickets = [e.ticket for e in group.people]
        until = self.clock() + CLAIM_SECONDS
        if not await self._run_script("take", claim, repr(until), *tickets):
            self.lost += 1  # another process took one of them first: matched again next round
            return False
        try:
            table, tokens = await make_table(group, self.seat_table, self.bot_accounts)
        except Exception:
            log.exception("seating a quick-play table")
            await self._run_script("requeue", claim, *tickets)
            return False
        told: list[Any] = [claim]
        for i, entry in enumerate(group.seats):
            if entry is not None:
                told += [entry.ticket, table, i, tokens[i]]
        await self._run_script("seat", *told)
        return True
