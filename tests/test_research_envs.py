"""The research environments (burraco.research, issue 12): PettingZoo and Gymnasium.

1. PettingZoo's api_test and seed_test pass on every table of every variant, one deal
   an episode and a whole match an episode.
2. Gymnasium's check_env passes for several variants, bot levels and seats, through
   ``gymnasium.make`` and on the bare environment.
3. Played to the end by masked random ids, the rewards are the deal's returns (they sum
   to zero); in match mode an episode spans the match's deals, with a reward at each
   deal's end and the match's score in the observation.
4. A refused id raises IllegalMove and changes nothing (Gymnasium: a penalty, or the
   error with ``illegal_reward=None``).
5. No observation carries a card its seat may not see: it equals the observation of a
   re-dealing of the unseen cards (``Deal.resample`` of the seat's view).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import burraco.research
from burraco import Deal, IllegalMove, Match, SetupError
from burraco.cards import KINDS
from burraco.encoding import (
    DRAW_ID,
    MELD_ID,
    PICK_BASE,
    REDRAW_ID,
    action_space,
    observation_layout,
    observe,
    returns,
)
from burraco.research.aec import env, raw_env
from burraco.research.gym import ILLEGAL_POINTS, MAX_EPISODE_STEPS, BurracoEnv
from burraco.variants import SETUPS

# Warnings of the API checkers about what PettingZoo's classic games do too: a dict
# observation, and the match's scores, which have no bound.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:.*observation space m..imum value is .*infinity"),
    pytest.mark.filterwarnings("ignore:.*Box observation space m..imum value is .*infinity"),
]


def random_id(observation: dict[str, Any], rng: random.Random) -> int:
    return rng.choice(np.flatnonzero(observation["action_mask"]).tolist())


def play_out(game: Any, seed: int) -> dict[str, float]:
    """Play an AEC episode by masked random ids: each agent's sum of rewards."""
    rng = random.Random(seed)
    game.reset(seed=seed)
    total = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        total[agent] += reward
        game.step(None if terminated or truncated else random_id(observation, rng))
    return total


# --- PettingZoo ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
def test_pettingzoo_api_and_seeds(name: str, players: int, lines: int) -> None:
    # Enough cycles that most tables play a deal to its end (the dead agents' steps).
    api_test(env(variant=name, players=players, lines=lines), num_cycles=150)
    seed_test(lambda: env(variant=name, players=players, lines=lines), num_cycles=40)


def test_pettingzoo_api_in_match_mode() -> None:
    api_test(env(variant="italian", deals=2, match=True), num_cycles=300)
    seed_test(lambda: env(variant="buraco", players=4, match=True), num_cycles=40)


def test_agents_spaces_and_metadata() -> None:
    game = raw_env(variant="canasta", players=4)
    assert game.metadata["name"] == "burraco_v0"
    assert game.possible_agents == ["seat_0", "seat_1", "seat_2", "seat_3"]
    size = action_space(game.v).size
    assert size == 2974
    assert game.action_space("seat_2") == gymnasium.spaces.Discrete(size)
    space = game.observation_space("seat_1")
    assert space["observation"].shape == (observation_layout(game.v).size,)
    assert space["action_mask"].shape == (size,)
    assert space["action_mask"].dtype == np.int8
    game.reset(seed=5)
    seat = game.table.turn
    assert game.agent_selection == f"seat_{seat}"
    for agent in game.agents:
        mask = game.observe(agent)["action_mask"]
        assert mask.any() == (agent == game.agent_selection)


def test_options_reach_the_variant_and_are_checked() -> None:
    assert raw_env(variant="buraco", players=6, target=500).v.target == 500
    assert raw_env(variant="italian", players=6, lines=2).v.lines == 2
    with pytest.raises(SetupError, match="canasta is played by"):
        raw_env(variant="canasta", players=3)
    with pytest.raises(SetupError, match="no option 'speed'"):
        raw_env(speed=3)
    with pytest.raises(ValueError, match="no render mode 'rgb_array'"):
        raw_env(render_mode="rgb_array")


