"""The package's floors: each module imports only what lies below it.

The engine reads like a rule book, one floor above what it uses (``FLOORS``, lowest
first; README.md, "Layout", lists the same). Above the engine stand the bots, then storage,
then what serves and runs them (``LAYERS``). These tests read every module's imports from
its source (``import burraco.x``, ``from burraco.x import``, ``from . import x``,
``from .x import``) and fail on:

1. an engine module importing one on a higher floor at module level (an
   ``if TYPE_CHECKING:`` import too, but for the annotations named in ``TYPE_ONLY``),
   or, inside a function, anywhere but the conveniences named in ``CONVENIENCES``;
2. a circle among the modules' module-level imports, anywhere in the package;
3. a layer importing a higher one, at any level (the engine nothing of the bots, the bots
   nothing of storage or the server, storage nothing of the server);
4. an engine module that cannot be imported alone, in a fresh interpreter, without the
   package's ``__init__`` importing the others first.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "burraco"

#: The engine's modules, lowest floor first: each imports only modules before it.
FLOORS = (
    "_engine",
    "refusals",
    "errors",
    "cards",
    "actions",
    "variants",
    "melds",
    "scoring",
    "view",
    "deal",
    "position",
    "vp",
    "match",
    "record",
    "rulebook",
    "encoding",
)

#: The package's layers, lowest first: a layer imports nothing from a higher one. The
#: first part of a module's name (``burraco.server.room``: ``server``) names its layer; the
#: engine's modules are ``FLOORS``; ``burraco`` itself (``__init__``) exports the engine.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({*FLOORS, ""}),
    frozenset({"bots"}),
    frozenset({"storage"}),
    frozenset({"server", "tournament", "research", "client", "cli", "terminal", "web"}),
)

#: Upward imports inside a function, allowed: (module, function, the module it imports).
#: ``Deal.position()`` and ``DealView.position()`` (and ``from_position``) are
#: conveniences over the position notation, which sits above the deal it writes and reads.
CONVENIENCES = frozenset(
    {
        ("deal", "Deal.position", "position"),
        ("deal", "Deal.from_position", "position"),
        ("view", "DealView.position", "position"),
        ("view", "DealView.from_position", "position"),
        # Which engine runs is read from the deal module the package loaded.
        ("_engine", "engine", "deal"),
    }
)

#: Upward imports under ``if TYPE_CHECKING:``, for annotations only (never run): the
#: score and the views are read from a deal, which is built on them.
TYPE_ONLY = frozenset({("scoring", "deal"), ("view", "deal")})


@dataclass(frozen=True, slots=True)
class Import:
    """One import of a ``burraco`` module, as the source writes it."""

    module: str  # the importing module: "deal", "server.room", "" for the package
    target: str  # the imported module, likewise
    line: int
    #: The function (``Class.method``) the import stands in; "" at module level.
    function: str = ""
    type_only: bool = False


def _name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {
        _name(path): path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "migrations" not in path.relative_to(PACKAGE).parts
    }


MODULES = frozenset(_modules())


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The ``burraco`` modules an import statement names, relative to the package
    (``""``: the package itself, whose ``__init__`` exports the engine)."""
    if isinstance(node, ast.Import):
        full = [alias.name for alias in node.names]
    else:
        if node.level:
            here = ["burraco", *filter(None, module.split("."))]
            if not is_package:
                here = here[:-1]
            base = here[: len(here) - node.level + 1]
            stem = ".".join([*base, node.module] if node.module else base)
        else:
            stem = node.module or ""
        # ``from burraco import deal`` imports the module deal; ``from burraco import Deal``
        # a name of the package.
        full = [
            f"{stem}.{alias.name}"
            if f"{stem}.{alias.name}".removeprefix("burraco.") in MODULES
            else stem
            for alias in node.names
        ]
    found = []
    for name in full:
        if name == "burraco" or name.startswith("burraco."):
            found.append(name.removeprefix("burraco").removeprefix("."))
    return list(dict.fromkeys(found))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, package: Path = PACKAGE) -> Iterator[Import]:
    """Every import of a ``burraco`` module in one file, with where it stands."""
    module = _name(path, package)
    is_package = path.name == "__init__.py"

    def walk(nodes: list[ast.stmt], function: str, scope: str, type_only: bool) -> Iterator[Import]:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(node, module, is_package):
                    yield Import(module, target, node.lineno, function, type_only)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(node.body, f"{scope}{node.name}", f"{scope}{node.name}.", False)
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, function, f"{scope}{node.name}.", type_only)
            elif isinstance(node, ast.If):
                inner = type_only or _is_type_checking(node)
                yield from walk(node.body, function, scope, inner)
                yield from walk(node.orelse, function, scope, type_only)
            elif isinstance(node, ast.Try | ast.With | ast.For | ast.While):
                for block in ("body", "handlers", "orelse", "finalbody"):
                    for inner in getattr(node, block, []):
                        body = inner.body if isinstance(inner, ast.ExceptHandler) else [inner]
                        yield from walk(body, function, scope, type_only)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")).body, "", "", False)


def _floor(module: str) -> int:
    # The package's __init__ exports the whole engine: it stands above every floor.
    return FLOORS.index(module) if module else len(FLOORS)


def _layer(module: str) -> int:
    head = module.split(".")[0]
    for index, layer in enumerate(LAYERS):
        if head in layer:
            return index
    raise AssertionError(f"burraco.{module} is in no layer: name it in LAYERS")


