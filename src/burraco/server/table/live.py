"""The state of one table in play, and what the room's parts share.

A :class:`LiveTable` holds its seats, its match and its timers' tasks; :class:`Shared`
holds whether the room closes, its open sockets and its background tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from burraco.bots import Bot
from burraco.match import Match
from burraco.server.absence import Tally
from burraco.server.table.errors import RoomError
from burraco.server.watching import Frame, Watcher
from burraco.storage import TableRow
from burraco.variants import Variant

__all__ = [
    "Close",
    "LiveTable",
    "Rematch",
    "SeatState",
    "Send",
    "Shared",
    "begin",
    "bots_alone",
    "fair_play_refusal",
    "hints_closed",
    "nobody_sees",
    "safe_send",
    "with_row",
]

Send = Callable[[dict[str, Any]], Awaitable[None]]
#: Closes a socket with a close code and a reason.
Close = Callable[[int, str], Awaitable[None]]

#: Seconds between attempts to store again after the database refused a write.
RETRY_FIRST, RETRY_MAX = 0.5, 30.0


@dataclass(frozen=True)
class Rematch:
    """A finished table's rematch: the new table, who offered it, and the old seats whose
    people have a seat at it (old seat → new seat)."""

    table: str
    seat: int
    name: str
    joined: tuple[tuple[int, int], ...] = ()

    def json(self) -> dict[str, Any]:
        return {"table": self.table, "seat": self.seat, "name": self.name}

    def payload(self) -> dict[str, Any]:
        """The offer as its event in the finished table's log (``rematch``): an offer
        outlives the table's stay in memory and a restart, as everything a player did."""
        return self.json() | {"joined": [list(pair) for pair in self.joined]}

    @classmethod
    def of(cls, payload: dict[str, Any]) -> Rematch:
        """The offer a ``rematch`` event of the log holds.

        >>> offer = Rematch("t-2", 1, "Anna", ((1, 0), (0, 1)))
        >>> Rematch.of(offer.payload()) == offer
        True
        """
        joined = tuple((int(old), int(new)) for old, new in payload["joined"])
        return cls(str(payload["table"]), int(payload["seat"]), str(payload["name"]), joined)


@dataclass
class SeatState:
    name: str
    kind: str  # human, bot, empty
    token_hash: str
    #: The registered player (or bot level) in the seat; None for a guest.
    user_id: int | None = None
    #: A human seat a bot plays for, after its clock ran out, until its player acts again.
    taken_over: bool = False
    #: The seat's account is a person's bot account: a program plays it through the bot
    #: API (docs/bots.md), with a program's limits.
    program: bool = False
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
    #: The rematch a seat offered once the match was over (seats.py), and who joined it:
    #: each a `rematch` event of the table's log, so the offer outlives a restart.
    rematch: Rematch | None = None
    #: Each chat channel's last messages as told (chat.py), read from the store when the
    #: first socket asks and kept since: a socket that opens reads no database.
    chat: dict[str, deque[dict[str, Any]]] = field(default_factory=dict)

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
            # A closed pile (buraco fechado) shows its top only: the page says it is closed.
            "pile_open": v.pile_open,
            "takeover": self.row.takeover,
            "rated": self.row.rated,
            "hints_closed": hints_closed(self.row),
            "unrated": self.row.unrated,
            "watchable": self.row.watchable,
            "quick": self.row.quick,
            "status": self.row.status,
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "kind": "bot" if s.taken_over else s.kind,
                    "taken_over": s.taken_over,
                    "program": s.program,
                    "connected": bool(s.connections),
                }
                for i, s in enumerate(self.seats)
            ],
            "totals": list(match.totals) if match else [0] * v.lines,
            "deal": len(match.deals) if match else 0,
            "watch_delay": self.row.watch_delay,
            "watchers": len(self.watchers),
            "chat": self.row.chat,
            "rematch": self.rematch.json() if self.rematch else None,
        }


@dataclass
class Shared:
    """What every part of the room reads and changes: one object, given to each part."""

    #: Set when the room stops: no new bot, clock or retry is started.
    closing: bool = False
    #: The room's open sockets, seats' and spectators' (``capacity.max_sockets``).
    sockets: int = 0
    #: Tasks that wait for the database to accept writes again, or close a shed socket,
    #: or tell the finish listeners: the room cancels them when it stops.
    tasks: set[asyncio.Future[None]] = field(default_factory=set)

    def keep(self, task: asyncio.Future[None]) -> None:
        """Hold ``task`` until it is done (and cancel it if the room stops first)."""
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def begin(table: LiveTable) -> None:
    """The match is dealt from the table's seed: the table is in play."""
    table.match = Match(table.variant, seed=table.row.seed)
    table.row = with_row(table.row, status="playing")


def with_row(row: TableRow, **changes: Any) -> TableRow:
    return dataclasses.replace(row, **changes)


def hints_closed(row: TableRow) -> str | None:
    """Why no hint, coach or analysis of a seat is given while this table's match is in
    play (issue 33, fair play): "tournament", "rated", or None (hints as asked). The
    result of a rated or tournament match must be the players' own."""
    if row.tournament:
        return "tournament"
    if row.rated:
        return "rated"
    return None


def fair_play_refusal(row: TableRow, what: str) -> RoomError | None:
    """The refusal of a hint or an analysis (``what``) at a table in play that closes them,
    with the code the page says in its language; None where they are open (an unrated
    table, or a match that is over)."""
    why = hints_closed(row)
    if why is None or row.status == "over":
        return None
    if why == "tournament":
        return RoomError("no_hints_tournament", f"no {what} during a tournament match", 403)
    return RoomError("no_hints_rated", f"no {what} during a rated match", 403)


def bots_alone(table: LiveTable) -> bool:
    """Bots play every seat of the table (bot seats, or people's seats taken over)."""
    return all(s.bot_plays for s in table.seats)


def nobody_sees(table: LiveTable) -> bool:
    """Bots alone play the table and nobody has it open: no seat's socket, no spectator."""
    return bots_alone(table) and not table.watchers and not any(s.connections for s in table.seats)


async def safe_send(send: Send, message: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):
        await send(message)
