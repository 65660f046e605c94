"""This process's part in a cluster of rooms sharing one database and one Redis
(docs/cluster.md): :class:`Cluster` builds the parts, starts and stops them, and reads
every channel of this process through one Redis subscription, handing each message to
the part it is for.

The parts, each in a module of its own: ``nodes`` (which processes live), ``leases``
(which process owns a table), ``owners`` (a table's living owner, the takeover of a dead
process's tables, the heartbeat), ``calls`` (an operation run on another process),
``relays`` (a socket here relayed to its table's owner) and ``relayed`` (a socket of
another process served by the owner); ``wire`` names what they share in Redis. The rest of
the server holds the :class:`Cluster` and reaches the part it needs (``cluster.leases``,
``cluster.calls``, ...). The subscription is taken before the process first says it is
alive, so that a living process always has a listener on ``burraco:rpc:{node}``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any

from burraco.server.cluster.calls import Calls
from burraco.server.cluster.leases import Leases
from burraco.server.cluster.nodes import Nodes
from burraco.server.cluster.owners import Owners
from burraco.server.cluster.relayed import Relayed
from burraco.server.cluster.relays import Relays
from burraco.server.cluster.wire import IN, OUT, REPLY, RPC, redis_client
from burraco.server.process.background import cancel
from burraco.server.room import Room

__all__ = ["Cluster"]

log = logging.getLogger("burraco.cluster")


class Cluster:
    """This process's part in a cluster of rooms sharing one database and one Redis."""

    def __init__(self, room: Room, redis_url: str, node: str | None = None) -> None:
        self.room = room
        self.node = node or "n-" + secrets.token_hex(4)
        self.redis = redis_client(redis_url)
        self.nodes = Nodes(self.redis, self.node)
        self.leases = Leases(room, self.redis, self.node)
        self.owners = Owners(room, self.nodes, self.leases)
        self.calls = Calls(room, self.owners, self.leases)
        self.relays = Relays(self.nodes, self.owners.adopt_soon)
        self.relayed = Relayed(room, self.redis)
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        pubsub = self.redis.pubsub()
        # Listening before it says it is alive: a living node always has a listener.
        await pubsub.subscribe(RPC + self.node)
        await pubsub.psubscribe(f"{IN}*", f"{OUT}{self.node}:*")
        await pubsub.psubscribe(f"{REPLY}{self.node}:*")
        await self.nodes.say_alive()
        self._tasks.append(asyncio.create_task(self._listen(pubsub)))
        self._tasks.append(asyncio.create_task(self.owners.heartbeat()))
        self._tasks.append(asyncio.create_task(self.nodes.alive_forever()))
        self.room.start_watching()

    async def stop(self) -> None:
        for task in self._tasks:
            await cancel(task)
        await self.relays.watching.cancel()
        await self.owners.adopting.cancel()
        await self.leases.release_all()
        await self.nodes.say_gone()
        await self.redis.aclose()

    async def _listen(self, pubsub: Any) -> None:
        # The parts' tables and doors, bound once: a relayed socket's every message
        # passes here, and pays for no lookup but its own.
        outboxes, owned = self.relays.outboxes, self.leases.owned
        deliver, answered, asked = self.relayed.deliver, self.calls.answered, self.calls.asked
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                channel: str = message["channel"]
                if channel.startswith(OUT):
                    # Passed on as it came: a relayed socket's every state was read and
                    # written again here, a cost of every message of two thirds of them.
                    outbox = outboxes.get(channel.rsplit(":", 1)[1])
                    if outbox is not None:
                        outbox.put_nowait(str(message["data"]))
                    continue
                data = json.loads(message["data"])
                if channel.startswith(REPLY):
                    answered(channel.rsplit(":", 1)[1], data)
                elif channel.startswith(RPC):
                    asked(data)
                else:
                    table = channel.removeprefix(IN)
                    if table in owned:
                        deliver(table, data)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster listener")
