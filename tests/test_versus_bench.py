"""bench/versus.py's options: weight sets by name for the playouts and the ranking, and the
new expert against a bot level of the same checkout (``--against-level``)."""

from __future__ import annotations

import argparse

from benches import load_bench

from burraco.bots.weights import GreedyWeights


def test_weight_sets_are_named_for_the_playouts_and_the_ranking() -> None:
    versus = load_bench("versus")
    options = versus.expert_options(versus.options_of("weights=level,ranking=italian2,prior=1"))
    assert options == {"weights": None, "ranking": GreedyWeights.named("italian2"), "prior": 1}
    assert versus.expert_options({"race": None}) == {"race": None}


def test_the_expert_plays_a_board_against_the_greedy_level() -> None:
    versus = load_bench("versus")
    args = argparse.Namespace(
        variant="buraco",
        players=2,
        seconds=0.002,
        deals_per_board=1,
        seed=5,
        new_options="worlds=2",
        against_level="greedy",
        against_src=None,
        against_options="",
    )
    board = versus.play_board(0, args)
    # Both seatings played to the end, the level's decisions timed apart.
    assert len(board.margins) == 2 and all(len(m) == 1 for m in board.margins)
    assert board.old_times and board.new_times
    assert versus._OPPONENT is None  # no other checkout's expert was started
