"""The state of a table in play (server/table/live.py): the retry's backoff, what the lobby
says of the seats, who plays, and the room's tasks kept until done."""

from __future__ import annotations

import asyncio

from parts import Socket, dealt

from burraco.server.table.live import RETRY_FIRST, RETRY_MAX, Shared, bots_alone, nobody_sees


def test_the_wait_before_storing_again_doubles_up_to_its_most() -> None:
    table = dealt()
    waits = [table.next_backoff() for _ in range(12)]
    assert waits[0] == RETRY_FIRST and waits[1] == 2 * RETRY_FIRST
    assert max(waits) == RETRY_MAX == waits[-1]


def test_a_seat_a_bot_took_over_is_a_bots_and_its_table_may_be_bots_alone() -> None:
    table = dealt(("human", "bot"))
    assert not bots_alone(table)
    table.seats[0].taken_over = True
    assert bots_alone(table) and nobody_sees(table)
    assert table.info()["seats"][0] == {
        "seat": 0,
        "name": "Player 0",
        "kind": "bot",
        "taken_over": True,
        "connected": False,
        "program": False,
    }
    table.seats[0].connections.append(Socket().send)
    assert bots_alone(table) and not nobody_sees(table)


def test_the_rooms_tasks_are_kept_until_done() -> None:
    async def scenario() -> None:
        shared = Shared()
        gate = asyncio.Event()

        async def wait() -> None:
            await gate.wait()

        task = asyncio.get_running_loop().create_task(wait())
        shared.keep(task)
        assert shared.tasks == {task}
        gate.set()
        await task
        await asyncio.sleep(0)
        assert shared.tasks == set()

    asyncio.run(scenario())