def upward_imports(imports: list[Import]) -> list[str]:
    """The engine's imports of a higher floor that are not a named exception, as text."""
    wrong = []
    for i in imports:
        if i.module not in FLOORS or i.target not in (*FLOORS, ""):
            continue
        if _floor(i.target) < _floor(i.module):
            continue
        where = f"burraco/{i.module}.py:{i.line}"
        if i.function and (i.module, i.function, i.target) not in CONVENIENCES:
            wrong.append(f"{where}: {i.function}() imports {i.target}, a floor above")
        elif not i.function and i.type_only and (i.module, i.target) not in TYPE_ONLY:
            wrong.append(f"{where}: imports {i.target} (for types), a floor above")
        elif not i.function and not i.type_only:
            wrong.append(f"{where}: imports {i.target}, a floor above, at module level")
    return wrong


def circles(imports: list[Import]) -> list[list[str]]:
    """The circles among module-level imports that run (not the TYPE_CHECKING ones)."""
    graph: dict[str, set[str]] = {}
    for i in imports:
        if not i.function and not i.type_only and i.target != i.module:
            graph.setdefault(i.module, set()).add(i.target)
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def layer_breaches(imports: list[Import]) -> list[str]:
    return [
        f"burraco/{i.module.replace('.', '/')}:{i.line}: {i.module or 'burraco'} imports "
        f"{i.target}, a higher layer"
        for i in imports
        if _layer(i.target) > _layer(i.module)
    ]


def _all_imports() -> list[Import]:
    return [i for path in _modules().values() for i in imports_of(path)]


def test_floors_name_every_engine_module() -> None:
    top = {name for name in MODULES if "." not in name and name}
    engine = top.difference(*LAYERS[1:])
    assert engine == set(FLOORS), "name a new engine module in FLOORS (and in README.md)"


def test_the_engine_imports_only_lower_floors() -> None:
    assert upward_imports(_all_imports()) == []


def test_the_named_exceptions_are_still_there() -> None:
    # An exception nobody uses any more is dropped from the lists, so that they stay exact.
    imports = _all_imports()
    used = {(i.module, i.function, i.target) for i in imports if i.function}
    assert set(CONVENIENCES) <= used
    typed = {(i.module, i.target) for i in imports if i.type_only}
    assert set(TYPE_ONLY) <= typed


def test_no_import_circle() -> None:
    assert circles(_all_imports()) == []


def test_layers_import_only_lower_layers() -> None:
    assert layer_breaches(_all_imports()) == []


def test_readme_lists_the_floors() -> None:
    readme = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    listed = " → ".join(f"`{name}`" for name in FLOORS)
    assert listed in readme


# --- the checks catch what they are for ---------------------------------------------------


def _imports_of_source(tmp_path: Path, module: str, source: str) -> list[Import]:
    path = tmp_path / "burraco" / f"{module.replace('.', '/')}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return list(imports_of(path, tmp_path / "burraco"))


@pytest.mark.parametrize(
    "source",
    [
        "from burraco.position import position_of\n",
        "from . import position\n",
        "from .position import position_of\n",
        "import burraco.position\n",
        "from burraco import position\n",
        "from burraco import Match\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from burraco.match import Match\n",
        "def score(deal):\n    from burraco.record import record_of\n",
        "class Deal:\n    def replay(self):\n        from .match import Match\n",
    ],
)
def test_an_upward_import_fails(tmp_path: Path, source: str) -> None:
    imports = _imports_of_source(tmp_path, "deal", source)
    assert imports, "the import was not read"
    assert len(upward_imports(imports)) == 1


def test_a_downward_import_and_the_conveniences_pass(tmp_path: Path) -> None:
    source = """
        from typing import TYPE_CHECKING
        from burraco.cards import Card
        from . import melds
        if TYPE_CHECKING:
            from burraco.deal import Deal
        class DealView:
            def position(self):
                from burraco.position import view_position
    """
    assert upward_imports(_imports_of_source(tmp_path, "view", source)) == []


def test_a_circle_fails() -> None:
    a = Import("scoring", "deal", 1)
    b = Import("deal", "scoring", 1)
    assert circles([a, b]) == [["deal", "scoring", "deal"]]
    assert circles([a, Import("deal", "scoring", 1, function="Deal.score")]) == []


def test_a_layer_breach_fails(tmp_path: Path) -> None:
    for module, source in (
        ("deal", "from burraco.bots.greedy import GreedyBot\n"),
        ("bots.greedy", "def f():\n    from burraco.storage import Store\n"),
        ("storage.store", "from burraco.server.room import Room\n"),
    ):
        assert len(layer_breaches(_imports_of_source(tmp_path, module, source))) == 1


# --- each module alone ------------------------------------------------------------------------

_ALONE = """
import importlib, sys, types
package = types.ModuleType("burraco")
package.__path__ = [{path!r}]  # the package without its __init__, which imports them all
sys.modules["burraco"] = package
importlib.import_module("burraco." + {name!r})
print({name!r})
"""


def test_each_engine_module_imports_alone() -> None:
    # One fresh interpreter a module: a compiled module (mypyc) is never imported twice in
    # one process, so the modules cannot take turns in one.
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _ALONE.format(path=str(PACKAGE), name=name)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in FLOORS
    ]
    said = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        said.append(out.strip())
    assert said == list(FLOORS)
