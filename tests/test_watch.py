"""Spectators through the real WebSocket API, on 127.0.0.1.

A spectator hears the table's public information only (never a card of a hand: every
message it receives is searched), optionally some moves behind; a table whose creator
did not allow watching refuses it; 200 spectators do not slow the players, and one that
never reads blocks nobody.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import waits
import websockets
from roomserver import Player, RoomServer, create_table, start_table
from test_cluster import redis_url, rooms  # noqa: F401  (the fixtures of two processes)

from burraco.actions import Action
from burraco.cards import CARDS
from burraco.match import Match
from burraco.server.messages import public_view_json
from burraco.server.room import Room
from burraco.server.watching import Outbox, Watcher
from burraco.storage import Store
from burraco.view import public_view_of

#: Every card's name, as the protocol writes them.
CARD_NAMES = frozenset(str(c) for c in CARDS)
#: Keys that would carry a hand, or a card taken from one.
HAND_KEYS = {"hand", "hands", "partner_hands", "known", "drawn", "taken_single", "from_pile"}
#: The view of a spectator, exactly.
PUBLIC_KEYS = {
    "phase", "turn", "dealer", "deal", "hand_sizes", "line_of", "melds", "grades",
    "line_points", "pile", "pile_hidden", "stock", "pozzetti", "has_pozzetto",
    "pozzetto_face_down", "red_threes", "opened", "minimum", "final_turn", "end_reason",
}  # fmt: skip


class Spectator:
    """A watch socket that keeps every message it receives."""

    def __init__(self, server: RoomServer, table: str, name: str = "") -> None:
        self.url = f"{server.ws_url}/ws/{table}?watch=1" + (f"&name={quote(name)}" if name else "")
        self.socket: Any = None
        self.received: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    async def __aenter__(self) -> Spectator:
        self.socket = await websockets.connect(self.url)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def next(self, timeout: float = 20) -> dict[str, Any]:
        """The next message, within ``timeout`` seconds on a quiet machine (scaled)."""
        received = await asyncio.wait_for(self.socket.recv(), waits.seconds(timeout))
        message: dict[str, Any] = json.loads(received)
        self.received.append(message)
        if message["type"] == "state":
            self.state = message
        return message

    async def until(self, kind: str, timeout: float = 20) -> dict[str, Any]:
        while True:
            message = await self.next(timeout)
            if message["type"] == kind:
                return message

    async def drain(self, seconds: float = 0.3) -> None:
        """Read what comes within ``seconds`` of quiet."""
        while True:
            try:
                await self.next(seconds)
            except TimeoutError:
                return


def _strings(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _strings(inner, (*path, str(key)))
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner, path)


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def assert_no_hand(message: dict[str, Any]) -> None:
    """No key that holds a hand, and no card anywhere but in the public places: the
    melds, the face-up pile and the moves' own words ("discard 5H")."""
    assert not HAND_KEYS & set(_keys(message)), message
    for path, text in _strings(message):
        public = path[:2] in (("view", "melds"), ("view", "pile")) or path[-1:] == ("action",)
        if not public:
            assert not CARD_NAMES & set(text.split()), (path, text, message["type"])
    if message["type"] == "state":
        assert message["seat"] is None and message["watching"] is True
        assert message["legal"] == []
        if message["view"] is not None:
            assert set(message["view"]) == PUBLIC_KEYS


def public_at(server: RoomServer, table_id: str, version: int) -> dict[str, Any]:
    """The public view of a table at ``version``, replayed from its log."""
    table = server.room.table(table_id)
    match = Match(table.variant, seed=table.row.seed)
    for event in server.room.store.events(table_id):
        if event.version <= version and event.kind == "action":
            match.apply(Action.parse(json.loads(event.payload)["action"]))
    return public_view_json(public_view_of(match.deal), len(match.deals))


def public_event(server: RoomServer, table_id: str, version: int) -> str:
    """The action stored at ``version`` of a table's log."""
    event = server.room.store.events(table_id, since=version - 1)[0]
    return str(json.loads(event.payload)["action"])


def two_people(server: RoomServer, **options: Any) -> tuple[str, list[str]]:
    """A started table of Anna and Bruno (no clock, one deal): its id and their tokens."""
    table = create_table(server, move_seconds=0, **options)
    with server.http() as http:
        bruno = http.post(f"/api/tables/{table['table']}/join", json={"name": "Bruno"}).json()
    return table["table"], [table["token"], bruno["token"]]


async def move(server: RoomServer, table_id: str, players: list[Player], rng: random.Random) -> int:
    """One action by the player on turn; the version it made, once its player heard it."""
    table = server.room.table(table_id)
    assert table.match is not None
    seat, version = table.match.deal.turn, table.version
    legal = [str(a) for a in table.match.deal.legal_actions()]
    player = players[seat]
    await player.send({"type": "action", "action": rng.choice(legal), "version": version})
    while True:
        message = await player.next()
        if message["type"] == "state" and message["version"] > version:
            return int(message["version"])


