"""The room: live tables, their players' connections, bots and clocks.

Each table's match lives in memory and in the database. An action goes
through one path, whoever makes it (a person, a bot, a clock): checked by the
engine, appended to the table's log and committed, applied, then told to each
seat as that seat's own view. A table is rebuilt after a restart by replaying
its log into a new match dealt from the same seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from burraco.actions import Action
from burraco.bots import Bot
from burraco.bots.arena import make_bot
from burraco.errors import IllegalMove, RuleError
from burraco.match import Match
from burraco.server.absence import Tally, absent_json
from burraco.server.capacity import BUSY, Capacity, LoopLag
from burraco.server.chat import (
    HISTORY,
    LONGEST,
    QUICK,
    ChatEmpty,
    ChatTooLong,
    chat_json,
    clean_chat,
)
from burraco.server.inputs import clean_name
from burraco.server.limits import Limits, Rates
from burraco.server.messages import (
    BadMessage,
    cards,
    public_view_json,
    read_message,
    score_json,
    view_json,
)
from burraco.server.thinking import Busy, Thinking, ThinkingSettings
from burraco.server.watching import CloseSocket, Frame, Pacer, SendText, Watcher
from burraco.storage import SeatRow, Store, TableRow
from burraco.storage.store import ChatRow, SeatTaken, StaleVersion, StorageUnavailable
from burraco.variants import PRESETS, Variant, variant
from burraco.view import public_view_of

__all__ = ["LiveTable", "LobbyQuery", "Room", "RoomError", "error_message", "lobby_page"]

log = logging.getLogger("burraco.room")

T = TypeVar("T")

#: What a player hears when the database refuses a write (disk full, read-only, gone).
UNAVAILABLE = (
    "the room cannot save right now, so nothing was played; "
    "the table goes on by itself as soon as the database accepts writes again"
)
#: What a socket that sends faster than a person hears (once, then it is not answered).
TOO_FAST = "too many messages from this connection: they are ignored for a few seconds"
#: Seconds between attempts to store again after the database refused a write.
RETRY_FIRST, RETRY_MAX = 0.5, 30.0

Send = Callable[[dict[str, Any]], Awaitable[None]]
#: Closes a socket with a close code and a reason.
Close = Callable[[int, str], Awaitable[None]]

#: The close code of a socket replaced by a newer one on the same seat; the page does not
#: reconnect by itself after it (the seat is open in another window).
REPLACED = 4409

#: Seconds the score of a deal stays up before the next deal begins by itself, unless
#: every person at the table presses "next deal" sooner.
NEXT_DEAL_SECONDS = 30.0

#: How many times slower than ``bot_delay`` bots play at a table of bots alone that
#: nobody has open (no seat's socket, no spectator): nobody follows its moves, and each
#: such table (a tournament's bot lines, a table its people left) would otherwise cost
#: the room's one loop as much as a table of people.
UNSEEN_PACE = 5.0

#: Seconds between two states that only tell the players how many watch (200 spectators
#: arriving make one state a second, not 200).
WATCHERS_EVERY = 1.0

#: What a player may set when creating a table; everything else is the preset's.
TABLE_OPTIONS = ("players", "lines", "deals", "target", "open_hands")


class RoomError(Exception):
    """A request the room refuses; ``code`` is the protocol's error code.

    ``params`` fill the message in the player's language (a ``seat`` the page names);
    ``rule`` is the engine's refusal code when the engine refused (``code`` "illegal").
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        retry_after: float | None = None,
        params: Mapping[str, str | int] | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: Seconds before the same request may succeed (a rate limit).
        self.retry_after = retry_after
        self.params: dict[str, str | int] = dict(params or {})
        self.rule = rule


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class SeatState:
    name: str
    kind: str  # human, bot, empty
    token_hash: str
    #: The registered player (or bot level) in the seat; None for a guest.
    user_id: int | None = None
    #: A human seat a bot plays for, after its clock ran out, until its player acts again.
    taken_over: bool = False
    connections: list[Send] = field(default_factory=list)
    #: How to close each connection (sockets replaced by newer ones are closed).
    closers: dict[Send, Close] = field(default_factory=dict)

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.taken_over


