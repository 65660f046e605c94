"""Self-play that writes trajectories: bots play many games and every decision is kept.

A game is one deal (or one whole match) of a variant; game ``i`` is played from seed
``seed + i``, so a run gives the same games whatever the number of processes. The
bots choose engine actions; each is played as its action ids (a meld is its picks
and a commit, see :mod:`burraco.encoding`), and every id is a recorded *step*: the
observation of the seat to act, its mask of legal ids, the id chosen, a reward and a
done flag.

The games are cut into shards of ``shard_games`` games; a shard is one task for a
worker (a process of a pool, or a Ray task: the same function), which returns the
shard's file as bytes. The output directory then holds::

    shard-00000.npz ...  the steps (or .parquet)
    games.npz            one row per game: its seed, deals, steps, every seat's return
    manifest.json        what was played and how the files are laid out (written last)

The columns of a shard, one row per step:

=============  ==============  ==============================================================
game           int32           the game's number (its seed is ``seed + game``)
deal           int16           the deal's number within the game (0 but in matches)
step           int32           the step's number within the game, counting every seat's steps
seat           int8            the seat to act
observation    float32 [O]     its observation (:func:`~burraco.encoding.observe`)
mask           uint8 [ceil(A/8)] its legal ids, bit-packed (``numpy.packbits``, big bit order)
action         int16           the id chosen
reward         float32         the seat's return of the deal at its last step of that deal
done           bool            the seat's last step of the game
=============  ==============  ==============================================================

The rewards of a seat sum to its return over the game (the games table's ``returns``).
:func:`load_trajectories` reads a directory back into arrays, masks unpacked.

>>> import tempfile
>>> from burraco import variant
>>> plan = Plan(variant("italian", players=2), ("greedy", "random"), games=2, seed=5)
>>> with tempfile.TemporaryDirectory() as out:
...     summary = simulate(plan, out, workers=1)
...     data = load_trajectories(out)
>>> summary.games, len(data["action"]) == summary.recorded
(2, True)
>>> data["mask"].shape[1], bool(data["mask"][0, data["action"][0]])
(2020, True)
>>> float(abs(data["reward"].sum() - data["game_returns"].sum())) < 1e-3
True
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import math
import os
import sys
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from burraco.bots.arena import check_bots, make_bot
from burraco.encoding import Decisions, action_space, observation_layout, observe, returns
from burraco.match import Match
from burraco.variants import Variant, options_of, variant

__all__ = [
    "FORMATS",
    "GAME_COLUMNS",
    "STEP_COLUMNS",
    "GameRecord",
    "MissingExtra",
    "Plan",
    "ShardResult",
    "Summary",
    "load_trajectories",
    "manifest_variant",
    "play_shard",
    "read_manifest",
    "simulate",
]

FORMATS: Final = ("npz", "parquet")
MANIFEST: Final = "manifest.json"
LAYOUT: Final = "burraco-trajectories"
VERSION: Final = 1
#: Games per shard when none is given: a shard of deals holds some 2,300 steps (45 MB of
#: observations before compression) in the 2-player game; a match is ten deals or so.
DEAL_SHARD: Final = 10
MATCH_SHARD: Final = 1
EXTRA: Final = "pip install 'burraco[research]'"
#: Set to 0, Ray takes this machine's loopback address as its node's (see _start_ray).
_LOOPBACK_RAY: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

#: The columns of a shard's steps and their types (a shape after the row, if any).
STEP_COLUMNS: Final = (
    ("game", "int32"),
    ("deal", "int16"),
    ("step", "int32"),
    ("seat", "int8"),
    ("observation", "float32"),
    ("mask", "uint8"),
    ("action", "int16"),
    ("reward", "float32"),
    ("done", "bool"),
)
#: The columns of the games table.
GAME_COLUMNS: Final = (
    ("id", "int32"),
    ("seed", "int64"),
    ("deals", "int16"),
    ("steps", "int32"),  # every seat's steps
    ("recorded", "int32"),  # the recorded seats' steps
    ("returns", "float32"),  # per seat, summed over the game's deals
    ("points", "int32"),  # per line: the deal's points, or the match's totals
)

Arrays = dict[str, npt.NDArray[Any]]


class MissingExtra(ImportError):
    """An optional package (pyarrow, ray) that the research extra installs is missing."""


def _require(module: str, why: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{why} needs {module.split('.')[0]}: {EXTRA}") from None


# --- what to play -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run plays and records. ``bots`` are bot levels (``random``, ``greedy``,
    ``expert``..., as :func:`~burraco.bots.arena.make_bot` names them) that take the seats
    in turn; ``seats`` are the seats recorded (all by default). Bad settings raise
    :class:`ValueError` naming what is wrong.

    >>> from burraco import variant
    >>> Plan(variant("italian"), ("greedy",), games=3).seat_bots
    ('greedy', 'greedy')
    >>> Plan(variant("italian"), ("greedy", "wizard"), games=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no bot 'wizard' (random, greedy, ...)
    """

    v: Variant
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    match: bool = False
    seats: tuple[int, ...] | None = None
    fmt: str = "npz"
    shard_games: int | None = None
    #: The expert's budget: seconds per decision, or sampled deals (reproducible) if set.
    seconds: float = 1.0
    worlds: int | None = None

    def __post_init__(self) -> None:
        players = self.v.players
        if not self.bots:
            raise ValueError("no bots: give at least one bot level")
        check_bots(self.bots)
        if len(self.bots) > players:
            raise ValueError(f"{len(self.bots)} bots for a table of {players} seats")
        if self.games < 1:
            raise ValueError(f"games must be at least 1 (got {self.games})")
        if self.seats is not None:
            if not self.seats:
                raise ValueError("no seats to record")
            for seat in self.seats:
                if not 0 <= seat < players:
                    raise ValueError(
                        f"no seat {seat} at a table of {players} (seats 0 to {players - 1})"
                    )
            if len(set(self.seats)) != len(self.seats):
                raise ValueError(f"a seat is named twice in {list(self.seats)}")
        if self.fmt not in FORMATS:
            raise ValueError(f"no format {self.fmt!r} ({', '.join(FORMATS)})")
        if self.shard_games is not None and self.shard_games < 1:
            raise ValueError(f"a shard holds at least 1 game (got {self.shard_games})")
        if self.worlds is not None and self.worlds < 1:
            raise ValueError(f"worlds must be at least 1 (got {self.worlds})")
        if self.seconds <= 0:
            raise ValueError(f"seconds must be more than 0 (got {self.seconds})")

    @property
    def seat_bots(self) -> tuple[str, ...]:
        """The bot level of each seat."""
        return tuple(self.bots[s % len(self.bots)] for s in range(self.v.players))

    @property
    def recorded_seats(self) -> tuple[int, ...]:
        return tuple(sorted(self.seats)) if self.seats is not None else tuple(range(self.v.players))

    @property
    def games_per_shard(self) -> int:
        if self.shard_games is not None:
            return self.shard_games
        return MATCH_SHARD if self.match else DEAL_SHARD

    @property
    def shards(self) -> int:
        return math.ceil(self.games / self.games_per_shard)

    def shard_range(self, index: int) -> range:
        """The games of shard ``index``."""
        if not 0 <= index < self.shards:
            raise ValueError(f"no shard {index}: the run has {self.shards}")
        size = self.games_per_shard
        return range(index * size, min(self.games, (index + 1) * size))

    def shard_name(self, index: int) -> str:
        return f"shard-{index:05d}.{self.fmt}"


