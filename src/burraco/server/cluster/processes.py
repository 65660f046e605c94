"""Several server processes behind one address, with Redis (docs/cluster.md).

Each table is owned by one process: the one that created it, or the first to
claim it when its owner is gone (``SET burraco:owner:{table} NODE NX EX 15``,
kept alive by a heartbeat). Only the owner holds the table's match; every
process shares the database. A process that receives a request for a table it
does not own asks the owner over Redis (a request on ``burraco:rpc:{node}``,
the answer on ``burraco:reply:{asking node}:{id}``); a WebSocket that reaches another
process is relayed: what the player sends goes to ``burraco:in:{table}``, what the
owner says goes to ``burraco:out:{relaying node}:{connection}``. Each process reads
all of its channels through one subscription, and hands each message to the request
or the socket it is for.

Every process also says it is alive every second (``burraco:alive:{node}``, which
lapses after :data:`ALIVE_SECONDS`), and listens on ``burraco:rpc:{node}`` while it
lives: a process killed loses its Redis connections with it, so a process whose channel
has had no listener for :data:`SILENT_SECONDS` is dead too (a machine that vanishes
without closing them is known dead when its key lapses). A dead process's tables are
taken over before their leases run out: the first living process to see it dead adopts
them, a few at a time so that the tables in play keep the loop, and any process takes
one at once when a request or a socket needs it; the sockets relayed to it are closed
with 1012 (service restart), after the dead process's own pages have come back and
spread over :data:`RESTART_SPREAD` seconds, so that the pages reconnect, to a living
process, not all at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from burraco.server.messages import text_of
from burraco.server.process.background import cancel
from burraco.server.room import Room, RoomError, error_message
from burraco.server.watching import Watcher, spectator_name

__all__ = ["Cluster", "redis_client"]

log = logging.getLogger("burraco.cluster")

OWNER_SECONDS = 15
HEARTBEAT_SECONDS = 5
RPC_SECONDS = 10
#: A cluster-wide lock (:meth:`Cluster.locked`) lapses after this long.
LOCK_SECONDS = 30.0
#: A process says it is alive this often, and is taken for dead this long after.
ALIVE_EVERY, ALIVE_SECONDS = 1.0, 4
#: A process whose channel has had no listener this long is dead (its key not lapsed
#: yet): a live process's subscription that drops is renewed at once by redis-py.
SILENT_SECONDS = 0.5
#: How often the owner of relayed sockets is looked at (one look for all its sockets).
WATCH_EVERY = 0.25
#: A dead owner's tables are adopted this many at a time, with this pause between: each
#: is loaded from its log on the event loop, and the tables in play must keep it.
ADOPT_BATCH, ADOPT_PAUSE = 4, 0.1
#: The sockets relayed to a dead owner are closed this long after it is known dead, over
#: this many seconds, not at once: the dead process's own sockets reconnect first (their
#: pages' pause, 0.5-1 s), then these as a stream, not a storm on top of that one
#: (bench/cluster.py: both at once held the tables in play for seconds).
RESTART_AFTER, RESTART_SPREAD = 1.5, 2.0
#: Tables remembered as existing (:meth:`Cluster.known`), past which the oldest are forgotten.
KNOWN_TABLES = 100_000
#: Close codes: the table's server is gone (reconnect), and the token holds no seat.
RESTART, FORBIDDEN = 1012, 4403
#: Redis connections of one process. Past them a command waits for a free one: redis-py's
#: default pool (100) refuses it ("Too many connections"), a 500 under load (bench/cluster.py).
REDIS_CONNECTIONS = 64

# Delete a table's owner key only if it still names the dead owner (atomic in Redis).
_RELEASE_DEAD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

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


def redis_client(redis_url: str) -> Any:
    """A process's Redis client: at most :data:`REDIS_CONNECTIONS` connections, a command
    past them waiting (up to :data:`RPC_SECONDS`) for one to be free."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        redis_url, decode_responses=True, max_connections=REDIS_CONNECTIONS, timeout=RPC_SECONDS
    )
    return aioredis.Redis(connection_pool=pool)


