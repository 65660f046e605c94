"""The room's background tasks (its lag watch, its collector's schedule, quick play's
matcher, the review pool): each is ended the same way, cancelled and waited for."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

__all__ = ["cancel"]


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (None: there is none) and wait until it has ended."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
