"""The spectators: admitting and shedding them, their delayed frames, their messages.

They see a table ``watch_delay`` moves behind; each spectator's own socket and outbox
are server/watching.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from typing import Any

from burraco.server.door.capacity import BUSY, Capacity
from burraco.server.messages import BadMessage, read_message, text_of
from burraco.server.table.chat import TableChat
from burraco.server.table.errors import RoomError, error_message
from burraco.server.table.live import LiveTable, Shared
from burraco.server.table.views import match_over, state
from burraco.server.watching import CloseSocket, Frame, Pacer, SendText, Watcher

__all__ = ["Spectators", "watch_target"]


def watch_target(table: LiveTable) -> int:
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


def shown_frame(table: LiveTable) -> Frame | None:
    """The newest frame kept at or before :func:`watch_target`."""
    target = watch_target(table)
    for frame in reversed(table.frames):
        if frame.version <= target:
            return frame
    return None


class Spectators:
    """Every spectator's socket of the room, with its table and address."""

    def __init__(self, shared: Shared, capacity: Capacity, chat: TableChat) -> None:
        self.shared = shared
        self.capacity = capacity
        self.chat = chat
        #: Spectators' writes take turns, a few each turn of the loop: players first.
        self.pacer = Pacer()
        #: Every spectator's socket, oldest first, with its table and address: they count
        #: per address, and the newest are shed when the players need the sockets.
        self.watchers: dict[Watcher, tuple[LiveTable, str]] = {}
        self.watching_from: Counter[str] = Counter()

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
        Spectators are capped per table, per ``address`` and by the room's sockets. The
        players hear how many watch from the step (:meth:`Step.watchers_changed`)."""
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
        if self.shared.sockets >= self.capacity.max_sockets:
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
            self.remember(table)
            frame = shown_frame(table)
            table.shown = frame.version if frame is not None else table.version
        table.watchers.append(watcher)
        self.watchers[watcher] = (table, address)
        self.watching_from[address] += 1
        self.shared.sockets += 1
        history = self.chat.history(table, "watchers")
        if history is not None:
            watcher.say(history)
        watcher.say(self.watch_state(table, table.info()))
        watcher.start()
        return watcher

    async def unwatch(self, table: LiveTable, watcher: Watcher) -> bool:
        """A spectator's socket has closed; whether it was at the table."""
        dropped = self.drop(table, watcher)
        await watcher.stop()
        return dropped

    def admit_seat(self) -> list[LiveTable]:
        """Make room for a seat's socket: a seat is never refused for spectators. Past
        ``max_sockets`` the newest spectators are closed (1013, try again later), as many
        as the seat needs; a seat is refused only when the seats alone fill the room. The
        tables whose spectators were shed."""
        over = self.shared.sockets + 1 - self.capacity.max_sockets
        if over > 0 and len(self.watchers) < over:
            raise RoomError("busy", BUSY, 503)
        shed = []
        for _ in range(max(0, over)):
            watcher, (table, _) = next(reversed(self.watchers.items()))
            if self.drop(table, watcher):
                shed.append(table)
            self.shared.keep(asyncio.get_running_loop().create_task(_shed(watcher)))
        return shed

    def drop(self, table: LiveTable, watcher: Watcher) -> bool:
        """A spectator leaves the table and the room's counts (its socket closes after);
        whether it was at the table (its players then hear the new count)."""
        known = self.watchers.pop(watcher, None)
        if known is not None:
            self.watching_from[known[1]] -= 1
            if not self.watching_from[known[1]]:
                del self.watching_from[known[1]]
        if watcher not in table.watchers:
            return False
        table.watchers.remove(watcher)
        self.shared.sockets -= 1
        return True

    async def message(self, table: LiveTable, watcher: Watcher, raw: str) -> None:
        """Handle one message from a spectator: a sync, a chat message, a ping. Answers go
        to its own outbox; a spectator never acts at the table."""
        try:
            message = read_message(raw)
            kind = message["type"]
            if kind == "sync":
                since = message.get("since", 0)
                if not isinstance(since, int):
                    raise RoomError("bad_message", "sync needs the last version seen")
                if since < watcher.synced:
                    # As a seat's socket (table/sockets.py): a range is sent once a socket.
                    raise RoomError(
                        "sync_repeated",
                        f"this connection was sent the events up to version {watcher.synced} "
                        "already: sync since that version or later",
                        params={"version": watcher.synced},
                    )
                for event in table.events:
                    if since < event["version"] <= table.shown:
                        watcher.say({k: v for k, v in event.items() if k != "sent"})
                watcher.synced = max(watcher.synced, table.shown)
                watcher.say(self.watch_state(table, table.info()))
            elif kind == "chat":
                said = self.chat.say(table, "watchers", None, watcher.name, message, watcher.key)
                text = text_of(said)
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

    @staticmethod
    def remember(
        table: LiveTable, info: dict[str, Any] | None = None, shared: dict[str, Any] | None = None
    ) -> None:
        """Keep the table's public state at its version, built once for every spectator;
        as many as the spectators' delay needs (``shared``: the broadcast's public part)."""
        frames = table.frames
        if frames and frames[-1].version == table.version:
            frames.pop()
        frames.append(Frame(table.version, state(table, None, info, shared)))
        while len(frames) > table.row.watch_delay + 1:
            frames.popleft()

    @staticmethod
    def watch_state(table: LiveTable, info: dict[str, Any]) -> dict[str, Any]:
        """The state spectators hear now: the frame of the version they are shown, with
        the table's present seats and count of spectators. A frame behind the table says
        nothing of the clocks (they run in the players' present)."""
        frame = next((f for f in reversed(table.frames) if f.version <= table.shown), None)
        if frame is None:
            # No state as far back as the delay: none is shown rather than a newer one.
            blank: dict[str, Any] = {"view": None, "last": None, "scores": [], "totals": []}
            return state(table, None, info | {"totals": []}) | blank
        now = frame.state
        if frame.version == table.version:
            return now | {"table": info}
        past = now["table"]
        return now | {
            "table": info | {k: past[k] for k in ("totals", "deal", "status")},
            "clock": None,
            "deal_clock": None,
            "pause": None,
        }

    def tell_watchers(
        self, table: LiveTable, info: dict[str, Any], shared: dict[str, Any] | None = None
    ) -> None:
        """After any change: queue, for every spectator, the events and scores that have
        come within their delay and the state they are shown. Built and serialised once."""
        if not table.row.watchable:
            return
        if not table.watchers and not table.row.watch_delay:
            table.frames.clear()
            return
        self.remember(table, info, shared)
        if not table.watchers:
            return
        frame = shown_frame(table)
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
            texts = [text_of(event) for event in reversed(told)]
            table.shown = frame.version
            match = table.match
            if match is not None and match.is_over and frame.version == table.version:
                texts.append(text_of(match_over(table)))
        said = text_of(self.watch_state(table, info))
        for watcher in table.watchers:
            for text in texts:
                watcher.outbox.put(text)
            watcher.outbox.put(said, state=True)


async def _shed(watcher: Watcher) -> None:
    """Tell a spectator shed for the players why, and close its socket."""
    with contextlib.suppress(Exception):
        await watcher.send_text(text_of(error_message("busy", BUSY)))
    await watcher.stop()
    if watcher.close is not None:
        with contextlib.suppress(Exception):
            await watcher.close(1013, "the players need the room: watch again later")
