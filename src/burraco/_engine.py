"""Which rules engine runs: the compiled one (mypyc, built from the same source) or the pure.

``setup.py`` compiles the hot modules of the rules (:data:`COMPILED_MODULES`) with mypyc
where a C compiler is present, and writes beside them ``_engine_build.json``: the
SHA-256 of each module's source the build read. Python imports an extension module
before a ``.py`` of the same name, so this module, imported first by ``burraco``, picks
the engine before any rule module loads:

* ``BURRACO_PURE=1`` in the environment: the pure engine, from the ``.py`` files;
* no compiled modules (no C compiler at install time): the pure engine;
* compiled modules whose recorded sources differ from the ``.py`` beside them (an
  editable install whose source was edited after the build): the pure engine, with one
  warning naming the module and how to rebuild, so a stale build never runs silently;
* otherwise the compiled engine.

The pure engine is chosen for all the modules or none: compiled modules call each other
directly and check each other's classes, so they do not mix with pure ones.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

#: The modules setup.py compiles (names under ``burraco``).
COMPILED_MODULES: Final = ("cards", "actions", "errors", "refusals", "melds", "scoring", "deal")
#: The build's record of the sources it compiled, beside the modules.
BUILD_RECORD: Final = "_engine_build.json"
#: How to rebuild an editable install's compiled modules after editing their source.
REBUILD: Final = "pip install -e . (or python setup.py build_ext --inplace)"

_HERE: Final = Path(__file__).resolve().parent


def source_digest(name: str) -> str:
    """The SHA-256 of a compiled module's source, as setup.py records it."""
    return hashlib.sha256((_HERE / f"{name}.py").read_bytes()).hexdigest()


def _built() -> list[str]:
    """The engine modules with an extension module beside their source."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return [
        name
        for name in COMPILED_MODULES
        if any((_HERE / f"{name}{suffix}").exists() for suffix in suffixes)
    ]


def _stale(built: Sequence[str]) -> list[str]:
    """The compiled modules whose source changed since the build (or the build unrecorded)."""
    try:
        record = json.loads((_HERE / BUILD_RECORD).read_text())
    except (OSError, ValueError):
        return list(built)
    return [
        name
        for name in built
        if not (_HERE / f"{name}.py").exists() or record.get(name) != source_digest(name)
    ]


def choose() -> tuple[str, str]:
    """The engine to run ("compiled" or "pure") and why."""
    if os.environ.get("BURRACO_PURE", "") not in ("", "0"):
        return "pure", "BURRACO_PURE is set"
    built = _built()
    if not built:
        return "pure", "no compiled modules (installed without a C compiler, or BURRACO_PURE=1)"
    if len(built) < len(COMPILED_MODULES):
        missing = sorted(set(COMPILED_MODULES) - set(built))
        return "pure", f"compiled modules missing: {', '.join(missing)}; rebuild: {REBUILD}"
    stale = _stale(built)
    if stale:
        return (
            "pure",
            f"compiled modules older than their source: {', '.join(stale)}; rebuild: {REBUILD}",
        )
    return "compiled", "built by mypyc from this source"


class _PureFinder(importlib.abc.MetaPathFinder):
    """Loads the engine modules from their ``.py`` even where an extension module sits beside."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != "burraco" or name not in COMPILED_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _HERE / f"{name}.py")


ENGINE, REASON = choose()
if ENGINE == "pure" and _built():
    if not any(isinstance(f, _PureFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _PureFinder())
    if "rebuild" in REASON:
        warnings.warn(f"burraco runs the pure engine: {REASON}", RuntimeWarning, stacklevel=2)


def engine() -> str:
    """The engine the rules run on, as ``burraco --version`` says it."""
    from burraco.deal import COMPILED

    return "compiled" if COMPILED else "pure"
