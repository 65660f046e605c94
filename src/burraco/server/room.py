"""The room: every live table of one server process, and the parts each table uses.

Each table's match lives in memory and in the database. Every change of a table goes
through one step (table/step.py), whoever makes it (a person, a bot, a clock): checked
by the engine, appended to the table's log and committed, applied, then told to each
seat as that seat's own view. A table is rebuilt after a restart by replaying its log
into a new match dealt from the same seed, each event applied as live play applies it.

The room keeps the tables (startup, loading, reaping, capacity, shutdown) and builds the
parts of server/table/, one for each thing a live table does (the package's docstring
lists them), each handed what it calls; it hands the finisher what records a finished
match's results and ratings. Its other methods are the parts' doors for the rest of
the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from burraco.errors import RuleError
from burraco.server.door.capacity import BUSY, Capacity, LoopLag
from burraco.server.door.limits import Limits, Rates
from burraco.server.process.collector import FullCollections
from burraco.server.process.thinking import Thinking, ThinkingSettings
from burraco.server.results.record import listener
from burraco.server.table.bots import Bots
from burraco.server.table.chat import TableChat
from burraco.server.table.clocks import Clocks
from burraco.server.table.door import Door
from burraco.server.table.errors import UNAVAILABLE, RoomError, error_message, too_fast
from burraco.server.table.finish import Finisher, Results
from burraco.server.table.live import Close, LiveTable, Send, Shared
from burraco.server.table.lobby import Lobby, LobbyQuery, lobby_page, presets
from burraco.server.table.log import EventLog
from burraco.server.table.pause import NEXT_DEAL_SECONDS, Pauser
from burraco.server.table.records import Records
from burraco.server.table.seats import Seats
from burraco.server.table.sockets import SeatSockets
from burraco.server.table.spectators import Spectators
from burraco.server.table.step import Step
from burraco.server.table.turns import Turns
from burraco.server.table.views import Views
from burraco.server.watching import CloseSocket, SendText, Watcher
from burraco.storage import Store, TableRow

__all__ = [
    "NEXT_DEAL_SECONDS",
    "UNAVAILABLE",
    "LiveTable",
    "LobbyQuery",
    "Room",
    "RoomError",
    "error_message",
    "lobby_page",
    "presets",
    "too_fast",
]

log = logging.getLogger("burraco.room")


class Room:
    """Every live table of one server process."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.6,
        hint_seconds: float = 0.5,
        expert_seconds: float = 1.0,
        next_deal_seconds: float = NEXT_DEAL_SECONDS,
        capacity: Capacity | None = None,
        thinking: ThinkingSettings | None = None,
        rates: Rates | None = None,
        results: Results | Literal["stored"] | None = "stored",
    ) -> None:
        """``results`` records each finished table's results and ratings: by default in
        ``store`` (server/results/record.py), None for a room that records none."""
        self.store = store
        #: The per-visitor rates (the chat's among them): the app's own.
        self.rates = rates or Rates(Limits())
        self.capacity = capacity or Capacity()
        self.lag = LoopLag()
        self.collections = FullCollections.of(self.capacity)
        self.tables: dict[str, LiveTable] = {}
        #: Processes for expert bots and hints (started at the first search).
        self.thinking = Thinking(thinking)
        #: Whether the room closes, its open sockets, its background tasks: every part's.
        self.shared = Shared()
        self._build_parts(bot_delay, hint_seconds, expert_seconds, next_deal_seconds, results)
        self.records = Records(store)
        #: A table whose seats are given, started at once (a tournament's, quick play's).
        self.create_seated = self.seats.create_seated
        self._reaper: asyncio.Task[None] | None = None
        #: Tables in play when the process started, not rebuilt yet: the loader takes them
        #: one by one, and a request for one rebuilds it at once (:meth:`table`).
        self._pending: dict[str, TableRow] = {}
        self._loader: asyncio.Task[None] | None = None
        #: Tables the loader rebuilt whose clocks and bots wait for the last one (or for
        #: a request): the loop's time goes to loading first, as before it listened.
        self._asleep: set[str] = set()
        #: Reaping, and the shares of max_tables new tables come in by.
        self.door = Door(
            store,
            self.tables,
            self.capacity,
            self.shared,
            self.listing.changed,
            lambda: len(self._pending),
        )

    def _build_parts(
        self,
        bot_delay: float,
        hint_seconds: float,
        expert_seconds: float,
        next_deal_seconds: float,
        results: Results | Literal["stored"] | None,
    ) -> None:
        """The parts of server/table/, built in the order they call one another."""
        store = self.store
        # Each part is given what it calls, built before it: those below compute
        # and change a table, the step stores, applies and tells each change and runs
        # the table's timers, those above it ask the step (server/table/__init__.py).
        self.views = Views()
        self.chat_part = TableChat(store, self.rates)
        self.spectators_part = Spectators(self.shared, self.capacity, self.chat_part)
        self.pauser = Pauser(next_deal_seconds)
        self.event_log = EventLog(store, self.pauser)
        # A finished match's results and ratings are recorded by what the room hands
        # the finisher (server/results/record.py), the tournaments' by their listener.
        recorder = listener(store) if results == "stored" else results
        self.finisher = Finisher(store, recorder)
        self.bots = Bots(
            self.tables,
            self.capacity,
            self.thinking,
            delay=bot_delay,
            expert_seconds=expert_seconds,
        )
        self.clocks = Clocks(self.bots)
        self.turns = Turns(self.thinking, hint_seconds=hint_seconds)
        self.step = Step(
            self.shared,
            self.event_log,
            self.turns,
            self.pauser,
            self.clocks,
            self.bots,
            self.views,
            self.spectators_part,
            self.finisher,
        )
        self.listing = Lobby(store, self.tables, self.capacity)
        self.seats = Seats(store, self.tables, self.capacity, self.listing, self.step)
        self.sockets_part = SeatSockets(
            self.shared,
            self.capacity,
            self.chat_part,
            self.turns,
            self.step,
            self.rates.limits,
        )

    # --- what the parts share, as the rest of the server reads it --------------------------

    @property
    def closing(self) -> bool:
        """Set when the room stops: no new bot, clock or retry is started."""
        return self.shared.closing

    @property
    def sockets(self) -> int:
        """The room's open sockets, seats' and spectators'."""
        return self.shared.sockets

    @property
    def spectators(self) -> dict[Watcher, tuple[LiveTable, str]]:
        return self.spectators_part.watchers

    @property
    def watching_from(self) -> Counter[str]:
        return self.spectators_part.watching_from

    @property
    def bot_accounts(self) -> dict[str, int]:
        """The account of each bot level (results.bot_accounts): a rated table's bots play
        under it, and are rated as players are."""
        return self.seats.bot_accounts

    @property
    def finish_listeners(self) -> list[Callable[[LiveTable], Awaitable[None]]]:
        """Called with each table whose match has just ended (tournaments listen here)."""
        return self.finisher.listeners

    # --- lifecycle ------------------------------------------------------------------------

    async def startup(self, *, background: bool = False) -> None:
        """Hold the database (one room per database without Redis), then rebuild every
        unfinished table from its log and restart its clock and its bots. With
        ``background`` (the server's own start) return at once and rebuild them in the
        background (a request for one rebuilds it first), so the room listens while
        hundreds of tables load (the lobby lists those loaded so far)."""
        self.store.hold()
        self.start_watching()
        self._pending = {row.id: row for row in self.store.tables(("waiting", "playing"))}
        self._loader = asyncio.get_running_loop().create_task(self._load_pending())
        if not background:
            await self._loader

    async def _load_pending(self) -> None:
        while self._pending and not self.closing:
            self._rebuild(next(iter(self._pending)), wake=False)
            await asyncio.sleep(0)  # a request waits for one table's log at most
        for table_id in list(self._asleep):
            if (table := self.tables.get(table_id)) is not None:
                self._wake(table)
        await self.finisher.announce_unannounced()

    def _rebuild(self, table_id: str, *, wake: bool = True) -> LiveTable | None:
        """Rebuild a table of :attr:`_pending` and restart its clock and bots (or, not
        ``wake``, leave them to :meth:`_wake`); None (and a log line) for one whose log
        no longer replays."""
        row = self._pending.pop(table_id)
        try:
            table = self._load(row)
        except (RuleError, ValueError) as error:
            log.error("table %s cannot be rebuilt: %s", row.id, error)
            return None
        self.tables[row.id] = table
        self.listing.changed()
        self._asleep.add(table_id)
        if wake:
            self._wake(table)
        return table

    def _load(self, row: TableRow) -> LiveTable:
        """The table of ``row`` rebuilt from its log, finished if its log ends the match."""
        table = self.event_log.load(row)
        self.finisher.loaded(table)
        self.seats.mark_programs(table)
        return table

    def _wake(self, table: LiveTable) -> None:
        self._asleep.discard(table.id)
        if table.status == "playing":
            self.step.schedule(table)

    def rebuild_seated(self, user_id: int) -> None:
        """Rebuild at once the tables still loading after a restart where this account
        sits, for a request that lists them (the account's page, its table page)."""
        if self._pending:
            for table_id in self.store.seated(user_id):
                if table_id in self._pending:
                    self._rebuild(table_id)

    def start_watching(self) -> None:
        """Start measuring the event loop's lag and reaping finished and stale tables."""
        self.lag.start()
        self.collections.start()
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(min(30.0, self.capacity.finished_linger / 2 or 1.0))
            try:
                self.reap()
            except Exception:
                log.exception("reaping tables")

    def reap(self, now: float | None = None) -> list[str]:
        """Let go of finished tables after a while, of tables nobody started and of tables
        in play nobody is at (table/door.py); they stay in the database (records,
        replays, the log). The ids let go of."""
        return self.door.reap(time.time() if now is None else now)

    def busy(self, tables: bool = True) -> str | None:
        """Why a new visitor (a new table, a join, a new tournament) is turned away now, or
        None: the loop falls behind, or (``tables``: one more would come in) the room
        holds as many tables as it may."""
        if self.lag.lag > self.capacity.busy_lag:
            return BUSY
        if tables and len(self.tables) + len(self._pending) >= self.capacity.max_tables:
            return BUSY
        return None

    def admit(self, tables: bool = True) -> None:
        """Raise a "busy" :class:`RoomError` (503) when :meth:`busy` says so."""
        reason = self.busy(tables)
        if reason is not None:
            raise RoomError("busy", reason, 503)

    def resume(self, table_id: str) -> None:
        """Wake the bots and the clock of a table loaded from its log."""
        table = self.tables.get(table_id)
        if table is not None and table.status == "playing":
            self.step.schedule(table)

    async def shutdown(self, seconds: float = 1.5) -> None:
        """Stop every bot, clock and search at once, whatever the load, within about
        ``seconds``. What was acknowledged is committed already: every action is stored
        before anyone hears of it."""
        self.shared.closing = True
        await self.lag.stop()
        await self.collections.stop()
        tasks: list[asyncio.Future[Any]] = list(self.shared.tasks)
        tasks += [t for t in (self._reaper, self._loader) if t is not None]
        for table in self.tables.values():
            timers = (table.clock_task, table.bot_task, table.deal_task, table.pause_task)
            tasks += [t for t in timers if t]
            if table.watchers_task is not None:
                tasks.append(table.watchers_task)
            tasks += [w.task for w in table.watchers if w.task is not None]
        for task in tasks:
            task.cancel()
        self.thinking.close()
        if tasks:
            await asyncio.wait(tasks, timeout=seconds)
        # The last group of events is committed (or refused) before the store is let go.
        await self.event_log.group.close()
        self.store.release()

    def table(self, table_id: str) -> LiveTable:
        table = self.tables.get(table_id)
        if table is not None:
            if self._asleep and table_id in self._asleep:
                self._wake(table)  # asked for: its clock and bots go on now
            return table
        if table_id in self._pending:
            table = self._rebuild(table_id)  # the loader has not come to it yet
        if table is None:
            row = self.store.table(table_id)
            if row is None:
                raise RoomError("not_found", f"no table {table_id!r}", 404)
            table = self._load(row)
            self.tables[table_id] = table
        if self.finisher.unannounced and not self.closing:
            with contextlib.suppress(RuntimeError):  # no loop: nobody listens either
                loop = asyncio.get_running_loop()
                self.shared.keep(loop.create_task(self.finisher.announce_unannounced()))
        return table

    # --- the parts' doors: seats and tokens (server/table/seats.py) ------------------------

    def create(
        self, request: dict[str, Any], user_id: int | None = None, creator: str = ""
    ) -> tuple[LiveTable, int, str]:
        """A new table, its creator in seat 0 (:meth:`Seats.create`); refused while busy,
        or while its creator's share of the room is full (table/door.py)."""
        self.admit(tables=False)
        fresh = self.door.is_fresh(user_id)
        self.door.admit(fresh, time.time())
        made = self.seats.create(request, user_id, creator)
        self.door.made(made[0], fresh)
        return made

    async def join(
        self, table_id: str, request: dict[str, Any], user_id: int | None = None
    ) -> tuple[LiveTable, int, str]:
        self.admit(tables=False)  # a join brings no table in
        return await self.seats.join(self.table(table_id), request, user_id)

    async def start(self, table_id: str, token: str, user_id: int | None = None) -> LiveTable:
        self.door.pace.admit()  # a burst of starts is paced (table/door.py)
        table = self.table(table_id)
        await self.seats.start(table, token, user_id)
        return table

    def seat_of(self, table: LiveTable, token: str, user_id: int | None = None) -> int:
        return self.seats.seat_of(table, token, user_id)

    # --- a seat's sockets and the turn (sockets.py, turns.py, pause.py, bots.py) ---------

    async def connect(
        self, table: LiveTable, seat: int, send: Send, close: Close | None = None
    ) -> None:
        await self.sockets_part.connect(table, seat, send, close)

    async def disconnect(self, table: LiveTable, seat: int, send: Send) -> None:
        await self.sockets_part.disconnect(table, seat, send)

    async def message(self, table: LiveTable, seat: int, send: Send, raw: str) -> None:
        await self.sockets_part.message(table, seat, send, raw)

    async def act(
        self, table: LiveTable, seat: int, text: str, version: int, *, by_bot: bool = False
    ) -> None:
        await self.step.act(table, seat, text, version, by_bot=by_bot)

    async def abandon(self, table: LiveTable, seat: int) -> None:
        await self.step.abandon(table, seat)

    def keep_grace(self, table: LiveTable, until: float) -> None:
        if self.pauser.keep_grace(table, until):
            self.step.schedule(table)  # the clock on turn waits for the grace

    def bot_tables(self) -> int:
        return self.bots.bot_tables()

    # --- spectators and chat (spectators.py, chat.py) -------------------------------------

    async def watch(
        self,
        table: LiveTable,
        name: str,
        send_text: SendText,
        close: CloseSocket | None = None,
        address: str = "",
    ) -> Watcher:
        watcher = await self.spectators_part.watch(table, name, send_text, close, address)
        self.step.watchers_changed(table)
        return watcher

    async def unwatch(self, table: LiveTable, watcher: Watcher) -> None:
        if await self.spectators_part.unwatch(table, watcher):
            self.step.watchers_changed(table)

    def admit_seat(self) -> None:
        for table in self.spectators_part.admit_seat():
            self.step.watchers_changed(table)

    async def watch_message(self, table: LiveTable, watcher: Watcher, raw: str) -> None:
        await self.spectators_part.message(table, watcher, raw)

    # --- the lobby and finished matches (lobby.py, records.py) ----------------------------

    def open_tables(self) -> list[dict[str, Any]]:
        return self.listing.open_tables()

    def lobby(self, query: LobbyQuery) -> dict[str, Any]:
        return self.listing.page(query)

    def infos(self, table_ids: list[str]) -> list[dict[str, Any]]:
        return self.listing.infos(table_ids)

    def light_info(self, table_id: str) -> dict[str, Any] | None:
        return self.listing.light_info(table_id)

    def record(self, table_id: str) -> str:
        return self.records.record(self.table(table_id))

    def finished_deal(self, table_id: str, number: int) -> dict[str, Any]:
        return self.records.finished_deal(self.table(table_id), number)

    def replay(self, table_id: str) -> dict[str, Any]:
        return self.records.replay(self.table(table_id))

    def review_access(
        self, table_id: str, token: str, user_id: int | None, with_record: bool = False
    ) -> dict[str, Any]:
        table = self.table(table_id)
        holder = lambda: self.seats.seat_of(table, token, user_id)  # noqa: E731
        return self.records.review_access(table, holder, with_record)
