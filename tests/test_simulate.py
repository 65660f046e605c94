"""Self-play trajectories (``burraco.research.simulate`` and ``burraco simulate``): the
files read back to what a replay of each game from its seed shows, whatever the format,
the number of processes, or Ray."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from burraco import variant
from burraco.cli import app
from burraco.encoding import PICK_BASE, Decisions, action_space, observe, returns
from burraco.match import Match
from burraco.research.simulate import (
    MissingExtra,
    Plan,
    load_trajectories,
    manifest_variant,
    read_manifest,
    simulate,
)

runner = CliRunner()
ITALIAN = variant("italian", players=2)


def _run(tmp_path: Path, name: str, **settings: Any) -> Path:
    workers = settings.pop("workers", 2)
    ray_address = settings.pop("ray_address", None)
    plan = Plan(
        settings.pop("v", ITALIAN),
        settings.pop("bots", ("greedy", "random")),
        games=settings.pop("games", 4),
        seed=settings.pop("seed", 11),
        shard_games=settings.pop("shard_games", 2),
        **settings,
    )
    simulate(plan, tmp_path / name, workers=workers, ray_address=ray_address)
    return tmp_path / name


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "manifest.json"}


def _manifest_without_run(folder: Path) -> Any:
    manifest = read_manifest(folder)
    del manifest["run"]
    return manifest


def _replay(folder: Path, data: dict[str, np.ndarray]) -> None:
    """Play every game again from its seed by the recorded ids; at each step the mask
    and the observation must be the replay's, and the game end with its recorded score."""
    manifest = read_manifest(folder)
    v = manifest_variant(manifest)
    space = action_space(v)
    as_match = manifest["unit"] == "match"
    for g, game in enumerate(data["game_id"]):
        rows = np.flatnonzero(data["game"] == game)
        match = Match(v, seed=int(data["game_seed"][g]))
        deal = match.deal
        decisions = Decisions(deal)
        scores = tuple(match.totals) if as_match else None
        total = np.zeros(v.players)
        for i, row in enumerate(rows):
            assert data["step"][row] == i  # every seat is recorded: no gaps
            seat = int(data["seat"][row])
            assert seat == deal.turn
            legal = np.flatnonzero(data["mask"][row])
            assert legal.tolist() == decisions.legal_ids()
            np.testing.assert_array_equal(
                data["observation"][row], observe(deal, seat, decisions.picked, scores)
            )
            action_id = int(data["action"][row])
            if PICK_BASE <= action_id < space.extend_id(0, 0):
                decisions.apply(action_id)
            else:
                match.apply(decisions.action_of(action_id))
                if deal.is_over:
                    total += returns(deal)
                    if match.is_over or not as_match:
                        assert i == len(rows) - 1
                        break
                    deal = match.deal
                    scores = tuple(match.totals)
                decisions = Decisions(deal)
        else:
            pytest.fail(f"game {game}: the recorded steps end before the deal")
        points = match.totals if as_match else list(match.scores[0].points)
        assert data["game_points"][g].tolist() == list(points)
        np.testing.assert_allclose(data["game_returns"][g], total, atol=1e-3)


def _check_rewards(data: dict[str, np.ndarray], seats: list[int]) -> None:
    """A seat's rewards sum to its return over the game; it is done at its last step only."""
    for g, game in enumerate(data["game_id"]):
        for seat in seats:
            rows = np.flatnonzero((data["game"] == game) & (data["seat"] == seat))
            assert rows.size > 0
            np.testing.assert_allclose(
                data["reward"][rows].sum(), data["game_returns"][g][seat], atol=1e-2
            )
            assert data["done"][rows].tolist() == [False] * (rows.size - 1) + [True]