# --- playing and recording ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game's row of the games table."""

    id: int
    seed: int
    deals: int
    steps: int
    recorded: int
    returns: tuple[float, ...]
    points: tuple[int, ...]


class _Steps:
    """The steps of a shard, in arrays that grow by doubling (no list of rows to copy)."""

    def __init__(self, observation_size: int, mask_bytes: int, capacity: int = 1024) -> None:
        self.n = 0
        self.scalars: Arrays = {
            name: np.zeros(capacity, dtype=dtype)
            for name, dtype in STEP_COLUMNS
            if name not in ("observation", "mask")
        }
        self.observation = np.zeros((capacity, observation_size), dtype=np.float32)
        self.mask = np.zeros((capacity, mask_bytes), dtype=np.uint8)

    def add(self) -> int:
        """A new row's index."""
        if self.n == len(self.observation):
            grow = len(self.observation)
            for name, column in self.scalars.items():
                self.scalars[name] = np.concatenate([column, np.zeros_like(column[:grow])])
            self.observation = np.concatenate([self.observation, np.zeros_like(self.observation)])
            self.mask = np.concatenate([self.mask, np.zeros_like(self.mask)])
        self.n += 1
        return self.n - 1

    def arrays(self) -> Arrays:
        n = self.n
        out = {name: column[:n] for name, column in self.scalars.items()}
        out["observation"] = self.observation[:n]
        out["mask"] = self.mask[:n]
        return {name: out[name] for name, _ in STEP_COLUMNS}


