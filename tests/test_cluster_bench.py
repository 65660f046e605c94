"""bench/cluster.py at small scale: nginx in front of three processes on one PostgreSQL and
one Redis, people playing through it, one process killed with ``kill -9``.

Every player of the killed process plays again within the lease and 5 s, and nothing the
people were told is missing from the database: acknowledged actions, finished tables'
results, ratings. nginx passes each person's address on, and the rate limits count
people, not the proxy. Skipped only where nginx, Redis or PostgreSQL cannot be installed
(``scripts/test.sh`` installs them).
"""

from __future__ import annotations

import asyncio
import pwd
import shutil

import httpx
import pytest
from benches import load_bench
from waits import seconds

bench = load_bench("cluster")
pytestmark = [
    pytest.mark.skipif(bench.NGINX is None, reason="nginx is not installed"),
    pytest.mark.skipif(bench.REDIS is None, reason="redis-server is not installed"),
    pytest.mark.skipif(not bench.POSTGRES_BIN, reason="PostgreSQL's server is not installed"),
    pytest.mark.skipif(
        shutil.which("runuser") is None or not any(u.pw_name == "postgres" for u in pwd.getpwall()),
        reason="no postgres user to run the server as",
    ),
]
pytest.importorskip("psycopg")


def test_a_killed_process_behind_nginx_loses_nothing_and_its_players_play_on() -> None:
    from burraco.server.cluster.leases import OWNER_SECONDS

    with bench.cluster(quick_wait=5.0) as room:
        evening, failover = asyncio.run(
            bench.evening_of(
                room,
                tables=4,
                rated=2,
                quick=0,
                before=seconds(8),
                after=seconds(10),
                deadline=OWNER_SECONDS + 5 + seconds(10),
                # Quick enough that rated one-deal matches end during the test, and slow
                # enough to stay within a socket's pace (60 messages in 10 s): past it,
                # messages are dropped for seconds, and the pair's table stands still.
                rated_think=(0.05, 0.15),
                # A rated match over at least, however long the failover held it.
                finished=1,
            )
        )
        problems = bench.lost(room.database, evening, wait=seconds(30))
        print("\n".join(bench.Report(evening, failover, problems).lines()))
        assert problems == []
        assert failover.players > 0, "the killed process owned no table in play"
        assert failover.players_back is not None, "a player never played again"
        assert failover.players_back < OWNER_SECONDS + 5
        # Something to check: actions of every phase, and rated matches finished.
        assert all(evening.latencies[p] for p in bench.PHASES)
        assert evening.quick["rated results"] > 0

        # The rate limits see each person's address through nginx, not nginx's: one
        # address past its tables a minute is refused, another is not. (Each process
        # counts its own requests: behind three, an address may make up to three times
        # its rate, docs/cluster.md.)
        body = {"name": "Ugo", "move_seconds": 0}
        limited = httpx.Client(base_url=room.url, headers={"X-Forwarded-For": "10.99.0.1"})
        answers = [limited.post("/api/tables", json=body).status_code for _ in range(61)]
        assert 429 in answers and set(answers) == {200, 429}, answers
        other = httpx.post(
            f"{room.url}/api/tables", json=body, headers={"X-Forwarded-For": "10.99.0.2"}
        )
        assert other.status_code == 200, other.text
