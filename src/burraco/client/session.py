"""The client's session with the room: its HTTP API and one socket per table.

:func:`run` is the whole of it: every poll it looks at the bot's tables (and plays each it
does not play yet: again after a dropped socket or a restarted room), accepts the
challenges waiting (``accept``), and when the bot sits nowhere creates a table
(``create``) or joins one (``join``); it returns once ``matches`` matches are over.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

__all__ = ["Accepts", "BotError", "Choose", "play", "run"]

log = logging.getLogger("burraco.client")

#: The bot's decision: the state's view and the legal actions (text) to the action.
Choose = Callable[[dict[str, Any], list[str]], str]

#: Close codes after which a socket is not opened again: a bad token, a seat not the bot's.
BAD_TOKEN, FORBIDDEN = 4401, 4403


@dataclass(frozen=True, slots=True)
class Accepts:
    """The challenges the bot accepts (docs/bots.md): its ``games`` (``"italian"``, or with
    the players ``"italian-2"``; empty: every game), the move clocks it keeps (``seconds``,
    lowest and highest) and ``rated`` or unrated matches only (None: both). The room
    declines the others for it as it asks for its challenges.

    >>> Accepts(("italian-2",), (10, 120), True).query()
    {'seconds': '10-120', 'games': 'italian-2', 'rated': 'true'}
    """

    games: tuple[str, ...] = ()
    seconds: tuple[int, int] = (1, 3600)
    rated: bool | None = None

    def query(self) -> dict[str, str]:
        """The query of ``GET /api/bot/challenges`` that says it."""
        query = {"seconds": f"{self.seconds[0]}-{self.seconds[1]}"}
        if self.games:
            query["games"] = ",".join(self.games)
        if self.rated is not None:
            query["rated"] = str(self.rated).lower()
        return query


class BotError(Exception):
    """The room refused the bot for good: a token unknown or revoked, say."""


class Refused(RuntimeError):
    """The room refused one request (a cap reached, a table gone): the next poll tries
    again."""


#: Seconds a table the bot plays may be missing from its list (over, or expired while it
#: waited) before its socket is let go.
MISSING = 30.0


async def run(
    choose: Choose,
    *,
    url: str,
    token: str,
    matches: int | None = None,
    create: dict[str, Any] | None = None,
    start: bool = True,
    join: dict[str, Any] | None = None,
    quick: dict[str, Any] | None = None,
    accept: bool | Accepts = True,
    poll: float = 1.0,
    patience: float = 120.0,
) -> list[str]:
    """Play in the room at ``url`` as the bot of ``token`` until ``matches`` matches are
    over (None: for ever); the ids of the tables it finished.

    ``create``: when the bot sits nowhere, it creates a table of this body (``POST
    /api/tables``: variant, players, deals, rated, bot...) and, with ``start``, starts it at
    once, house bots in the empty seats. ``join``: when it sits nowhere, it joins the first
    open table with a free seat that these lobby filters list (``{"rated": True}``).
    ``quick``: when it sits nowhere, it queues in quick play (``POST /api/quick``:
    variant, players, bots) and sits where the queue seats it, beside people who allow
    bots only.
    ``accept``: it accepts the challenges that fit an :class:`Accepts` (True: any game, any
    clock, rated or not; False: none, they wait for another program). ``patience``: seconds it keeps trying while
    the room cannot be reached (a restart), before it gives up."""
    headers = {"Authorization": f"Bearer {token}"}
    base = url.rstrip("/")
    ws_base = "ws" + base[4:] if base.startswith("http") else base
    finished: list[str] = []
    playing: dict[str, asyncio.Task[bool]] = {}
    done: set[str] = set()
    unreachable = 0.0
    missing: dict[str, float] = {}
    ticket: str | None = None
    accepts = Accepts() if accept is True else accept or None
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        me = _answer(await http.get("/api/bot/account"))
        name = str(me["name"])
        log.info("playing as %s at %s", name, base)

        def begin(table_id: str) -> None:
            if table_id not in playing and table_id not in done:
                seat = Seat(choose, f"{ws_base}/ws/{table_id}", headers, patience)
                playing[table_id] = asyncio.create_task(seat.play())

        try:
            while matches is None or len(finished) < matches:
                try:
                    listed = _answer(await http.get("/api/bot/tables"))["tables"]
                    for info in listed:
                        begin(str(info["table"]))
                    _let_go(playing, {str(i["table"]) for i in listed}, missing, poll)
                    if accepts is not None:
                        query = accepts.query()
                        asked = await http.get("/api/bot/challenges", params=query)
                        for c in _answer(asked)["challenges"]:
                            path = f"/api/bot/challenges/{c['challenge']}/accept"
                            begin(str(_answer(await http.post(path))["table"]))
                    wanted = matches is None or len(finished) + len(playing) < matches
                    if not playing and wanted and create is not None:
                        made = _answer(await http.post("/api/tables", json={"name": name} | create))
                        if start:
                            body = {"token": made["token"]}
                            _answer(
                                await http.post(f"/api/tables/{made['table']}/start", json=body)
                            )
                        begin(str(made["table"]))
                    elif not playing and wanted and join is not None:
                        table_id = await _join(http, name, join)
                        if table_id is not None:
                            begin(table_id)
                    elif not playing and wanted and quick is not None and ticket is None:
                        ticket = str(_answer(await http.post("/api/quick", json=quick))["ticket"])
                    if ticket is not None:
                        # Asked every poll, or the queue takes the bot for gone.
                        news = await http.get(f"/api/quick/{ticket}")
                        seated = news.status_code == 200 and news.json()["status"] == "seated"
                        if seated:
                            begin(str(news.json()["table"]))
                        if seated or news.status_code != 200:
                            ticket = None
                    unreachable = 0.0
                except Refused as error:
                    log.warning("%s", error)
                except httpx.TransportError as error:
                    unreachable += poll
                    if unreachable > patience:
                        raise BotError(f"the room at {base} cannot be reached: {error}") from error
                    log.info("the room cannot be reached (%s): trying again", error)
                await asyncio.sleep(poll)
                for table_id, task in list(playing.items()):
                    if task.done():
                        del playing[table_id]
                        done.add(table_id)
                        if not task.cancelled() and task.result():
                            finished.append(table_id)
                            log.info("table %s: the match is over (%d)", table_id, len(finished))
        finally:
            for task in playing.values():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*playing.values(), return_exceptions=True)
    return finished


def play(choose: Choose, *, url: str, token: str, **options: Any) -> list[str]:
    """:func:`run`, from code that is not async: ``play(choose, url=..., token=...)``."""
    return asyncio.run(run(choose, url=url, token=token, **options))


def _let_go(
    playing: dict[str, asyncio.Task[bool]], listed: set[str], missing: dict[str, float], poll: float
) -> None:
    """Let go of the socket of a table missing from the bot's list for :data:`MISSING`
    seconds (expired while it waited for players); a match that just ended is told on its
    socket long before."""
    for table_id, task in playing.items():
        if table_id in listed:
            missing.pop(table_id, None)
            continue
        missing[table_id] = missing.get(table_id, 0.0) + poll
        if missing[table_id] > MISSING:
            log.info("table %s is no longer the bot's: letting it go", table_id)
            task.cancel()


def _answer(response: httpx.Response) -> dict[str, Any]:
    """A response's JSON, or the refusal as an error (:class:`BotError` for a bad token)."""
    if response.status_code == 401:
        raise BotError(response.json().get("detail", "the room refused the token"))
    if response.status_code >= 400:
        raise Refused(f"{response.request.method} {response.request.url.path}: {response.text}")
    answer: dict[str, Any] = response.json()
    return answer


