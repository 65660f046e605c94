"""The step every change of a table goes through: checked, stored, applied, then told once.

One owner per table's changes, as lichess's round actor: the parts compute (the turn
checks an action, the bots choose a move, the pause and the clocks say when) and change
the table; the step stores each change in the log first, applies it, then publishes it
once (:meth:`Step.publish`: the deal's score, the match's end, each seat's state, the
spectators' frames) and starts what the table waits on next (:meth:`Step.schedule`).
The timers it starts (the move clock, the deal clock, the bot on turn, the pause's
countdown) report back here what happened at their end: a time-out, an abandonment, a
bot's move, the next deal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any

from burraco.server.table.bots import Bots
from burraco.server.table.clocks import Clocks, wakes
from burraco.server.table.errors import RoomError
from burraco.server.table.event import apply_event
from burraco.server.table.finish import Finisher
from burraco.server.table.live import LiveTable, Send, Shared
from burraco.server.table.log import EventLog
from burraco.server.table.pause import Pauser, set_clock
from burraco.server.table.spectators import Spectators
from burraco.server.table.turns import Turns
from burraco.server.table.views import Views, match_over
from burraco.storage.store import StorageUnavailable

__all__ = ["WATCHERS_EVERY", "Step"]

log = logging.getLogger("burraco.room")

#: Seconds between two states that only tell the players how many watch (200 spectators
#: arriving make one state a second, not 200).
WATCHERS_EVERY = 1.0


class Step:
    """Stores, applies and publishes each change of a table, and runs its timers."""

    def __init__(
        self,
        shared: Shared,
        log: EventLog,
        turns: Turns,
        pauser: Pauser,
        clocks: Clocks,
        bots: Bots,
        views: Views,
        spectators: Spectators,
        finisher: Finisher,
    ) -> None:
        self.shared = shared
        self.log = log
        self.turns = turns
        self.pauser = pauser
        self.clocks = clocks
        self.bots = bots
        self.views = views
        self.spectators = spectators
        self.finisher = finisher
        #: The telling of actions whose callers were cancelled (kept from the collector).
        self._telling: set[asyncio.Future[None]] = set()
        #: Tables whose end waits for the database to accept writes again.
        self._finishing: set[str] = set()

    # --- the changes: an action, an abandonment, a time-out, a seat taken back, a deal --

    async def act(
        self, table: LiveTable, seat: int, text: str, version: int, *, by_bot: bool = False
    ) -> None:
        """One action for a seat: checked, stored, applied, told. Raises :class:`RoomError`."""
        # Once its event is handed to the store, the action is applied when it is stored
        # even if the caller is cancelled meanwhile: the table never stays behind its log.
        stored = asyncio.ensure_future(self._store(table, seat, text, version, by_bot))
        try:
            await asyncio.shield(stored)
        except asyncio.CancelledError:
            stored.add_done_callback(lambda done: self._tell_later(table, done))
            raise
        # Told from the caller's task (a bot's turn schedules the next from its own).
        await self.publish(table)

    async def _store(
        self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool
    ) -> None:
        async with table.lock:
            _, payload = self.turns.check(table, seat, text, version, by_bot)
            # The table's group commit: nobody hears of the action before it is stored.
            await self.log.commit_event(table, "action", seat, payload)
            self._applied(table, seat, payload)

    def _tell_later(self, table: LiveTable, stored: asyncio.Future[None]) -> None:
        """An action stored after its caller was cancelled is told all the same."""
        if stored.cancelled() or stored.exception() is not None:
            return
        telling = asyncio.ensure_future(self.publish(table))
        self._telling.add(telling)
        telling.add_done_callback(self._telling.discard)

    def apply(self, table: LiveTable, seat: int, text: str, version: int, by_bot: bool) -> None:
        """Check, store and apply one action at once, nothing told (for a caller that
        holds the table's lock, and for tests); a refusal raises :class:`RoomError` and
        leaves the table as it was."""
        _, payload = self.turns.check(table, seat, text, version, by_bot)
        self.log.store_event(table, "action", seat, payload)
        self._applied(table, seat, payload)

    def _applied(self, table: LiveTable, seat: int, payload: dict[str, Any]) -> None:
        """A stored action applied as the replay applies it (:func:`apply_event`); then, in
        play, a deal it ends is followed by the pause, and the move clock is set."""
        if apply_event(table, table.version, "action", seat, payload) is not None:
            self.pauser.pause(table, time.time())
        set_clock(table)

    def logged(
        self, table: LiveTable, kind: str, seat: int | None, payload: dict[str, Any]
    ) -> None:
        """Store an event of the table's log, then apply it (the table's lock held).
        Raises :class:`RoomError` ("unavailable") and the table stays as it was."""
        self.log.store_event(table, kind, seat, payload)
        apply_event(table, table.version, kind, seat, payload)

    async def abandon(self, table: LiveTable, seat: int) -> None:
        """The seat abandons the match (two lines only). Raises :class:`RoomError`."""
        async with table.lock:
            self.turns.may_abandon(table)
            self.logged(table, "abandon", seat, {})
        await self.publish(table)

    async def time_out(self, table: LiveTable, deal: int) -> None:
        """The deal clock of deal ``deal`` ran out: 000's time-out is called, stored first
        (while the database refuses, again after a wait)."""
        while True:
            async with table.lock:
                match = table.match
                if match is None or match.is_over or len(match.deals) != deal:
                    return
                if match.deal.timeout_turns >= 0:
                    return
                try:
                    self.logged(table, "time-out", None, {})
                except RoomError as error:
                    if error.code != "unavailable":
                        return
                else:
                    break
            await asyncio.sleep(table.next_backoff())
        await self.publish(table)

    async def take_back(self, table: LiveTable, seat: int) -> None:
        """A player takes back the seat a bot took over (:meth:`Turns.take_back`)."""
        if self.turns.take_back(table, seat):
            await self.publish(table)

    async def next_deal(self, table: LiveTable, seat: int) -> None:
        """A player pressed "next deal"; the deal begins once everyone online has."""
        begins = self.pauser.press(table, seat)
        if begins:
            await self.end_pause(table)
        elif begins is not None:
            await self.show(table)  # who has pressed

    async def end_pause(self, table: LiveTable) -> None:
        """The pause is over: the deal in play begins, with its clocks and bots."""
        if self.pauser.end(table, time.time()):
            await self.publish(table)

    # --- the one publish, and what wakes next -------------------------------------------

    async def publish(self, table: LiveTable, skip: Send | None = None) -> None:
        """After a change, straight down: the news it made (the scores of deals just
        ended; the end of the match, once stored), each seat's news and state, the
        spectators' frames, who listens for a match's end, then what the table waits on
        next."""
        news = _deal_scores(table)
        ended = self._finish(table)
        if ended:
            news.append(match_over(table))
        await self.show(table, skip, news)
        if ended:
            await self.finisher.tell_listeners(table)
        self.schedule(table)

    async def show(
        self, table: LiveTable, skip: Send | None = None, news: Sequence[dict[str, Any]] = ()
    ) -> None:
        """Each seat's news and state (the state not to ``skip``, told already), then the
        spectators' frames (only queued: the players first). Alone, for what changes no
        move: who is online, who pressed next deal, how many watch."""
        info, shared = await self.views.tell_seats(table, skip, news)
        self.spectators.tell_watchers(table, info, shared)

    def _finish(self, table: LiveTable) -> bool:
        """Whether the match ended with this change and its end is stored now
        (:meth:`Finisher.finish`); while the database refuses, the end is retried later
        and told then (the last event is stored: the end follows from the log)."""
        match = table.match
        if match is None or not match.is_over or table.status == "over":
            return False
        if table.id in self._finishing:
            return False
        try:
            self.finisher.finish(table)
        except StorageUnavailable:
            log.warning("table %s: the database refuses writes; retrying", table.id)
            self._finishing.add(table.id)
            self.shared.keep(asyncio.ensure_future(self._finish_later(table)))
            return False
        return True

    async def _finish_later(self, table: LiveTable) -> None:
        try:
            while table.status != "over":
                await asyncio.sleep(table.next_backoff())
                with contextlib.suppress(StorageUnavailable):
                    self.finisher.finish(table)
        finally:
            self._finishing.discard(table.id)
        table.backoff = 0.0
        await self.show(table, news=[match_over(table)])
        await self.finisher.tell_listeners(table)

    def schedule(self, table: LiveTable) -> None:
        """Start the timers the table waits on now (:func:`wakes`)."""
        wake = wakes(table, self.shared.closing)
        if wake.countdown:
            table.pause_task = asyncio.create_task(self._countdown(table))
        if wake.bot:
            table.bot_task = asyncio.create_task(self._bot_turn(table, table.version))
        if wake.move_clock:
            if table.clock_task is not None:
                table.clock_task.cancel()
            table.clock_task = asyncio.create_task(self._move_clock(table, table.version))
        if wake.deal_clock is not None:
            if table.deal_task is not None:
                table.deal_task.cancel()
            table.deal_clocked = wake.deal_clock
            table.deal_task = asyncio.create_task(self._deal_clock(table, wake.deal_clock))

    def watchers_changed(self, table: LiveTable) -> None:
        """Tell the players how many watch, at most once in :data:`WATCHERS_EVERY`."""
        task = table.watchers_task
        if self.shared.closing or (task is not None and not task.done()):
            return
        table.watchers_task = asyncio.get_running_loop().create_task(self._tell_count(table))

    # --- the timers: each waits, then reports what happened to the step -----------------

    async def _countdown(self, table: LiveTable) -> None:
        if await self.pauser.countdown(table):
            await self.end_pause(table)

    async def _deal_clock(self, table: LiveTable, deal: int) -> None:
        await self.clocks.deal_clock(table)
        await self.time_out(table, deal)

    async def _move_clock(self, table: LiveTable, version: int) -> None:
        ends = await self.clocks.move_clock(table, version)
        if ends is None:
            return
        what, seat = ends
        if what == "takeover":
            table.seats[seat].taken_over = True
            table.bot_task = asyncio.create_task(self._bot_turn(table, version))
            await self.show(table)
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

    async def _bot_turn(self, table: LiveTable, version: int) -> None:
        try:
            move = await self.bots.turn(table, version)
            if move is None:
                self.schedule(table)  # moved meanwhile, or the seat taken back: look again
                return
            seat, action = move
            await self.act(table, seat, action, version, by_bot=True)
        except RoomError as error:
            if error.code != "unavailable":
                log.warning("bot at %s: %s", table.id, error.message)
                return
            # The database refuses writes: the bot plays again after a pause.
            await asyncio.sleep(table.next_backoff())
            self.schedule(table)
        except asyncio.CancelledError:
            raise
        except Exception:
            if not self.shared.closing:
                log.exception("bot at %s failed", table.id)

    async def _tell_count(self, table: LiveTable) -> None:
        await asyncio.sleep(max(0.0, table.watchers_told + WATCHERS_EVERY - time.time()))
        table.watchers_told = time.time()
        await self.show(table)


def _deal_scores(table: LiveTable) -> list[dict[str, Any]]:
    """The scores of the deals this change ended (their ``deal_over`` events, not yet
    told), marked told."""
    if table.match is None:
        return []
    scores = []
    for event in table.events[-3:]:
        if event["type"] == "deal_over" and event.get("sent") is None:
            event["sent"] = True
            scores.append({k: v for k, v in event.items() if k != "sent"})
    return scores
