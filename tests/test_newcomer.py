"""The README's run path as a newcomer meets it: a fresh virtual environment with
``pip install .`` and no extras, every command of the package, then the web room started,
used and stopped with SIGTERM.

It installs the package from a copy of this tree into a new environment, with the pure
engine (``BURRACO_PURE=1``): what a newcomer's commands need does not depend on the
compiled one, and mypyc's build of it (a CPU-minute) is the suite's own install's, checked
on this environment (``pip install -e .``, as scripts/run.sh and scripts/test.sh install).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from roomserver import port_is_free
from waits import seconds

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "italian-2p-2l-seed1.txt"


@pytest.fixture(scope="session")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the package alone: ``pip install .``, no extras.

    Built once a run: under pytest-xdist (scripts/test.sh) the workers' temporary folders
    share a parent, where the first worker to need it builds it under a lock and the other
    waits for it (pytest-xdist 3.8's xdist_group does not group on pytest 9, and a
    module-scoped fixture was built again each time a worker came back to these tests)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = tmp_path_factory.getbasetemp()
    if worker:
        shared = shared.parent
    base = shared / "newcomer"
    venv = base / "venv"
    with (shared / "newcomer.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (base / "installed").exists():
            return venv
        shutil.rmtree(base, ignore_errors=True)  # what a failed build left
        tree = base / "burraco"
        # As a clone holds it: no compiled modules a build left in the source tree.
        ignore = shutil.ignore_patterns(
            "*.egg-info", "__pycache__", "*.pyc", "*.so", "_engine_build.json"
        )
        shutil.copytree(ROOT / "src", tree / "src", ignore=ignore)
        for name in ("pyproject.toml", "setup.py", "README.md"):
            shutil.copy(ROOT / name, tree / name)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # The pip that comes with the venv, as a newcomer's would; pip's own cache (wheels it
        # downloaded or built before) is used, so a second run of the suite installs faster.
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        pure = {**os.environ, "BURRACO_PURE": "1"}
        subprocess.run([*pip, str(tree)], check=True, timeout=seconds(900), env=pure)
        (base / "installed").touch()
    return venv


def _own_env() -> dict[str, str]:
    """This environment without PYTHONPATH: the fresh install must answer, not the source
    tree the tests run from (`PYTHONPATH=src pytest` would otherwise shadow it)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(venv: Path, *args: str, stdin: str = "", timeout: float = 120) -> str:
    done = subprocess.run(
        [str(venv / "bin" / "burraco"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=seconds(timeout),
        env=_own_env() | {"COLUMNS": "120"},
    )
    assert done.returncode == 0, f"burraco {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_install_builds_the_compiled_engine_where_a_c_compiler_is() -> None:
    """``pip install -e .`` (scripts/run.sh, scripts/test.sh) compiles the rules engine
    (mypyc) where a C compiler is, else installs the pure one; ``burraco --version`` of the
    environment it made (this one) says which runs."""
    if os.environ.get("BURRACO_PURE"):
        pytest.skip("BURRACO_PURE asks for the pure engine")
    compiler = shutil.which(os.environ.get("CC", "cc"))
    burraco = Path(sys.executable).parent / "burraco"
    said = subprocess.run([str(burraco), "--version"], capture_output=True, text=True, check=True)
    assert f"burraco 0.1.0, {'compiled' if compiler else 'pure'} engine" in said.stdout


def test_the_pure_install_says_it_runs_the_pure_engine(fresh: Path) -> None:
    assert "burraco 0.1.0, pure engine" in _run(fresh, "--version")


def test_the_environment_has_no_extras(fresh: Path) -> None:
    python = str(fresh / "bin" / "python")
    for extra in ("pytest", "hypothesis", "playwright", "redis", "psycopg"):
        found = subprocess.run([python, "-c", f"import {extra}"], capture_output=True)
        assert found.returncode != 0, f"{extra} should not be installed with the core alone"


def test_every_command_works_on_the_core_dependencies(fresh: Path, tmp_path: Path) -> None:
    assert "serve" in _run(fresh, "--help")
    assert "canasta" in _run(fresh, "variants")
    assert "meld" in _run(fresh, "play", "--seed", "1", stdin="?\nquit\n")
    assert _run(fresh, "replay", str(GOLDEN)).strip()
    _run(fresh, "arena", "--bots", "greedy,random", "--deals", "2", "--workers", "1")
    _run(fresh, "tournament", "run", "--format", "danish", "--pairs", "4", "--rounds", "2")
    ratings = ("--matches", "1", "--levels", "random,greedy", "--no-database", "--workers", "1")
    assert "greedy" in _run(fresh, "ratings", *ratings)
    for group in ("desk", "tournament", "password"):
        assert "Usage" in _run(fresh, group, "--help")


def _post_until_admitted(url: str, body: dict[str, Any], deadline: float) -> dict[str, Any]:
    """The room's answer to a POST, asked again as a person would while the room says it is
    busy (503: its loop fell behind, as a room just started on a loaded machine may)."""
    while True:
        answer = httpx.post(url, json=body, timeout=10)
        if answer.status_code != 503 or time.time() > deadline:
            break
        time.sleep(0.5)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _play_a_few_moves(url: str, table: str, token: str, moves: int) -> int:
    played = 0
    async with websockets.connect(f"{url}/ws/{table}?token={token}") as ws:
        while played < moves:
            message = json.loads(await asyncio.wait_for(ws.recv(), seconds(30)))
            if message["type"] == "state" and message["legal"]:
                action = message["legal"][0]
                await ws.send(
                    json.dumps({"type": "action", "action": action, "version": message["version"]})
                )
                played += 1
            assert message["type"] != "error", message
    return played


def test_the_room_starts_plays_and_stops_on_sigterm(fresh: Path, tmp_path: Path) -> None:
    port = _free_port()
    database = f"sqlite:///{tmp_path / 'room.db'}"
    server = subprocess.Popen(
        [str(fresh / "bin" / "burraco"), "serve", "--port", str(port), "--database-url", database],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_own_env(),
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + seconds(60)
        while True:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            with contextlib.suppress(httpx.HTTPError):
                lobby = httpx.get(f"{base}/", timeout=2)
                break
            assert time.time() < deadline, "the room did not start"
            time.sleep(0.2)
        assert lobby.status_code == 200 and "<html" in lobby.text.lower()
        table = {"name": "Anna", "variant": "italian", "players": 2, "deals": 1, "bot": "greedy"}
        created = _post_until_admitted(f"{base}/api/tables", table, time.time() + seconds(30))
        started = httpx.post(
            f"{base}/api/tables/{created['table']}/start",
            json={"token": created["token"]},
            timeout=10,
        )
        assert started.status_code == 200 and started.json()["status"] == "playing"
        ws_url = f"ws://127.0.0.1:{port}"
        assert asyncio.run(_play_a_few_moves(ws_url, created["table"], created["token"], 4)) == 4
        server.send_signal(signal.SIGTERM)
        began = time.time()
        server.wait(timeout=seconds(20))
        assert time.time() - began < 5, f"SIGTERM took {time.time() - began:.1f} s"
        assert port_is_free(port)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