def play_game(plan: Plan, game: int, steps: _Steps) -> GameRecord:
    """Play game number ``game`` of the plan, adding its recorded steps to ``steps``.

    The game is a :class:`~burraco.match.Match` from the game's seed, stopped after its
    first deal unless the plan plays matches: a deal game is the first deal of the
    match game of the same seed.
    """
    v = plan.v
    seed = plan.seed + game
    space = action_space(v)
    bots = [
        make_bot(name, seed=seed * 131 + s, seconds=plan.seconds, worlds=plan.worlds)
        for s, name in enumerate(plan.seat_bots)
    ]
    recorded = [False] * v.players
    for s in plan.recorded_seats:
        recorded[s] = True
    bits = np.zeros(space.size, dtype=np.uint8)
    # Each seat's last recorded row, where its deal's return is credited.
    last: list[int | None] = [None] * v.players
    game_returns = [0.0] * v.players
    match = Match(v, seed=seed)
    step = rows = deals = 0
    while True:
        deal = match.deal
        scores = tuple(match.totals) if plan.match else None
        decisions = Decisions(deal, space)
        while not deal.is_over:
            seat = deal.turn
            action = bots[seat].choose(deal.view(seat), deal.legal_actions())
            path = space.path(action)
            for j, action_id in enumerate(path):
                legal = decisions.legal_ids()
                if action_id not in legal:
                    raise RuntimeError(
                        f"game {game}, step {step}: {space.describe(action_id)} of the bot's "
                        f"{action} is not an allowed id"
                    )
                if recorded[seat]:
                    row = steps.add()
                    columns = steps.scalars
                    columns["game"][row] = game
                    columns["deal"][row] = deals
                    columns["step"][row] = step
                    columns["seat"][row] = seat
                    columns["action"][row] = action_id
                    steps.observation[row] = observe(
                        deal, seat, picked=decisions.picked, scores=scores
                    )
                    bits[legal] = 1
                    steps.mask[row] = np.packbits(bits)
                    bits[legal] = 0
                    last[seat] = row
                    rows += 1
                step += 1
                if j < len(path) - 1:
                    decisions.apply(action_id)
                else:
                    # The match, not the deal, plays the last id: it scores an ended deal and
                    # deals the next one.
                    match.apply(decisions.action_of(action_id))
                    decisions.reset()
        deals += 1
        deal_returns = returns(deal)
        for s in range(v.players):
            game_returns[s] += deal_returns[s]
            row_of_seat = last[s]
            if row_of_seat is not None:
                steps.scalars["reward"][row_of_seat] += deal_returns[s]
        if match.is_over or not plan.match:
            break
    for row_of_seat in last:
        if row_of_seat is not None:
            steps.scalars["done"][row_of_seat] = True
    points = tuple(match.totals) if plan.match else tuple(match.scores[0].points)
    return GameRecord(game, seed, deals, step, rows, tuple(game_returns), points)


@dataclass(frozen=True, slots=True)
class ShardResult:
    """A played shard: its file's bytes and its games' rows."""

    index: int
    name: str
    data: bytes
    games: tuple[GameRecord, ...]
    steps: int
    recorded: int
    seconds: float