async def ready(players: list[Player]) -> None:
    """Wait until every player has heard the match start."""
    for player in players:
        while player.state is None or player.state["view"] is None:
            await player.next()


def test_a_spectator_hears_every_move_and_never_a_hand(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0, watchable=True)
        table_id = table["table"]
        rng = random.Random(3)
        async with Player(server, table_id, table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            async with Spectator(server, table_id, "Zoe") as zoe:
                first = await zoe.until("state")
                assert first["view"] == public_at(server, table_id, first["version"])
                while True:
                    message = await anna.next(60)
                    if message["type"] == "match_over":
                        break
                    if message["type"] == "state" and message["legal"]:
                        action = rng.choice(message["legal"])
                        await anna.send(
                            {"type": "action", "action": action, "version": message["version"]}
                        )
                await zoe.until("match_over", 20)
                await zoe.drain()
                room_table = server.room.table(table_id)
                for message in zoe.received:
                    assert_no_hand(message)
                states = [m for m in zoe.received if m["type"] == "state"]
                assert states[-1]["version"] == room_table.version
                assert states[-1]["table"]["status"] == "over"
                for state in rng.sample(states, min(10, len(states))):
                    # What it saw is the table as it lay at that version, no more.
                    assert state["view"] == public_at(server, table_id, state["version"])
                # Every move, by an event or by the state that follows it alone.
                told = {m["version"] for m in zoe.received if m["type"] in ("event", "state")}
                assert told >= set(range(first["version"] + 1, room_table.version + 1))
                for state in states:
                    if state["last"] is not None:
                        logged = public_event(server, table_id, state["version"])
                        assert state["last"]["action"] == logged
                assert sum(m["type"] == "deal_over" for m in zoe.received) == 1

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_a_delay_shows_the_table_some_moves_behind(db: str, tmp_path: Path) -> None:
    table_id, tokens = "", []

    async def scenario(server: RoomServer) -> None:
        nonlocal table_id, tokens
        table_id, tokens = two_people(server, watchable=True, watch_delay=2)
        rng = random.Random(5)
        async with (
            Player(server, table_id, tokens[0]) as anna,
            Player(server, table_id, tokens[1]) as bruno,
        ):
            await ready([anna, bruno])
            async with Spectator(server, table_id) as zoe:
                start = (await zoe.until("state"))["version"]
                # Within two moves of the deal's start, the deal as it was dealt.
                await move(server, table_id, [anna, bruno], rng)
                await zoe.drain()
                assert zoe.state is not None and zoe.state["version"] == start
                for _ in range(5):
                    version = await move(server, table_id, [anna, bruno], rng)
                await zoe.drain()
                shown = zoe.state
                assert shown is not None and shown["version"] == version - 2
                assert shown["view"] == public_at(server, table_id, version - 2)
                assert shown["clock"] is None and shown["pause"] is None
                # Nothing of the last two moves: no event, no state, no last move.
                heard = [m.get("version", 0) for m in zoe.received]
                assert max(heard) == version - 2
                for message in zoe.received:
                    assert_no_hand(message)

    async def after_restart(server: RoomServer) -> None:
        # The delay holds after a restart: the table is rebuilt from its log.
        version = server.room.table(table_id).version
        async with Spectator(server, table_id) as zoe:
            state = await zoe.until("state")
            assert state["version"] == version - 2
            assert state["view"] == public_at(server, table_id, version - 2)

    async def to_the_end(server: RoomServer) -> None:
        rng = random.Random(7)
        async with (
            Player(server, table_id, tokens[0]) as anna,
            Player(server, table_id, tokens[1]) as bruno,
            Spectator(server, table_id) as zoe,
        ):
            await ready([anna, bruno])
            await zoe.until("state")
            while server.room.table(table_id).status == "playing":
                await move(server, table_id, [anna, bruno], rng)
            # A finished deal hides nothing: its end is shown at once, delay or not.
            await zoe.until("match_over")
            await zoe.drain()
            assert zoe.state is not None
            assert zoe.state["version"] == server.room.table(table_id).version
            assert any(m["type"] == "deal_over" for m in zoe.received)

    with RoomServer(db) as server:
        asyncio.run(scenario(server))
    with RoomServer(db) as server:
        asyncio.run(after_restart(server))
        asyncio.run(to_the_end(server))


def test_a_table_not_open_to_spectators_refuses_them(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0)
        start_table(server, table)
        async with Spectator(server, table["table"]) as zoe:
            refused = await zoe.next()
            assert refused["type"] == "error" and refused["code"] == "not_watchable"
            assert "not open to spectators" in refused["message"]
            await zoe.socket.wait_closed()
            assert zoe.socket.close_code == 4403
        with server.http() as http:
            assert http.get("/api/tables", params={"watch": "true"}).json()["tables"] == []

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


async def _until(condition: Callable[[], bool], timeout: float = 20) -> None:
    """Poll ``condition`` until it holds, or fail after ``timeout`` (scaled) seconds."""
    deadline = time.monotonic() + waits.seconds(timeout)
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def test_a_spectator_acts_at_no_table(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0, watchable=True)
        start_table(server, table)
        live = server.room.table(table["table"])
        # The bot may be in the middle of its turn: wait until the table waits on Anna,
        # who is not there, so nothing but a spectator's message could move it.
        await _until(lambda: live.match is not None and live.match.deal.turn == 0)
        version = live.version
        async with Spectator(server, table["table"]) as zoe:
            await zoe.until("state")
            for kind in ("action", "hint", "abandon", "next_deal"):
                await zoe.send({"type": kind, "action": "draw", "version": version})
                refused = await zoe.until("error")
                assert refused["code"] == "spectator", refused
            assert live.version == version
            with server.http() as http:
                listed = http.get("/api/tables", params={"watch": "true"}).json()["tables"]
                assert [t["table"] for t in listed] == [table["table"]]
                assert listed[0]["watchable"] is True and listed[0]["watchers"] == 1

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


#: The crowd, in a process of its own: its 200 sockets' reading is not the room's work,
#: and in the test's own process it would hold the interpreter the room runs in.
CROWD = """
import asyncio, json, sys, websockets

async def main(url, n):
    sockets = [await websockets.connect(url) for _ in range(n)]
    print("connected", flush=True)
    heard = [0] * n

    async def listen(i, socket):
        async for raw in socket:
            message = json.loads(raw)
            assert message["type"] != "error", raw
            if message["type"] == "state":
                heard[i] = message["version"]

    tasks = [asyncio.create_task(listen(i, s)) for i, s in enumerate(sockets)]
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for socket in sockets:
        await socket.close()
    await asyncio.gather(*tasks)
    print("heard", min(heard), flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def test_two_hundred_spectators_do_not_slow_the_players(db: str) -> None:
    """The players' round trip (an action sent, its state heard) with 200 spectators
    watching stays within a generous bound of the round trip with none; a spectator that
    never reads its socket blocks nobody; the players hear the count, a state a second
    at most while the crowd arrives."""
    rounds: dict[str, list[float]] = {}

    async def scenario(server: RoomServer) -> None:
        table_id, tokens = two_people(server, watchable=True, deals=None, target=5000)
        rng = random.Random(11)
        url = f"{server.ws_url}/ws/{table_id}?watch=1"
        async with (
            Player(server, table_id, tokens[0]) as anna,
            Player(server, table_id, tokens[1]) as bruno,
        ):
            players = [anna, bruno]
            await ready(players)

            async def measure(label: str) -> None:
                times = []
                for _ in range(20):
                    began = time.perf_counter()
                    await move(server, table_id, players, rng)
                    times.append(time.perf_counter() - began)
                rounds[label] = times

            await measure("alone")
            slow = await websockets.connect(url, max_queue=1)
            crowd = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CROWD, url, "199",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            assert crowd.stdin is not None and crowd.stdout is not None
            anna.received.clear()
            arrived = time.perf_counter()
            assert await asyncio.wait_for(crowd.stdout.readline(), 60) == b"connected\n"
            while anna.state is None or anna.state["table"]["watchers"] < 200:
                await anna.next(10)
            counts = [m for m in anna.received if m["type"] == "state"]
            seconds = time.perf_counter() - arrived
            # One state a second at most (and the moves' states still unread), not 200.
            assert len(counts) <= seconds + 4, (len(counts), seconds)
            assert server.room.sockets == 202

            await measure("watched")
            await asyncio.sleep(0.5)
            crowd.stdin.write(b"\n")
            await crowd.stdin.drain()
            said = await asyncio.wait_for(crowd.stdout.readline(), 60)
            assert await crowd.wait() == 0
            # Every spectator followed the moves to the last (some states of a spectator
            # who fell behind made way for newer ones).
            assert said == f"heard {server.room.table(table_id).version}\n".encode(), said
            await slow.close()

    with RoomServer(db) as server:
        asyncio.run(scenario(server))
    alone = statistics.median(rounds["alone"])
    watched = statistics.median(rounds["watched"])
    print(f"round trip: alone {alone * 1000:.1f} ms, with 200 spectators {watched * 1000:.1f} ms")
    assert watched < max(0.25, 8 * alone), (alone, watched)


def test_a_spectator_that_never_reads_holds_one_state_and_blocks_nobody() -> None:
    """Its writer waits for ever on the socket; the room goes on, and its outbox keeps the
    newest state and a bounded number of other messages."""

    async def scenario() -> None:
        room = Room(Store("sqlite://"), bot_delay=0)
        table, _, _ = room.create({"name": "Anna", "players": 2, "watchable": True})
        await room.join(table.id, {"name": "Bruno"})
        assert table.status == "playing"
        stuck = asyncio.Event()

        async def never(text: str) -> None:
            await stuck.wait()

        watcher = await room.watch(table, "", never)
        others: list[str] = []

        async def reads(text: str) -> None:
            others.append(text)

        reader = await room.watch(table, "", reads)
        for _ in range(60):
            assert table.match is not None
            seat = table.match.deal.turn
            action = str(table.match.deal.legal_actions()[0])
            began = time.perf_counter()
            await room.act(table, seat, action, table.version)
            assert time.perf_counter() - began < 0.5
            if table.match.is_over:
                break
        assert len(watcher.outbox.pending()) <= watcher.outbox.size
        states = [t for t in watcher.outbox.pending() if json.loads(t)["type"] == "state"]
        assert len(states) == 1
        await asyncio.sleep(0.05)
        assert json.loads(others[-1])["version"] == table.version
        await room.unwatch(table, watcher)
        await room.unwatch(table, reader)
        assert room.sockets == 0 and table.watchers == []
        await room.shutdown()

    asyncio.run(scenario())


def test_an_outbox_keeps_the_newest_state_and_drops_the_oldest_past_its_size() -> None:
    async def scenario() -> None:
        box = Outbox(size=4)
        for i in range(10):
            box.put(json.dumps({"type": "event", "version": i}))
            box.put(json.dumps({"type": "state", "version": i}), state=True)
        pending = [json.loads(t) for t in box.pending()]
        assert len(pending) == 4 and pending[-1] == {"type": "state", "version": 9}
        assert sum(m["type"] == "state" for m in pending) == 1
        assert await box.get() == json.dumps({"type": "event", "version": 7})
        watcher = Watcher("Zoe", send_text=lambda text: asyncio.sleep(0))
        assert watcher.key != Watcher("Zoe", send_text=lambda text: asyncio.sleep(0)).key

    asyncio.run(scenario())


def test_a_spectator_watches_through_another_process(rooms: list[str]) -> None:  # noqa: F811
    """Two processes on one Redis: the table is the first one's, the spectator's socket
    reaches the second and is relayed; what it hears is the owner's public state."""

    async def scenario() -> None:
        with httpx.Client(base_url=rooms[0], timeout=20) as http:
            body = {"name": "Anna", "players": 2, "deals": 1, "move_seconds": 0}
            made = http.post("/api/tables", json=body | {"watchable": True}).json()
            closed = http.post("/api/tables", json=body).json()
            for table in (made, closed):
                started = http.post(
                    f"/api/tables/{table['table']}/start", json={"token": table["token"]}
                )
                assert started.status_code == 200, started.text
        relay = rooms[1].replace("http", "ws")
        async with websockets.connect(f"{relay}/ws/{made['table']}?watch=1&name=Zoe") as zoe:
            state = json.loads(await asyncio.wait_for(zoe.recv(), 10))
            assert state["type"] == "state" and state["watching"] is True
            assert_no_hand(state)
            await zoe.send(json.dumps({"type": "chat", "quick": "ciao"}))
            while True:
                said = json.loads(await asyncio.wait_for(zoe.recv(), 10))
                if said["type"] == "chat":
                    break
            assert said["channel"] == "watchers" and said["name"] == "Zoe"
            owner = rooms[0].replace("http", "ws")
            async with websockets.connect(
                f"{owner}/ws/{made['table']}?token={made['token']}"
            ) as anna:
                mine = json.loads(await asyncio.wait_for(anna.recv(), 10))
                while not mine.get("legal"):
                    mine = json.loads(await asyncio.wait_for(anna.recv(), 10))
                move = {"type": "action", "action": "draw", "version": mine["version"]}
                await anna.send(json.dumps(move))
                while True:
                    heard = json.loads(await asyncio.wait_for(zoe.recv(), 10))
                    assert_no_hand(heard)
                    # Anna's draw, not the bot's move that may come before it.
                    if heard["type"] == "state" and heard["version"] > mine["version"]:
                        break
            assert heard["last"] == {"seat": 0, "action": "draw"}
        async with websockets.connect(f"{relay}/ws/{closed['table']}?watch=1") as nobody:
            refused = json.loads(await asyncio.wait_for(nobody.recv(), 10))
            assert refused["code"] == "not_watchable"
            await nobody.wait_closed()
            assert nobody.close_code == 4403

    asyncio.run(scenario())