class Cluster:
    """This process's part in a cluster of rooms sharing one database and one Redis."""

    def __init__(self, room: Room, redis_url: str, node: str | None = None) -> None:
        self.room = room
        self.node = node or "n-" + secrets.token_hex(4)
        self.redis = redis_client(redis_url)
        self.owned: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._relays: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {}
        self._remote: dict[str, tuple[str, int]] = {}
        self._answering: set[asyncio.Task[None]] = set()
        #: Per relayed connection, its messages in order, handled by a task of its own.
        self._inboxes: dict[str, asyncio.Queue[dict[str, Any] | None]] = {}
        #: Per socket this process relays, what its table's owner says to it.
        #: (as the owner wrote it: JSON text, passed on as it came).
        self._outboxes: dict[str, asyncio.Queue[str]] = {}
        #: Per request this process sent to another, the future of its answer.
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        #: Operations of the server's own (not a table's) another process may ask of this
        #: one with :meth:`call_node`: the desk's "seat a tournament table here".
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[Any]]] = {}
        #: Told of each table this process takes from the store (its owner gone), once it
        #: is loaded and running: what the log does not keep (a tournament's grace).
        self.taken: list[Callable[[str], None]] = []
        #: Per other node this process relays sockets to, how each relay is ended (with
        #: a close code), and the one task that watches that node for all of them.
        self._ends: dict[str, set[Callable[[int], None]]] = {}
        self._watching: dict[str, asyncio.Task[None]] = {}
        #: Per dead node whose tables this process is adopting, the task doing it.
        self._adopting: dict[str, asyncio.Task[None]] = {}
        #: Nodes whose key has not lapsed yet but whose channel was found silent twice.
        self._dead: set[str] = set()
        #: Tables known to exist (:meth:`known`), the oldest first.
        self._known: dict[str, None] = {}

    async def start(self) -> None:
        pubsub = self.redis.pubsub()
        # Listening before it says it is alive: a living node always has a listener.
        await pubsub.subscribe(self._rpc(self.node))
        await pubsub.psubscribe("burraco:in:*", f"burraco:out:{self.node}:*")
        await pubsub.psubscribe(f"burraco:reply:{self.node}:*")
        await self._say_alive()
        self._tasks.append(asyncio.create_task(self._listen(pubsub)))
        self._tasks.append(asyncio.create_task(self._heartbeat()))
        self._tasks.append(asyncio.create_task(self._alive_forever()))
        self.room.start_watching()

    async def stop(self) -> None:
        for task in [*self._tasks, *self._watching.values(), *self._adopting.values()]:
            await cancel(task)
        for table in list(self.owned):
            with contextlib.suppress(Exception):
                if await self.redis.get(self._key(table)) == self.node:
                    await self.redis.delete(self._key(table))
        with contextlib.suppress(Exception):
            await self.redis.delete(self._alive(self.node))
        await self.redis.aclose()

    # --- being alive ----------------------------------------------------------------------

    @staticmethod
    def _alive(node: str) -> str:
        return f"burraco:alive:{node}"

    async def _say_alive(self) -> None:
        await self.redis.set(self._alive(self.node), "1", ex=ALIVE_SECONDS)

    async def _alive_forever(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self._say_alive()
            await asyncio.sleep(ALIVE_EVERY)

    @staticmethod
    def _rpc(node: str) -> str:
        return f"burraco:rpc:{node}"

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
            pipe.exists(self._alive(node))
            pipe.pubsub_numsub(self._rpc(node))
            alive, listeners = await pipe.execute()
        return bool(alive), bool(listeners and int(listeners[0][1]))

    async def alive_nodes(self) -> list[str]:
        """Every living node's name, this one's included, sorted."""
        found = {self.node}
        async for key in self.redis.scan_iter(match=self._alive("*"), count=100):
            found.add(str(key).removeprefix(self._alive("")))
        return sorted(found)

    async def _take_from_the_dead(self, table: str, owner: str) -> bool:
        """If ``owner`` is dead, end its lease on ``table`` and claim it here (and adopt
        its other tables soon)."""
        if await self.is_alive(owner):
            return False
        self._adopt_soon(owner)
        return await self._take(table, owner)

    async def _take(self, table: str, dead: str) -> bool:
        """End the dead node's lease on ``table`` (if it still holds it) and claim it."""
        await self.redis.eval(_RELEASE_DEAD, 1, self._key(table), dead)
        taken = await self.claim(table)
        if taken:
            log.warning("node %s is gone: %s took table %s over", dead, self.node, table)
        return taken

    def _adopt_soon(self, dead: str) -> None:
        """Adopt the tables of the dead node ``dead`` in the background (once at a time)."""
        running = self._adopting.get(dead)
        if dead == self.node or (running is not None and not running.done()):
            return
        task = asyncio.create_task(self._adopt(dead))
        self._adopting[dead] = task
        task.add_done_callback(lambda done: _forget(self._adopting, dead, done))

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
                if table not in self.owned:
                    with contextlib.suppress(Exception):
                        await self._take(table, dead)
            await asyncio.sleep(ADOPT_PAUSE)

    async def _owners(self) -> dict[str, str | None]:
        """Each table in play that this process does not own, and its owner in Redis (None:
        nobody holds it), read in one command."""
        tables = [row.id for row in self.room.store.tables(("playing",))]
        tables = [t for t in tables if t not in self.owned]
        if not tables:
            return {}
        owners = await self.redis.mget([self._key(t) for t in tables])
        return {t: None if o is None else str(o) for t, o in zip(tables, owners, strict=True)}

    async def known(self, table: str) -> bool:
        """Whether the table exists (anywhere in the cluster): asked of every socket that
        opens. Read from what this process holds, then from Redis (a table in play has an
        owner's key), and only then from the database: a table once made is never
        deleted, so a yes is kept. (The database's answer is a query that holds the event
        loop: each page reconnecting after a failover asked it, and the tables in play
        waited for hundreds of them.)"""
        if table in self.owned or table in self.room.tables or table in self._known:
            return True
        if await self.redis.exists(self._key(table)) or self.room.store.table(table) is not None:
            self._known[table] = None
            while len(self._known) > KNOWN_TABLES:
                self._known.pop(next(iter(self._known)))
            return True
        return False

    # --- ownership ------------------------------------------------------------------------

    @staticmethod
    def _key(table: str) -> str:
        return f"burraco:owner:{table}"

    async def claim(self, table: str) -> bool:
        """Own the table if nobody does; True if this process owns it now."""
        if table in self.owned:
            return True
        taken = await self.redis.set(self._key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken or await self.redis.get(self._key(table)) == self.node:
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

    async def hold(self, table: str) -> bool:
        """Own a table this process is making (its id known before it exists, so no
        other process's scan takes it meanwhile): no load from the store, unlike
        :meth:`claim`. False if another process holds the id."""
        taken = await self.redis.set(self._key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken or await self.redis.get(self._key(table)) == self.node:
            self.owned.add(table)
            return True
        return False

    async def release(self, table: str) -> None:
        """Give up a table held here (one that was never made after all)."""
        self.owned.discard(table)
        await self.redis.eval(_RELEASE_DEAD, 1, self._key(table), self.node)

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
                await self.redis.eval(_RELEASE_DEAD, 1, key, mine)

    async def adopt(self, table: str) -> bool:
        """Own a table this process has just made and started (quick play's): unlike
        :meth:`claim`, the copy in memory is kept, since it is the table, its bots and
        clock already running (a copy loaded anew beside it would play against it)."""
        taken = await self.redis.set(self._key(table), self.node, nx=True, ex=OWNER_SECONDS)
        if taken:
            self.owned.add(table)
        return bool(taken)

    async def owner(self, table: str) -> str:
        """The living node that owns the table, claiming it here if nobody (alive) does."""
        if table in self.owned:
            return self.node
        current = await self.redis.get(self._key(table))
        if current is None and await self.claim(table):
            return self.node
        if current is not None and await self._take_from_the_dead(table, str(current)):
            return self.node
        return str(current) if current else await self.owner(table)

    async def renew(self) -> None:
        """Renew the leases of the tables this node owns (one command for all); forget
        those another node holds now."""
        tables = list(self.owned)
        if not tables:
            return
        keys = [self._key(table) for table in tables]
        held = await self.redis.eval(_RENEW, len(keys), *keys, self.node, OWNER_SECONDS)
        for table, kept in zip(tables, held, strict=True):
            if not kept:
                self.owned.discard(table)

    async def _heartbeat(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.renew()
            with contextlib.suppress(Exception):
                await self._scan()
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def _scan(self) -> None:
        """Take over the tables in play that nobody holds, and adopt those of dead nodes
        (their owners read in one command, each owner asked after once)."""
        owners = await self._owners()
        alive: dict[str, bool] = {}
        unheld = [t for t, owner in owners.items() if owner is None]
        for n, table in enumerate(unheld, 1):
            with contextlib.suppress(Exception):
                await self.claim(table)
            if n % ADOPT_BATCH == 0:
                await asyncio.sleep(ADOPT_PAUSE)
        for owner in {o for o in owners.values() if o is not None}:
            if owner not in alive:
                alive[owner] = await self.is_alive(owner)
            if not alive[owner]:
                self._adopt_soon(owner)

    # --- requests to the owner ------------------------------------------------------------

    async def call(self, table: str, op: str, body: dict[str, Any]) -> Any:
        """Run a room operation on the table's owner, here or over Redis."""
        node = await self.owner(table)
        if node == self.node:
            return await self._run(op, table, body)
        return await self.call_node(node, op, body, table)

    async def call_node(
        self,
        node: str,
        op: str,
        body: dict[str, Any],
        table: str = "",
        seconds: float = RPC_SECONDS,
    ) -> Any:
        """Run ``op`` on the process ``node`` over Redis: a room operation on ``table``,
        or with no table one of that process's :attr:`handlers`; RoomError "unavailable"
        if no answer comes within ``seconds``."""
        request_id = secrets.token_hex(8)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = answer
        try:
            message = {
                "id": request_id,
                "op": op,
                "table": table,
                "body": body,
                "reply": f"burraco:reply:{self.node}:{request_id}",
            }
            await self.redis.publish(f"burraco:rpc:{node}", json.dumps(message))
            reply = await asyncio.wait_for(answer, seconds)
        except TimeoutError:
            # The owner is gone: the next request finds it dead and takes the table.
            raise RoomError(
                "unavailable", "the table's server does not answer; retry", 503
            ) from None
        finally:
            self._replies.pop(request_id, None)
        if not reply["ok"]:
            raise RoomError(
                reply["code"], reply["detail"], reply["status"], params=reply.get("params")
            )
        return reply["result"]

    async def _run(self, op: str, table_id: str, body: dict[str, Any]) -> Any:
        from burraco.server.cluster.forwarded import run_here as _local

        if not table_id and op in self.handlers:
            return await self.handlers[op](body)
        result = await _local(self.room, op, table_id, body)
        if op == "rematch":
            # The rematch was made here, by the finished table's owner: it owns it too.
            await self.claim(str(result["table"]))
        return result

    # --- relayed sockets ------------------------------------------------------------------

    async def relay(
        self,
        table: str,
        owner: str,
        token: str,
        send: Callable[[dict[str, Any]], Awaitable[None]],
        receive: Callable[[], Awaitable[str]],
        user_id: int | None = None,
        *,
        watch: str | None = None,
        send_text: Callable[[str], Awaitable[None]] | None = None,
    ) -> int:
        """Carry one player's socket (or, with ``watch``, the name of a spectator, one
        spectator's socket) to the table's owner and back, until either side ends
        it. The close code for the player's socket: :data:`RESTART` when the owner died
        (the page reconnects), the owner's own code (:data:`FORBIDDEN` for a bad token,
        a replaced socket), or 1000 when the player left. With ``send_text`` (the
        socket's), what the owner says goes on as the text it came in, not read and
        written again."""
        connection = secrets.token_hex(8)
        outbox: asyncio.Queue[str] = asyncio.Queue()
        self._outboxes[connection] = outbox
        ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def end(code: int) -> None:
            if not ended.done():
                ended.set_result(code)

        async def pump() -> None:
            while True:
                said = await outbox.get()
                if said.startswith(_CLOSING):  # the owner closes this socket
                    end(int(json.loads(said).get("code", 1000)))
                    return
                if send_text is not None:
                    await send_text(said)
                else:
                    await send(json.loads(said))

        async def forward() -> None:
            while True:
                raw = await receive()
                note = {"conn": connection, "kind": "message", "raw": raw}
                await self.redis.publish(inbox, json.dumps(note))

        inbox = f"burraco:in:{table}"
        out = f"burraco:out:{self.node}:{connection}"
        hello = {
            "conn": connection,
            "kind": "connect",
            "token": token,
            "user": user_id,
            "watch": watch,
            "out": out,
        }
        tasks: list[asyncio.Task[None]] = []
        # The owner is watched for all the sockets relayed to it at once (RESTART if it dies).
        self._ends.setdefault(owner, set()).add(end)
        watcher = self._watching.get(owner)
        if watcher is None or watcher.done():
            self._watching[owner] = asyncio.create_task(self._watch(owner))
        try:
            await self.redis.publish(inbox, json.dumps(hello))
            tasks = [asyncio.create_task(job()) for job in (pump, forward)]
            for task in tasks:
                # A task that stops (the player left, or a failure) ends the relay too.
                task.add_done_callback(lambda _: end(1000))
                task.add_done_callback(_read_failure)
            return await ended
        finally:
            ends = self._ends.get(owner)
            if ends is not None:
                ends.discard(end)
            for task in tasks:
                task.cancel()
            if tasks:
                # Not awaited one by one: a read of the player's socket may not end on
                # cancellation until the socket closes, which the caller does next.
                await asyncio.wait(tasks, timeout=0.5)
            bye = {"conn": connection, "kind": "disconnect"}
            with contextlib.suppress(Exception):
                await self.redis.publish(inbox, json.dumps(bye))
            self._outboxes.pop(connection, None)

    async def _watch(self, owner: str) -> None:
        """Look at ``owner`` every :data:`WATCH_EVERY` seconds while sockets are relayed to
        it; when it is dead, adopt its tables and close those sockets with
        :data:`RESTART`, :data:`RESTART_AFTER` seconds on and spread over
        :data:`RESTART_SPREAD` seconds (a process's pages reconnecting at one moment,
        each a state, a sync and a seat coming online, held the tables in play here as
        long as they took)."""
        try:
            while self._ends.get(owner):
                with contextlib.suppress(Exception):
                    if not await self.is_alive(owner):
                        break
                await asyncio.sleep(WATCH_EVERY)
            else:
                return
        finally:
            _forget(self._watching, owner, asyncio.current_task())  # type: ignore[arg-type]
        self._adopt_soon(owner)
        ends = list(self._ends.pop(owner, ()))
        random.shuffle(ends)
        loop = asyncio.get_running_loop()
        for n, end in enumerate(ends):
            loop.call_later(RESTART_AFTER + RESTART_SPREAD * n / len(ends), end, RESTART)

    async def _listen(self, pubsub: Any) -> None:
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if message is None:
                    continue
                channel: str = message["channel"]
                if channel.startswith("burraco:out:"):
                    # Passed on as it came: a relayed socket's every state was read and
                    # written again here, a cost of every message of two thirds of them.
                    outbox = self._outboxes.get(channel.rsplit(":", 1)[1])
                    if outbox is not None:
                        outbox.put_nowait(str(message["data"]))
                    continue
                data = json.loads(message["data"])
                if channel.startswith("burraco:reply:"):
                    waiting = self._replies.get(channel.rsplit(":", 1)[1])
                    if waiting is not None and not waiting.done():
                        waiting.set_result(data)
                elif channel.startswith("burraco:rpc:"):
                    task = asyncio.create_task(self._answer(data))
                    self._answering.add(task)
                    task.add_done_callback(self._answering.discard)
                else:
                    table = channel.removeprefix("burraco:in:")
                    if table in self.owned:
                        self._deliver(table, data)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster listener")

    async def _answer(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any]
        try:
            result = await self._run(request["op"], request["table"], request["body"])
            reply = {"ok": True, "result": result}
        except RoomError as error:
            reply = {
                "ok": False,
                "code": error.code,
                "detail": error.message,
                "status": error.status,
                "params": error.params,
            }
        await self.redis.publish(request["reply"], json.dumps(reply))

    def _deliver(self, table_id: str, data: dict[str, Any]) -> None:
        """Queue a relayed connection's note for its own task: the listener never waits
        on a table (a hint, a search, a lock), so one slow request holds up no other."""
        connection = str(data.get("conn", ""))
        inbox = self._inboxes.get(connection)
        if inbox is None:
            if data.get("kind") != "connect":
                return
            inbox = self._inboxes[connection] = asyncio.Queue()
            task = asyncio.create_task(self._serve_relayed(table_id, connection, inbox))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        inbox.put_nowait(data)

    async def _serve_relayed(
        self, table_id: str, connection: str, inbox: asyncio.Queue[dict[str, Any] | None]
    ) -> None:
        first = await inbox.get()
        if first is None or first.get("kind") != "connect":
            return
        out = str(first["out"])

        async def send(message: dict[str, Any]) -> None:
            await self.redis.publish(out, text_of(message))

        async def close(code: int, reason: str) -> None:
            await self.redis.publish(out, _CLOSING + json.dumps(code) + "}")

        async def send_text(text: str) -> None:
            await self.redis.publish(out, text)

        room = self.room
        seat: int | None = None
        watcher: Watcher | None = None
        table = None
        data: dict[str, Any] | None = first
        try:
            while True:
                if data is None or data["kind"] == "disconnect":
                    return
                try:
                    if data["kind"] == "connect" and isinstance(data.get("watch"), str):
                        table = room.table(table_id)
                        try:
                            name = spectator_name(data["watch"])
                            watcher = await room.watch(table, name, send_text, close)
                        except RoomError as error:
                            await send(error_message(error.code, error.message, error.params))
                            await close(RESTART if error.status == 503 else FORBIDDEN, "")
                            return
                    elif data["kind"] == "message" and table is not None and watcher is not None:
                        await room.watch_message(table, watcher, data["raw"])
                    elif data["kind"] == "connect":
                        table = room.table(table_id)
                        try:
                            user = data.get("user")
                            seat = room.seat_of(
                                table, data["token"], user if isinstance(user, int) else None
                            )
                        except RoomError as error:
                            await send(
                                {
                                    "type": "error",
                                    "code": "forbidden",
                                    "message": error.message,
                                    "params": {},
                                }
                            )
                            await close(FORBIDDEN, error.message)
                            return
                        self._relays[connection] = send
                        self._remote[connection] = (table_id, seat)
                        await room.connect(table, seat, send, close)
                    elif data["kind"] == "message" and table is not None and seat is not None:
                        await room.message(table, seat, send, data["raw"])
                except Exception:
                    log.exception("relayed connection %s at %s", connection, table_id)
                data = await inbox.get()
        finally:
            self._inboxes.pop(connection, None)
            self._relays.pop(connection, None)
            self._remote.pop(connection, None)
            if table is not None and seat is not None:
                with contextlib.suppress(Exception):
                    await room.disconnect(table, seat, send)
            if table is not None and watcher is not None:
                with contextlib.suppress(Exception):
                    await room.unwatch(table, watcher)


#: How the owner's word to close a relayed socket begins (its code follows).
_CLOSING = '{"type": "_close", "code": '


def _forget(tasks: dict[str, asyncio.Task[None]], key: str, done: asyncio.Task[None]) -> None:
    """Forget a finished task kept by ``key``, unless a newer one took its place."""
    if tasks.get(key) is done:
        del tasks[key]


def _read_failure(task: asyncio.Task[None]) -> None:
    """A side of a relay that failed (the player's socket closed under a send) ended the
    relay as a leaving does: its error is read here, at debug level, not left for the
    event loop to log as "Task exception was never retrieved"."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.debug("a relay's side ended: %r", error)
