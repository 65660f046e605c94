"""The room's stop holds its bound: a SIGTERM ends the process within the watchdog's
bound even when the graceful stop would hang (issue 19: once 8 s with ~300 fresh tables)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx
from roomserver import free_port
from waits import seconds

# A room whose graceful stop never ends: its lifespan waits forever after SIGTERM.
HANGING_ROOM = """
import asyncio, contextlib, sys
import uvicorn
from fastapi import FastAPI
from burraco.server.process.stopping import BoundedServer

@contextlib.asynccontextmanager
async def lifespan(app):
    yield
    await asyncio.Event().wait()

app = FastAPI(lifespan=lifespan)

@app.get("/ping")
def ping():
    return {"ok": True}

config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
BoundedServer(config, bound=0.5).run()
"""


def test_a_stop_that_hangs_is_ended_within_the_bound() -> None:
    port = free_port()
    room = subprocess.Popen(
        [sys.executable, "-c", HANGING_ROOM, str(port)], stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + seconds(60)
        while True:
            assert room.poll() is None, room.stderr.read() if room.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/ping", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the room never listened"
            time.sleep(0.05)
        room.send_signal(signal.SIGTERM)
        # Without the watchdog the stop would wait forever: the bound here is generous
        # for a loaded machine, yet finite.
        code = room.wait(timeout=seconds(30))
        assert code == 0
        assert room.stderr is not None and "did not stop in time" in room.stderr.read()
    finally:
        if room.poll() is None:
            room.kill()
            room.wait()
