"""The cyclic garbage collector of a long-running room: what is built at start-up is frozen.

A full collection walks every object the collector tracks. A serving process holds tens
of thousands built once at start-up (the modules, the app and its routes, the database's
metadata, the variants) that live as long as the process: freezing them
(:func:`gc.freeze`) takes them out of every later collection's walk. Only what is alive
when the process starts is frozen, once, after a collection: nothing frozen is garbage,
and nothing frozen is let go of before the process ends, so freezing leaks nothing. The
tables (loaded or new) are not frozen: a finished table's reference cycles must stay
collectable.
"""

from __future__ import annotations

import gc


def freeze_startup() -> int:
    """Collect, then freeze every object alive now; the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
