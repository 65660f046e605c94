"""The room's shape (docs/architecture.md): small parts, each saying in its first line what
it does, none importing the room that wires them, no class past about 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import burraco.server.room
import burraco.server.table

PARTS = Path(burraco.server.table.__file__).parent
ROOM = Path(burraco.server.room.__file__)
PARTS_PKG = "burraco.server.table."
#: The most lines a class of the room may hold (the issue's "about 400").
LONGEST = 400


def _modules() -> list[Path]:
    return [ROOM, *sorted(PARTS.glob("*.py"))]


def test_each_part_says_in_its_first_line_what_it_does() -> None:
    for path in _modules():
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False)
        assert doc, f"{path.name} has no docstring"
        first = doc.splitlines()[0]
        assert first.endswith(".") and len(first) > 20, f"{path.name}: {first!r}"


def test_no_class_of_the_room_is_longer_than_about_400_lines() -> None:
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                assert lines <= LONGEST, f"{path.name}: {node.name} has {lines} lines"


def test_the_parts_never_import_the_room_nor_one_another_in_a_circle() -> None:
    imports: dict[str, set[str]] = {}
    for path in sorted(PARTS.glob("*.py")):
        found = set()
        for node in ast.parse(path.read_text()).body:  # module level: run at import time
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
        assert "burraco.server.room" not in found, f"{path.name} imports the room"
        imports[path.stem] = {m.rsplit(".", 1)[1] for m in found if m.startswith(PARTS_PKG)}
    for start in imports:
        seen, todo = set(), list(imports[start])
        while todo:
            part = todo.pop()
            assert part != start, f"{start} imports itself through {sorted(seen)}"
            if part not in seen:
                seen.add(part)
                todo += imports.get(part, set())
