"""The doctests of a research module are collected only when its extra is installed
(``pip install -e '.[dev,research]'``; the learner also needs ``.[learn]``)."""

from __future__ import annotations

import importlib.util

#: Each research module and the libraries it imports at its top.
_NEEDS: dict[str, tuple[str, ...]] = {
    "src/burraco/research/__init__.py": (),
    "src/burraco/research/_table.py": ("gymnasium",),
    "src/burraco/research/aec.py": ("gymnasium", "pettingzoo"),
    "src/burraco/research/gym.py": ("gymnasium",),
    "src/burraco/research/spiel.py": ("pyspiel",),
    "src/burraco/research/simulate.py": (),
    "src/burraco/research/learn.py": ("torch",),
}

collect_ignore = [
    path
    for path, modules in _NEEDS.items()
    if any(importlib.util.find_spec(m) is None for m in modules)
]
