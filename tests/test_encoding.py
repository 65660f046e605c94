"""Action ids and observations for learning agents (burraco.encoding, issue 12).

1. The mapping both ways, on play of every variant and table: the engine actions
   reachable through the allowed ids (picks in any order, then a commit) are exactly
   the legal actions; each legal action's path of ids plays that action; every allowed
   id other than a pick is one engine action; no pick leads to a dead end.
2. A refused id raises :class:`IllegalMove` naming the rule and changes nothing.
3. No observation carries a card its seat may not see: re-dealing the unseen cards
   (``Deal.resample`` of the seat's view) leaves every seat's observation unchanged.

``pytest -m slow`` plays many more deals (``BURRACO_SLOW_EXAMPLES``, default 100 a setup).
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from burraco import Action, Deal, IllegalMove, variant
from burraco.bots.greedy import GreedyBot
from burraco.cards import KINDS
from burraco.encoding import (
    DRAW_ID,
    MELD_ID,
    PICK_BASE,
    TAKE_WITH_ID,
    Decisions,
    action_space,
    observation_layout,
    observe,
)
from burraco.variants import SETUPS

SLOW = int(os.environ.get("BURRACO_SLOW_EXAMPLES", "100"))


def reachable(decisions: Decisions) -> set[Action]:
    """Every engine action the allowed ids reach from here (picks in ascending kind)."""
    found: set[Action] = set()

    def walk(d: Decisions, least: int) -> None:
        for action_id in d.legal_ids():
            if PICK_BASE <= action_id < PICK_BASE + KINDS:
                if action_id - PICK_BASE >= least:
                    copy = fork(d)
                    assert copy.apply(action_id) is None
                    walk(copy, action_id - PICK_BASE)
            else:
                found.add(d.action_of(action_id))

    walk(decisions, 0)
    return found


def fork(d: Decisions) -> Decisions:
    copy = Decisions(d.deal.clone(), d.space)
    for kind in range(KINDS):
        for _ in range(d.picked[kind]):
            copy.apply(PICK_BASE + kind)
    return copy


def check_state(deal: Deal, rng: random.Random) -> None:
    decisions = Decisions(deal.clone())
    legal = set(deal.legal_actions())
    assert reachable(decisions) == legal
    space = decisions.space
    for action in rng.sample(sorted(legal, key=str), min(len(legal), 6)):
        d = Decisions(deal.clone())
        path = space.path(action)
        for action_id in path[:-1]:
            assert d.apply(action_id) is None
        assert d.apply(path[-1]) == action
        expected = deal.clone()
        expected.apply(action)
        assert d.deal.position() == expected.position()
    mask = decisions.mask()
    assert mask.shape == (space.size,)
    assert list(np.flatnonzero(mask)) == decisions.legal_ids()


def check_refusal(deal: Deal, rng: random.Random) -> None:
    decisions = Decisions(deal.clone())
    picks = [i for i in decisions.legal_ids() if PICK_BASE <= i < PICK_BASE + KINDS]
    if picks and rng.random() < 0.5:
        decisions.apply(rng.choice(picks))
    before = (decisions.deal.position(), list(decisions.picked), list(decisions.legal_ids()))
    allowed = set(decisions.legal_ids())
    refused = [i for i in range(decisions.space.size) if i not in allowed]
    for action_id in [*rng.sample(refused, min(len(refused), 5)), -1, decisions.space.size]:
        with pytest.raises(IllegalMove) as raised:
            decisions.apply(action_id)
        assert raised.value.code
        assert str(raised.value)
        after = (decisions.deal.position(), list(decisions.picked), list(decisions.legal_ids()))
        assert after == before


def check_observations(deal: Deal, rng: random.Random, scores: tuple[int, ...]) -> None:
    layout = observation_layout(deal.v)
    for seat in range(deal.v.players):
        obs = observe(deal, seat, scores=scores)
        assert obs.shape == (layout.size,)
        assert obs.dtype == np.float32
        other = Deal.resample(deal.view(seat), random.Random(rng.random()))
        assert np.array_equal(observe(other, seat, scores=scores), obs), seat
        parts = layout.unflatten(obs)
        assert parts["hand"].sum() == deal.sizes[seat]
        assert parts["hand_sizes"][0] == deal.sizes[seat]


def play_and_check(name: str, players: int, lines: int, seed: int, steps: int) -> None:
    """Play a deal by ids (greedy and random choices) and check states along the way."""
    v = variant(name, players=players, lines=lines)
    rng = random.Random(seed)
    deal = Deal.new(v, seed=seed)
    decisions = Decisions(deal)
    bot = GreedyBot()
    scores = tuple(rng.randrange(-500, 3000) for _ in range(v.lines))
    for _ in range(steps):
        if deal.is_over:
            break
        if not decisions.picking and rng.random() < 0.25:
            check_state(deal, rng)
            check_refusal(deal, rng)
            check_observations(deal, rng, scores)
        if decisions.picking:
            decisions.apply(rng.choice(decisions.legal_ids()))
            continue
        if rng.random() < 0.6:
            legal = deal.legal_actions()
            action = bot.choose(deal.view(deal.turn), legal)
            for action_id in decisions.space.path(action):
                decisions.apply(action_id)
            assert deal.history[-1] == action
        else:
            decisions.apply(rng.choice(decisions.legal_ids()))
    check_observations(deal, rng, scores)


@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_ids_map_to_actions_both_ways(name: str, players: int, lines: int, seed: int) -> None:
    play_and_check(name, players, lines, seed, steps=200)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "players", "lines"), SETUPS)
@settings(max_examples=SLOW, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_ids_map_to_actions_both_ways_long(name: str, players: int, lines: int, seed: int) -> None:
    play_and_check(name, players, lines, seed, steps=2000)


def test_space_sizes_and_words() -> None:
    italian = action_space(variant("italian"))
    assert italian.size == 2020 and italian.max_melds == 36
    assert action_space(variant("canasta")).size == 2974
    assert italian.describe(DRAW_ID) == "draw"
    assert italian.describe(MELD_ID) == "meld"
    assert italian.describe(TAKE_WITH_ID) == "take-with"
    assert italian.path(Action.parse("discard QS")) == (italian.discard_id(11),)
    assert italian.path(Action.parse("take 7H 7S")) == (
        italian.pick_id(6),
        italian.pick_id(19),
        TAKE_WITH_ID,
    )
    with pytest.raises(ValueError, match="no meld number 36"):
        italian.extend_id(36, 0)


def test_a_commit_with_nothing_picked_names_the_rule() -> None:
    deal = Deal.new(variant("italian"), seed=1)
    decisions = Decisions(deal)
    decisions.apply(DRAW_ID)
    with pytest.raises(IllegalMove, match="no cards are picked") as raised:
        decisions.apply(MELD_ID)
    assert raised.value.code == "nothing_picked"
    with pytest.raises(IllegalMove) as raised:
        decisions.apply(decisions.space.size + 3)
    assert raised.value.code == "no_action_id"


def test_a_cannot_take_pile_names_the_engine_rule() -> None:
    deal = Deal.new(variant("italian"), seed=1)
    decisions = Decisions(deal)
    decisions.apply(DRAW_ID)
    with pytest.raises(IllegalMove) as raised:
        decisions.apply(DRAW_ID)
    assert raised.value.code == "already_drawn"
