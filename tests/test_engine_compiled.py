"""The compiled engine (mypyc, built from the same source by setup.py) against the pure one.

Which engine runs is said by ``burraco --version``, ``burraco variants`` and this
session's header (conftest). The differential test plays random deals of every preset
and table twice, once in a process on the compiled engine and once in a process on the
pure one (``BURRACO_PURE=1`` loads the rule modules from their ``.py``, see
``burraco._engine``), and compares at every position: the legal actions, the whole
state (its position text), every seat's view, the refusal of a few illegal actions
(adversarial: cards not held, melds that break rules, meld numbers past the end) and
at the end the score. Each process prints a digest per deal; a deal whose digests
differ is traced again in both to name the first position where they part.

Default run: ``POSITIONS`` positions per table. ``-m slow``: 100,000 positions per
preset (spread over its tables). Run this file as a script to print a trace::

    BURRACO_PURE=1 python tests/test_engine_compiled.py --setup italian-2-2 --positions 300
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import burraco
from burraco import Action, Deal, IllegalMove, variant
from burraco._engine import COMPILED_MODULES, engine
from burraco.actions import DISCARD, EXTEND, MELD, TAKE
from burraco.variants import SETUPS

ROOT = Path(__file__).resolve().parent.parent

#: Positions per table in the default run.
POSITIONS = 600
#: Positions per preset under ``-m slow``.
SLOW_POSITIONS = 100_000
SETUP_NAMES = [f"{name}-{players}-{lines}" for name, players, lines in SETUPS]


def _setup(text: str) -> tuple[str, int, int]:
    name, players, lines = text.rsplit("-", 2)
    return name, int(players), int(lines)


def _adversarial(deal: Deal, rng: random.Random) -> list[Action]:
    """A few actions built without looking at the rules: most are refused, for a reason."""
    seat = deal.turn
    held = [c for c in deal.hand(seat)] or [0]
    any_card = rng.randrange(53)
    melds = len(deal.line_melds(seat))
    return [
        Action(DISCARD, (any_card,)),
        Action(MELD, tuple(sorted(rng.choice(held) for _ in range(3)))),
        Action(MELD, tuple(sorted([rng.choice(held), any_card, rng.randrange(53)]))),
        Action(EXTEND, (rng.choice(held),), rng.randrange(melds + 2)),
        Action(TAKE, tuple(sorted(rng.choice(held) for _ in range(2)))),
    ]


def deal_lines(setup: str, seed: int, views: bool = True) -> Iterator[str]:
    """The text of one random deal, a line a position: what both engines must agree on."""
    name, players, lines = _setup(setup)
    v = variant(name, players=players, lines=lines)
    rng = random.Random(seed)
    deal = Deal.new(v, seed, dealer=seed % players)
    step = 0
    while not deal.is_over:
        legal = deal.legal_actions()
        yield f"{step} state {deal.position()}"
        yield f"{step} legal {' | '.join(map(str, legal))}"
        # The values people's code reads as Cards, with their types (a Card prints as one):
        # the melds whole (a compiled engine once kept their wildcards as plain ints).
        melds = [list(line) for line in deal.melds]
        yield f"{step} public {deal.pile!r} {deal.pozzetti!r} {melds!r} {deal.history[-2:]!r}"
        if views and step % 7 == 0:
            for seat in range(players):
                yield f"{step} view {seat} {deal.position(seat=seat)}"
                yield f"{step} view object {seat} {deal.view(seat)!r}"
        for action in _adversarial(deal, rng):
            try:
                deal.check(action)
                yield f"{step} check {action}: legal"
            except IllegalMove as e:
                yield f"{step} check {action}: {e.code} {e}"
        action = legal[rng.randrange(len(legal))]
        yield f"{step} apply {action}"
        deal.apply(action)
        step += 1
    yield f"end {deal.end_reason} {deal.score()!r}"
    yield f"end state {deal.position()}"


def play(setup: str, positions: int, first_seed: int) -> Iterator[tuple[int, str, int]]:
    """(seed, digest, positions) for deals of one table until ``positions`` are played."""
    seed = first_seed
    played = 0
    while played < positions:
        digest = hashlib.blake2b(digest_size=16)
        steps = 0
        for line in deal_lines(setup, seed):
            digest.update(line.encode())
            digest.update(b"\n")
            steps += line.split(" ", 2)[1] == "apply"
        yield seed, digest.hexdigest(), steps
        played += steps
        seed += 1


def _run(pure: bool, args: list[str]) -> str:
    env = dict(os.environ)
    env.pop("BURRACO_PURE", None)
    if pure:
        env["BURRACO_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _both(args: list[str]) -> tuple[str, str]:
    """The same command on the compiled and the pure engine, in two processes at once."""
    env = dict(os.environ)
    env.pop("BURRACO_PURE", None)
    procs = []
    for pure in (False, True):
        if pure:
            env = {**env, "BURRACO_PURE": "1"}
        procs.append(
            subprocess.Popen(
                [sys.executable, __file__, *args],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    outs = []
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err
        outs.append(out)
    return outs[0], outs[1]


needs_compiled = pytest.mark.skipif(
    engine() != "compiled",
    reason="the compiled engine is not built here (no C compiler, BURRACO_PURE, or stale)",
)


def test_the_engine_that_runs_is_named() -> None:
    """``burraco --version`` names the engine the rules run on; BURRACO_PURE=1 gives the pure."""
    from typer.testing import CliRunner

    from burraco.cli import app

    said = CliRunner().invoke(app, ["--version"]).output
    compiled = not burraco.deal.__file__.endswith(".py")
    assert engine() == ("compiled" if compiled else "pure")
    assert f"burraco {burraco.__version__}, {engine()} engine" in said
    out = _run(True, ["--engine"])
    assert out.split()[0] == "pure" and out.split()[1].endswith("deal.py")


#: The tests of the rules themselves, run again on the pure engine (the one a machine
#: without a C compiler installs): every rule test, the golden records, the refusals and
#: the variants' options. The properties run on it under ``-m slow`` (their fixed cases
#: alone take half a minute on the pure engine; the differential test below plays both
#: engines alike at every position meanwhile).
PURE_SET = [
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_rules_*.py")),
    "tests/test_record.py",
    "tests/test_refusals.py",
    "tests/test_variant_options.py",
]


def _pure_pytest(*arguments: str, scale: str = "1") -> None:
    """pytest in a process of its own on the pure engine; fails with its output."""
    env = {**os.environ, "BURRACO_PURE": "1", "BURRACO_PROPERTY_SCALE": scale}
    ran = [sys.executable, "-c", "import burraco._engine as e; print(e.ENGINE)"]
    assert subprocess.run(ran, env=env, capture_output=True, text=True).stdout.strip() == "pure"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0"]
    done = subprocess.run([*command, *arguments], env=env, capture_output=True, text=True, cwd=ROOT)
    # pytest exits 5 when it collects nothing, 1 when a test fails.
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


@needs_compiled
def test_the_rules_golden_records_and_doctests_hold_on_the_pure_engine() -> None:
    """The suite runs on the compiled engine; the rules' own tests run on the pure one too,
    with the compiled modules' doctests (a compiled module keeps no docstrings, so
    conftest.py skips collecting them: they run here, from the source)."""
    package = Path(burraco.__file__).parent
    doctests = [str(package / f"{name}.py") for name in COMPILED_MODULES]
    _pure_pytest("--doctest-modules", *doctests, *PURE_SET)


@pytest.mark.slow
@needs_compiled
def test_the_properties_hold_on_the_pure_engine() -> None:
    """The default run's property checks at a fifth of their examples, on the pure engine."""
    _pure_pytest("tests/test_properties.py", scale="0.2")


