"""Fixtures shared by the room's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A fresh SQLite database for one test's room."""
    return f"sqlite:///{tmp_path / 'room.db'}"
