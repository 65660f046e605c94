"""docs/research.md: its Python examples run as written (issue 12: a researcher starts in
five lines)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

DOCS = Path(__file__).resolve().parents[1] / "docs" / "research.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)


def test_the_start_is_five_lines() -> None:
    assert len(python_blocks()[0].strip().splitlines()) == 5


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_an_example_runs(index: int) -> None:
    exec(compile(python_blocks()[index], f"research.md block {index}", "exec"), {})
