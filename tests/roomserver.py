"""A real web room on 127.0.0.1 for tests: uvicorn in a thread, stopped on exit."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import threading
import time
from types import TracebackType
from typing import Any

import httpx
import uvicorn
import websockets
from waits import seconds

from burraco.server.app import create_app
from burraco.server.door.capacity import Capacity
from burraco.server.door.limits import Limits
from burraco.server.room import Room


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The rates of a test's room: tests make many tables and sockets from one address, and
#: every rate is tested in test_limits.py (the chat's and the bots' are as by default).
GENEROUS = Limits(
    create_table="10000/minute",
    join_table="10000/minute",
    create_tournament="10000/minute",
    pad_tournament="10000/minute",
    start_round="10000/minute",
    quick_play="10000/minute",
    read_reviews="10000/minute",
    socket_messages="100000/minute",
    account_sockets="100000/minute",
    log_in="10000/minute",
    log_in_free=10000,
    sign_up="10000/minute",
)


class RoomServer:
    """``with RoomServer(db_url) as server:`` serves the room until the block ends."""

    def __init__(self, database_url: str, *, port: int | None = None, **options: Any) -> None:
        self.port = port or free_port()
        # The test process also drives the browser and the clients, so its event loop lags
        # more than a room's would: "busy" for a late loop is tested in test_capacity.py.
        # Tests make many tables and spectators from one address too: the caps per creator
        # and per address are tested in test_capacity.py.
        # The pace of new tables (a burst, then 20 a second) is tested in test_part_door.py.
        patient = Capacity(
            busy_lag=30.0,
            tables_per_creator=100_000,
            watchers_per_address=100_000,
            new_tables_per_second=0.0,
        )
        given = options.get("capacity")
        if isinstance(given, Capacity):
            # A test's own capacity (a table cap, say) is as patient, unless it sets the lag
            # or the pace itself.
            default = Capacity()
            if given.busy_lag == default.busy_lag:
                given = dataclasses.replace(given, busy_lag=patient.busy_lag)
            if given.new_tables_per_second == default.new_tables_per_second:
                given = dataclasses.replace(given, new_tables_per_second=0.0)
            options["capacity"] = given
        defaults = {"bot_delay": 0.0, "limits": GENEROUS, "capacity": patient}
        self.app = create_app(database_url, **(defaults | options))
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def room(self) -> Room:
        room: Room = self.app.state.room
        return room

    def __enter__(self) -> RoomServer:
        self.thread.start()
        deadline = time.monotonic() + seconds(20)
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the room did not start")
            time.sleep(0.02)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=seconds(20))

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=seconds(20))


class Player:
    """One seat's socket: sends actions, collects what the server says.

    Between two deals it presses "next deal" at once, as a player who has read the score
    would, unless ``next_deal`` is False (tests of the pause itself)."""

    def __init__(
        self, server: RoomServer, table: str, token: str, *, next_deal: bool = True
    ) -> None:
        self.url = f"{server.ws_url}/ws/{table}?token={token}"
        self.socket: Any = None
        self.received: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.next_deal = next_deal

    async def __aenter__(self) -> Player:
        self.socket = await websockets.connect(self.url)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.socket.send(message if isinstance(message, str) else json.dumps(message))

    async def next(self, timeout: float = 20) -> dict[str, Any]:
        """The next message, within ``timeout`` seconds on a quiet machine (scaled)."""
        received = await asyncio.wait_for(self.socket.recv(), seconds(timeout))
        message: dict[str, Any] = json.loads(received)
        self.received.append(message)
        if message["type"] == "state":
            self.state = message
            pause = message.get("pause")
            if self.next_deal and pause and message["seat"] not in pause["ready"]:
                await self.send({"type": "next_deal"})
        return message

    async def until(self, kind: str, timeout: float = 20) -> dict[str, Any]:
        while True:
            message = await self.next(timeout)
            if message["type"] == kind:
                return message


def create_table(server: RoomServer, **body: Any) -> dict[str, Any]:
    """A table made over the API (two players, one deal, by Anna unless told)."""
    request = {"variant": "italian", "players": 2, "deals": 1, "name": "Anna"} | body
    with server.http() as http:
        answer = http.post("/api/tables", json=request)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())


def start_table(server: RoomServer, table: dict[str, Any]) -> None:
    """Start a table made by :func:`create_table` (bots take the empty seats)."""
    with server.http() as http:
        answer = http.post(f"/api/tables/{table['table']}/start", json={"token": table["token"]})
        assert answer.status_code == 200, answer.text


def port_is_free(port: int) -> bool:
    """Nothing holds ``port`` on 127.0.0.1 (a stopped server let it go)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