def test_a_seed_plays_the_deals_of_that_match() -> None:
    game = raw_env(variant="italian", players=4)
    game.reset(seed=11)
    assert game.table.deal.position() == Match(game.v, seed=11).deal.position()
    game.reset()
    after_11 = game.table.deal.position()
    game.reset(seed=11)
    game.reset()
    assert game.table.deal.position() == after_11


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
def test_random_play_ends_with_the_deals_returns(name: str, players: int, lines: int) -> None:
    game = env(variant=name, players=players, lines=lines, reward_scale=0.01)
    total = play_out(game, seed=players * 7 + lines)
    deal = game.unwrapped.table.deal
    assert deal.is_over
    expected = [r * 0.01 for r in returns(deal)]
    assert [total[f"seat_{s}"] for s in range(players)] == pytest.approx(expected)
    assert sum(total.values()) == pytest.approx(0.0, abs=1e-9)
    assert not game.agents  # every agent stepped out with None


def test_a_match_episode_spans_its_deals() -> None:
    game = env(variant="italian", deals=3, match=True)
    rng = random.Random(4)
    game.reset(seed=4)
    table = game.unwrapped.table
    seen_deals, rewards_at, scored = set(), [], False
    total = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        observation, reward, terminated, _, _ = game.last()
        total[agent] += reward
        seen_deals.add(id(table.deal))
        if terminated:
            game.step(None)
            continue
        parts = observation_layout(table.v).unflatten(observation["observation"])
        seat = int(agent.split("_")[1])
        line = table.v.line_of[seat]
        totals = table.match.totals  # in play, the deals before this one
        assert parts["scores"].tolist() == [totals[(line + j) % 2] for j in range(2)]
        scored |= any(totals)
        deals_before = len(table.match.scores)
        game.step(random_id(observation, rng))
        if len(table.match.scores) > deals_before:
            rewards_at.append(dict(game.rewards))
            assert sum(game.rewards.values()) == pytest.approx(0.0, abs=1e-9)
    match = table.match
    assert match.is_over and len(match.deals) == 3 and len(seen_deals) == 3
    assert len(rewards_at) == 3 and scored
    for seat in range(match.v.players):
        expected = sum(returns(deal)[seat] for deal in match.deals)
        assert total[f"seat_{seat}"] == pytest.approx(expected)


def test_a_refused_id_raises_and_changes_nothing() -> None:
    game = env(variant="italian", players=2)
    game.reset(seed=3)
    rng = random.Random(3)
    table = game.unwrapped.table
    tried = 0
    for _ in range(300):
        if tried == 4:
            break
        agent = game.agent_selection
        observation = game.observe(agent)
        mask = observation["action_mask"]
        picking = table.decisions.picking
        refused = [*rng.sample(np.flatnonzero(mask == 0).tolist(), 3), -1, mask.size]
        if picking or tried == 0:
            before = (table.deal.position(), list(table.decisions.picked), agent)
            for action_id in [*refused, None, 2.0]:
                with pytest.raises(IllegalMove) as raised:
                    game.step(action_id)
                assert str(raised.value)
                after = game.observe(agent)
                assert np.array_equal(after["observation"], observation["observation"])
                assert np.array_equal(after["action_mask"], mask)
                assert (table.deal.position(), list(table.decisions.picked), agent) == before
                assert game.agent_selection == agent and game.rewards[agent] == 0.0
            tried += 1
        ids = np.flatnonzero(mask).tolist()
        picks = [i for i in ids if PICK_BASE <= i < PICK_BASE + KINDS]
        game.step(rng.choice(picks) if picks and not picking else rng.choice(ids))
    assert tried == 4  # the first state and three while cards were picked


def test_a_refusal_names_the_rule() -> None:
    game = env(variant="italian", players=2)
    game.reset(seed=3)
    with pytest.raises(IllegalMove, match="ids run from 0 to 2019"):
        game.step(2020)
    with pytest.raises(IllegalMove, match="meld"):
        game.step(MELD_ID)
    game.step(DRAW_ID)
    with pytest.raises(IllegalMove):
        game.step(DRAW_ID)


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS[::2])
def test_no_observation_leaks_a_hidden_card(name: str, players: int, lines: int) -> None:
    game = raw_env(variant=name, players=players, lines=lines, match=True)
    rng = random.Random(players)
    game.reset(seed=players)
    table = game.table
    for step in range(400):
        if step % 17 == 0:
            for seat, agent in enumerate(game.possible_agents):
                seen = game.observe(agent)["observation"]
                other = Deal.resample(table.deal.view(seat), random.Random(rng.random()))
                expected = observe(other, seat, picked=table.decisions.picked, scores=table.before)
                assert np.array_equal(seen, expected), (step, seat)
        game.step(random_id(game.observe(game.agent_selection), rng))


