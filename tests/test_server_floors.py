"""The server's floors, as test_floors.py keeps the engine's: each module imports only
what lies below it.

The layers stand engine <- bots <- storage <- server (test_floors.py, ``LAYERS``). Inside
the server, three floors, lowest first: the room, its parts and what serves them (the
folders ``table/``, ``desk/``, ``cluster/``, ``accounts/``, ``quick/``, ``results/``,
``door/``, ``process/`` and the top floor's shared vocabulary); the routers (the folder
``routes/``, whose ``errors`` answers what they refuse and ``shells`` holds the pages'
files, and a module with a ``routes()`` in any other folder); ``app``, which wires them and
which only the command line imports. These tests read every import (``imports_of``), at
module level, inside a function (an import put off is still an import: the cluster reached
back into ``app._local`` so) and for annotations alike, and fail on:

1. a server module importing one on a higher floor of the server;
2. a circle among the server's modules, imports inside functions counted (only the
   ``if TYPE_CHECKING:`` ones, for annotations, are not: they never run);
3. ``app`` imported by anything of the package but the command line;
4. a module on the server's top floor but ``app``, ``room`` and the table's shared
   vocabulary, or a folder without its one-paragraph docstring, or whose ``__init__``
   re-exports (server/__init__.py's docstring lists the folders).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from test_floors import PACKAGE, Import, circles, imports_of

#: The modules above the routers: what wires them.
TOP = frozenset({"server.app"})
#: The folder of the routers: all of it stands on their floor, those of its modules without
#: a ``routes()`` of their own too (``errors``, ``shells``).
ROUTER_FOLDERS = frozenset({"server.routes"})
#: What stays on the server's top floor: what wires everything, the live tables, and the
#: table's shared vocabulary; the rest lives in a folder by concern.
TOP_FLOOR = frozenset(
    {"server", "server.app", "server.room", "server.messages", "server.watching"}
    | {"server.chat", "server.absence"}
)
#: The folders by concern, each with an ``__init__`` that only says what lives there.
#: ``table/`` and ``desk/`` are older: their ``__init__`` wires their parts.
FOLDERS = frozenset(
    {"accounts", "quick", "results", "door", "process", "cluster", "routes", "table", "desk"}
)
PLAIN_FOLDERS = FOLDERS - {"table", "desk"}
#: The modules outside the server that may import ``app``: the command line's.
ENTRY_POINTS = frozenset({"cli"})


def _server_modules() -> dict[str, Path]:
    found = {}
    for path in sorted((PACKAGE / "server").rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_router(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == "routes" for n in tree.body)


def floor_of(module: str, routers: frozenset[str]) -> int:
    """0: the room, its parts and what serves them; 1: the routers; 2: app."""
    if module in TOP:
        return 2
    in_router_folder = any(module.startswith(f"{folder}.") for folder in ROUTER_FOLDERS)
    return 1 if module in routers or in_router_folder else 0


def upward(imports: list[Import], routers: frozenset[str]) -> list[str]:
    """The server's imports of a higher floor of the server, as text."""
    return [
        f"burraco/{i.module.replace('.', '/')}:{i.line}: {i.module} imports {i.target}, "
        "a floor above"
        for i in imports
        if i.module.startswith("server")
        and i.target.startswith("server")
        and floor_of(i.target, routers) > floor_of(i.module, routers)
    ]


def run_time_circles(imports: list[Import]) -> list[list[str]]:
    """The circles among the imports that run, those inside functions too."""
    return circles([replace(i, function="") for i in imports if not i.type_only])


def _package_imports() -> list[Import]:
    return [i for path in sorted(PACKAGE.rglob("*.py")) for i in imports_of(path)]


ROUTERS = frozenset(m for m, path in _server_modules().items() if _is_router(path))


def test_the_routers_are_found() -> None:
    assert {"server.routes.tables", "server.desk.api", "server.routes.sockets"} <= ROUTERS
    assert {"server.routes.pages", "server.results.players", "server.routes.reviews"} <= ROUTERS
    assert {"server.accounts.api", "server.quick.api", "server.results.moderation_api"} <= ROUTERS


def test_the_routes_folder_stands_with_the_routers_and_the_rest_below() -> None:
    assert floor_of("server.routes.errors", frozenset()) == 1
    assert floor_of("server.routes.shells", frozenset()) == 1
    assert floor_of("server.accounts.people", ROUTERS) == 0
    assert floor_of("server.door.limits", ROUTERS) == 0
    assert floor_of("server.app", ROUTERS) == 2


def test_the_server_imports_only_its_lower_floors() -> None:
    assert upward(_package_imports(), ROUTERS) == []


