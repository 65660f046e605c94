"""The greedy-rollout evaluator for OpenSpiel's searches (burraco.research.rollout)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
spiel = pytest.importorskip("burraco.research.spiel")
ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")
rollout = pytest.importorskip("burraco.research.rollout")

from burraco.actions import MELD  # noqa: E402
from burraco.bots.greedy import GreedyBot, discarded_by  # noqa: E402
from burraco.cards import counts_of  # noqa: E402
from burraco.encoding import returns  # noqa: E402

GreedyRolloutEvaluator = rollout.GreedyRolloutEvaluator


def load(name: str = "italian", players: int = 2) -> Any:
    return pyspiel.load_game("python_burraco", {"variant": name, "players": players})


def states(game: Any, seed: int) -> list[Any]:
    """The states of one deal played by random ids, after the shuffle: every few ids one,
    picks in the middle of a meld among them."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        kinds, chances = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(kinds, chances)[0])
    found = []
    while not state.is_terminal():
        if len(state.history()) % 7 == 0 or state.decisions.picking:
            found.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    found.append(state)
    return found


@pytest.mark.parametrize(("name", "players"), [("italian", 2), ("italian", 4), ("canasta", 2)])
def test_values_are_returns_within_the_bound_and_sum_to_zero(name: str, players: int) -> None:
    game = load(name, players)
    bound = spiel.utility_bound(game.rules.v)
    evaluator = GreedyRolloutEvaluator(rollouts=2, horizon=None)
    short = GreedyRolloutEvaluator(horizon=3)
    seen = states(game, seed=players)
    assert any(s.decisions.picking for s in seen)  # mid-meld states are evaluated too
    for state in seen[::3]:
        for ev in (evaluator, short):
            values = ev.evaluate(state)
            assert values.shape == (players,)
            assert np.all(np.abs(values) <= bound)
            assert abs(values.sum()) < 1e-6


def test_a_rollout_ends_the_deal_and_leaves_the_state_alone() -> None:
    game = load()
    policy = GreedyBot()
    for state in states(game, seed=3)[:-1:4]:
        before = str(state), state.legal_actions()
        deal = state.deal
        ended = rollout.play_out(state.decisions, policy, discarded_by(deal.view(deal.turn)))
        assert ended.is_over
        assert rollout.rollout_returns(ended) == returns(ended)
        assert (str(state), state.legal_actions()) == before
        # The evaluation is that deal's returns (greedy plays the same deal the same way).
        assert list(GreedyRolloutEvaluator().evaluate(state)) == returns(ended)


def test_a_horizon_stops_after_its_turns() -> None:
    game = load()
    state = states(game, seed=5)[2]
    deal = state.deal
    thrown = discarded_by(deal.view(deal.turn))
    stopped = rollout.play_out(state.decisions, GreedyBot(), thrown, horizon=2)
    assert not stopped.is_over
    assert stopped.turns == deal.turns + 2


def test_a_meld_in_the_making_is_finished_with_its_picked_cards() -> None:
    game = load()
    picking = [s for s in states(game, seed=11) if s.decisions.picking]
    assert picking
    for state in picking:
        decisions = state.decisions
        deal = decisions.deal
        ended = rollout.play_out(decisions, GreedyBot(), discarded_by(deal.view(deal.turn)))
        first = ended.history[len(deal.history)]
        assert first.kind == MELD or first.cards  # a meld, or canasta's take with cards
        held = counts_of(first.cards)
        assert all(h >= p for h, p in zip(held, decisions.picked, strict=True))


def test_the_prior_is_a_distribution_over_the_legal_ids_led_by_greedy() -> None:
    game = load()
    policy = GreedyBot()
    evaluator = GreedyRolloutEvaluator(greedy_prior=0.5)
    for state in states(game, seed=2)[:-1]:
        legal = state.legal_actions()
        prior = dict(evaluator.prior(state))
        assert sorted(prior) == legal
        assert sum(prior.values()) == pytest.approx(1.0)
        chosen = rollout.greedy_id(state.decisions, policy)
        assert chosen in legal
        if len(legal) > 1:
            assert max(prior, key=lambda a: prior[a]) == chosen
    uniform = GreedyRolloutEvaluator(greedy_prior=0.0).prior(states(game, seed=2)[0])
    assert len({p for _, p in uniform}) == 1


def test_ismcts_searches_with_it() -> None:
    game = load()
    state = states(game, seed=4)[3]
    rng = random.Random(1)
    bot = ismcts.ISMCTSBot(
        game,
        GreedyRolloutEvaluator(),
        250.0,
        8,
        random_state=np.random.RandomState(1),
        child_selection_policy=ismcts.ChildSelectionPolicy.PUCT,
    )
    bot.set_resampler(lambda s, player: s.resample_from_infostate(player, rng.random))
    assert int(bot.step(state)) in state.legal_actions()


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"rollouts": 0}, "1 rollout or more"),
        ({"horizon": 0}, "1 turn or more"),
        ({"greedy_prior": 1.5}, r"in \[0, 1\]"),
    ],
)
def test_bad_settings_are_named(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        GreedyRolloutEvaluator(**options)


def test_a_state_still_shuffled_is_refused_and_an_ended_one_is_its_returns() -> None:
    game = load()
    evaluator = GreedyRolloutEvaluator()
    with pytest.raises(ValueError, match="still being shuffled"):
        evaluator.evaluate(game.new_initial_state())
    ended = states(game, seed=9)[-1]
    assert ended.is_terminal()
    assert list(evaluator.evaluate(ended)) == ended.returns()
