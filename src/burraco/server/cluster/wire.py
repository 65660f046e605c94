"""What the processes of a cluster share in Redis: the client, and the names written there.

A process's Redis client (:func:`redis_client`, its connections capped), the keys (a
table's lease ``burraco:owner:{table}``, a process's ``burraco:alive:{node}``), the
channels (a process's requests ``burraco:rpc:{node}``, their answers
``burraco:reply:{asking node}:{id}``, a table's relayed sockets ``burraco:in:{table}``,
what its owner says to one ``burraco:out:{relaying node}:{connection}``), the owner's word
that closes a relayed socket, and the compare-and-delete script that ends a lease only
while its holder still holds it. Every part of the cluster names them from here, so that
the process that writes a key or a channel and the one that reads it agree.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CLOSING",
    "FORBIDDEN",
    "IN",
    "OUT",
    "REDIS_CONNECTIONS",
    "RELEASE_IF_HELD",
    "REPLY",
    "RESTART",
    "RPC",
    "RPC_SECONDS",
    "alive_key",
    "owner_key",
    "redis_client",
]

#: How long a call to another process, or a command waiting for a free connection, waits.
RPC_SECONDS = 10
#: Redis connections of one process. Past them a command waits for a free one: redis-py's
#: default pool (100) refuses it ("Too many connections"), a 500 under load (bench/cluster.py).
REDIS_CONNECTIONS = 64

#: The channels' prefixes (the listener tells a message's part by them).
RPC, REPLY, IN, OUT = "burraco:rpc:", "burraco:reply:", "burraco:in:", "burraco:out:"
#: How the owner's word to close a relayed socket begins (its code follows).
CLOSING = '{"type": "_close", "code": '
#: Close codes of a relayed socket: the table's server is gone (the page reconnects), and
#: the token holds no seat.
RESTART, FORBIDDEN = 1012, 4403

# Delete a key only if it still holds the value given (atomic in Redis): a dead owner's
# lease, a lease given back, a lock's holder's token.
RELEASE_IF_HELD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def owner_key(table: str) -> str:
    """The lease of a table: its owner's name."""
    return f"burraco:owner:{table}"


def alive_key(node: str) -> str:
    """Set while the process ``node`` lives (``alive_key("")`` is the prefix)."""
    return f"burraco:alive:{node}"


def redis_client(redis_url: str) -> Any:
    """A process's Redis client: at most :data:`REDIS_CONNECTIONS` connections, a command
    past them waiting (up to :data:`RPC_SECONDS`) for one to be free."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        redis_url, decode_responses=True, max_connections=REDIS_CONNECTIONS, timeout=RPC_SECONDS
    )
    return aioredis.Redis(connection_pool=pool)
