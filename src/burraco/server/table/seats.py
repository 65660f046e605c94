"""Seats and tokens: making a table, joining it, starting it, the seat a token opens.

A tournament's tables are seated and started at once; a seat of an account opens only
for that account's session. A finished table's seats may ask for its rematch: one new
table for all of them.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

from burraco.errors import RuleError
from burraco.server.door.capacity import Capacity
from burraco.server.door.inputs import clean_name
from burraco.server.results.fairplay import DAY, Account, unrated_reason
from burraco.server.table.errors import UNAVAILABLE, RoomError
from burraco.server.table.event import apply_event
from burraco.server.table.live import LiveTable, Rematch, SeatState, with_row
from burraco.server.table.lobby import Lobby
from burraco.server.table.pause import Pauser, set_clock
from burraco.server.table.step import Step
from burraco.server.table.views import Views
from burraco.storage import SeatRow, Store, TableRow
from burraco.storage.store import SeatTaken, StaleVersion, StorageUnavailable
from burraco.variants import Variant, variant

__all__ = ["TABLE_OPTIONS", "Seats", "hash_token", "new_row", "rematch_request"]

#: What a player may set when creating a table; everything else is the preset's.
TABLE_OPTIONS = ("players", "lines", "deals", "target", "open_hands")


def hash_token(token: str) -> str:
    """What the store keeps of a seat's token (the token itself is the player's alone)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Seats:
    """Who sits where: tables made, seats claimed, matches started, tokens checked."""

    def __init__(
        self,
        store: Store,
        tables: dict[str, LiveTable],
        capacity: Capacity,
        lobby: Lobby,
        step: Step,
    ) -> None:
        self.store = store
        self.tables = tables
        self.capacity = capacity
        self.lobby = lobby
        #: Tells a started table, or one whose seats changed, and starts its clocks.
        self.step = step
        #: The tables each creator ("user-7", "address-1.2.3.4") made, while they may be
        #: open: a creator's open tables are capped (tables loaded from the database, a
        #: tournament's and quick play's have no creator here).
        self.created: dict[str, set[str]] = {}
        #: The account of each bot level (results.bot_accounts): a rated table's bots
        #: play under it, and are rated as players are.
        self.bot_accounts: dict[str, int] = {}

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

    def _others_at(self, creator: str, name: str) -> int:
        """How many of the open tables of ``creator`` (an address) another guest made: a
        club or a household plays from one address, and the seat 0 of each says who."""
        folded = name.casefold()
        made = (self.tables.get(t) for t in self.created.get(creator, ()))
        return sum(1 for t in made if t is not None and t.seats[0].name.casefold() != folded)

    def create(
        self, request: dict[str, Any], user_id: int | None = None, creator: str = ""
    ) -> tuple[LiveTable, int, str]:
        """A new table, its creator in seat 0 (``user_id``: a registered player's account).
        A rated table is for registered players only. ``creator`` (an account's or an
        address's key) may hold ``capacity.tables_per_creator`` open tables at once."""
        most = self.capacity.tables_per_creator
        name = _name(request.get("name"))
        if creator and self.open_by(creator) >= most:
            if not creator.startswith("address-"):
                raise RoomError(
                    "too_many_tables",
                    f"you have {most} open tables already, the most one player may hold: "
                    "play or leave one (a waiting table nobody has open goes by itself)",
                    429,
                    params={"n": most},
                )
            raise _guest_limit(most, self._others_at(creator, name))
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
        row = new_row(v, options, move_seconds, bot, bool(request.get("takeover", True)))
        row = with_row(
            row,
            rated=rated,
            watchable=bool(request.get("watchable", False)),
            watch_delay=int(request.get("watch_delay", 0) or 0),
            chat=bool(request.get("chat", True)),
        )
        table_id = row.id
        token = secrets.token_urlsafe(24)
        seats = [SeatRow(table_id, 0, name, "human", hash_token(token), user_id)] + [
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
        self.mark_programs(table)
        if creator:
            self.created.setdefault(creator, set()).add(table_id)
        self.lobby.changed()
        return table, 0, token

    async def join(
        self, table: LiveTable, request: dict[str, Any], user_id: int | None = None
    ) -> tuple[LiveTable, int, str]:
        """A person takes a free seat (``seat``, or the first free); the match starts when
        the last seat is taken. The seat's token, which the store keeps hashed."""
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
            digest = hash_token(token)
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
            self.mark_programs(table)
            self.lobby.changed()
            if all(s.kind == "human" for s in table.seats):
                await self.start_locked(table)
            else:
                await self.step.show(table)
        return table, seat, token

    async def start(self, table: LiveTable, token: str, user_id: int | None = None) -> None:
        """The creator starts the match: by the seat's token, or, with none, by the session
        of the account that created the table (from another device)."""
        async with table.lock:
            creator = table.seats[0]
            if token:
                allowed = secrets.compare_digest(creator.token_hash, hash_token(token)) and (
                    creator.user_id is None or creator.user_id == user_id
                )
            else:
                allowed = user_id is not None and creator.user_id == user_id
            if not allowed:
                raise RoomError("forbidden", "only the table's creator starts it", 403)
            if table.status != "waiting":
                raise RoomError("forbidden", "the match has already started", 409)
            await self.start_locked(table)

    async def start_locked(self, table: LiveTable, grace: float = 0.0) -> None:
        """Start the match (the table's lock held): bots in the empty seats, the first
        deal dealt; the people away have ``grace`` seconds before their first clock."""
        rated = table.row.rated and not table.row.tournament
        account = self.bot_accounts.get(table.row.bot) if rated else None
        bots = [
            SeatRow(table.id, i, f"{table.row.bot} bot {i}", "bot", "", account)
            for i, state in enumerate(table.seats)
            if state.kind == "empty"
        ]
        now = time.time()
        try:
            if rated:
                self._fair_play(table, {seat.seat: seat.user_id for seat in bots}, now)
            self.store.start_table(table.id, bots, table.version + 1, now)
        except StaleVersion as error:
            raise RoomError("stale", "the table was started elsewhere", 409) from error
        except StorageUnavailable as error:
            raise RoomError("unavailable", UNAVAILABLE, 503) from error
        for seat in bots:
            table.seats[seat.seat].name, table.seats[seat.seat].kind = seat.name, "bot"
            table.seats[seat.seat].user_id = seat.user_id
        apply_event(table, table.version + 1, "start", None, {})
        table.deal_started = now
        Pauser.deal_begins(table, now, grace)
        self.lobby.changed()
        set_clock(table)
        await self.step.publish(table)

    async def rematch(
        self, table: LiveTable, token: str, user_id: int | None = None, creator: str = ""
    ) -> tuple[LiveTable, int | None, str]:
        """A seat of a finished table asks for a rematch: the first asker makes the new
        table (same game, options and bots; counted in ``creator``'s tables) and sits in its
        seat 0, and the table's other people are told; a later asker gets the same table and
        a free seat at it. The new seat and its token (None and "" for an asker seated
        there already). A rematch with no other person at it starts at once."""
        seat = self.seat_of(table, token, user_id)
        async with table.lock:
            if table.status != "over":
                raise RoomError("forbidden", "a rematch is offered once the match is over", 409)
            if table.row.tournament is not None:
                raise RoomError(
                    "forbidden", "a tournament's table has no rematch: its next round follows", 409
                )
            asker = table.seats[seat]
            offer = table.rematch
            if offer is None:
                new, new_seat, new_token = self.create(
                    rematch_request(table, asker.name), asker.user_id, creator
                )
                offered = Rematch(new.id, seat, asker.name, ((seat, new_seat),))
                self.step.logged(table, "rematch", seat, offered.payload())
                people = [s for i, s in enumerate(table.seats) if s.kind == "human" and i != seat]
                if not people:
                    async with new.lock:
                        await self.start_locked(new)
                await Views.send_all(table, {"type": "rematch"} | offered.json())
                await self.step.show(table)
                return new, new_seat, new_token
            if seat in dict(offer.joined):
                return self._rematch_table(offer), None, ""
            new = self._rematch_table(offer)
            new, new_seat, new_token = await self.join(new, {"name": asker.name}, asker.user_id)
            joined = Rematch(offer.table, offer.seat, offer.name, (*offer.joined, (seat, new_seat)))
            self.step.logged(table, "rematch", seat, joined.payload())
            return new, new_seat, new_token

    def _rematch_table(self, offer: Rematch) -> LiveTable:
        new = self.tables.get(offer.table)
        if new is None:
            raise RoomError("not_found", f"the rematch's table {offer.table} has gone", 404)
        return new

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
        table_id: str | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A table whose seats are given (``(name, "human" | "bot")``), started at once;
        the tokens of its human seats, by seat. A seat in ``hashes`` opens instead with
        the token of that hash (a tournament player's own); ``users`` gives the account
        (a person's or a bot level's) of a seat. A person who has not opened the table
        has ``grace_seconds`` before the first deal's clock runs on their turn. ``table_id``
        (from :func:`new_table_id`): the id, when it must be known first (a cluster's
        lease taken before the table exists)."""
        v = variant(kind, **options)
        if len(seats) != v.players:
            raise RoomError("bad_message", f"{v.players} seats are needed, not {len(seats)}")
        # A tournament's move clock is 002's: running out is abandonment, never a bot.
        takeover = tournament is None
        row = new_row(v, options, move_seconds, bot, takeover, deal_seconds, tournament)
        row = with_row(
            row, rated=rated, watchable=watchable, watch_delay=watch_delay, chat=chat, quick=quick
        )
        if table_id is not None:
            row = with_row(row, id=table_id)
        table_id = row.id
        tokens: dict[int, str] = {}
        rows = []
        for i, (name, seat_kind) in enumerate(seats):
            digest = ""
            if seat_kind == "human" and hashes and i in hashes:
                digest = hashes[i]
            elif seat_kind == "human":
                tokens[i] = secrets.token_urlsafe(24)
                digest = hash_token(tokens[i])
            rows.append(SeatRow(table_id, i, name, seat_kind, digest, (users or {}).get(i)))
        self.store.create_table(row, rows)
        table = LiveTable(
            row=row,
            variant=v,
            seats=[SeatState(r.name, r.kind, r.token_hash, r.user_id) for r in rows],
        )
        self.tables[table_id] = table
        self.mark_programs(table)
        async with table.lock:
            await self.start_locked(table, grace_seconds)
        return table, tokens

    def _fair_play(self, table: LiveTable, bots: dict[int, int | None], now: float) -> None:
        """A rated table whose seats are all taken plays unrated when fair play says so
        (server/results/fairplay.py: accounts of one owner on opposite lines, or two opponents past
        their rated matches of the day), and keeps the reason for the table and the sheet."""
        ids = [bots.get(i, s.user_id) for i, s in enumerate(table.seats)]
        users = self.store.users(sorted({i for i in ids if i is not None}))
        accounts = [
            Account(u.id, u.kind, u.owner_id) if (u := users.get(i or 0)) else None for i in ids
        ]
        played = self.store.rated_pairs_since(sorted(users), now - DAY)
        reason = unrated_reason(
            accounts, table.variant.line_of, played, self.capacity.rated_pair_cap
        )
        if reason is not None:
            self.store.unrate_table(table.id, reason)
            table.row = with_row(table.row, rated=False, unrated=reason)

    def mark_programs(self, table: LiveTable) -> None:
        """Mark the seats a person's bot account holds (made, joined, or rebuilt after a
        restart): their pages say "bot", and they have a program's limits."""
        ids = [s.user_id for s in table.seats if s.user_id is not None and s.kind == "human"]
        if not ids:
            return
        users = self.store.users(ids)
        for state in table.seats:
            user = users.get(state.user_id) if state.user_id is not None else None
            state.program = state.kind == "human" and user is not None and user.program

    @staticmethod
    def seat_of(table: LiveTable, token: str, user_id: int | None = None) -> int:
        """The seat a socket opens: the one its token holds, or, with no token, the one
        the logged-in account ``user_id`` holds. A seat of an account opens only for that
        account's session, whoever holds its token."""
        if not token and user_id is not None:
            for i, state in enumerate(table.seats):
                if state.kind == "human" and state.user_id == user_id:
                    return i
            raise RoomError("forbidden", "your account holds no seat at this table", 403)
        digest = hash_token(token)
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


def _guest_limit(most: int, others: int) -> RoomError:
    """The refusal of a guest's table past the limit of an address: the limit and why,
    what to do, and, when other guests at that address (a club, a household) made some of
    those tables, that it is their tables (the page words it: i18n ``error.guest_tables``)."""
    why = f"a guest can keep {most} tables open at a time from one address, to keep room for "
    if others:
        text = (
            f"{why}everyone, and others playing from your address hold {others} of them: "
            "log in, and your account has its own tables, or try again when one of theirs ends"
        )
    else:
        text = (
            f"{why}everyone: close one of yours (a waiting table nobody has open goes by "
            "itself in a few minutes) or log in, and your account has its own tables"
        )
    params: dict[str, str | int] = {"n": most, "guest": True, "others": others}
    return RoomError("too_many_tables", text, 429, params=params)


def rematch_request(table: LiveTable, name: str) -> dict[str, Any]:
    """The request that makes a finished table again: its game and options, its bots'
    level, its clocks, rating, spectators and chat; ``name`` sits in seat 0."""
    row = table.row
    options = json.loads(row.options) if row.options else {}
    return {k: options[k] for k in TABLE_OPTIONS if options.get(k) is not None} | {
        "variant": row.variant,
        "name": name,
        "bot": row.bot,
        "move_seconds": row.move_seconds,
        "takeover": row.takeover,
        "rated": row.rated,
        "watchable": row.watchable,
        "watch_delay": row.watch_delay,
        "chat": row.chat,
    }


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RoomError("bad_message", "a player needs a name")
    try:
        return clean_name(value, what="a player's name")
    except ValueError as error:
        raise RoomError("bad_message", str(error)) from error


def new_table_id() -> str:
    """A fresh table id (``t-`` and eight letters, digits, x and y)."""
    return "t-" + secrets.token_urlsafe(6).replace("_", "x").replace("-", "y")


def new_row(
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
        id=new_table_id(),
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
