"""The server's floors, as test_floors.py keeps the engine's: each module imports only
what lies below it.

The layers stand engine <- bots <- storage <- server (test_floors.py, ``LAYERS``). Inside
the server, three floors, lowest first: the room, its parts and what serves them (the
desk, the cluster, accounts, quick play, ...); the routers (a module with a ``routes()``,
and ``http_errors``, which answers what they refuse); ``app``, which wires them and which
only the command line imports. These tests read every import (``imports_of``), at module
level, inside a function (an import put off is still an import: ``cluster`` reached back
into ``app._local`` so) and for annotations alike, and fail on:

1. a server module importing one on a higher floor of the server;
2. a circle among the server's modules, imports inside functions counted (only the
   ``if TYPE_CHECKING:`` ones, for annotations, are not: they never run);
3. ``app`` imported by anything of the package but the command line.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from test_floors import PACKAGE, Import, circles, imports_of

#: The modules above the routers: what wires them.
TOP = frozenset({"server.app"})
#: What stands with the routers without a ``routes()`` of its own.
WITH_THE_ROUTERS = frozenset({"server.http_errors"})
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
    return 1 if module in routers or module in WITH_THE_ROUTERS else 0


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
    assert {"server.table_api", "server.tournament_api", "server.socket_api"} <= ROUTERS
    assert {"server.page_api", "server.players", "server.review_api"} <= ROUTERS


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
    importers = {i.module for i in _package_imports() if i.target == "server.forwarded"}
    assert {"server.app", "server.cluster"} <= importers


# --- the checks catch what they are for ---------------------------------------------------


def test_the_cluster_reaching_back_into_app_fails() -> None:
    # As cluster.py did: ``from burraco.server.app import _local`` inside Cluster._run.
    reach_back = Import("server.cluster", "server.app", 318, function="Cluster._run")
    wired = Import("server.app", "server.cluster", 42)
    assert len(upward([reach_back, wired], frozenset())) == 1
    assert run_time_circles([reach_back, wired]) == [["server.app", "server.cluster", "server.app"]]


def test_a_part_importing_a_router_fails_and_annotations_make_no_circle() -> None:
    routers = frozenset({"server.table_api"})
    assert len(upward([Import("server.room", "server.table_api", 1)], routers)) == 1
    assert upward([Import("server.table_api", "server.room", 1)], routers) == []
    typed = Import("server.desk", "server.cluster", 44, type_only=True)
    assert run_time_circles([typed, Import("server.cluster", "server.desk", 1)]) == []