async def _join(http: httpx.AsyncClient, name: str, filters: dict[str, Any]) -> str | None:
    """Join the first waiting table with a free seat the filters list; its id, or None."""
    query = {k: str(v).lower() if isinstance(v, bool) else v for k, v in filters.items()}
    listed = _answer(await http.get("/api/tables", params={"free": "true"} | query))
    for info in listed["tables"]:
        if info["status"] != "waiting":
            continue
        answer = await http.post(f"/api/tables/{info['table']}/join", json={"name": name})
        if answer.status_code == 200:
            return str(answer.json()["table"])
        if answer.status_code == 401:
            _answer(answer)
    return None


class Seat:
    """The bot's seat at one table: its socket, opened again until the match is over."""

    def __init__(self, choose: Choose, url: str, headers: dict[str, str], patience: float) -> None:
        self.choose = choose
        self.url = url
        self.headers = headers
        self.patience = patience
        #: The version of the state the bot last acted on, and whether the room refused it.
        self.acted = -1
        self.refused = -1
        self.inbox: collections.deque[dict[str, Any]] = collections.deque()

    async def play(self) -> bool:
        """Play until the match is over (True), or the seat is not the bot's (False)."""
        wait, waited = 0.2, 0.0
        while True:
            try:
                async with connect(self.url, additional_headers=self.headers) as socket:
                    wait = 0.2
                    waited = 0.0
                    return await self._serve(socket)
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if code == BAD_TOKEN:
                    raise BotError("the room refused the token") from closed
                if code == FORBIDDEN:
                    return False
                log.info("%s: the socket closed (%s): opening it again", self.url, code)
            except (OSError, InvalidHandshake, InvalidStatus, TimeoutError) as error:
                waited += wait
                if waited > self.patience:
                    raise
                log.info("%s: cannot connect (%s): trying again", self.url, error)
            await asyncio.sleep(wait)
            wait = min(5.0, wait * 2)

    async def _next(self, socket: ClientConnection) -> dict[str, Any]:
        if self.inbox:
            return self.inbox.popleft()
        message: dict[str, Any] = json.loads(await socket.recv())
        return message

    async def _serve(self, socket: ClientConnection) -> bool:
        self.inbox.clear()
        state: dict[str, Any] | None = None
        while True:
            message = await self._next(socket)
            kind = message.get("type")
            if kind == "match_over":
                return True
            if kind == "error":
                code = message.get("code")
                log.info("%s: the room says %s: %s", self.url, code, message.get("message"))
                refused = code in ("illegal", "unknown_action", "bad_message")
                if refused and state is not None and state["legal"] and self.refused != self.acted:
                    # The chooser's action was refused: play the first legal one instead
                    # (once a state), rather than let the clock run out.
                    self.refused = self.acted
                    await self._act(socket, state, state["legal"][0])
                continue
            if kind != "state":
                continue
            state = message
            if state.get("match_over"):
                return True
            pause = state.get("pause")
            if pause and state["seat"] not in pause.get("ready", ()):
                await socket.send(json.dumps({"type": "next_deal"}))
            legal = state.get("legal") or []
            if not legal or state["version"] == self.acted:
                continue
            view = dict(state["view"]) | {"seat": state["seat"], "totals": state.get("totals")}
            if getattr(self.choose, "position", False):
                position = await self._position(socket, state["version"])
                if position is None:
                    continue  # the table moved on meanwhile: the newer state is next
                view["position"] = position
            try:
                action = await asyncio.to_thread(self.choose, view, list(legal))
            except Exception:
                log.exception("%s: the chooser failed: playing %s", self.url, legal[0])
                action = legal[0]
            await self._act(socket, state, action)

    async def _act(self, socket: ClientConnection, state: dict[str, Any], action: str) -> None:
        self.acted = state["version"]
        message = {"type": "action", "action": action, "version": state["version"]}
        await socket.send(json.dumps(message))

    async def _position(self, socket: ClientConnection, version: int) -> str | None:
        """The seat's position at ``version``; None if a newer state came first (it waits
        in the inbox)."""
        await socket.send(json.dumps({"type": "position"}))
        held: list[dict[str, Any]] = []
        try:
            while True:
                message: dict[str, Any] = json.loads(await socket.recv())
                if message.get("type") == "position":
                    if message.get("version") == version:
                        return str(message["position"])
                    return None
                held.append(message)
                if (
                    message.get("type") in ("state", "match_over")
                    and message.get("version") != version
                ):
                    return None
        finally:
            self.inbox.extend(held)