def test_a_pool_run_reads_back_and_replays(tmp_path: Path) -> None:
    folder = _run(tmp_path, "npz")
    assert sorted(p.name for p in folder.iterdir()) == [
        "games.npz",
        "manifest.json",
        "shard-00000.npz",
        "shard-00001.npz",
    ]
    manifest = read_manifest(folder)
    data = load_trajectories(folder)
    steps = manifest["counts"]["recorded"]
    assert steps == manifest["counts"]["steps"] > 300
    assert data["observation"].shape == (steps, 4874)
    assert data["observation"].dtype == np.float32
    assert data["mask"].shape == (steps, 2020) and data["mask"].dtype == bool
    assert data["mask"][np.arange(steps), data["action"]].all()
    assert data["game_id"].tolist() == [0, 1, 2, 3]
    assert data["game_seed"].tolist() == [11, 12, 13, 14]
    assert data["game_returns"].shape == (4, 2)
    assert manifest["bots"] == ["greedy", "random"]
    assert manifest["observation"]["size"] == 4874
    assert manifest["action_space"]["size"] == 2020
    packed = load_trajectories(folder, unpack_masks=False)["mask"]
    assert packed.shape == (steps, 253) and packed.dtype == np.uint8
    _check_rewards(data, [0, 1])
    _replay(folder, data)