@dataclass
class LiveTable:
    row: TableRow
    variant: Variant
    seats: list[SeatState]
    match: Match | None = None
    version: int = 0
    #: The public log for players who reconnect: version, seat, action.
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deadline: float | None = None
    clock_task: asyncio.Task[None] | None = None
    bot_task: asyncio.Task[None] | None = None
    bots: dict[int, Bot] = field(default_factory=dict)
    last: dict[str, Any] | None = None
    #: When the deal in play began (for the tournament's deal clock).
    deal_started: float = 0.0
    deal_task: asyncio.Task[None] | None = None
    #: The deal whose clock ``deal_task`` keeps.
    deal_clocked: int = 0
    #: Seconds before the next attempt after the database refused a write (0: it accepts).
    backoff: float = 0.0
    #: When the match ended (finished tables leave memory a while later).
    over_at: float = 0.0
    #: Between two deals: when the next deal begins by itself; None while a deal is in
    #: play. No clock runs and no bot moves meanwhile (the players read the score).
    pause_until: float | None = None
    #: The seats whose players pressed "next deal" during the pause.
    ready: set[int] = field(default_factory=set)
    pause_task: asyncio.Task[None] | None = None
    #: The people who have not seen the deal in play begin (no socket of theirs was open
    #: when it began, nor has opened since): their first turn's clock waits for them.
    unseen: set[int] = field(default_factory=set)
    #: Until when the first turn's clock of a person in ``unseen`` waits before it runs
    #: (the absence wait: one more pause, or a tournament's grace on its first deal).
    absent_until: float = 0.0
    #: The spectators' sockets.
    watchers: list[Watcher] = field(default_factory=list)
    #: The latest public states, by version, for spectators ``watch_delay`` moves behind
    #: (each built once for all of them).
    frames: deque[Frame] = field(default_factory=deque)
    #: The version the spectators were last shown (its events and scores told).
    shown: int = 0
    #: When the players were last told how many watch, and the task that tells them next.
    watchers_told: float = 0.0
    watchers_task: asyncio.Task[None] | None = None
    #: Each seat's turns, and those a bot played (absence.py: who is rated on what).
    turns: Tally = field(default_factory=Tally)
    #: When a seat's socket last opened or closed (a waiting table nobody has open goes).
    seen: float = 0.0

    def next_backoff(self) -> float:
        """The wait before trying to store again: doubling, up to :data:`RETRY_MAX`."""
        self.backoff = min(RETRY_MAX, self.backoff * 2 or RETRY_FIRST)
        return self.backoff

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def status(self) -> str:
        return self.row.status

    def info(self) -> dict[str, Any]:
        v = self.variant
        match = self.match
        return {
            "table": self.id,
            "variant": v.name,
            "players": v.players,
            "lines": v.lines,
            "deals": v.deals,
            "target": v.target,
            "move_seconds": self.row.move_seconds,
            "bot": self.row.bot,
            "open_hands": v.open_hands,
            "takeover": self.row.takeover,
            "rated": self.row.rated,
            "watchable": self.row.watchable,
            "quick": self.row.quick,
            "status": self.row.status,
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "kind": "bot" if s.taken_over else s.kind,
                    "taken_over": s.taken_over,
                    "connected": bool(s.connections),
                }
                for i, s in enumerate(self.seats)
            ],
            "totals": list(match.totals) if match else [0] * v.lines,
            "deal": len(match.deals) if match else 0,
            "watch_delay": self.row.watch_delay,
            "watchers": len(self.watchers),
            "chat": self.row.chat,
        }


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
    ) -> None:
        self.store = store
        #: The per-visitor rates (the chat's among them): the app's own.
        self.rates = rates or Rates(Limits())
        #: Spectators' writes take turns, a few each turn of the loop: players first.
        self.pacer = Pacer()
        self.next_deal_seconds = next_deal_seconds
        self.capacity = capacity or Capacity()
        self.lag = LoopLag()
        self.sockets = 0
        #: Every spectator's socket, oldest first, with its table and address: they count
        #: per address, and the newest are shed when the players need the sockets.
        self.spectators: dict[Watcher, tuple[LiveTable, str]] = {}
        self.watching_from: Counter[str] = Counter()
        #: The tables each creator ("user-7", "address-1.2.3.4") made, while they may be
        #: open: a creator's open tables are capped (tables loaded from the database, a
        #: tournament's and quick play's have no creator here).
        self.created: dict[str, set[str]] = {}
        #: The lobby's tables in their order with what the filters read (game, players,
        #: rated), and when they were listed (0: list again).
        self._lobby: tuple[float, list[Listed[LiveTable]]] = (0.0, [])
        self._watch_list: tuple[float, list[dict[str, Any]]] = (0.0, [])
        self._reaper: asyncio.Task[None] | None = None
        self.bot_delay = bot_delay
        self.hint_seconds = hint_seconds
        self.expert_seconds = expert_seconds
        self.tables: dict[str, LiveTable] = {}
        #: Called with each table whose match has just ended (tournaments listen here).
        self.finish_listeners: list[Callable[[LiveTable], Awaitable[None]]] = []
        #: The account of each bot level (results.bot_accounts): a rated table's bots
        #: play under it, and are rated as players are.
        self.bot_accounts: dict[str, int] = {}
        #: Tasks that wait for the database to accept writes again.
        self._retrying: set[asyncio.Future[None]] = set()
        #: Processes for expert bots and hints (started at the first search).
        self.thinking = Thinking(thinking)
        #: Set when the room stops: no new bot, clock or retry is started.
        self.closing = False
        #: Tables finished on rebuilding (the process stopped between the last action and
        #: the end of the match): their listeners have not heard of the end yet.
        self._unannounced: list[LiveTable] = []
        #: Tables in play when the process started, not rebuilt yet: the loader takes them
        #: one by one, and a request for one rebuilds it at once (:meth:`table`).
        self._pending: dict[str, TableRow] = {}
        self._loader: asyncio.Task[None] | None = None
        #: Tables the loader rebuilt whose clocks and bots wait for the last one (or for
        #: a request): the loop's time goes to loading first, as before it listened.
        self._asleep: set[str] = set()

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
        await self.announce_unannounced()

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
        self._lobby = (0.0, [])
        self._asleep.add(table_id)
        if wake:
            self._wake(table)
        return table

    def _wake(self, table: LiveTable) -> None:
        self._asleep.discard(table.id)
        if table.status == "playing":
            self._schedule(table)

    def rebuild_seated(self, user_id: int) -> None:
        """Rebuild at once the tables still loading after a restart where this account
        sits, for a request that lists them (the account's page, its table page)."""
        if self._pending:
            for table_id in self.store.seated(user_id):
                if table_id in self._pending:
                    self._rebuild(table_id)

    async def announce_unannounced(self) -> None:
        """Tell the finish listeners of the tables whose match the log alone finished."""
        while self._unannounced:
            table = self._unannounced.pop(0)
            for listener in self.finish_listeners:
                try:
                    await listener(table)
                except Exception:
                    log.exception("a listener of table %s failed", table.id)

    def start_watching(self) -> None:
        """Start measuring the event loop's lag and reaping finished and stale tables."""
        self.lag.start()
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
        """Let go of finished tables after a while and of tables nobody started; they stay
        in the database (records, replays, the log). The ids let go of."""
        now = time.time() if now is None else now
        gone = []
        for table in list(self.tables.values()):
            if any(s.connections for s in table.seats) or table.watchers:
                continue
            if table.status == "over" and now - table.over_at >= self.capacity.finished_linger:
                gone.append(table.id)
            elif (
                table.status == "waiting"
                and not table.row.tournament
                and (
                    now - table.row.created_at >= self.capacity.waiting_expiry
                    # Nobody has it open: a visitor who made it and left, or a script.
                    or now - max(table.row.created_at, table.seen) >= self.capacity.waiting_idle
                )
            ):
                with contextlib.suppress(StorageUnavailable):
                    self.store.set_status(table.id, "expired")
                    gone.append(table.id)
        for table_id in gone:
            self.tables.pop(table_id, None)
        if gone:
            self._lobby = (0.0, [])
        return gone

    def busy(self) -> str | None:
        """Why a new visitor (a new table, a join, a new tournament) is turned away now, or
        None: the loop falls behind, or the room holds as many tables as it may."""
        if self.lag.lag > self.capacity.busy_lag:
            return BUSY
        if len(self.tables) + len(self._pending) >= self.capacity.max_tables:
            return BUSY
        return None

    def bot_tables(self) -> int:
        """Tables in play where bots alone play: a seat a bot took over counts as a bot's
        (its person is not playing), so a table its people left counts as one."""
        return sum(1 for t in self.tables.values() if t.status == "playing" and _bots_alone(t))

    def may_take_over(self, table: LiveTable, seat: int) -> bool:
        """Whether a bot may take over ``seat`` when its clock runs out: yes while a person
        still plays another seat, else only while the room plays fewer than
        ``max_bot_tables`` tables of bots alone (each costs the loop as much as a table of
        people, and nobody may be watching it)."""
        if any(not s.bot_plays for i, s in enumerate(table.seats) if i != seat):
            return True
        return self.bot_tables() < self.capacity.max_bot_tables

    def open_by(self, creator: str) -> int:
        """The open tables (waiting or playing) ``creator`` made; those no longer open are
        forgotten (a look at the creator's few tables, not at the room's)."""
        mine = self.created.get(creator)
        if mine is None:
            return 0
        for table_id in list(mine):
            table = self.tables.get(table_id)
            if table is None or table.status not in ("waiting", "playing"):
                mine.discard(table_id)
        if not mine:
            del self.created[creator]
        return len(mine)

    def admit(self) -> None:
        """Raise a "busy" :class:`RoomError` (503) when :meth:`busy` says so."""
        reason = self.busy()
        if reason is not None:
            raise RoomError("busy", reason, 503)

    def resume(self, table_id: str) -> None:
        """Wake the bots and the clock of a table loaded from its log."""
        table = self.tables.get(table_id)
        if table is not None and table.status == "playing":
            self._schedule(table)

    def light_info(self, table_id: str) -> dict[str, Any] | None:
        """What the database alone says of a table (for tables another process holds)."""
        row = self.store.table(table_id)
        if row is None:
            return None
        v = variant(row.variant, **json.loads(row.options))
        seats = self.store.seats(table_id)
        return {
            "table": row.id,
            "variant": v.name,
            "players": v.players,
            "lines": v.lines,
            "deals": v.deals,
            "target": v.target,
            "move_seconds": row.move_seconds,
            "bot": row.bot,
            "open_hands": v.open_hands,
            "takeover": row.takeover,
            "rated": row.rated,
            "watchable": row.watchable,
            "quick": row.quick,
            "status": row.status,
            "seats": [
                {"seat": s.seat, "name": s.name, "kind": s.kind, "connected": False} for s in seats
            ],
            "totals": [],
            "deal": 0,
            "watch_delay": row.watch_delay,
            "watchers": 0,
            "chat": row.chat,
        }

    async def shutdown(self, seconds: float = 1.5) -> None:
        """Stop every bot, clock and search at once, whatever the load, within about
        ``seconds``. What was acknowledged is committed already: every action is stored
        before anyone hears of it."""
        self.closing = True
        await self.lag.stop()
        tasks: list[asyncio.Future[Any]] = list(self._retrying)
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
        self.store.release()

    def _load(self, row: TableRow) -> LiveTable:
        v = variant(row.variant, **json.loads(row.options))
        seats = [
            SeatState(s.name, s.kind, s.token_hash, s.user_id) for s in self.store.seats(row.id)
        ]
        # Loaded (after a restart, say): its people's pages have the idle wait to come back.
        table = LiveTable(row=row, variant=v, seats=seats, seen=time.time())
        last_time = row.updated_at
        #: When the deal that follows a finished one began (the pause is not logged: it
        #: ended at its time, or sooner at the next deal's first action).
        next_start: float | None = None
        ended: int | None = None
        events = self.store.events(row.id)
        # Spectators some moves behind see the table as it was: the latest states again.
        remember = events[-1].version - row.watch_delay - 1 if row.watch_delay and events else None
        for event in events:
            payload = json.loads(event.payload)
            ended = None
            if event.kind == "start":
                self._begin(table)
                table.deal_started = event.created_at
            elif event.kind == "action":
                assert table.match is not None
                if next_start is not None:
                    table.deal_started = min(next_start, event.created_at)
                    next_start = None
                action = Action.parse(payload["action"])
                deals_before = len(table.match.scores)
                table.match.apply(action)
                if len(table.match.scores) > deals_before:
                    next_start = event.created_at + self._pause_seconds(table)
                    table.deal_started = next_start
                    ended = deals_before
                assert event.seat is not None
                table.turns = table.turns.add(deals_before, event.seat, bool(payload.get("bot")))
                table.seats[event.seat].taken_over = bool(payload.get("bot")) and (
                    table.seats[event.seat].kind == "human"
                )
                table.last = {"seat": event.seat, "action": str(action)}
            elif event.kind == "time-out":
                assert table.match is not None
                table.match.call_time_out()
            elif event.kind == "abandon":
                assert table.match is not None and event.seat is not None
                table.match.abandon(event.seat)
            table.version = event.version
            table.events.append(self._public(event.version, event.seat, event.kind, payload))
            if ended is not None:
                # The deal's score follows the action that ended it, as it did live.
                over = self._deal_over(table, ended, event.version)
                table.events.append(over | {"sent": True})
            last_time = event.created_at
            if remember is not None and event.version >= remember and table.row.watchable:
                self._remember(table)
        if table.match is not None and table.match.is_over and table.status != "over":
            # The process stopped between the last action and the end of the match (the
            # record, the status): the log alone says the match is over, so finish it now.
            with contextlib.suppress(StorageUnavailable):
                self._finish(table)
                # Its end was never announced: the listeners (results, ratings) hear of it.
                self._unannounced.append(table)
        if table.status == "playing" and ended is not None and next_start is not None:
            # The log ends with the end of a deal: its pause goes on, or is over.
            if next_start > time.time():
                table.pause_until = next_start
            last_time = next_start
        if table.status == "playing" and table.row.move_seconds and table.pause_until is None:
            table.deadline = last_time + table.row.move_seconds
        return table

    # --- the lobby ------------------------------------------------------------------------

    def create(
        self, request: dict[str, Any], user_id: int | None = None, creator: str = ""
    ) -> tuple[LiveTable, int, str]:
        """A new table, its creator in seat 0 (``user_id``: a registered player's account).
        A rated table is for registered players only. ``creator`` (an account's or an
        address's key) may hold ``capacity.tables_per_creator`` open tables at once."""
        self.admit()
        most = self.capacity.tables_per_creator
        if creator and self.open_by(creator) >= most:
            raise RoomError(
                "too_many_tables",
                f"you have {most} open tables already, the most one player may hold: "
                "play or leave one (a waiting table nobody has open goes by itself)",
                429,
                params={"n": most},
            )
        name = _name(request.get("name"))
        kind = str(request.get("variant", "italian"))
        options = {k: request[k] for k in TABLE_OPTIONS if request.get(k) is not None}
        if "deals" in options and "target" not in options:
            options["target"] = None
        try:
            v = variant(kind, **options)
        except (RuleError, TypeError, ValueError) as error:
            raise RoomError("bad_message", str(error)) from error
        bot = str(request.get("bot", "greedy"))
        if bot not in ("random", "greedy", "expert", "learned"):
            raise RoomError("bad_message", f"no bot {bot!r} (random, greedy, expert, learned)")
        move_seconds = int(request.get("move_seconds", v.move_seconds) or 0)
        if not 0 <= move_seconds <= 3600:
            raise RoomError("bad_message", "seconds per move must be between 0 and 3600")
        rated = bool(request.get("rated", False))
        if rated and user_id is None:
            raise RoomError("forbidden", "a rated table is for registered players: log in", 403)
        row = _new_row(v, options, move_seconds, bot, bool(request.get("takeover", True)))
        row = _with(
            row,
            rated=rated,
            watchable=bool(request.get("watchable", False)),
            watch_delay=int(request.get("watch_delay", 0) or 0),
            chat=bool(request.get("chat", True)),
        )
        table_id = row.id
        token = secrets.token_urlsafe(24)
        seats = [SeatRow(table_id, 0, name, "human", _hash(token), user_id)] + [
            SeatRow(table_id, i, "", "empty", "") for i in range(1, v.players)
        ]
        try:
            self.store.create_table(row, seats)
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        table = LiveTable(
            row=row,
            variant=v,
            seats=[SeatState(s.name, s.kind, s.token_hash, s.user_id) for s in seats],
        )
        self.tables[table_id] = table
        if creator:
            self.created.setdefault(creator, set()).add(table_id)
        self._lobby = (0.0, [])
        return table, 0, token

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
        if self._unannounced and not self.closing:
            with contextlib.suppress(RuntimeError):  # no loop: nobody listens either
                task = asyncio.get_running_loop().create_task(self.announce_unannounced())
                self._retrying.add(task)
                task.add_done_callback(self._retrying.discard)
        return table

    def open_tables(self) -> list[dict[str, Any]]:
        """The lobby's tables: waiting or playing, not those a tournament seated; those
        waiting for players first, then the newest."""
        return [t.info() for t, *_ in self._open()]

    def _open(self) -> list[Listed[LiveTable]]:
        """The lobby's tables in their order, listed at most once in
        ``capacity.lobby_cache`` seconds however many lobbies ask."""
        built, listed = self._lobby
        now = time.monotonic()
        if now - built < self.capacity.lobby_cache and built:
            return listed
        tables = [
            t
            for t in self.tables.values()
            if t.status in ("waiting", "playing") and not t.row.tournament
        ]
        tables.sort(key=lambda t: (t.status != "waiting", -t.row.created_at))
        listed = [(t, t.variant.name, t.variant.players, t.row.rated) for t in tables]
        self._lobby = (now, listed)
        return listed

    def lobby(self, query: LobbyQuery) -> dict[str, Any]:
        """One page of the lobby, filtered by game, players, free seats and rated (or of
        the tables to watch). The filters read the live tables and only the page's tables
        are described: a page costs little however many tables the room holds."""
        if query.watch:
            return lobby_page(self.watch_tables(), self.capacity, query)
        chosen = _chosen(self._open(), query, _has_free_seat)
        answer = _cut(chosen, self.capacity, query)
        return answer | {"tables": [t.info() for t in answer["tables"]]}

    def watch_tables(self) -> list[dict[str, Any]]:
        """The tables to watch: in play and open to spectators, a tournament's among them;
        the most watched first, then the newest. Built at most once in
        ``capacity.lobby_cache`` seconds."""
        built, listed = self._watch_list
        now = time.monotonic()
        if now - built < self.capacity.lobby_cache and built:
            return listed
        tables = [t for t in self.tables.values() if t.status == "playing" and t.row.watchable]
        tables.sort(key=lambda t: (-len(t.watchers), -t.row.created_at))
        listed = [t.info() for t in tables]
        self._watch_list = (now, listed)
        return listed

    def infos(self, table_ids: list[str]) -> list[dict[str, Any]]:
        """What the lobby says of these tables (a player's own, a round's), those that exist."""
        found = []
        for table_id in table_ids:
            table = self.tables.get(table_id)
            if table is not None:
                found.append(table.info())
            elif (info := self.light_info(table_id)) is not None:
                found.append(info)
        return found

    async def join(
        self, table_id: str, request: dict[str, Any], user_id: int | None = None
    ) -> tuple[LiveTable, int, str]:
        self.admit()
        table = self.table(table_id)
        name = _name(request.get("name"))
        async with table.lock:
            if table.row.rated and user_id is None:
                raise RoomError("forbidden", "this table is rated: log in to sit at it", 403)
            if user_id is not None and any(s.user_id == user_id for s in table.seats):
                raise RoomError("forbidden", "you already sit at this table", 409)
            if table.status != "waiting":
                raise RoomError("forbidden", "the match has started: no seat is free", 409)
            free = [i for i, s in enumerate(table.seats) if s.kind == "empty"]
            wanted = request.get("seat")
            if wanted is not None:
                if not isinstance(wanted, int) or wanted not in free:
                    raise RoomError(
                        "forbidden",
                        f"seat {wanted} is not free",
                        409,
                        params={"seat": wanted if isinstance(wanted, int) else str(wanted)},
                    )
                seat = wanted
            elif free:
                seat = free[0]
            else:
                raise RoomError("forbidden", "the table is full", 409)
            token = secrets.token_urlsafe(24)
            digest = _hash(token)
            try:
                self.store.claim_seat(SeatRow(table.id, seat, name, "human", digest, user_id))
            except SeatTaken as error:
                raise RoomError(
                    "forbidden", f"seat {seat} was just taken", 409, params={"seat": seat}
                ) from error
            except StorageUnavailable as error:
                raise RoomError("unavailable", UNAVAILABLE, 503) from error
            state = table.seats[seat]
            state.name, state.kind, state.token_hash = name, "human", digest
            state.user_id = user_id
            self._lobby = (0.0, [])
            if all(s.kind == "human" for s in table.seats):
                await self._start_locked(table)
            else:
                await self._broadcast(table)
        return table, seat, token

    async def start(self, table_id: str, token: str, user_id: int | None = None) -> LiveTable:
        """The creator starts the match: by the seat's token, or, with none, by the session
        of the account that created the table (from another device)."""
        table = self.table(table_id)
        async with table.lock:
            creator = table.seats[0]
            if token:
                allowed = secrets.compare_digest(creator.token_hash, _hash(token)) and (
                    creator.user_id is None or creator.user_id == user_id
                )
            else:
                allowed = user_id is not None and creator.user_id == user_id
            if not allowed:
                raise RoomError("forbidden", "only the table's creator starts it", 403)
            if table.status != "waiting":
                raise RoomError("forbidden", "the match has already started", 409)
            await self._start_locked(table)
        return table

    async def _start_locked(self, table: LiveTable, grace: float = 0.0) -> None:
        rated = table.row.rated and not table.row.tournament
        account = self.bot_accounts.get(table.row.bot) if rated else None
        bots = [
            SeatRow(table.id, i, f"{table.row.bot} bot {i}", "bot", "", account)
            for i, state in enumerate(table.seats)
            if state.kind == "empty"
        ]
        now = time.time()
        try:
            self.store.start_table(table.id, bots, table.version + 1, now)
        except StaleVersion as error:
            raise RoomError("stale", "the table was started elsewhere", 409) from error
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        for seat in bots:
            table.seats[seat.seat].name, table.seats[seat.seat].kind = seat.name, "bot"
            table.seats[seat.seat].user_id = seat.user_id
        table.version += 1
        self._begin(table)
        table.deal_started = now
        self._deal_begins(table, now, grace)
        table.events.append(self._public(table.version, None, "start", {}))
        self._lobby = (0.0, [])
        self._set_clock(table)
        await self._broadcast(table)
        self._schedule(table)

    def _begin(self, table: LiveTable) -> None:
        table.match = Match(table.variant, seed=table.row.seed)
        table.row = _with(table.row, status="playing")

    # --- seats and connections ------------------------------------------------------------

    def seat_of(self, table: LiveTable, token: str, user_id: int | None = None) -> int:
        """The seat a socket opens: the one its token holds, or, with no token, the one
        the logged-in account ``user_id`` holds. A seat of an account opens only for that
        account's session, whoever holds its token."""
        if not token and user_id is not None:
            for i, state in enumerate(table.seats):
                if state.kind == "human" and state.user_id == user_id:
                    return i
            raise RoomError("forbidden", "your account holds no seat at this table", 403)
        digest = _hash(token)
        for i, state in enumerate(table.seats):
            if state.kind == "human" and secrets.compare_digest(state.token_hash, digest):
                if state.user_id is not None and state.user_id != user_id:
                    raise RoomError(
                        "forbidden",
                        "this seat belongs to a registered player: log in as that player",
                        403,
                    )
                return i
        raise RoomError("forbidden", "this token holds no seat at this table", 403)

    async def connect(
        self, table: LiveTable, seat: int, send: Send, close: Close | None = None
    ) -> None:
        """A socket opens on a seat. Past ``capacity.sockets_per_seat`` the oldest socket of
        the seat is told why and closed; the others hear of it only when the seat comes
        online (so opening sockets costs the table nothing)."""
        state = table.seats[seat]
        while len(state.connections) >= max(1, self.capacity.sockets_per_seat):
            oldest = state.connections.pop(0)
            closer = state.closers.pop(oldest, None)
            self.sockets -= 1
            await _safe(oldest, error_message("replaced", "this seat was opened in another window"))
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer(REPLACED, "replaced by a newer connection")
        came_online = not state.connections
        table.seen = time.time()
        state.connections.append(send)
        if close is not None:
            state.closers[send] = close
        self.sockets += 1
        clock_started = self._sees_deal(table, seat)
        await send(self._state(table, seat))
        history = self._chat_history(table, "players")
        if history is not None:
            await send(history)
        if came_online or clock_started:
            await self._broadcast(table, skip=send)

    async def disconnect(self, table: LiveTable, seat: int, send: Send) -> None:
        state = table.seats[seat]
        if send not in state.connections:
            return  # replaced earlier
        state.connections.remove(send)
        state.closers.pop(send, None)
        self.sockets -= 1
        table.seen = time.time()
        if not state.connections:
            if table.pause_until is not None and table.ready and not self._waiting_for(table):
                await self._next_deal(table)
                return
            await self._broadcast(table)

    async def message(self, table: LiveTable, seat: int, send: Send, raw: str) -> None:
        """Handle one message from a seat's socket; errors go back to that socket only."""
        try:
            message = read_message(raw)
        except BadMessage as error:
            await send(error_message("bad_message", str(error)))
            return
        kind = message["type"]
        try:
            if kind == "action":
                text = message.get("action")
                version = message.get("version")
                if not isinstance(text, str) or not isinstance(version, int):
                    raise RoomError("bad_message", "an action needs its text and the version seen")
                await self.act(table, seat, text, version)
            elif kind == "sync":
                since = message.get("since", 0)
                if not isinstance(since, int):
                    raise RoomError("bad_message", "sync needs the last version seen")
                for event in table.events:
                    if event["version"] > since:
                        await send({k: v for k, v in event.items() if k != "sent"})
                await send(self._state(table, seat))
            elif kind == "next_deal":
                await self.next_deal(table, seat)
            elif kind == "take_back":
                await self.take_back(table, seat)
            elif kind == "hint":
                await send(await self.hint(table, seat))
            elif kind == "abandon":
                await self.abandon(table, seat)
            elif kind == "ping":
                await send({"type": "pong"})
            elif kind == "chat":
                said = self.chat(table, "players", seat, table.seats[seat].name, message)
                await self._send_all(table, said)
            else:
                raise RoomError("bad_message", f"unknown message type {kind!r}")
        except RoomError as error:
            await send(error_message(error.code, error.message, error.params, error.rule))

    # --- playing --------------------------------------------------------------------------

    async def act(
        self, table: LiveTable, seat: int, text: str, version: int, *, by_bot: bool = False
    ) -> None:
        """One action for a seat: checked, stored, applied, told. Raises :class:`RoomError`."""
        async with table.lock:
            self._act_locked(table, seat, text, version, by_bot)
        await self._after_change(table)

    def _act_locked(
        self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool
    ) -> None:
        match = table.match
        if table.status == "waiting" or match is None:
            raise RoomError("forbidden", "the match has not started")
        if table.status == "over" or match.is_over:
            raise RoomError("over", "the match is over")
        if version != table.version:
            raise RoomError(
                "stale", f"stale action: the table is at version {table.version}, not {version}"
            )
        if table.pause_until is not None:
            raise RoomError(
                "between_deals",
                "the next deal has not begun: it begins when every player has pressed "
                "next deal, or when its countdown ends",
            )
        if seat != match.deal.turn:
            turn = match.deal.turn
            raise RoomError(
                "not_your_turn", f"it is seat {turn}'s turn, not yours", params={"seat": turn}
            )
        try:
            action = Action.parse(text)
        except ValueError as error:
            raise RoomError("unknown_action", str(error)) from error
        try:
            match.check(action)
        except IllegalMove as error:
            raise RoomError("illegal", str(error), params=error.params, rule=error.code) from error
        deals_before = len(match.scores)
        payload = {"action": str(action)} | ({"bot": True} if by_bot else {})
        self._store_event(table, "action", seat, payload)
        match.apply(action)
        table.turns = table.turns.add(deals_before, seat, by_bot)
        state = table.seats[seat]
        state.taken_over = by_bot and state.kind == "human"
        table.last = {"seat": seat, "action": str(action)}
        table.events.append(self._public(table.version, seat, "action", payload))
        if len(match.scores) > deals_before:
            table.events.append(self._deal_over(table, deals_before, table.version))
            self._pause(table, time.time())
        self._set_clock(table)

    # --- between two deals ------------------------------------------------------------------

    def _pause_seconds(self, table: LiveTable, online: bool = False) -> float:
        """The pause after a deal: none at a table where no person sits (or, with
        ``online``, where no person is connected to read the score)."""
        people = any(s.kind == "human" and (s.connections or not online) for s in table.seats)
        return self.next_deal_seconds if people else 0.0

    def _pause(self, table: LiveTable, ended_at: float) -> None:
        """A deal has just ended: the score stays up until every person has pressed "next
        deal" or the pause is over. The next deal's clocks start when it begins."""
        assert table.match is not None
        seconds = self._pause_seconds(table, online=True)
        table.deal_started = ended_at + seconds
        if table.match.is_over:
            return
        if not seconds:
            # Nobody online reads the score: the next deal begins at once, and the
            # people away have the absence wait before their first turn's clock.
            self._deal_begins(table, ended_at, self.next_deal_seconds)
            return
        table.pause_until = ended_at + seconds
        table.ready = set()

    def _waiting_for(self, table: LiveTable) -> list[int]:
        """The seats of the people at the table, online, who have not pressed next deal."""
        return [
            i
            for i, s in enumerate(table.seats)
            if s.kind == "human" and s.connections and i not in table.ready
        ]

    async def next_deal(self, table: LiveTable, seat: int) -> None:
        """A player pressed "next deal"; the deal begins once everyone online has."""
        if table.pause_until is None:
            return  # a late press: the deal has begun
        table.ready.add(seat)
        if self._waiting_for(table):
            await self._broadcast(table)
        else:
            await self._next_deal(table)

    async def _pause_clock(self, table: LiveTable) -> None:
        until = table.pause_until
        if until is None:
            return
        await asyncio.sleep(max(0.0, until - time.time()))
        if table.pause_until == until:
            await self._next_deal(table)

    async def _next_deal(self, table: LiveTable) -> None:
        """The pause is over: the deal in play begins, with its clocks and bots."""
        if table.pause_until is None:
            return
        task = table.pause_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        table.pause_until = None
        table.ready = set()
        table.deal_started = time.time()
        self._deal_begins(table, table.deal_started, self.next_deal_seconds)
        self._set_clock(table)
        await self._broadcast(table)
        self._schedule(table)

    def _deal_begins(self, table: LiveTable, now: float, wait: float) -> None:
        """A deal begins: the people with no open socket have not seen it begin, so their
        first turn's clock waits ``wait`` seconds for them (it starts whole when they come)."""
        table.unseen = {
            i for i, s in enumerate(table.seats) if s.kind == "human" and not s.connections
        }
        table.absent_until = now + wait

    def keep_grace(self, table: LiveTable, until: float) -> None:
        """After a restart, a table still in its first deal waits until ``until`` (a
        tournament's grace, which its log does not keep) for the people who have not
        played a move yet and have no open socket."""
        match = table.match
        if match is None or match.is_over or table.status != "playing" or len(match.deals) != 1:
            return
        if until <= time.time():
            return
        played = {e.get("seat") for e in table.events} - {None}
        table.unseen = {
            i
            for i, s in enumerate(table.seats)
            if s.kind == "human" and not s.connections and i not in played
        }
        table.absent_until = until
        if match.deal.turn in table.unseen and table.pause_until is None:
            self._set_clock(table)
            self._schedule(table)

    def _sees_deal(self, table: LiveTable, seat: int) -> bool:
        """A socket of ``seat`` is about to receive the deal in play: the person has seen
        it begin. True when their first turn's clock starts now, whole."""
        if seat not in table.unseen or table.pause_until is not None:
            return False
        table.unseen.discard(seat)
        match = table.match
        if match is None or match.is_over or match.deal.turn != seat or table.deadline is None:
            return False
        if table.seats[seat].taken_over:
            return False
        self._set_clock(table)
        self._schedule(table)
        return True

    async def take_back(self, table: LiveTable, seat: int) -> None:
        """A player whose seat a bot took over after a time-out takes it back: at once,
        before the bot's next move, with a whole move clock if it is their turn."""
        state = table.seats[seat]
        if not state.taken_over:
            return
        state.taken_over = False
        match = table.match
        if match is not None and not match.is_over and match.deal.turn == seat:
            self._set_clock(table)
        await self._broadcast(table)
        self._schedule(table)

    async def abandon(self, table: LiveTable, seat: int) -> None:
        async with table.lock:
            match = table.match
            if match is None or table.status != "playing":
                raise RoomError("forbidden", "there is no match in play to abandon")
            if match.v.lines != 2:
                raise RoomError("forbidden", "the abandonment rule is for tables of two lines")
            self._store_event(table, "abandon", seat, {})
            match.abandon(seat)
            table.events.append(self._public(table.version, seat, "abandon", {}))
        await self._after_change(table)

    async def hint(self, table: LiveTable, seat: int) -> dict[str, Any]:
        match = table.match
        if table.pause_until is not None:
            raise RoomError("between_deals", "the next deal has not begun")
        if match is None or match.is_over or match.deal.turn != seat:
            on_turn = {} if match is None or match.is_over else {"seat": match.deal.turn}
            raise RoomError("not_your_turn", "a hint is for the player on turn", params=on_turn)
        view = match.view(seat)
        from burraco.bots.hints import suggest

        try:
            hint = await self.thinking.think(table.id, suggest, view, self.hint_seconds, hint=True)
        except Busy as error:
            raise RoomError("busy", f"no hint now: {error}; try again in a moment", 503) from error
        except Exception as error:
            log.exception("a hint at %s failed", table.id)
            raise RoomError("busy", "no hint now: try again in a moment", 503) from error
        return {
            "type": "hint",
            "action": str(hint.action),
            "reason": hint.reason,
            "why": hint.why,
            "params": hint.params,
        }

    async def _after_change(self, table: LiveTable) -> None:
        match = table.match
        assert match is not None
        for event in table.events[-3:]:
            if event["type"] == "deal_over" and event.get("sent") is None:
                event["sent"] = True
                await self._send_all(table, {k: v for k, v in event.items() if k != "sent"})
        if match.is_over and table.status != "over":
            try:
                self._finish(table)
            except StorageUnavailable:
                # The last action is stored: the end follows from the log, now or later.
                self._retry_later(table, self._finish_later(table))
            else:
                await self._announce_end(table)
        await self._broadcast(table)
        self._schedule(table)

    async def _announce_end(self, table: LiveTable) -> None:
        await self._send_all(table, self._match_over(table))
        for listener in self.finish_listeners:
            try:
                await listener(table)
            except Exception:
                log.exception("a listener of table %s failed", table.id)

    async def _finish_later(self, table: LiveTable) -> None:
        while table.status != "over":
            await asyncio.sleep(table.next_backoff())
            with contextlib.suppress(StorageUnavailable):
                self._finish(table)
        table.backoff = 0.0
        await self._announce_end(table)
        await self._broadcast(table)

    def _retry_later(self, table: LiveTable, work: Awaitable[None]) -> None:
        """Run ``work`` (which waits its backoff first) as the table's retry task."""
        log.warning("table %s: the database refuses writes; retrying", table.id)
        task = asyncio.ensure_future(work)
        self._retrying.add(task)
        task.add_done_callback(self._retrying.discard)

    def _finish(self, table: LiveTable) -> None:
        from burraco.record import write_record

        assert table.match is not None
        names = [s.name for s in table.seats]
        self.store.save_record(table.id, write_record(table.match, names=names, event=table.id))
        self.store.set_status(table.id, "over")
        table.row = _with(table.row, status="over")
        table.over_at = time.time()
        table.deadline = None
        table.pause_until = None
        if table.clock_task is not None:
            table.clock_task.cancel()

    # --- clocks and bots ------------------------------------------------------------------

    def _set_clock(self, table: LiveTable) -> None:
        seconds = table.row.move_seconds
        match = table.match
        if not seconds or match is None or match.is_over or table.pause_until is not None:
            table.deadline = None
            return
        start = time.time()
        if match.deal.turn in table.unseen:
            # Nobody's clock runs before they have seen the deal begin: a person away
            # is waited for first (when they come, :meth:`_sees_deal` restarts it whole).
            start = max(start, table.absent_until)
        table.deadline = start + seconds

    def _schedule(self, table: LiveTable) -> None:
        """After any change: wake the bot on turn, and watch the clock of a person on turn."""
        match = table.match
        if match is None or match.is_over or table.status != "playing" or self.closing:
            return
        if table.pause_until is not None:
            if table.pause_task is None or table.pause_task.done():
                table.pause_task = asyncio.create_task(self._pause_clock(table))
            return
        seat = match.deal.turn
        running = table.bot_task
        idle = running is None or running.done() or running is asyncio.current_task()
        if table.seats[seat].bot_plays and idle:
            table.bot_task = asyncio.create_task(self._bot_turn(table, table.version))
        if table.deadline is not None and not table.seats[seat].bot_plays:
            if table.clock_task is not None:
                table.clock_task.cancel()
            table.clock_task = asyncio.create_task(self._clock(table, table.version))
        deal = len(match.deals)
        if table.row.deal_seconds and match.deal.timeout_turns < 0 and table.deal_clocked != deal:
            if table.deal_task is not None:
                table.deal_task.cancel()
            table.deal_clocked = deal
            table.deal_task = asyncio.create_task(self._deal_clock(table, deal))

    async def _bot_turn(self, table: LiveTable, version: int) -> None:
        try:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay * (UNSEEN_PACE if _nobody_sees(table) else 1.0))
            match = table.match
            if match is None or match.is_over:
                return
            if table.version != version:
                # Something else moved the table (a time-out, a person): look again.
                self._schedule(table)
                return
            seat = match.deal.turn
            bot = self._bot(table, seat)
            view, legal = match.view(seat), match.legal_actions()
            if isinstance(bot, _Slow):
                action = await self._expert(table, view, legal, seat)
            else:
                action = bot.choose(view, legal)
            if table.version != version or not table.seats[seat].bot_plays:
                # Moved meanwhile, or the player took the seat back: look again.
                self._schedule(table)
                return
            await self.act(table, seat, str(action), version, by_bot=True)
        except RoomError as error:
            if error.code != "unavailable":
                log.warning("bot at %s: %s", table.id, error.message)
                return
            # The database refuses writes: the bot plays again after a pause.
            await asyncio.sleep(table.next_backoff())
            self._schedule(table)
        except asyncio.CancelledError:
            raise
        except Exception:
            if not self.closing:
                log.exception("bot at %s failed", table.id)

    async def _expert(self, table: LiveTable, view: Any, legal: Any, seat: int) -> Action:
        """The expert's move, searched in a thinking process; when they are all busy, the
        greedy bot's move, so that the table never waits for a place."""
        try:
            action: Action = await self.thinking.think(
                table.id, _expert_choice, view, legal, self.expert_seconds, seat
            )
        except Busy as error:
            log.info("table %s: the greedy bot plays for the expert (%s)", table.id, error)
        except Exception:
            log.exception("table %s: the expert's search failed; the greedy bot plays", table.id)
        else:
            return action
        return make_bot("greedy", seed=table.row.seed % 100000 + seat).choose(view, legal)

    def _bot(self, table: LiveTable, seat: int) -> Bot:
        bot = table.bots.get(seat)
        if bot is None:
            level = table.row.bot
            made = make_bot(level, seed=table.row.seed % 100000 + seat, seconds=self.expert_seconds)
            bot = _Slow(made) if level == "expert" else made
            table.bots[seat] = bot
        return bot

    async def _clock(self, table: LiveTable, version: int) -> None:
        deadline = table.deadline
        if deadline is None:
            return
        await asyncio.sleep(max(0.0, deadline - time.time()))
        match = table.match
        if match is None or match.is_over or table.version != version:
            return
        seat = match.deal.turn
        # Past max_bot_tables a table its people left is not played on by bots alone: the
        # clock's end is then what it is without takeover (002's abandonment).
        if table.row.takeover and self.may_take_over(table, seat):
            table.seats[seat].taken_over = True
            table.bot_task = asyncio.create_task(self._bot_turn(table, version))
            await self._broadcast(table)
            return
        while True:
            try:
                await self.abandon(table, seat)
            except RoomError as error:
                if error.code != "unavailable":
                    return
                await asyncio.sleep(table.next_backoff())
                if table.version != version:
                    return
            else:
                return

    async def _deal_clock(self, table: LiveTable, deal: int) -> None:
        """The tournament's time limit of a deal: at its end, 000's time-out procedure."""
        deadline = table.deal_started + table.row.deal_seconds
        await asyncio.sleep(max(0.0, deadline - time.time()))
        while True:
            async with table.lock:
                match = table.match
                if match is None or match.is_over or len(match.deals) != deal:
                    return
                if match.deal.timeout_turns >= 0:
                    return
                try:
                    self._store_event(table, "time-out", None, {})
                except RoomError as error:
                    if error.code != "unavailable":
                        return
                else:
                    match.call_time_out()
                    table.events.append(self._public(table.version, None, "time-out", {}))
                    break
            await asyncio.sleep(table.next_backoff())
        await self._broadcast(table)
        self._schedule(table)

    # --- tables seated by a tournament ----------------------------------------------------

    async def create_seated(
        self,
        kind: str,
        options: dict[str, Any],
        seats: list[tuple[str, str]],
        *,
        bot: str = "greedy",
        move_seconds: int = 0,
        deal_seconds: int = 0,
        tournament: str | None = None,
        hashes: dict[int, str] | None = None,
        users: dict[int, int] | None = None,
        rated: bool = False,
        watchable: bool = False,
        watch_delay: int = 0,
        chat: bool = True,
        quick: bool = False,
        grace_seconds: float = 0.0,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A table whose seats are given (``(name, "human" | "bot")``), started at once;
        the tokens of its human seats, by seat. A seat in ``hashes`` opens instead with
        the token of that hash (a tournament player's own); ``users`` gives the account
        (a person's or a bot level's) of a seat. A person who has not opened the table
        has ``grace_seconds`` before the first deal's clock runs on their turn."""
        v = variant(kind, **options)
        if len(seats) != v.players:
            raise RoomError("bad_message", f"{v.players} seats are needed, not {len(seats)}")
        # A tournament's move clock is 002's: running out is abandonment, never a bot.
        takeover = tournament is None
        row = _new_row(v, options, move_seconds, bot, takeover, deal_seconds, tournament)
        row = _with(
            row, rated=rated, watchable=watchable, watch_delay=watch_delay, chat=chat, quick=quick
        )
        table_id = row.id
        tokens: dict[int, str] = {}
        rows = []
        for i, (name, seat_kind) in enumerate(seats):
            digest = ""
            if seat_kind == "human" and hashes and i in hashes:
                digest = hashes[i]
            elif seat_kind == "human":
                tokens[i] = secrets.token_urlsafe(24)
                digest = _hash(tokens[i])
            rows.append(SeatRow(table_id, i, name, seat_kind, digest, (users or {}).get(i)))
        self.store.create_table(row, rows)
        table = LiveTable(
            row=row,
            variant=v,
            seats=[SeatState(r.name, r.kind, r.token_hash, r.user_id) for r in rows],
        )
        self.tables[table_id] = table
        async with table.lock:
            await self._start_locked(table, grace_seconds)
        return table, tokens

    # --- messages -------------------------------------------------------------------------

    def _store_event(
        self, table: LiveTable, kind: str, seat: int | None, payload: dict[str, Any]
    ) -> None:
        try:
            self.store.append_event(table.id, table.version + 1, kind, seat, json.dumps(payload))
        except StaleVersion as error:
            raise RoomError("stale", "another action was stored first") from error
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        table.version += 1
        table.backoff = 0.0

    @staticmethod
    def _public(
        version: int, seat: int | None, kind: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        action = payload.get("action", kind)
        return {"type": "event", "version": version, "seat": seat, "action": action}

    def _deal_over(self, table: LiveTable, index: int, version: int) -> dict[str, Any]:
        """The score of deal ``index``, which the action of ``version`` ended."""
        match = table.match
        assert match is not None
        return {
            "type": "deal_over",
            "version": version,
            "deal": index + 1,
            "score": score_json(match.scores[index]),
            "totals": [
                sum(s.points[i] for s in match.scores[: index + 1]) for i in range(match.v.lines)
            ],
        }

    def _match_over(self, table: LiveTable) -> dict[str, Any]:
        match = table.match
        assert match is not None
        vp = None
        with contextlib.suppress(RuleError):
            vp = list(match.victory_points())
        return {
            "type": "match_over",
            "totals": list(match.totals),
            "winner": match.winner(),
            "victory_points": vp,
            "abandoned_by": None if match.abandoned_by < 0 else match.abandoned_by,
            "abandon_penalty": match.v.abandon_penalty,
            "absent": absent_json([s.kind for s in table.seats], table.turns),
        }

    def _state(
        self, table: LiveTable, seat: int | None, info: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """What ``seat`` hears of the table; with no seat, what a spectator hears (the
        public view: no hand, nothing legal)."""
        match = table.match
        info = info or table.info()
        message: dict[str, Any] = {
            "type": "state",
            "version": table.version,
            "table": info,
            "seat": seat,
            "view": None,
            "legal": [],
            "last": table.last,
            "clock": None,
            "deal_clock": None,
            "pause": None,
            "totals": info["totals"],
            "scores": [],
        }
        if seat is None:
            message["watching"] = True
        if match is None:
            return message
        deal = match.deal
        if seat is None:
            message["view"] = public_view_json(public_view_of(deal), len(match.deals))
        else:
            message["view"] = view_json(match.view(seat), len(match.deals))
        message["scores"] = [score_json(s) for s in match.scores]
        if match.is_over:
            # A page that comes back after the end builds the score sheet from this.
            message["match_over"] = self._match_over(table)
        # Between two deals nothing is legal: the next deal's actions are not even listed.
        if not match.is_over and deal.turn == seat and table.pause_until is None:
            message["legal"] = [str(a) for a in deal.legal_actions()]
        now = time.time()
        if table.deadline is not None and not match.is_over:
            message["clock"] = {
                "seat": deal.turn,
                "deadline": int(table.deadline * 1000),
                "seconds": max(0.0, round(table.deadline - now, 1)),
            }
        if table.pause_until is not None:
            message["pause"] = {
                "deal": len(match.scores),
                "until": int(table.pause_until * 1000),
                "seconds": max(0.0, round(table.pause_until - now, 1)),
                "ready": sorted(table.ready),
                "waiting": self._waiting_for(table),
            }
        elif table.row.deal_seconds and not match.is_over and table.status == "playing":
            end = table.deal_started + table.row.deal_seconds
            message["deal_clock"] = {
                "deadline": int(end * 1000),
                "seconds": max(0.0, round(end - now, 1)),
                "total": table.row.deal_seconds,
                "called": deal.timeout_turns >= 0,
            }
        return message

    async def _broadcast(self, table: LiveTable, skip: Send | None = None) -> None:
        info = table.info()
        for seat, state in enumerate(table.seats):
            if not state.connections:
                continue
            message = self._state(table, seat, info)
            for send in list(state.connections):
                if send is not skip:
                    await _safe(send, message)
        # The players first: the spectators' states are only queued, never awaited.
        self._tell_watchers(table, info)

    async def _send_all(self, table: LiveTable, message: dict[str, Any]) -> None:
        for state in table.seats:
            for send in list(state.connections):
                await _safe(send, message)

    # --- spectators -----------------------------------------------------------------------

    async def watch(
        self,
        table: LiveTable,
        name: str,
        send_text: SendText,
        close: CloseSocket | None = None,
        address: str = "",
    ) -> Watcher:
        """A spectator's socket opens: it hears the watchers' chat and the table as it was
        ``watch_delay`` moves ago, public information only (docs/protocol.md, watching).
        Spectators are capped per table, per ``address`` and by the room's sockets."""
        if not table.row.watchable:
            raise RoomError(
                "not_watchable",
                "this table is not open to spectators: its creator (or the tournament's "
                "director) did not allow watching",
                403,
            )
        most = self.capacity.max_watchers
        if len(table.watchers) >= most:
            raise RoomError(
                "watchers_full",
                f"this table has {most} spectators already, the most it takes",
                503,
                params={"n": most},
            )
        if self.sockets >= self.capacity.max_sockets:
            raise RoomError("busy", BUSY, 503)
        mine = self.capacity.watchers_per_address
        if address and self.watching_from[address] >= mine:
            raise RoomError(
                "watching_too_many",
                f"your address has {mine} spectators' sockets open already, the most one "
                "address may: close one to watch another",
                429,
                params={"n": mine},
            )
        watcher = Watcher(name, send_text, close, pacer=self.pacer)
        if not table.watchers:
            # Nobody was watching: the frames may be old, and nobody waits for events.
            self._remember(table)
            frame = self._shown_frame(table)
            table.shown = frame.version if frame is not None else table.version
        table.watchers.append(watcher)
        self.spectators[watcher] = (table, address)
        self.watching_from[address] += 1
        self.sockets += 1
        history = self._chat_history(table, "watchers")
        if history is not None:
            watcher.say(history)
        watcher.say(self._watch_state(table, table.info()))
        watcher.start()
        self._watchers_changed(table)
        return watcher

    async def unwatch(self, table: LiveTable, watcher: Watcher) -> None:
        """A spectator's socket has closed."""
        self._drop_watcher(table, watcher)
        await watcher.stop()

    def admit_seat(self) -> None:
        """Make room for a seat's socket: a seat is never refused for spectators. Past
        ``max_sockets`` the newest spectators are closed (1013, try again later), as many
        as the seat needs; a seat is refused only when the seats alone fill the room."""
        over = self.sockets + 1 - self.capacity.max_sockets
        if over > 0 and len(self.spectators) < over:
            raise RoomError("busy", BUSY, 503)
        for _ in range(max(0, over)):
            watcher, (table, _) = next(reversed(self.spectators.items()))
            self._drop_watcher(table, watcher)
            task = asyncio.get_running_loop().create_task(self._shed(watcher))
            self._retrying.add(task)
            task.add_done_callback(self._retrying.discard)

    def _drop_watcher(self, table: LiveTable, watcher: Watcher) -> None:
        """A spectator leaves the table and the room's counts (its socket closes after)."""
        known = self.spectators.pop(watcher, None)
        if known is not None:
            self.watching_from[known[1]] -= 1
            if not self.watching_from[known[1]]:
                del self.watching_from[known[1]]
        if watcher in table.watchers:
            table.watchers.remove(watcher)
            self.sockets -= 1
            self._watchers_changed(table)

    @staticmethod
    async def _shed(watcher: Watcher) -> None:
        """Tell a spectator shed for the players why, and close its socket."""
        with contextlib.suppress(Exception):
            await watcher.send_text(json.dumps(error_message("busy", BUSY)))
        await watcher.stop()
        if watcher.close is not None:
            with contextlib.suppress(Exception):
                await watcher.close(1013, "the players need the room: watch again later")

    async def watch_message(self, table: LiveTable, watcher: Watcher, raw: str) -> None:
        """Handle one message from a spectator: a sync, a chat message, a ping. Answers go
        to its own outbox; a spectator never acts at the table."""
        try:
            message = read_message(raw)
            kind = message["type"]
            if kind == "sync":
                since = message.get("since", 0)
                if not isinstance(since, int):
                    raise RoomError("bad_message", "sync needs the last version seen")
                for event in table.events:
                    if since < event["version"] <= table.shown:
                        watcher.say({k: v for k, v in event.items() if k != "sent"})
                watcher.say(self._watch_state(table, table.info()))
            elif kind == "chat":
                said = self.chat(table, "watchers", None, watcher.name, message, watcher.key)
                text = json.dumps(said)
                for other in table.watchers:
                    other.outbox.put(text)
            elif kind == "ping":
                watcher.say({"type": "pong"})
            elif kind in ("action", "next_deal", "take_back", "hint", "abandon"):
                raise RoomError("spectator", "a spectator watches: only the players act", 403)
            else:
                raise RoomError("bad_message", f"unknown message type {kind!r}")
        except BadMessage as error:
            watcher.say(error_message("bad_message", str(error)))
        except RoomError as error:
            watcher.say(error_message(error.code, error.message, error.params, error.rule))

    def _remember(self, table: LiveTable, info: dict[str, Any] | None = None) -> None:
        """Keep the table's public state at its version, built once for every spectator;
        as many as the spectators' delay needs."""
        frames = table.frames
        if frames and frames[-1].version == table.version:
            frames.pop()
        frames.append(Frame(table.version, self._state(table, None, info)))
        while len(frames) > table.row.watch_delay + 1:
            frames.popleft()

    @staticmethod
    def _watch_target(table: LiveTable) -> int:
        """The version spectators see: ``watch_delay`` moves behind, but never before the
        deal in play began (a finished deal hides nothing), nor behind a finished match."""
        match = table.match
        if match is None or match.is_over or not table.row.watch_delay:
            return table.version
        floor = 0
        for event in reversed(table.events):
            if event["type"] == "deal_over" or event.get("action") == "start":
                floor = int(event["version"])
                break
        return max(table.version - table.row.watch_delay, floor)

    @staticmethod
    def _shown_frame(table: LiveTable) -> Frame | None:
        target = Room._watch_target(table)
        for frame in reversed(table.frames):
            if frame.version <= target:
                return frame
        return None

    def _watch_state(self, table: LiveTable, info: dict[str, Any]) -> dict[str, Any]:
        """The state spectators hear now: the frame of the version they are shown, with
        the table's present seats and count of spectators. A frame behind the table says
        nothing of the clocks (they run in the players' present)."""
        frame = next((f for f in reversed(table.frames) if f.version <= table.shown), None)
        if frame is None:
            # No state as far back as the delay: none is shown rather than a newer one.
            blank: dict[str, Any] = {"view": None, "last": None, "scores": [], "totals": []}
            return self._state(table, None, info | {"totals": []}) | blank
        state = frame.state
        if frame.version == table.version:
            return state | {"table": info}
        past = state["table"]
        return state | {
            "table": info | {k: past[k] for k in ("totals", "deal", "status")},
            "clock": None,
            "deal_clock": None,
            "pause": None,
        }

    def _tell_watchers(self, table: LiveTable, info: dict[str, Any]) -> None:
        """After any change: queue, for every spectator, the events and scores that have
        come within their delay and the state they are shown. Built and serialised once."""
        if not table.row.watchable:
            return
        if not table.watchers and not table.row.watch_delay:
            table.frames.clear()
            return
        self._remember(table, info)
        if not table.watchers:
            return
        frame = self._shown_frame(table)
        texts = []
        if frame is not None and frame.version > table.shown:
            told = []
            last = frame.state["last"]
            for event in reversed(table.events):
                if event["version"] <= table.shown:
                    break
                if event["version"] > frame.version:
                    continue
                # The state's own last move says the one move it follows (as to players).
                alone = frame.version == table.shown + 1 and event["type"] == "event"
                if alone and last == {"seat": event["seat"], "action": event["action"]}:
                    continue
                told.append({k: v for k, v in event.items() if k != "sent"})
            texts = [json.dumps(event) for event in reversed(told)]
            table.shown = frame.version
            match = table.match
            if match is not None and match.is_over and frame.version == table.version:
                texts.append(json.dumps(self._match_over(table)))
        state = json.dumps(self._watch_state(table, info))
        for watcher in table.watchers:
            for text in texts:
                watcher.outbox.put(text)
            watcher.outbox.put(state, state=True)

    def _watchers_changed(self, table: LiveTable) -> None:
        """Tell the players how many watch, at most once in :data:`WATCHERS_EVERY`."""
        task = table.watchers_task
        if self.closing or (task is not None and not task.done()):
            return
        table.watchers_task = asyncio.get_running_loop().create_task(self._tell_count(table))

    async def _tell_count(self, table: LiveTable) -> None:
        await asyncio.sleep(max(0.0, table.watchers_told + WATCHERS_EVERY - time.time()))
        table.watchers_told = time.time()
        await self._broadcast(table)

    # --- chat -----------------------------------------------------------------------------

    def chat(
        self,
        table: LiveTable,
        channel: str,
        seat: int | None,
        name: str,
        message: dict[str, Any],
        key: str | None = None,
    ) -> dict[str, Any]:
        """One chat message of a seat (channel ``players``) or a spectator (``watchers``):
        checked, counted against its rate (``key``, by default the seat's), stored; its
        JSON for the channel. Raises :class:`RoomError`."""
        if not table.row.chat:
            raise RoomError(
                "chat_off",
                "chat is off at this table (its creator or the tournament's director chose so)",
                403,
            )
        quick, text = message.get("quick"), message.get("text")
        if quick is not None:
            if not isinstance(quick, str) or quick not in QUICK:
                raise RoomError(
                    "bad_message", f"no quick message {str(quick)[:24]!r}: {', '.join(QUICK)}"
                )
            text = ""
        elif isinstance(text, str):
            try:
                text = clean_chat(text)
            except ChatTooLong as error:
                raise RoomError("chat_too_long", str(error), params={"max": LONGEST}) from error
            except ChatEmpty as error:
                raise RoomError("chat_empty", str(error)) from error
        else:
            raise RoomError("bad_message", "a chat message needs its text or a quick code")
        wait = self.rates.hit("chat_messages", key or f"chat-{table.id}-{seat}")
        if wait is not None:
            raise RoomError(
                "chat_too_fast",
                f"too many chat messages (at most {self.rates.limits.chat_messages}): "
                f"wait {wait:.0f} s",
                429,
                retry_after=wait,
                params={"seconds": max(1, round(wait))},
            )
        row = ChatRow(table.id, channel, seat, name, text, quick, time.time())
        try:
            self.store.add_chat(row)
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        return chat_json(row)

    def _chat_history(self, table: LiveTable, channel: str) -> dict[str, Any] | None:
        """The last messages of a channel, for a socket that connects; None if there are
        none (or chat is off)."""
        if not table.row.chat:
            return None
        try:
            rows = self.store.chat(table.id, channel, HISTORY)
        except SQLAlchemyError:
            log.warning("table %s: the chat's history cannot be read", table.id)
            return None
        if not rows:
            return None
        return {
            "type": "chat_history",
            "channel": channel,
            "messages": [chat_json(row) for row in rows],
        }

    # --- finished matches -----------------------------------------------------------------

    def record(self, table_id: str) -> str:
        table = self.table(table_id)
        if table.status != "over":
            raise RoomError("forbidden", "the record is published when the match is over", 409)
        text = self.store.record(table_id)
        if text is None:
            raise RoomError("not_found", "no record for this table", 404)
        return text

    def finished_deal(self, table_id: str, number: int) -> dict[str, Any]:
        """Deal ``number`` of a table once it has ended, as it lay on the table: every
        line's melds (public), the pozzetti taken, the score. Nothing of a deal in play."""
        table = self.table(table_id)
        match = table.match
        if match is None or number > len(match.scores):
            raise RoomError("forbidden", f"deal {number} has not ended", 409)
        deal = match.deals[number - 1]
        view = deal.view(0)
        return {
            "deal": number,
            "melds": [[cards(m.cards) for m in line] for line in view.melds],
            "has_pozzetto": list(view.has_pozzetto),
            "line_of": list(view.line_of),
            "score": score_json(match.scores[number - 1]),
        }

    def replay(self, table_id: str) -> dict[str, Any]:
        """Every position of a finished match, all hands open, for the replay page."""
        from burraco.record import read_record, replay_steps

        text = self.record(table_id)
        record = read_record(text)
        frames: list[dict[str, Any]] = []
        for step in replay_steps(record):
            deal = step.match.deals[step.deal - 1]
            view = view_json(deal.view(deal.turn), step.deal)
            view["hands"] = [cards(deal.hand(s)) for s in range(deal.players)]
            frames.append(
                {"seat": step.action.seat, "action": str(step.action.action), "view": view}
            )
        return {"record": text, "frames": frames}


def _expert_choice(view: Any, legal: Any, seconds: float, seed: int) -> Action:
    from burraco.bots.expert import ExpertBot

    return ExpertBot(seconds=seconds, seed=seed).choose(view, legal)


class _Slow:
    """A bot that thinks long enough to run in a worker thread."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, view: Any, legal: Any) -> Action:
        return self.bot.choose(view, legal)


async def _safe(send: Send, message: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await send(message)


@dataclass(frozen=True, slots=True)
class LobbyQuery:
    """What a lobby asks for: filters (None: any) and a page."""

    variant: str | None = None
    players: int | None = None
    free: bool | None = None
    page: int = 1
    per_page: int | None = None
    rated: bool | None = None
    #: The tables to watch instead: in play and open to spectators (a tournament's too).
    watch: bool = False


def lobby_page(
    listed: list[dict[str, Any]], capacity: Capacity, query: LobbyQuery
) -> dict[str, Any]:
    """Filter the lobby's tables and cut out one page.

    >>> tables = [{"variant": "italian", "players": 2, "seats": [{"kind": "empty"}]}] * 3
    >>> answer = lobby_page(tables, Capacity(), LobbyQuery(per_page=2, page=2))
    >>> answer["total"], answer["pages"], len(answer["tables"])
    (3, 2, 1)
    >>> lobby_page(tables, Capacity(), LobbyQuery(per_page=2, page=3))["tables"]
    []
    """
    facts = [
        (info, info["variant"], info["players"], bool(info.get("rated", False)))
        for info in listed
        if not query.watch or (info["status"] == "playing" and info["watchable"])
    ]
    return _cut(_chosen(facts, query, _has_free_seat_info), capacity, query)


#: A table of the lobby with what its filters read: (table, game, players, rated).
Listed = tuple[T, str, int, bool]


def _chosen(listed: list[Listed[T]], query: LobbyQuery, free: Callable[[T], bool]) -> list[T]:
    """The tables that pass the filters (``free`` is asked only when a filter needs it):
    no call a table for the others, so that thousands cost a few milliseconds."""
    q = query
    return [
        table
        for table, name, players, rated in listed
        if (q.variant is None or name == q.variant)
        and (q.players is None or players == q.players)
        and (q.rated is None or rated == q.rated)
        and (q.free is None or free(table) == q.free)
    ]


def _bots_alone(table: LiveTable) -> bool:
    """Bots play every seat of the table (bot seats, or people's seats taken over)."""
    return all(s.bot_plays for s in table.seats)


def _nobody_sees(table: LiveTable) -> bool:
    """Bots alone play the table and nobody has it open: no seat's socket, no spectator."""
    return _bots_alone(table) and not table.watchers and not any(s.connections for s in table.seats)


def _has_free_seat(table: LiveTable) -> bool:
    return any(s.kind == "empty" for s in table.seats)


def _has_free_seat_info(info: dict[str, Any]) -> bool:
    return any(s["kind"] == "empty" for s in info["seats"])


def _cut(chosen: list[Any], capacity: Capacity, query: LobbyQuery) -> dict[str, Any]:
    """One page of ``chosen``, with the count of them and of pages; a page past the
    last is empty (a client paging on stops there), never the last page again."""
    size = max(1, min(query.per_page or capacity.lobby_page, capacity.lobby_page_max))
    pages = max(1, -(-len(chosen) // size))
    page = max(1, query.page)
    return {
        "tables": chosen[(page - 1) * size : page * size],
        "total": len(chosen),
        "page": page,
        "pages": pages,
        "per_page": size,
    }


def error_message(
    code: str,
    message: str,
    params: Mapping[str, str | int] | None = None,
    rule: str | None = None,
) -> dict[str, Any]:
    """An ``error`` message: ``rule`` only for the engine's refusals (docs/protocol.md)."""
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if rule is not None:
        error["rule"] = rule
    error["params"] = dict(params or {})
    return error


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RoomError("bad_message", "a player needs a name")
    try:
        return clean_name(value, what="a player's name")
    except ValueError as error:
        raise RoomError("bad_message", str(error)) from error


def _new_row(
    v: Variant,
    options: dict[str, Any],
    move_seconds: int,
    bot: str,
    takeover: bool,
    deal_seconds: int = 0,
    tournament: str | None = None,
) -> TableRow:
    """A new table's row: a fresh id and seed, waiting for its players."""
    now = time.time()
    return TableRow(
        id="t-" + secrets.token_urlsafe(6).replace("_", "x").replace("-", "y"),
        variant=v.name,
        options=json.dumps(options),
        seed=secrets.randbits(62),
        move_seconds=move_seconds,
        bot=bot,
        takeover=takeover,
        status="waiting",
        created_at=now,
        updated_at=now,
        deal_seconds=deal_seconds,
        tournament=tournament,
    )


def _with(row: TableRow, **changes: Any) -> TableRow:
    import dataclasses

    return dataclasses.replace(row, **changes)


def presets() -> dict[str, Any]:
    from burraco.variants import _SETUPS

    return {
        name: {
            "setups": [{"players": p, "lines": ln} for p, ln in _SETUPS[name]],
            "target": v.target,
            "deals": v.deals,
        }
        for name, v in PRESETS.items()
    }
