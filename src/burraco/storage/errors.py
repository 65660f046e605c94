"""What the store refuses: a version of a table's log or a seat another writer took
first, a name another account has, a database that cannot store now (the caller says so
and tries again later), and a database another process serves. The room turns each into
its own answer (``server/routes/errors.py``, ``server/table/``).
"""

from __future__ import annotations


class StaleVersion(Exception):
    """Another writer stored this version of the table first."""


class SeatTaken(Exception):
    """Another writer gave this seat to someone first."""


class StorageUnavailable(Exception):
    """The database refused a write (disk full, read-only, gone): nothing was stored."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"the database cannot store this now: {cause}")
        self.cause = cause


class NameTaken(Exception):
    """Another account has this name (names are unique whatever their case)."""


class StoreInUse(Exception):
    """Another process serves this database (one process per database without Redis)."""
