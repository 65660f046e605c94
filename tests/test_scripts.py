"""The README's two commands: ``scripts/run.sh`` installs the package only when it must,
``scripts/test.sh`` waits for apt's lock and runs the tests on two workers.

The run.sh test sets up a fresh virtual environment from a copy of this tree, so it takes
as long as an install (pip's cache, shared with test_newcomer.py, makes it quicker)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from waits import seconds

ROOT = Path(__file__).resolve().parent.parent


def _tree(base: Path) -> Path:
    """A copy of what a clone holds for the commands: the package, its metadata, scripts."""
    tree = base / "burraco"
    ignore = shutil.ignore_patterns(
        "*.egg-info", "__pycache__", "*.pyc", "*.so", "_engine_build.json"
    )
    for folder in ("src", "scripts"):
        shutil.copytree(ROOT / folder, tree / folder, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    return tree


def _installed(tree: Path) -> dict[str, int]:
    """When pip last wrote each of the package's entries in the environment."""
    site = next((tree / ".venv" / "lib").glob("python3*/site-packages"))
    return {
        entry.name: entry.stat().st_mtime_ns
        for entry in site.iterdir()
        if "burraco" in entry.name.lower()
    }


def _run_help(tree: Path) -> tuple[str, float]:
    """``bash scripts/run.sh --help``: its output and how long it took."""
    began = time.monotonic()
    done = subprocess.run(
        ["bash", str(tree / "scripts" / "run.sh"), "--help"],
        capture_output=True,
        text=True,
        timeout=seconds(900),
        # Not this test run's source: the copy's own install must answer.
        # BURRACO_PURE: the pure engine, so each install skips mypyc's build (these tests
        # are about when run.sh installs; the compiled build is checked on the suite's own
        # install, tests/test_newcomer.py).
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        | {"PYTHON": sys.executable, "COLUMNS": "120", "BURRACO_PURE": "1"},
    )
    took = time.monotonic() - began
    assert done.returncode == 0, f"run.sh --help:\n{done.stdout}\n{done.stderr}"
    return done.stdout, took


def test_run_sh_installs_only_for_a_new_environment_or_a_changed_pyproject(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path)
    first, _ = _run_help(tree)
    assert "--port" in first  # `burraco serve --help`
    installed = _installed(tree)
    assert installed, "run.sh installed no burraco package"

    # A restart (or a typo, or --help) installs nothing: the stamp matches pyproject.toml.
    again, took = _run_help(tree)
    assert again == first
    assert _installed(tree) == installed, "run.sh reinstalled the package on a second start"

    # A changed pyproject.toml (a new dependency, say) is installed at the next start.
    with (tree / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write("\n# a change\n")
    _run_help(tree)
    changed = _installed(tree)
    assert changed.keys() == installed.keys()
    assert changed != installed, "run.sh did not reinstall after pyproject.toml changed"
    print(f"second start of run.sh --help: {took:.2f} s")


def _apt_get_calls(script: str) -> list[str]:
    """Every command line of ``script`` that runs apt-get (comments left out)."""
    lines = (line.split("#", 1)[0] for line in script.splitlines())
    return [line for line in lines if re.search(r"\bapt-get\b", line)]


def test_test_sh_waits_for_apts_lock_on_every_apt_get() -> None:
    """Unattended upgrades hold apt's lock on a fresh server: apt-get waits for it."""
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    calls = _apt_get_calls(script)
    assert any("update" in c for c in calls) and any("install" in c for c in calls)
    waits = re.search(r"apt_wait=\((.*)\)", script)
    for call in calls:
        options = call.replace('"${apt_wait[@]}"', waits.group(1) if waits else "")
        words = shlex.split(options)
        assert "DPkg::Lock::Timeout=600" in words, f"apt-get without a lock timeout: {call}"


def test_test_sh_runs_pytest_on_two_workers_and_passes_its_arguments() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    last = script.strip().splitlines()[-1]
    assert last.startswith(".venv/bin/pytest -n 2 ") and last.endswith('"$@"'), last
    # Whole files to a worker, in the order the collection left them (the slowest first).
    assert "--dist loadfile --no-loadscope-reorder" in last, last
    with (ROOT / "pyproject.toml").open("rb") as pyproject:
        dev = tomllib.load(pyproject)["project"]["optional-dependencies"]["dev"]
    assert any(d.startswith("pytest-xdist") for d in dev), "pytest-xdist is not in the dev extra"


def test_the_slowest_files_are_collected_first_each_in_its_own_order() -> None:
    import conftest

    class Item:
        def __init__(self, path: str) -> None:
            self.path = Path(path)

    names = ["tests/test_vp.py", "tests/test_iterate.py", "README.md", "tests/test_properties.py"]
    items = [Item(name) for name in names for _ in range(2)]
    tagged = list(enumerate(items))
    conftest.pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    order = [str(item.path) for item in items]
    assert order == [names[3]] * 2 + [names[1]] * 2 + [names[0]] * 2 + [names[2]] * 2, order
    # Within a file, its tests keep the order they were collected in.
    positions = [next(i for i, it in tagged if it is item) for item in items]
    assert positions[:2] == sorted(positions[:2])
    assert set(conftest.SLOWEST_FIRST) <= {p.name for p in (ROOT / "tests").glob("test_*.py")}


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "nan"])
def test_the_timeout_scale_refuses_what_is_not_a_positive_number(value: str) -> None:
    from waits import SETTING, scale_from

    with pytest.raises(ValueError, match=SETTING):
        scale_from({SETTING: value})


def test_the_timeout_scale_defaults_to_one() -> None:
    from waits import SETTING, scale_from

    assert scale_from({}) == 1.0
    assert scale_from({SETTING: " "}) == 1.0
    assert scale_from({SETTING: "2.5"}) == 2.5


def test_hypothesis_never_fails_an_example_for_a_slow_machine() -> None:
    """conftest.py's profile: no deadline, so a loaded machine does not fail a property."""
    from hypothesis import settings

    assert settings.default.deadline is None


def test_the_browsers_pages_wait_as_long_as_the_scale_says(
    browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Playwright's default timeout (30 s) comes from BURRACO_TEST_TIMEOUT_SCALE: at a
    hundredth of it, waiting for what never comes gives up in 0.3 s, not in 30."""
    import waits

    monkeypatch.setattr(waits, "SCALE", 0.01)
    for page in (browser.new_page(), browser.new_context().new_page()):
        page.set_content("<p>nothing else</p>", timeout=0)  # 0: no bound on this one
        began = time.monotonic()
        with pytest.raises(Exception, match="Timeout 300ms exceeded"):
            page.wait_for_selector("#never")
        assert time.monotonic() - began < 10
        page.context.close()


def test_a_test_rooms_own_capacity_waits_as_patiently_as_the_default(tmp_path: Path) -> None:
    """The test process drives clients and a browser beside the room, so its loop lags:
    a test that sets a table cap must not also get "busy" for a late loop (test_limits.py
    met 503 under load). A test that sets the lag itself keeps it."""
    from roomserver import RoomServer

    from burraco.server.door.capacity import Capacity

    capped = RoomServer(f"sqlite:///{tmp_path / 'a.db'}", capacity=Capacity(max_bot_tables=3))
    assert capped.room.capacity.max_bot_tables == 3
    assert (
        capped.room.capacity.busy_lag
        == RoomServer(f"sqlite:///{tmp_path / 'b.db'}").room.capacity.busy_lag
    )
    strict = RoomServer(f"sqlite:///{tmp_path / 'c.db'}", capacity=Capacity(busy_lag=0.1))
    assert strict.room.capacity.busy_lag == 0.1
