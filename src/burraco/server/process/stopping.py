"""Stopping the room within its bound: uvicorn's server with a watchdog that the first
SIGTERM (or Ctrl+C) arms.

A graceful stop tells every socket to go, cancels the bots, clocks and searches and
releases the database; on a loaded machine with hundreds of fresh tables that once took
8 s. Nothing is lost by cutting it short: every action is committed before anyone hears
of it. So past ``bound`` seconds the process ends itself, whatever is still running.
"""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType

import uvicorn

STOP_BOUND = 4.5


class BoundedServer(uvicorn.Server):
    """A uvicorn server whose stop, once asked for, never takes more than ``bound`` s."""

    def __init__(self, config: uvicorn.Config, bound: float = STOP_BOUND) -> None:
        super().__init__(config)
        self.bound = bound
        self.watchdog: threading.Timer | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.watchdog is None:
            self.watchdog = threading.Timer(self.bound, _end_now)
            self.watchdog.daemon = True
            self.watchdog.start()
        super().handle_exit(sig, frame)


def _end_now() -> None:
    sys.stderr.write("burraco: the room did not stop in time; ending it now\n")
    sys.stderr.flush()
    os._exit(0)
