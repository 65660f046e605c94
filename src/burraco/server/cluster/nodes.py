"""Which processes of the cluster live: this one saying so, another found dead.

Every process sets ``burraco:alive:{node}`` every :data:`ALIVE_EVERY` seconds (it lapses
after :data:`ALIVE_SECONDS`) and listens on ``burraco:rpc:{node}`` while it lives (the
cluster's one subscription, taken before it first says it is alive). A process killed
(``kill -9``, a crash) loses its Redis connections with it, so one whose channel has had
no listener for :data:`SILENT_SECONDS` is dead though its key has not lapsed yet: known
dead within a second, not 3-4 s later (a machine that vanishes without closing its
connections is known dead when its key lapses). :class:`PerNode` keeps at most one task
running per other node (the adoption of a dead node's tables, the watch over an owner of
relayed sockets). Needs Redis alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from burraco.server.cluster.wire import RPC, alive_key
from burraco.server.process.background import cancel

__all__ = ["ALIVE_EVERY", "ALIVE_SECONDS", "SILENT_SECONDS", "Nodes", "PerNode"]

#: A process says it is alive this often, and is taken for dead this long after.
ALIVE_EVERY, ALIVE_SECONDS = 1.0, 4
#: A process whose channel has had no listener this long is dead (its key not lapsed
#: yet): a live process's subscription that drops is renewed at once by redis-py.
SILENT_SECONDS = 0.5


class Nodes:
    """This process (``node``) among the cluster's: its own signs of life, and others'."""

    def __init__(self, redis: Any, node: str) -> None:
        self.redis = redis
        self.node = node
        #: Nodes whose key has not lapsed yet but whose channel was found silent twice.
        self._dead: set[str] = set()

    async def say_alive(self) -> None:
        await self.redis.set(alive_key(self.node), "1", ex=ALIVE_SECONDS)

    async def alive_forever(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.say_alive()
            await asyncio.sleep(ALIVE_EVERY)

    async def say_gone(self) -> None:
        """On a stop: this process is known dead at once, not when its key lapses."""
        with contextlib.suppress(Exception):
            await self.redis.delete(alive_key(self.node))

    async def is_alive(self, node: str) -> bool:
        """Whether ``node`` lives: its key has not lapsed, and its channel has a listener
        (or finds one again within :data:`SILENT_SECONDS`: a subscription being renewed).
        A process killed with ``kill -9`` is so known dead within a second, not when its
        key lapses."""
        if node == self.node:
            return True
        alive, listening = await self._signs_of_life(node)
        if alive and not listening and node not in self._dead:
            await asyncio.sleep(SILENT_SECONDS)
            alive, listening = await self._signs_of_life(node)
        if alive and listening:
            self._dead.discard(node)  # back (restarted under its name)
            return True
        if alive:
            self._dead.add(node)
        return False

    async def _signs_of_life(self, node: str) -> tuple[bool, bool]:
        """Whether the node's key is there, and whether its channel has a listener."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.exists(alive_key(node))
            pipe.pubsub_numsub(RPC + node)
            alive, listeners = await pipe.execute()
        return bool(alive), bool(listeners and int(listeners[0][1]))

    async def living(self) -> list[str]:
        """Every living node's name, this one's included, sorted."""
        found = {self.node}
        async for key in self.redis.scan_iter(match=alive_key("*"), count=100):
            found.add(str(key).removeprefix(alive_key("")))
        return sorted(found)


class PerNode:
    """At most one task running per node: a job asked again while one runs is not
    started twice."""

    def __init__(self) -> None:
        self.running: dict[str, asyncio.Task[None]] = {}

    def start(self, node: str, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``job()`` for ``node``, unless a task runs for it already."""
        running = self.running.get(node)
        if running is not None and not running.done():
            return
        task = asyncio.create_task(job())
        self.running[node] = task
        task.add_done_callback(lambda done: self._forget(node, done))

    def _forget(self, node: str, done: asyncio.Task[None]) -> None:
        # Unless a newer task took its place.
        if self.running.get(node) is done:
            del self.running[node]

    async def cancel(self) -> None:
        for task in list(self.running.values()):
            await cancel(task)