def play_shard(plan: Plan, index: int) -> ShardResult:
    """Play shard ``index`` of the plan and encode its steps as the plan's format.

    This is the task a pool's process or a Ray worker runs: it returns the file's bytes
    rather than writing it, so workers need no shared disk with the driver.
    """
    start = time.perf_counter()
    v = plan.v
    steps = _Steps(observation_layout(v).size, math.ceil(action_space(v).size / 8))
    games = tuple(play_game(plan, game, steps) for game in plan.shard_range(index))
    data = _encode(steps.arrays(), plan.fmt)
    return ShardResult(
        index=index,
        name=plan.shard_name(index),
        data=data,
        games=games,
        steps=sum(g.steps for g in games),
        recorded=steps.n,
        seconds=time.perf_counter() - start,
    )


# --- files --------------------------------------------------------------------------------

# Zip entries get this date, not the time of writing: the same games give the same bytes.
_ZIP_DATE: Final = (1980, 1, 1, 0, 0, 0)


def _npz_bytes(arrays: Mapping[str, npt.NDArray[Any]]) -> bytes:
    """What ``numpy.savez_compressed`` writes, without the time stamps of its entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _parquet_bytes(arrays: Mapping[str, npt.NDArray[Any]]) -> bytes:
    pa = _require("pyarrow", "the parquet format")
    pq = _require("pyarrow.parquet", "the parquet format")
    columns = {}
    for name, array in arrays.items():
        if array.ndim == 2:
            # A fixed-size list reads back as one flat buffer, reshaped without a copy.
            flat = pa.array(np.ascontiguousarray(array).reshape(-1))
            columns[name] = pa.FixedSizeListArray.from_arrays(flat, array.shape[1])
        else:
            columns[name] = pa.array(array)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink, compression="zstd")
    return bytes(sink.getvalue().to_pybytes())


def _encode(arrays: Mapping[str, npt.NDArray[Any]], fmt: str) -> bytes:
    return _parquet_bytes(arrays) if fmt == "parquet" else _npz_bytes(arrays)


def _read_file(path: Path) -> Arrays:
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    pq = _require("pyarrow.parquet", "reading parquet")
    pa = _require("pyarrow", "reading parquet")
    table = pq.read_table(path)
    out: Arrays = {}
    for name in table.column_names:
        column = table.column(name).combine_chunks()
        if pa.types.is_fixed_size_list(column.type):
            width = column.type.list_size
            out[name] = column.flatten().to_numpy(zero_copy_only=False).reshape(-1, width)
        else:
            out[name] = column.to_numpy(zero_copy_only=False)
    return out


def _games_arrays(records: Sequence[GameRecord], v: Variant) -> Arrays:
    return {
        "id": np.array([g.id for g in records], dtype=np.int32),
        "seed": np.array([g.seed for g in records], dtype=np.int64),
        "deals": np.array([g.deals for g in records], dtype=np.int16),
        "steps": np.array([g.steps for g in records], dtype=np.int32),
        "recorded": np.array([g.recorded for g in records], dtype=np.int32),
        "returns": np.array([g.returns for g in records], dtype=np.float32).reshape(-1, v.players),
        "points": np.array([g.points for g in records], dtype=np.int32).reshape(-1, v.lines),
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(x) for x in value]
    return value


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(x) for x in value)
    return value


def _variant_settings(v: Variant) -> dict[str, Any]:
    """The variant as its preset, table and the options that differ from the preset's."""
    options = {name: _jsonable(value) for name, value in options_of(v)}
    return {"name": v.name, "players": v.players, "lines": v.lines, "options": options}


def manifest_variant(manifest: Mapping[str, Any]) -> Variant:
    """The variant a run played, rebuilt from its manifest."""
    settings = manifest["variant"]
    base = variant(settings["name"], players=settings["players"], lines=settings["lines"])
    options = {name: _tuples(value) for name, value in settings["options"].items()}
    return base.with_options(**options) if options else base


