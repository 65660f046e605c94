"""Collection across the tree (tests/conftest.py holds the tests' own fixtures).

A rule module compiled by mypyc (setup.py) is imported from its extension module, which
keeps no docstrings: pytest's doctest collection of its ``.py`` would find another file
than the module imported, and fail. Its doctests run from the source on the pure engine
instead (tests/test_engine_compiled.py, in a process with ``BURRACO_PURE=1``).
"""

from __future__ import annotations

from pathlib import Path

from burraco._engine import COMPILED_MODULES, engine

PACKAGE = Path(__file__).resolve().parent / "src" / "burraco"


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if (
        collection_path.parent == PACKAGE
        and collection_path.suffix == ".py"
        and collection_path.stem in COMPILED_MODULES
        and engine() == "compiled"
    ):
        return True
    return None
