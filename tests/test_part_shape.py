"""The room's shape (docs/architecture.md): small parts, each saying in its first line what
it does, none importing the room that wires them, no class past about 400 lines and no
function past about 80 (unless it is a table of data)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import burraco.server.room
import burraco.server.table

PARTS = Path(burraco.server.table.__file__).parent
ROOM = Path(burraco.server.room.__file__)
PARTS_PKG = "burraco.server.table."
#: The most lines a class may hold (the issue's "about 400").
LONGEST = 400
#: The most lines a function or method may hold (the issue's "about 80").
LONGEST_FUNCTION = 80
#: The modules the size rule covers: the room and its parts (the rest of server/ joins
#: this list as it is split).
SIZED = [ROOM, *sorted(PARTS.glob("*.py"))]
#: Functions that are a table of data, by module and name: the rule does not count them.
DATA_TABLES: frozenset[tuple[str, str]] = frozenset()


def _modules() -> list[Path]:
    return [ROOM, *sorted(PARTS.glob("*.py"))]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOM.parent))


def test_each_part_says_in_its_first_line_what_it_does() -> None:
    for path in _modules():
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False)
        assert doc, f"{path.name} has no docstring"
        first = doc.splitlines()[0]
        assert first.endswith(".") and len(first) > 20, f"{path.name}: {first!r}"


@pytest.mark.parametrize("path", SIZED, ids=_name)
def test_no_class_is_longer_than_about_400_lines_nor_a_function_than_80(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        lines = node.end_lineno - node.lineno + 1
        if isinstance(node, ast.ClassDef):
            assert lines <= LONGEST, f"{_name(path)}: class {node.name} has {lines} lines"
        elif (path.stem, node.name) not in DATA_TABLES:
            assert lines <= LONGEST_FUNCTION, f"{_name(path)}: {node.name}() has {lines} lines"


def test_the_parts_never_import_the_room_nor_one_another_in_a_circle() -> None:
    imports: dict[str, set[str]] = {}
    for path in sorted(PARTS.glob("*.py")):
        found = set()
        # Every import, for types and inside functions too: one way, with no way back.
        for node in ast.walk(ast.parse(path.read_text())):
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


def test_no_part_is_handed_a_collaborator_after_it_is_built() -> None:
    """Each part gets what it calls in its constructor, built before it: the room sets
    no part's attribute, and no part declares one for the room to set later."""
    building = [
        node
        for node in ast.walk(ast.parse(ROOM.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name in ("__init__", "_build_parts")
    ]
    assert building
    wired = [
        ast.unparse(one)
        for function in building
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        for target in node.targets
        for one in (target.elts if isinstance(target, ast.Tuple) else [target])
        if isinstance(one, ast.Attribute) and isinstance(one.value, ast.Attribute)
    ]
    assert wired == [], f"room.py wires parts after building them: {wired}"
    for path in sorted(PARTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef) or _is_dataclass(node):
                continue
            later = [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and item.value is None
                and isinstance(item.target, ast.Name)
            ]
            assert later == [], f"{path.name}: {node.name} is wired later: {later}"


def _is_dataclass(node: ast.ClassDef) -> bool:
    names = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
    return any(isinstance(n, ast.Name) and n.id == "dataclass" for n in names)


def test_each_part_imports_only_the_parts_listed_before_it() -> None:
    """The package's docstring lists the parts in their floors' order, lowest first."""
    doc = burraco.server.table.__doc__ or ""
    order = re.findall(r"^- ``(\w+)``", doc, re.M)
    assert sorted(order) == sorted(p.stem for p in PARTS.glob("*.py") if p.stem != "__init__")
    for path in sorted(PARTS.glob("*.py")):
        if path.stem == "__init__":
            continue
        below = set(order[: order.index(path.stem)])
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PARTS_PKG):
                part = (node.module or "").rsplit(".", 1)[1]
                assert part in below, f"{path.name} imports {part}, listed after it"
