"""The room's background tasks (its lag watch, its collector's schedule, quick play's
matcher, the review pool, the cluster's listener and heartbeats): each is ended the same
way, cancelled until it has ended."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel"]

#: How long one cancellation is given to end the task before it is cancelled again.
AGAIN_SECONDS = 1.0


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (None: there is none) and wait until it has ended.

    A cancellation can be lost: on Python 3.11 one that arrives as an ``asyncio.timeout``
    expires (redis' reads use one) comes out of the ``async with`` as ``TimeoutError``, and a
    loop that carries on after a failed read then never ends. So the task is cancelled
    again while it lives, never waited for blindly."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=AGAIN_SECONDS)
    if not task.cancelled():
        task.exception()  # read: a failure while ending is not "never retrieved"