@needs_compiled
@pytest.mark.parametrize("setup", SETUP_NAMES)
def test_compiled_and_pure_engines_play_alike(setup: str) -> None:
    _compare(setup, POSITIONS)


@pytest.mark.slow
@needs_compiled
@pytest.mark.parametrize("name", sorted({name for name, _, _ in SETUPS}))
def test_compiled_and_pure_engines_play_alike_long(name: str) -> None:
    tables = [s for s in SETUP_NAMES if _setup(s)[0] == name]
    for setup in tables:
        _compare(setup, -(-SLOW_POSITIONS // len(tables)), first_seed=1_000)


def _compare(setup: str, positions: int, first_seed: int = 0) -> None:
    args = ["--setup", setup, "--positions", str(positions), "--seed", str(first_seed)]
    compiled, pure = _both(args)
    engines = (compiled.splitlines()[0].split()[0], pure.splitlines()[0].split()[0])
    assert engines == ("compiled", "pure")
    c_deals, p_deals = compiled.splitlines()[1:], pure.splitlines()[1:]
    assert len(c_deals) == len(p_deals)
    for c, p in zip(c_deals, p_deals, strict=True):
        if c != p:
            seed = c.split()[0]
            c_lines, p_lines = (
                out.splitlines()[1:] for out in _both(["--setup", setup, "--trace", seed])
            )
            first = next(
                (i for i, (a, b) in enumerate(zip(c_lines, p_lines, strict=False)) if a != b),
                min(len(c_lines), len(p_lines)),
            )
            pytest.fail(
                f"{setup} seed {seed} parts at line {first}:\n"
                f"compiled: {c_lines[first] if first < len(c_lines) else '(ended)'}\n"
                f"pure:     {p_lines[first] if first < len(p_lines) else '(ended)'}"
            )
    assert sum(int(line.split()[2]) for line in c_deals) >= positions


def main() -> None:
    parser = argparse.ArgumentParser(description="one engine's trace of random deals")
    parser.add_argument("--engine", action="store_true", help="print the engine and exit")
    parser.add_argument("--setup", default="italian-2-2")
    parser.add_argument("--positions", type=int, default=POSITIONS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trace", type=int, default=None, help="print one deal's lines")
    args = parser.parse_args()
    print(engine(), burraco.deal.__file__)
    if args.engine:
        return
    if args.trace is not None:
        for line in deal_lines(args.setup, args.trace):
            print(line)
        return
    for seed, digest, steps in play(args.setup, args.positions, args.seed):
        print(seed, digest, steps)


if __name__ == "__main__":
    main()
