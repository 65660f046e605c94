"""SQLite's side of the store: the file a database URL names, the lock that keeps a
database file to one process (an flock on the file itself, given back for the next
holder, never closed), and the pragmas each new connection gets (WAL, NORMAL sync, a
10 s busy wait, foreign keys). PostgreSQL needs none of it; the store's base
(``base.py``) calls these for a SQLite URL only.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url

from burraco.storage.errors import StoreInUse


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite database URL, whatever its query says (``?mode=rw``, a
    ``file:`` URI); None for another database or one in memory.

    >>> sqlite_file("sqlite:///rooms/a.db?mode=rw"), sqlite_file("sqlite://")
    (PosixPath('rooms/a.db'), None)
    >>> sqlite_file("sqlite:///file:rooms/a.db?mode=rw&uri=true")
    PosixPath('rooms/a.db')
    """
    found = make_url(url)
    if found.get_backend_name() != "sqlite":
        return None
    name = found.database or ""
    if name.startswith("file:"):
        name = urlsplit(name).path
    if name in ("", ":memory:") or found.query.get("mode") == "memory":
        return None
    return Path(name).expanduser()


@dataclass(frozen=True, slots=True)
class FileLock:
    """A SQLite database held by this process: an flock on the database file itself, so
    that every name of the file (a symlink, a hard link, a URL with ``?mode=rw``) meets
    the same lock, which is the inode's (its device and number). It goes with the
    process, even on kill -9.

    The descriptor is never closed, only unlocked and kept for the next holder: closing
    any descriptor of a file drops every POSIX lock the process holds on it, and SQLite
    locks the same file that way (flock and POSIX locks are apart on Linux)."""

    descriptor: int
    inode: tuple[int, int]

    @classmethod
    def take(cls, file: Path) -> FileLock:
        import fcntl

        real = file.resolve()
        try:
            seen = os.stat(real)
            spare = _SPARE.get((seen.st_dev, seen.st_ino), [])
        except FileNotFoundError:
            spare = []
        if spare:
            descriptor = spare.pop()
        else:
            # A new database is an empty file to SQLite: making it here changes nothing.
            descriptor = os.open(real, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        seen = os.fstat(descriptor)
        inode = (seen.st_dev, seen.st_ino)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            _SPARE.setdefault(inode, []).append(descriptor)
            named = str(file) if file == real else f"{file} (the file {real})"
            raise StoreInUse(
                f"{named} is served by {_holder(inode)}: stop it first, "
                "or run several processes on one database with --redis-url (docs/cluster.md)"
            ) from None
        return cls(descriptor, inode)

    def give_back(self) -> None:
        import fcntl

        fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        _SPARE.setdefault(self.inode, []).append(self.descriptor)


#: Unlocked descriptors of database files, by inode, for the next :class:`FileLock`.
_SPARE: dict[tuple[int, int], list[int]] = {}


def _holder(inode: tuple[int, int]) -> str:
    """Who holds the flock on this inode, as /proc/locks tells (Linux), by its pid."""
    device, number = inode
    wanted = f"{os.major(device):02x}:{os.minor(device):02x}:{number}"
    with contextlib.suppress(OSError):
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if "->" not in fields and "FLOCK" in fields and wanted in fields:
                return f"process {fields[fields.index(wanted) - 1]}"
    return "another process"


def sqlite_pragmas(connection: object, _record: object) -> None:
    # WAL keeps readers off the writer's back; NORMAL still survives a killed process.
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