def _manifest(plan: Plan, results: Sequence[ShardResult], records: Sequence[GameRecord]) -> Any:
    v = plan.v
    space = action_space(v)
    layout = observation_layout(v)
    mask_bytes = math.ceil(space.size / 8)
    shapes = {"observation": [layout.size], "mask": [mask_bytes]}
    game_shapes = {"returns": [v.players], "points": [v.lines]}
    return {
        "layout": LAYOUT,
        "version": VERSION,
        "variant": _variant_settings(v),
        "unit": "match" if plan.match else "deal",
        "bots": list(plan.seat_bots),
        "recorded_seats": list(plan.recorded_seats),
        "seed": plan.seed,
        "seeds": [plan.seed, plan.seed + plan.games - 1],
        "expert": {"seconds": plan.seconds, "worlds": plan.worlds},
        "format": plan.fmt,
        "counts": {
            "games": plan.games,
            "deals": sum(g.deals for g in records),
            "steps": sum(r.steps for r in results),
            "recorded": sum(r.recorded for r in results),
            "shards": len(results),
        },
        "shards": [
            {
                "file": r.name,
                "games": [g.id for g in r.games[:1]] + [g.id for g in r.games[-1:]],
                "rows": r.recorded,
            }
            for r in results
        ],
        "games_file": f"games.{plan.fmt}",
        "columns": [
            {"name": name, "dtype": dtype, "shape": shapes.get(name, [])}
            for name, dtype in STEP_COLUMNS
        ],
        "game_columns": [
            {"name": name, "dtype": dtype, "shape": game_shapes.get(name, [])}
            for name, dtype in GAME_COLUMNS
        ],
        "observation": {
            "size": layout.size,
            "parts": [
                {"name": name, "offset": offset, "shape": list(shape)}
                for name, offset, shape in layout.parts
            ],
        },
        "action_space": {"size": space.size, "max_melds": space.max_melds},
        "mask": {"packed": True, "bits": space.size, "bytes": mask_bytes, "bitorder": "big"},
    }


def read_manifest(path: str | os.PathLike[str]) -> Any:
    """The manifest of a directory of trajectories (or the manifest file itself)."""
    where = Path(path)
    file = where / MANIFEST if where.is_dir() else where
    if not file.is_file():
        raise FileNotFoundError(f"no {MANIFEST} in {where}: not a finished simulate run")
    manifest = json.loads(file.read_text())
    if manifest.get("layout") != LAYOUT:
        raise ValueError(f"{file} is not a manifest of burraco trajectories")
    return manifest


def load_trajectories(path: str | os.PathLike[str], unpack_masks: bool = True) -> Arrays:
    """All the steps of a run as arrays, shards in order: the step columns, masks
    unpacked to bool ``(steps, action space)`` unless ``unpack_masks`` is false, and
    the games table's columns prefixed ``game_`` (``game_returns``...)."""
    manifest = read_manifest(path)
    where = Path(path)
    folder = where if where.is_dir() else where.parent
    shards = [_read_file(folder / shard["file"]) for shard in manifest["shards"]]
    out: Arrays = {}
    for name, dtype in STEP_COLUMNS:
        parts = [shard[name] for shard in shards]
        out[name] = np.concatenate(parts).astype(dtype, copy=False)
    if unpack_masks:
        bits = manifest["mask"]["bits"]
        out["mask"] = np.unpackbits(out["mask"], axis=1, count=bits).astype(bool)
    games = _read_file(folder / manifest["games_file"])
    for name, dtype in GAME_COLUMNS:
        out[f"game_{name}"] = games[name].astype(dtype, copy=False)
    return out


# --- running ------------------------------------------------------------------------------


def _in_process(plan: Plan) -> Iterator[ShardResult]:
    for index in range(plan.shards):
        yield play_shard(plan, index)


def _pool(plan: Plan, workers: int) -> Iterator[ShardResult]:
    with ProcessPoolExecutor(max_workers=min(workers, plan.shards)) as pool:
        pending: set[Future[ShardResult]] = {
            pool.submit(play_shard, plan, index) for index in range(plan.shards)
        }
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


def _start_ray(address: str, workers: int) -> tuple[Any, bool]:
    """Ray, connected: a new Ray on this machine for ``local``, else the cluster at the
    address. Returns the module and whether this call started it (to shut it down)."""
    ray_imported = "ray" in sys.modules
    if address == "local":
        # A Ray of this machine only: its servers then listen on the loopback address
        # rather than on every interface. Ray's processes read this when they start.
        os.environ.setdefault(_LOOPBACK_RAY, "0")
    ray = _require("ray", "--ray-address")
    if ray.is_initialized():
        return ray, False
    if address == "local" and ray_imported and os.environ[_LOOPBACK_RAY] == "0":
        # Ray imported before us read the variable already: set what it read.
        constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
        if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
            constants.ENABLE_RAY_CLUSTER = False
    if address == "local":
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    else:
        ray.init(address=address, log_to_driver=False)
    return ray, True


