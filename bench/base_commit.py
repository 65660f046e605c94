"""The code of the base commit (the present expert), checked out beside this one, for benches
that set the new bots against it in separate processes.

``bench/expert.py`` and ``bench/versus.py`` run the present code in a subprocess with
``PYTHONPATH`` set to :data:`BASE_SRC` and the new code with ``PYTHONPATH`` set to this
checkout's ``src``, so the two versions never share a process. :func:`ensure_base` adds
the git worktree if it is missing (``git worktree add --detach``, which changes nothing
in this checkout).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The base of issue 11's work: the expert as it was.
BASE_COMMIT = "256a953"
BASE_DIR = Path("/tmp/burraco-base")
BASE_SRC = BASE_DIR / "src"
ROOT = Path(__file__).resolve().parent.parent
NEW_SRC = ROOT / "src"


def ensure_base(commit: str = BASE_COMMIT, where: Path = BASE_DIR) -> Path:
    """The worktree of ``commit`` at ``where``, added if it is not there yet."""
    if not (where / "src" / "burraco" / "__init__.py").exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), commit],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    head = subprocess.run(
        ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not commit.startswith(head) and not head.startswith(commit):
        raise SystemExit(f"{where} holds {head}, not {commit}: remove it or pass another path")
    return where / "src"


def env_for(src: Path) -> dict[str, str]:
    """The environment of a subprocess that imports ``burraco`` from ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["PYTHONHASHSEED"] = "0"
    return env


def worker(script: Path, src: Path, *args: str) -> subprocess.Popen[str]:
    """Start ``script`` in worker mode on the code in ``src``, talking by lines of text."""
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        env=env_for(src),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
