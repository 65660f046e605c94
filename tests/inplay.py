"""Tables in play written straight into a database, many and fast: a room restarted on it
rebuilds each from its log (tests of the restart, bench/restart.py)."""

from __future__ import annotations

import hashlib
import json
import random
import time

from sqlalchemy import insert

from burraco.match import Match
from burraco.storage import Store, models
from burraco.storage.store import SeatRow, TableRow
from burraco.variants import variant


def fill(url: str, tables: int, moves: int, seed: int = 1) -> dict[str, str]:
    """``tables`` tables of italian burraco, two players, ``moves`` random legal actions
    into their match, Anna (a person) in seat 0 and a greedy bot in seat 1; their ids with
    Anna's seat token. One transaction: a few seconds for hundreds of tables."""
    rng = random.Random(seed)
    store = Store(url)
    v = variant("italian", players=2)
    now = time.time()
    made: dict[str, str] = {}
    table_rows, seat_rows, event_rows = [], [], []
    for i in range(tables):
        table_id, token = f"t-fill{i:05d}", f"token-{i}"
        row = TableRow(
            table_id, "italian", json.dumps({"players": 2}), rng.getrandbits(62), 40,
            "greedy", True, "playing", now - 60, now,
        )  # fmt: skip
        table_rows.append(_fields(row))
        digest = hashlib.sha256(token.encode()).hexdigest()
        seat_rows += [
            _fields(SeatRow(table_id, 0, "Anna", "human", digest)),
            _fields(SeatRow(table_id, 1, "greedy bot 1", "bot", "")),
        ]
        event_rows.append(_event(table_id, 1, "start", None, {}, now))
        match = Match(v, seed=row.seed)
        for version in range(2, moves + 2):
            if match.is_over:
                break
            seat = match.deal.turn
            action = rng.choice(match.legal_actions())
            match.apply(action)
            event_rows.append(
                _event(table_id, version, "action", seat, {"action": str(action)}, now)
            )
        made[table_id] = token
    with store.engine.begin() as c:
        c.execute(insert(models.tables), table_rows)
        c.execute(insert(models.seats), seat_rows)
        c.execute(insert(models.events), event_rows)
    store.engine.dispose()
    return made


def _fields(row: object) -> dict[str, object]:
    return {name: getattr(row, name) for name in row.__slots__}  # type: ignore[attr-defined]


def _event(
    table_id: str, version: int, kind: str, seat: int | None, payload: dict[str, str], at: float
) -> dict[str, object]:
    return {
        "table_id": table_id, "version": version, "kind": kind, "seat": seat,
        "payload": json.dumps(payload), "created_at": at,
    }  # fmt: skip