def _ray(plan: Plan, ray: Any) -> Iterator[ShardResult]:
    task = ray.remote(play_shard)
    pending = [task.remote(plan, index) for index in range(plan.shards)]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            result: ShardResult = ray.get(ref)
            yield result


@dataclass(frozen=True, slots=True)
class Summary:
    """What a run played and wrote."""

    out: Path
    games: int
    deals: int
    steps: int
    recorded: int
    seconds: float
    files: tuple[str, ...]
    bytes: int
    #: Per seat, its mean return per game.
    mean_returns: tuple[float, ...]

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def _ours(name: str) -> bool:
    return name == MANIFEST or (
        name.startswith(("shard-", "games.")) and name.endswith(tuple(f".{f}" for f in FORMATS))
    )


def _prepare(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a directory")
    if out.is_dir():
        names = sorted(p.name for p in out.iterdir())
        foreign = [n for n in names if not _ours(n)]
        if foreign:
            raise ValueError(
                f"{out} holds files that are not trajectories ({', '.join(foreign[:3])}): "
                "choose another directory"
            )
        if names and not overwrite:
            raise ValueError(
                f"{out} holds trajectories already: overwrite them (--overwrite) "
                "or choose another directory"
            )


def simulate(
    plan: Plan,
    out: str | os.PathLike[str],
    workers: int | None = None,
    ray_address: str | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Summary:
    """Play the plan's games and write their trajectories to the directory ``out``.

    ``workers`` processes play the shards (``os.cpu_count()`` by default; 1 plays them
    in this process); with ``ray_address`` (``local`` starts a Ray of ``workers`` CPUs on
    this machine; ``auto`` or ``ray://host:port`` join a cluster) Ray tasks play them,
    the same function either way, so the files are the same (a cluster's workers need
    burraco installed). ``progress(games done, games)`` follows the run. Bad settings
    raise before anything is played or written.
    """
    folder = Path(out)
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1 (got {workers})")
    if ray_address is not None:
        if not ray_address.strip():
            raise ValueError("an empty --ray-address: give local, auto or ray://host:port")
        _require("ray", "--ray-address")
    if plan.fmt == "parquet":
        _require("pyarrow.parquet", "the parquet format")
    _prepare(folder, overwrite)
    ray: Any = None
    started = False
    if ray_address is not None:
        ray, started = _start_ray(ray_address, workers)
    done: dict[int, ShardResult] = {}
    try:
        # Old files go once Ray is up: a Ray that fails to start leaves them be.
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            if _ours(old.name):
                old.unlink()
        start = time.perf_counter()
        if ray is not None:
            results = _ray(plan, ray)
        elif workers == 1 or plan.shards == 1:
            results = _in_process(plan)
        else:
            results = _pool(plan, workers)
        games_done = 0
        for result in results:
            (folder / result.name).write_bytes(result.data)
            # The bytes are on disk: keep the rest only.
            done[result.index] = dataclasses.replace(result, data=b"")
            games_done += len(result.games)
            if progress is not None:
                progress(games_done, plan.games)
    finally:
        if started:
            ray.shutdown()
    seconds = time.perf_counter() - start
    ordered = [done[i] for i in range(plan.shards)]
    records = [g for r in ordered for g in r.games]
    games_file = folder / f"games.{plan.fmt}"
    games_file.write_bytes(_encode(_games_arrays(records, plan.v), plan.fmt))
    manifest = _manifest(plan, ordered, records)
    manifest["run"] = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "workers": workers,
        "ray_address": ray_address,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    files = (*(r.name for r in ordered), games_file.name, MANIFEST)
    players = plan.v.players
    return Summary(
        out=folder,
        games=plan.games,
        deals=sum(g.deals for g in records),
        steps=sum(r.steps for r in ordered),
        recorded=sum(r.recorded for r in ordered),
        seconds=seconds,
        files=files,
        bytes=sum((folder / name).stat().st_size for name in files),
        mean_returns=tuple(
            sum(g.returns[s] for g in records) / len(records) for s in range(players)
        ),
    )