def test_parquet_holds_the_same_steps_as_npz(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    npz = load_trajectories(_run(tmp_path, "npz", games=3))
    parquet_folder = _run(tmp_path, "parquet", games=3, fmt="parquet")
    assert (parquet_folder / "shard-00001.parquet").is_file()
    parquet = load_trajectories(parquet_folder)
    assert npz.keys() == parquet.keys()
    for name, array in npz.items():
        assert parquet[name].dtype == array.dtype, name
        np.testing.assert_array_equal(parquet[name], array, err_msg=name)


def test_the_number_of_processes_changes_no_byte(tmp_path: Path) -> None:
    one = _run(tmp_path, "one", workers=1, games=5)
    two = _run(tmp_path, "two", workers=2, games=5)
    assert _files(one) == _files(two)
    assert _manifest_without_run(one) == _manifest_without_run(two)
    assert read_manifest(one)["run"]["workers"] == 1


def test_a_match_game_records_every_deal_with_the_scores_before_it(tmp_path: Path) -> None:
    v = variant("italian", players=2, deals=2)
    folder = _run(tmp_path, "match", v=v, games=1, match=True, workers=1, bots=("greedy",))
    data = load_trajectories(folder)
    manifest = read_manifest(folder)
    assert manifest["unit"] == "match"
    assert manifest_variant(manifest) == v
    assert sorted(set(data["deal"].tolist())) == [0, 1]
    assert data["game_deals"].tolist() == [2]
    _check_rewards(data, [0, 1])
    _replay(folder, data)
    # The rewards of the first deal fall on each seat's last step of that deal.
    first = data["deal"] == 0
    assert np.count_nonzero(data["reward"][first]) <= 2


def test_only_the_chosen_seats_are_recorded(tmp_path: Path) -> None:
    folder = _run(tmp_path, "seat1", seats=(1,), workers=1, games=2)
    data = load_trajectories(folder)
    manifest = read_manifest(folder)
    assert set(data["seat"].tolist()) == {1}
    assert manifest["recorded_seats"] == [1]
    assert manifest["counts"]["recorded"] < manifest["counts"]["steps"]
    assert data["game_recorded"].sum() == len(data["seat"])
    _check_rewards(data, [1])
    everyone = load_trajectories(_run(tmp_path, "all", workers=1, games=2))
    ones = everyone["seat"] == 1
    np.testing.assert_array_equal(everyone["observation"][ones], data["observation"])
    np.testing.assert_array_equal(everyone["step"][ones], data["step"])


def test_local_ray_writes_the_files_of_the_pool(tmp_path: Path) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed")
    pool = _run(tmp_path, "pool", workers=2, games=4)
    addresses: list[str] = []

    def watch(done: int, total: int) -> None:
        import ray

        addresses.extend(node["NodeManagerAddress"] for node in ray.nodes())

    plan = Plan(ITALIAN, ("greedy", "random"), games=4, seed=11, shard_games=2)
    try:
        simulate(plan, tmp_path / "ray", workers=2, ray_address="local", progress=watch)
    finally:
        import ray

        if ray.is_initialized():
            ray.shutdown()
    assert not ray.is_initialized()
    assert addresses and set(addresses) == {"127.0.0.1"}  # nothing but loopback
    assert _files(tmp_path / "ray") == _files(pool)
    assert _manifest_without_run(tmp_path / "ray") == _manifest_without_run(pool)
    assert read_manifest(tmp_path / "ray")["run"]["ray_address"] == "local"


def test_the_command_writes_and_summarizes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            *("simulate", "--out", str(out), "--games", "3", "--bots", "random,greedy"),
            *("--workers", "1", "--seed", "4", "--shard-games", "2"),
        ],
    )
    assert result.exit_code == 0, result.output
    for words in ("steps/s", "Mean return per game", "random", "greedy"):
        assert words in result.output
    # Rich wraps a long path at the terminal's width: the folder is read without the breaks.
    assert str(out) in "".join(result.output.split("\n")), result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["games"] == 3 and manifest["counts"]["shards"] == 2
    assert manifest["seeds"] == [4, 6]
    assert manifest["bots"] == ["random", "greedy"]
    again = runner.invoke(app, ["simulate", "--out", str(out), "--games", "1", "--workers", "1"])
    assert again.exit_code == 2
    assert "holds trajectories already: overwrite them (--overwrite)" in again.output
    (out / "notes.txt").write_text("mine")
    foreign = runner.invoke(app, ["simulate", "--out", str(out), "--overwrite", "--workers", "1"])
    assert foreign.exit_code == 2
    assert "holds files that are not trajectories (notes.txt)" in foreign.output
    (out / "notes.txt").unlink()
    replaced = runner.invoke(
        app, ["simulate", "--out", str(out), "--games", "1", "--workers", "1", "--overwrite"]
    )
    assert replaced.exit_code == 0, replaced.output
    assert sorted(p.name for p in out.iterdir()) == [
        "games.npz",
        "manifest.json",
        "shard-00000.npz",
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bots", "greedy,wizard"], "no bot 'wizard' (random, greedy, expert"),
        (["--bots", "greedy,random,random"], "3 bots for a table of 2 seats"),
        (["--format", "csv"], "no format 'csv' (npz, parquet)"),
        (["--seats", "0,5"], "no seat 5 at a table of 2 (seats 0 to 1)"),
        (["--seats", "one"], "--seats takes seat numbers"),
        (["--games", "0"], "games must be at least 1 (got 0)"),
        (["--workers", "0"], "workers must be at least 1 (got 0)"),
        (["--shard-games", "0"], "a shard holds at least 1 game (got 0)"),
        (["--match-deals", "2"], "--match-deals is for --match"),
        (["--variant", "tresette"], "no variant 'tresette'"),
        (["--players", "7"], "italian is played by"),
        (["--ray-address", " "], "an empty --ray-address"),
    ],
)
def test_bad_options_are_named_and_write_nothing(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    out = tmp_path / "never"
    result = runner.invoke(app, ["simulate", "--out", str(out), "--games", "2", *arguments])
    assert result.exit_code == 2
    assert message in result.output
    assert not out.exists()


def test_a_missing_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A None entry in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    plan = Plan(ITALIAN, ("greedy",), games=1, fmt="parquet")
    with pytest.raises(MissingExtra, match=r"pip install 'burraco\[research\]'"):
        simulate(plan, tmp_path / "out", workers=1)
    assert not (tmp_path / "out").exists()
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtra, match="--ray-address needs ray"):
        simulate(Plan(ITALIAN, ("greedy",), games=1), tmp_path / "out", ray_address="local")
