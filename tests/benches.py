"""The scripts of bench/ as modules, for the tests that run them at small scale."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load_bench(name: str) -> ModuleType:
    """``bench/{name}.py`` run afresh as the module ``{name}_bench``."""
    module_name = f"{name}_bench"
    spec = importlib.util.spec_from_file_location(module_name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: a script's dataclasses look their module up.
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
