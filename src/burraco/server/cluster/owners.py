"""Who owns a table now, and the takeover of a dead process's tables.

:meth:`Owners.owner` names a table's living owner: this process when nobody holds the
table, or when its holder is dead (its lease ended and the table claimed here at once,
the dead node's other tables adopted soon). A dead node's tables in play are adopted
:data:`ADOPT_BATCH` at a time with :data:`ADOPT_PAUSE` between (each is loaded from its log
on the event loop, and the tables in play must keep it), in an order of this process's
own, so that two living processes share the work and the lease decides each table. The
heartbeat renews this process's leases every :data:`HEARTBEAT_SECONDS` and scans the
tables in play, their owners read in one ``MGET``, for those nobody holds or a dead node
does. Built on ``leases`` (the leases themselves) and ``nodes`` (who lives).
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from burraco.server.cluster.leases import Leases
from burraco.server.cluster.nodes import Nodes, PerNode
from burraco.server.cluster.wire import owner_key
from burraco.server.room import Room

__all__ = ["ADOPT_BATCH", "ADOPT_PAUSE", "HEARTBEAT_SECONDS", "Owners"]

HEARTBEAT_SECONDS = 5
#: A dead owner's tables are adopted this many at a time, with this pause between: each
#: is loaded from its log on the event loop, and the tables in play must keep it.
ADOPT_BATCH, ADOPT_PAUSE = 4, 0.1


class Owners:
    """The owners of the tables in play, as this process sees them, and the takeover."""

    def __init__(self, room: Room, nodes: Nodes, leases: Leases) -> None:
        self.room = room
        self.nodes = nodes
        self.leases = leases
        #: Per dead node whose tables this process is adopting, the task doing it.
        self.adopting = PerNode()

    async def owner(self, table: str) -> str:
        """The living node that owns the table, claiming it here if nobody (alive) does."""
        leases = self.leases
        if table in leases.owned:
            return leases.node
        current = await leases.redis.get(owner_key(table))
        if current is None and await leases.claim(table):
            return leases.node
        if current is not None and await self._take_from_the_dead(table, str(current)):
            return leases.node
        return str(current) if current else await self.owner(table)

    async def _take_from_the_dead(self, table: str, owner: str) -> bool:
        """If ``owner`` is dead, end its lease on ``table`` and claim it here (and adopt
        its other tables soon)."""
        if await self.nodes.is_alive(owner):
            return False
        self.adopt_soon(owner)
        return await self.leases.take(table, owner)

    def adopt_soon(self, dead: str) -> None:
        """Adopt the tables of the dead node ``dead`` in the background (once at a time)."""
        if dead != self.leases.node:
            self.adopting.start(dead, lambda: self._adopt(dead))

    async def _adopt(self, dead: str) -> None:
        """Take over the tables in play the dead node still holds, :data:`ADOPT_BATCH` at
        a time with :data:`ADOPT_PAUSE` between: each is loaded from its log on the event
        loop, and a whole process's tables at once held the tables in play here (and the
        pages reconnecting meanwhile) for as long. In an order of this process's own, so
        that two living processes share the work rather than race for the same tables."""
        theirs = [t for t, owner in (await self._owners()).items() if owner == dead]
        random.shuffle(theirs)
        for start in range(0, len(theirs), ADOPT_BATCH):
            for table in theirs[start : start + ADOPT_BATCH]:
                if table not in self.leases.owned:
                    with contextlib.suppress(Exception):
                        await self.leases.take(table, dead)
            await asyncio.sleep(ADOPT_PAUSE)

    async def _owners(self) -> dict[str, str | None]:
        """Each table in play that this process does not own, and its owner in Redis (None:
        nobody holds it), read in one command."""
        tables = [row.id for row in self.room.store.tables(("playing",))]
        tables = [t for t in tables if t not in self.leases.owned]
        if not tables:
            return {}
        owners = await self.leases.redis.mget([owner_key(t) for t in tables])
        return {t: None if o is None else str(o) for t, o in zip(tables, owners, strict=True)}

    async def heartbeat(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.leases.renew()
            with contextlib.suppress(Exception):
                await self.scan()
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def scan(self) -> None:
        """Take over the tables in play that nobody holds, and adopt those of dead nodes
        (their owners read in one command, each owner asked after once)."""
        owners = await self._owners()
        alive: dict[str, bool] = {}
        unheld = [t for t, owner in owners.items() if owner is None]
        for n, table in enumerate(unheld, 1):
            with contextlib.suppress(Exception):
                await self.leases.claim(table)
            if n % ADOPT_BATCH == 0:
                await asyncio.sleep(ADOPT_PAUSE)
        for owner in {o for o in owners.values() if o is not None}:
            if owner not in alive:
                alive[owner] = await self.nodes.is_alive(owner)
            if not alive[owner]:
                self.adopt_soon(owner)
