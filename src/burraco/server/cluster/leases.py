"""A table's lease: which process owns it, held in Redis and renewed by its holder.

Each table is owned by one process, the one named by ``burraco:owner:{table}`` (``SET …
NX EX`` :data:`OWNER_SECONDS`); only the owner holds its match in memory, applies its
actions, runs its bots and clocks. A process claims a table nobody holds, loading it from
its log (:meth:`Leases.claim`); holds the id of a table it is making (:meth:`Leases.hold`)
or keeps one it has just made and started (:meth:`Leases.adopt`), neither loaded; gives one
back (:meth:`Leases.release`); ends a dead process's lease and claims its table
(:meth:`Leases.take`, compare-and-delete); and renews all its leases in one Lua script
(:meth:`Leases.renew`), forgetting those another process holds now. A cluster-wide lock on
a name (:meth:`Leases.locked`, a tournament's) is a lease too, with a deadline. Whether a
table exists anywhere (:meth:`Leases.known`) is answered from the leases before the
database. Needs a room and Redis; whether a process lives is ``nodes``' concern, and when
to take its tables ``owners``'.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

from burraco.server.cluster.wire import RELEASE_IF_HELD, owner_key
from burraco.server.room import Room, RoomError

__all__ = ["KNOWN_TABLES", "LOCK_SECONDS", "OWNER_SECONDS", "Leases"]

log = logging.getLogger("burraco.cluster")

OWNER_SECONDS = 15
#: A cluster-wide lock (:meth:`Leases.locked`) lapses after this long.
LOCK_SECONDS = 30.0
#: Tables remembered as existing (:meth:`Leases.known`), past which the oldest are forgotten.
KNOWN_TABLES = 100_000

# Renew every lease this node still holds, in one round trip: 1 for a lease renewed, 0 for
# one another node holds now. (One GET and EXPIRE per table, each awaited, took longer
# than the lease itself for a loaded process's hundred tables, and its leases lapsed.)
_RENEW = """
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('EXPIRE', key, ARGV[2])
    held[i] = 1
  else
    held[i] = 0
  end
end
return held
"""


class Leases:
    """The leases of the process ``node``: the tables it owns (:attr:`owned`)."""

    def __init__(self, room: Room, redis: Any, node: str) -> None:
        self.room = room
        self.redis = redis
        self.node = node
        #: Changed in place only, never replaced: the cluster's listener holds it.
        self.owned: set[str] = set()
        #: Told of each table this process takes from the store (its owner gone), once it
        #: is loaded and running: what the log does not keep (a tournament's grace).
        self.taken: list[Callable[[str], None]] = []
        #: Tables known to exist (:meth:`known`), the oldest first.
        self._known: dict[str, None] = {}

    async def claim(self, table: str) -> bool:
        """Own the table if nobody does; True if this process owns it now."""
        if table in self.owned:
            return True
        taken = await self.redis.set(owner_key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken or await self.redis.get(owner_key(table)) == self.node:
            if table in self.owned:
                # Another task here claimed it meanwhile (a socket and the scan take a
                # dead owner's table at once): loading it again would leave the sockets
                # of the first copy hearing nothing more.
                return True
            self.owned.add(table)
            self.room.tables.pop(table, None)  # a copy read before is stale: load afresh
            self.room.table(table)
            self.room.resume(table)
            for listener in self.taken:
                listener(table)
            return True
        return False

    async def take(self, table: str, dead: str) -> bool:
        """End the dead node's lease on ``table`` (if it still holds it) and claim it."""
        await self.redis.eval(RELEASE_IF_HELD, 1, owner_key(table), dead)
        taken = await self.claim(table)
        if taken:
            log.warning("node %s is gone: %s took table %s over", dead, self.node, table)
        return taken

    async def hold(self, table: str) -> bool:
        """Own a table this process is making (its id known before it exists, so no
        other process's scan takes it meanwhile): no load from the store, unlike
        :meth:`claim`. False if another process holds the id."""
        taken = await self.redis.set(owner_key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken or await self.redis.get(owner_key(table)) == self.node:
            self.owned.add(table)
            return True
        return False

    async def adopt(self, table: str) -> bool:
        """Own a table this process has just made and started (quick play's): unlike
        :meth:`claim`, the copy in memory is kept, since it is the table, its bots and
        clock already running (a copy loaded anew beside it would play against it)."""
        taken = await self.redis.set(owner_key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken:
            self.owned.add(table)
        return bool(taken)

    async def release(self, table: str) -> None:
        """Give up a table held here (one that was never made after all)."""
        self.owned.discard(table)
        await self.redis.eval(RELEASE_IF_HELD, 1, owner_key(table), self.node)

    async def release_all(self) -> None:
        """On a stop: every lease still held here ends now, not when it lapses."""
        for table in list(self.owned):
            with contextlib.suppress(Exception):
                if await self.redis.get(owner_key(table)) == self.node:
                    await self.redis.delete(owner_key(table))

    async def renew(self) -> None:
        """Renew the leases of the tables this node owns (one command for all); forget
        those another node holds now."""
        tables = list(self.owned)
        if not tables:
            return
        keys = [owner_key(table) for table in tables]
        held = await self.redis.eval(_RENEW, len(keys), *keys, self.node, OWNER_SECONDS)
        for table, kept in zip(tables, held, strict=True):
            if not kept:
                self.owned.discard(table)

    async def known(self, table: str) -> bool:
        """Whether the table exists (anywhere in the cluster): asked of every socket that
        opens. Read from what this process holds, then from Redis (a table in play has an
        owner's key), and only then from the database: a table once made is never
        deleted, so a yes is kept. (The database's answer is a query that holds the event
        loop: each page reconnecting after a failover asked it, and the tables in play
        waited for hundreds of them.)"""
        if table in self.owned or table in self.room.tables or table in self._known:
            return True
        if await self.redis.exists(owner_key(table)) or self.room.store.table(table) is not None:
            self._known[table] = None
            while len(self._known) > KNOWN_TABLES:
                self._known.pop(next(iter(self._known)))
            return True
        return False

    @contextlib.asynccontextmanager
    async def locked(self, name: str, seconds: float = LOCK_SECONDS) -> AsyncIterator[None]:
        """Hold ``burraco:lock:{name}`` across the cluster while the block runs. The lock
        lapses after ``seconds``, so a process killed while holding it blocks no other for
        longer; RoomError "unavailable" if it stays taken that long."""
        key, mine = f"burraco:lock:{name}", secrets.token_hex(8)
        deadline = asyncio.get_running_loop().time() + seconds
        while not await self.redis.set(key, mine, nx=True, px=int(seconds * 1000)):
            if asyncio.get_running_loop().time() > deadline:
                raise RoomError("unavailable", f"{name} is busy on another server; retry", 503)
            await asyncio.sleep(0.02)
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                await self.redis.eval(RELEASE_IF_HELD, 1, key, mine)