def test_render_draws_the_seat_on_turn() -> None:
    game = raw_env(variant="italian", players=4, render_mode="ansi")
    game.reset(seed=2)
    text = game.render()
    assert isinstance(text, str)
    assert f"seat_{game.table.turn} to play" in text
    assert "Stock" in text and "Line 0" in text


# --- Gymnasium ----------------------------------------------------------------------------


def test_registered_by_import_and_by_module_id() -> None:
    assert burraco.research.ENV_ID in gymnasium.registry
    made = gymnasium.make("burraco/Burraco-v0", variant="italian", players=2, opponent="greedy")
    assert isinstance(made.unwrapped, BurracoEnv)
    by_module = gymnasium.make("burraco.research:burraco/Burraco-v0", variant="buraco")
    assert by_module.unwrapped.v.name == "buraco"


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "italian", "players": 2, "opponent": "greedy"},
        {"variant": "italian", "players": 4, "opponent": "random", "partner": "greedy", "seat": 1},
        {"variant": "canasta", "players": 2, "opponent": "random", "match": True},
        {"variant": "buraco", "players": 3, "opponent": "expert", "expert_worlds": 2},
        {"variant": "italian", "players": 6, "lines": 2, "opponent": "greedy", "seat": 5},
    ],
)
def test_gymnasium_check_env(options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped")
        made = gymnasium.make("burraco/Burraco-v0", **options)
        check_env(made.unwrapped)
        check_env(made, skip_render_check=True)


def test_levels_of_the_seats() -> None:
    game = BurracoEnv(variant="italian", players=6, lines=3, opponent="random", partner="expert")
    assert game.levels == (None, "random", "random", "expert", "random", "random")
    with pytest.raises(ValueError, match="no bot level 'genius' for the opponent"):
        BurracoEnv(opponent="genius")
    with pytest.raises(ValueError, match="no seat 4"):
        BurracoEnv(players=4, seat=4)


def play_gym(game: BurracoEnv, seed: int) -> tuple[float, int]:
    """Play a Gymnasium episode by masked random ids: the rewards' sum and the steps."""
    rng = random.Random(seed)
    observation, info = game.reset(seed=seed)
    assert np.array_equal(info["action_mask"], observation["action_mask"])
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        assert observation["action_mask"].any()
        observation, reward, terminated, truncated, info = game.step(random_id(observation, rng))
        assert not truncated
        total += reward
        steps += 1
    return total, steps


@pytest.mark.parametrize(
    ("name", "players", "seat"), [("italian", 2, 1), ("canasta", 4, 2), ("buraco", 3, 0)]
)
def test_gymnasium_episode_ends_with_the_deals_return(name: str, players: int, seat: int) -> None:
    game = BurracoEnv(variant=name, players=players, opponent="random", seat=seat)
    total, _ = play_gym(game, seed=players)
    deal = game.table.deal
    assert deal.is_over and total == pytest.approx(returns(deal)[seat])
    with pytest.raises(IllegalMove, match="deal is over"):
        game.step(DRAW_ID)


def test_gymnasium_match_rewards_every_deal() -> None:
    game = BurracoEnv(variant="online", players=4, opponent="greedy", match=True, reward_scale=0.1)
    total, _ = play_gym(game, seed=9)
    match = game.table.match
    assert match.is_over and len(match.deals) == 3
    assert total == pytest.approx(sum(0.1 * returns(d)[0] for d in match.deals))


def test_gymnasium_refused_id_penalized_or_raised() -> None:
    game = BurracoEnv(variant="italian", players=2, illegal_reward=-5.0)
    observation, _ = game.reset(seed=1)
    refused = REDRAW_ID  # only the dealer's first turn may redraw, in buraco
    assert observation["action_mask"][refused] == 0
    again, reward, terminated, truncated, info = game.step(refused)
    assert reward == -5.0 and not terminated and not truncated
    assert info["illegal"] == "redraw: first draw from the stock or take the pile"
    assert np.array_equal(again["observation"], observation["observation"])
    assert np.array_equal(again["action_mask"], observation["action_mask"])
    strict = BurracoEnv(variant="italian", players=2, illegal_reward=None)
    strict.reset(seed=1)
    with pytest.raises(IllegalMove):
        strict.step(refused)


def test_gymnasium_refused_id_costs_points_scaled_as_the_returns() -> None:
    # It cost -1 against returns of hundreds of points: ignoring the mask was almost free.
    game = BurracoEnv(variant="italian", players=2)
    game.reset(seed=1)
    assert game.step(REDRAW_ID)[1] == ILLEGAL_POINTS == -100.0
    scaled = BurracoEnv(variant="italian", players=2, reward_scale=0.001)
    scaled.reset(seed=1)
    assert scaled.step(REDRAW_ID)[1] == pytest.approx(-0.1)
    given = BurracoEnv(variant="italian", players=2, reward_scale=0.5, illegal_reward=-30.0)
    given.reset(seed=1)
    assert given.step(REDRAW_ID)[1] == -15.0


def test_gymnasium_episode_is_truncated_after_its_steps() -> None:
    game = BurracoEnv(variant="italian", players=2, max_episode_steps=5)
    observation, _ = game.reset(seed=1)
    rng = random.Random(1)
    for step in range(1, 6):
        refused = step % 2 == 0  # refused ids count as legal ones do
        action = REDRAW_ID if refused else random_id(observation, rng)
        observation, reward, terminated, truncated, _ = game.step(action)
        assert not terminated and truncated == (step == 5)
        assert reward == (ILLEGAL_POINTS if refused else 0.0)
    with pytest.raises(IllegalMove, match="call reset"):
        game.step(random_id(observation, rng))
    observation, _ = game.reset(seed=2)  # a new episode starts the count again
    assert not game.step(random_id(observation, rng))[3]


def test_gymnasium_an_agent_ignoring_the_mask_loses_more_than_any_deal() -> None:
    spiel = pytest.importorskip("burraco.research.spiel")
    game = gymnasium.make("burraco/Burraco-v0", variant="canasta", players=2)
    assert game.unwrapped.max_episode_steps == MAX_EPISODE_STEPS == 1000
    game.reset(seed=3)
    total, steps, truncated = 0.0, 0, False
    while not truncated:
        _, reward, terminated, truncated, _ = game.step(REDRAW_ID)
        assert not terminated
        total += float(reward)
        steps += 1
    assert steps == MAX_EPISODE_STEPS
    assert total < -spiel.utility_bound(game.unwrapped.v)


def test_gymnasium_match_counts_the_steps_of_each_deal() -> None:
    # A match has no fixed number of deals: each deal has the steps, not the whole match.
    game = BurracoEnv(variant="online", players=2, opponent="greedy", match=True)
    total, steps = play_gym(game, seed=9)
    assert len(game.table.match.deals) == 3
    # Fewer steps than the match took, more than any of its deals took.
    limited = BurracoEnv(
        variant="online", players=2, opponent="greedy", match=True, max_episode_steps=steps - 1
    )
    assert play_gym(limited, seed=9) == (total, steps)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"reward_scale": 0}, "reward_scale is a number above 0"),
        ({"reward_scale": -1.0}, "reward_scale is a number above 0"),
        ({"reward_scale": float("nan")}, "reward_scale is a number above 0"),
        ({"illegal_reward": float("inf")}, "illegal_reward is a number of points or None"),
        ({"max_episode_steps": 0}, "max_episode_steps is 1 or more, or None"),
        ({"max_episode_steps": 2.5}, "max_episode_steps is 1 or more, or None"),
    ],
)
def test_gymnasium_refuses_bad_reward_and_step_options(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        BurracoEnv(**options)


def test_gymnasium_seed_repeats_the_episode() -> None:
    def run() -> list[float]:
        game = BurracoEnv(variant="italian", players=4, opponent="random")
        observation, _ = game.reset(seed=21)
        rng = random.Random(0)
        seen = [float(observation["observation"].sum())]
        for _ in range(60):
            observation, reward, terminated, _, _ = game.step(random_id(observation, rng))
            seen.append(float(observation["observation"].sum()) + reward)
            if terminated:
                break
        return seen

    assert run() == run()


def test_gymnasium_render() -> None:
    game = BurracoEnv(variant="italian", players=4, opponent="greedy", render_mode="ansi")
    game.reset(seed=3)
    text = game.render()
    assert isinstance(text, str)
    assert "Your hand" in text and "greedy 1" in text


def test_the_environment_checks_the_order_itself() -> None:
    """env() is the raw environment (no forwarding wrapper), and it refuses a step or an
    observation before reset() as PettingZoo's OrderEnforcingWrapper does."""
    game = env(variant="italian", players=2)
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before step"):
        game.step(0)
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before observe"):
        game.observe("seat_0")
    game.reset(seed=3)
    assert game.observe(game.agent_selection)["action_mask"].any()
