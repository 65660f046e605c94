"""Ending the room's background tasks (``burraco.server.process.background.cancel``)."""

from __future__ import annotations

import asyncio
import contextlib

from burraco.server.process.background import cancel


def test_a_task_that_lost_its_cancellation_is_still_ended() -> None:
    """On Python 3.11 a cancellation that meets an expiring ``asyncio.timeout`` comes out
    as ``TimeoutError``, and a loop that carries on after a failed read absorbs it (the
    cluster's heartbeat once held a test for 15 minutes so): it is cancelled again."""

    async def heartbeat() -> None:
        # As the expiring timeout's TimeoutError would be, the first one is absorbed.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)

    async def scenario() -> bool:
        task = asyncio.create_task(heartbeat())
        await asyncio.sleep(0)
        ended = asyncio.create_task(cancel(task))
        done, _ = await asyncio.wait([ended], timeout=60)
        return ended in done and task.cancelled()

    assert asyncio.run(scenario())


def test_a_task_that_failed_is_waited_for_and_its_error_read() -> None:
    async def fails() -> None:
        raise ValueError("broken")

    async def scenario() -> bool:
        task = asyncio.create_task(fails())
        await asyncio.sleep(0)
        await cancel(task)
        return task.done() and not task.cancelled()

    assert asyncio.run(scenario())