def test_no_circle_in_the_server_not_even_through_a_function() -> None:
    server = [i for i in _package_imports() if i.module.startswith("server")]
    assert run_time_circles(server) == []


def test_only_the_command_line_imports_app() -> None:
    importers = {i.module for i in _package_imports() if i.target == "server.app"}
    assert importers <= ENTRY_POINTS


def test_the_forwarded_operations_are_below_app_and_the_cluster() -> None:
    # What the cluster runs for another process, and the routes ask of a table's owner.
    importers = {i.module for i in _package_imports() if i.target == "server.cluster.forwarded"}
    assert {"server.app", "server.cluster.calls"} <= importers


#: The cluster's modules, lowest first (as ``cluster/__init__.py`` lists them): each
#: imports only those before it, so that each part is built and tested without the ones
#: above it, and ``processes`` (``Cluster``, which wires them) alone stands on them all.
CLUSTER_ORDER = (
    "wire", "nodes", "leases", "forwarded", "owners", "calls", "relays", "relayed", "processes"
)  # fmt: skip


def cluster_breaches(imports: list[Import], order: tuple[str, ...]) -> list[str]:
    """The cluster's imports of one of its modules listed at or after the importer."""
    prefix = "server.cluster."
    return [
        f"{i.module} imports {i.target}, listed after it"
        for i in imports
        if i.module.startswith(prefix)
        and i.target.startswith(prefix)
        and order.index(i.target.removeprefix(prefix)) >= order.index(i.module.removeprefix(prefix))
    ]


def test_the_clusters_parts_import_only_those_listed_before_them() -> None:
    folder = PACKAGE / "server" / "cluster"
    assert set(CLUSTER_ORDER) == {p.stem for p in folder.glob("*.py")} - {"__init__"}
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    places = [doc.index(f"``{name}``") for name in CLUSTER_ORDER]
    assert places == sorted(places), "cluster/__init__.py lists its modules in another order"
    # Every import, for types and inside functions too.
    assert cluster_breaches(_package_imports(), CLUSTER_ORDER) == []


def test_the_top_floor_holds_only_the_room_app_and_the_tables_vocabulary() -> None:
    top = {m for m in _server_modules() if m.count(".") == 1 or m == "server"}
    assert top - {f"server.{folder}" for folder in FOLDERS} == TOP_FLOOR


def test_each_folder_says_what_lives_there_in_one_paragraph_and_exports_nothing() -> None:
    for folder in sorted(FOLDERS):
        path = PACKAGE / "server" / folder / "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert len(doc) > 100, f"server/{folder}/__init__.py says too little"
        if folder in PLAIN_FOLDERS:
            assert "\n\n" not in doc.strip(), f"server/{folder}: one paragraph"
            assert len(tree.body) == 1, f"server/{folder}/__init__.py holds more than its words"
    # And server/__init__.py names every folder.
    doc = ast.get_docstring(ast.parse((PACKAGE / "server" / "__init__.py").read_text())) or ""
    assert all(f"``{folder}/``" in doc for folder in FOLDERS)


# --- the checks catch what they are for ---------------------------------------------------


def test_the_cluster_reaching_back_into_app_fails() -> None:
    # As cluster.py did: ``from burraco.server.app import _local`` inside Cluster._run.
    cluster = "server.cluster.processes"
    reach_back = Import(cluster, "server.app", 318, function="Cluster._run")
    wired = Import("server.app", cluster, 42)
    assert len(upward([reach_back, wired], frozenset())) == 1
    assert run_time_circles([reach_back, wired]) == [["server.app", cluster, "server.app"]]


def test_a_cluster_part_importing_one_listed_after_it_fails() -> None:
    order = ("nodes", "leases", "processes")
    upward = Import("server.cluster.leases", "server.cluster.processes", 1, type_only=True)
    down = Import("server.cluster.processes", "server.cluster.leases", 1)
    assert len(cluster_breaches([upward, down], order)) == 1
    assert cluster_breaches([Import("server.cluster.leases", "server.room", 1)], order) == []


def test_a_part_importing_a_router_fails_and_annotations_make_no_circle() -> None:
    routers = frozenset({"server.accounts.api"})
    assert len(upward([Import("server.room", "server.accounts.api", 1)], routers)) == 1
    assert upward([Import("server.accounts.api", "server.room", 1)], routers) == []
    # A module of routes/ is on the routers' floor, with or without its routes().
    assert len(upward([Import("server.accounts.people", "server.routes.shells", 1)], routers)) == 1
    cluster = "server.cluster.processes"
    typed = Import("server.desk", cluster, 44, type_only=True)
    assert run_time_circles([typed, Import(cluster, "server.desk", 1)]) == []
