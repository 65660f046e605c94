"""Argon2id parameters for the room's passwords: milliseconds per hash on this machine.

Run: ``python bench/hashing.py [--rounds 20]``

It times ``argon2-cffi`` hashing one password with the old parameters (m=65536, t=3,
p=4, pwdlib's defaults) and with each of OWASP's Password Storage Cheat Sheet choices
for Argon2id (equal strength, memory traded for passes), alone and with two hashes at
once (two threads: the room's cores are two). docs/operating.md quotes its figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher

#: (memory KiB, passes, lanes): the old parameters, then OWASP's list.
CANDIDATES = (
    (65536, 3, 4),
    (47104, 1, 1),
    (19456, 2, 1),
    (12288, 3, 1),
    (9216, 4, 1),
    (7168, 5, 1),
)


def timed(hasher: PasswordHasher, rounds: int, threads: int) -> float:
    """Median milliseconds of one hash while ``threads`` hashes run at once."""

    def one(_: int) -> float:
        start = time.perf_counter()
        hasher.hash("cuori e picche")
        return (time.perf_counter() - start) * 1000

    with ThreadPoolExecutor(threads) as pool:
        return statistics.median(pool.map(one, range(rounds * threads)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    print(f"{'m (KiB)':>8} {'t':>2} {'p':>2} {'ms alone':>9} {'ms, 2 at once':>14}")
    for memory, passes, lanes in CANDIDATES:
        hasher = PasswordHasher(time_cost=passes, memory_cost=memory, parallelism=lanes)
        alone = timed(hasher, args.rounds, 1)
        two = timed(hasher, args.rounds, 2)
        print(f"{memory:>8} {passes:>2} {lanes:>2} {alone:>9.1f} {two:>14.1f}")


if __name__ == "__main__":
    main()
