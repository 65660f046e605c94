"""A seat's sockets (server/table/sockets.py): opening (the oldest replaced past the cap),
closing, and each message a seat sends going to its part, errors to that socket alone."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from parts import Socket, closed, greedy_move, play_deal, seated, step_on, store_in

from burraco.server.door.capacity import Capacity
from burraco.server.table.sockets import REPLACED, SeatSockets
from burraco.server.table.step import Step


def _sockets(step: Step, capacity: Capacity | None = None) -> SeatSockets:
    """The seats' sockets over the step (each change a socket asks for goes through it)."""
    return SeatSockets(step.shared, capacity or Capacity(), step.spectators.chat, step.turns, step)


def test_a_socket_hears_its_state_and_the_others_hear_the_seat_come_online(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        sockets = _sockets(step)
        table, _ = await seated(step)
        anna, bruno = Socket(), Socket()
        await sockets.connect(table, 0, anna.send)
        sockets.chat.say(table, "players", 0, "Player 0", {"text": "ciao"})
        await sockets.connect(table, 1, bruno.send)
        assert [m["type"] for m in bruno.heard] == ["state", "chat_history"]
        assert bruno.heard[0]["seat"] == 1
        assert anna.heard[-1]["table"]["seats"][1]["connected"] is True
        assert step.shared.sockets == 2
        await sockets.disconnect(table, 1, bruno.send)
        assert anna.heard[-1]["table"]["seats"][1]["connected"] is False
        assert step.shared.sockets == 1
        await closed(step)

    asyncio.run(scenario())


def test_past_the_cap_the_oldest_socket_of_the_seat_is_replaced(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        sockets = _sockets(step, Capacity(sockets_per_seat=1))
        table, _ = await seated(step)
        first, second = Socket(), Socket()
        await sockets.connect(table, 0, first.send, first.close)
        await sockets.connect(table, 0, second.send, second.close)
        assert first.heard[-1]["code"] == "replaced" and first.closed is not None
        assert first.closed[0] == REPLACED and second.closed is None
        assert step.shared.sockets == 1
        await sockets.disconnect(table, 0, first.send)  # closed already: no count
        assert step.shared.sockets == 1
        await closed(step)

    asyncio.run(scenario())


def test_the_last_socket_of_a_seat_waited_for_closing_begins_the_next_deal(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        sockets = _sockets(step)
        table, _ = await seated(step)
        anna, bruno = Socket(), Socket()
        await sockets.connect(table, 0, anna.send)
        await sockets.connect(table, 1, bruno.send)
        play_deal(step, table)
        await step.next_deal(table, 0)
        assert table.pause_until is not None
        await sockets.disconnect(table, 1, bruno.send)
        assert table.pause_until is None
        await closed(step)

    asyncio.run(scenario())


def test_each_message_goes_to_its_part_and_an_error_to_its_socket_alone(tmp_path: Path) -> None:
    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        sockets = _sockets(step)
        table, _ = await seated(step)
        anna, bruno = Socket(), Socket()
        table.seats[0].connections.append(anna.send)
        table.seats[1].connections.append(bruno.send)

        async def say(seat: int, message: object) -> None:
            sock = anna if seat == 0 else bruno
            raw = message if isinstance(message, str) else json.dumps(message)
            await sockets.message(table, seat, sock.send, raw)

        await say(0, "{not json")
        assert anna.heard[-1]["code"] == "bad_message" and not bruno.heard
        await say(0, {"type": "juggle"})
        assert anna.heard[-1]["code"] == "bad_message"
        await say(0, {"type": "ping"})
        assert anna.heard[-1] == {"type": "pong"}
        assert table.match is not None
        turn = table.match.deal.turn
        await say(turn, {"type": "action", "action": greedy_move(table), "version": table.version})
        assert table.version == 2
        await say(0, {"type": "sync", "since": 0})
        assert [m["type"] for m in anna.heard[-3:]] == ["event", "event", "state"]
        await say(1, {"type": "chat", "text": "ciao"})
        assert anna.heard[-1]["type"] == "chat" == bruno.heard[-1]["type"]
        await say(0, {"type": "action", "action": "draw"})
        assert anna.heard[-1]["code"] == "bad_message" and table.version == 2
        await closed(step)

    asyncio.run(scenario())


def test_nine_sockets_flooding_sync_since_0_are_throttled_and_the_other_seat_plays_on(
    tmp_path: Path,
) -> None:
    """Issue 32: nine bot sockets sending ``sync since 0`` as fast as they could each had
    the whole log resent every time, and froze every table. Now each socket is sent the
    log once (a repeated range is refused, a flood pays its budget), and the other seat's
    moves are answered as before, in order."""

    async def scenario() -> None:
        step = step_on(store_in(tmp_path))
        sockets = _sockets(step, Capacity(sockets_per_seat=10))
        table, _ = await seated(step)
        table.seats[1].program = True  # a bot account's seat: a program's bigger budget
        play_deal(step, table)
        logged = len(table.events)
        # A whole deal's log: 40-90 events, by the table's seed (each table draws its own).
        assert logged > 30
        anna = Socket()
        await sockets.connect(table, 0, anna.send)
        robots = [Socket() for _ in range(9)]
        for robot in robots:
            await sockets.connect(table, 1, robot.send)
        assert table.match is not None
        sync = json.dumps({"type": "sync", "since": 0})

        async def flood(robot: Socket) -> None:
            for _ in range(200):
                await sockets.message(table, 1, robot.send, sync)
                await asyncio.sleep(0)

        played: list[int] = []

        async def play() -> None:
            match = table.match
            assert match is not None
            while len(played) < 10:
                move = greedy_move(table)
                if match.deal.turn == 0:
                    action = {"type": "action", "action": move, "version": table.version}
                    await sockets.message(table, 0, anna.send, json.dumps(action))
                    played.append(table.version)
                else:
                    await step.act(table, 1, move, table.version)
                await asyncio.sleep(0)

        await asyncio.gather(play(), *(flood(robot) for robot in robots))
        for robot in robots:
            # The log once, at the first sync; the other 199 answered in a few bytes.
            assert len(robot.of("event")) <= logged + 30
            refused = [m["code"] for m in robot.of("error")]
            assert set(refused) <= {"sync_repeated", "too_fast"}
            assert refused.count("sync_repeated") + refused.count("too_fast") >= 150
            # In bytes: the log about once, and short refusals (it was 200 logs).
            answered = robot.of("event") + robot.of("error")
            once = sum(len(json.dumps(e)) for e in table.events)
            assert sum(len(json.dumps(m)) for m in answered) < 2 * once + 200 * 250
        # Anna's moves were each taken, in order, and she heard no refusal.
        assert not anna.of("error")
        assert played == sorted(played) and len(played) == 10
        versions = [m["version"] for m in anna.of("state")]
        assert versions == sorted(versions) and versions[-1] == table.version
        await closed(step)

    asyncio.run(scenario())
