"""The expert's leaf value: a playout cut short weighs the hand and the near-burraco melds;
one played to the end of the deal is scored as the deal scores it."""

from __future__ import annotations

import random

import pytest

from burraco import Deal, variant
from burraco.actions import DISCARD
from burraco.bots.expert import ExpertBot, line_totals
from burraco.bots.greedy import GreedyBot, discarded_by
from burraco.bots.weights import HAND_SET, LEVEL_SET, GreedyWeights


def _midgame(name: str, players: int, turns: int, seed: int) -> Deal:
    """A deal played on by the greedy player for ``turns`` turns, with melds on the table."""
    deal = Deal.new(variant(name, players=players), seed, dealer=0)
    greedy = GreedyBot()
    while deal.turns < turns and not deal.is_over:
        deal.apply(greedy.choose(deal.view(deal.turn), deal.legal_actions()))
    return deal


def _hand_points(deal: Deal, line: int) -> int:
    v = deal.v
    total = 0
    for seat in range(v.players):
        if deal.line_of[seat] == line:
            points = sum(n * v.value(c) for c, n in enumerate(deal.hands[seat]))
            pending = deal.pending_pozzetto[seat]
            if pending is not None:
                points += sum(v.value(c) for c in pending)
            if v.double_unmelded_hand and not deal._melded_seat[seat]:
                points *= 2
            total += points
    return total


@pytest.mark.parametrize(("name", "players"), [("italian", 2), ("italian", 4), ("buraco", 2)])
def test_the_leaf_value_scales_the_hand_and_counts_melds_one_card_short(
    name: str, players: int
) -> None:
    deal = _midgame(name, players, 30, 5)
    assert not deal.is_over
    v = deal.v
    exact = line_totals(deal)
    leaf = line_totals(deal, hand_weight=0.25, near=0.5)
    short = v.burraco_length - 1
    for line, total in exact.items():
        near = sum(1 for m in deal.melds[line] if len(m.cards) == short)
        hand = _hand_points(deal, line)
        assert leaf[line] == pytest.approx(total + 0.75 * hand + near * 0.5 * v.dirty_bonus)


def test_a_playout_to_the_end_is_scored_exactly_whatever_the_leaf_weights() -> None:
    """The leaf weights stand in for the future only: a deal that ended in the playout
    counts its hands in full, as its score does."""
    deal = _midgame("italian", 2, 20, 3)
    seat = deal.turn
    view = deal.view(seat)
    world = Deal.resample(view, random.Random(7))
    action = deal.legal_actions()[0]
    bot = ExpertBot(worlds=1, horizon=None, hand_weight=0.1, near=0.9)
    value = bot._rollout(world, action, seat, discarded_by(view))

    # The same playout by hand: the greedy player in every seat, to the end.
    played = world.clone()
    played.apply(action)
    thrown = [set(cards) for cards in discarded_by(view)]
    if action.kind == DISCARD:
        thrown[seat].add(action.cards[0])
    greedy = GreedyBot()
    while not played.is_over:
        chosen = greedy.playout(played, thrown)
        if chosen.kind == DISCARD:
            thrown[played.turn].add(chosen.cards[0])
        played.apply(chosen)
    points = {ls.line: ls.total for ls in played.score().lines}
    mine = points.pop(played.line_of[seat])
    assert value == mine - max(points.values())


def test_a_cut_playout_uses_the_leaf_weights() -> None:
    deal = _midgame("italian", 2, 20, 3)
    seat = deal.turn
    view = deal.view(seat)
    world = Deal.resample(view, random.Random(7))
    action = deal.legal_actions()[0]
    full = ExpertBot(worlds=1, horizon=2, hand_weight=1.0)._rollout(
        world, action, seat, discarded_by(view)
    )
    light = ExpertBot(worlds=1, horizon=2, hand_weight=0.0)._rollout(
        world, action, seat, discarded_by(view)
    )
    # Two turns on, both lines hold cards: without the hands, the difference changes.
    assert light != full
    # The default leaf leaves the hands out.
    assert ExpertBot(worlds=1, horizon=2)._rollout(world, action, seat, discarded_by(view)) == light


def test_the_expert_plays_the_tuned_weights_where_its_table_names_them() -> None:
    """At buraco for two (``EXPERT_TABLES``) the expert's candidates and playouts are the
    greedy level's tuned set; at Italian for two the hand-set ones."""
    tuned = GreedyWeights.named(LEVEL_SET)
    for name, weights in (("buraco", tuned), ("italian", HAND_SET)):
        deal = _midgame(name, 2, 8, 1)
        view, legal = deal.view(deal.turn), deal.legal_actions()
        expert = ExpertBot(worlds=2)
        expert.choose(view, legal)
        assert expert.policy.weights is weights and expert.ranker is expert.policy
        assert ExpertBot().candidates(view, legal)[0] == GreedyBot(weights=weights).choose(
            view, legal
        )
    # Weights given are kept at every table.
    deal = _midgame("buraco", 2, 8, 1)
    expert = ExpertBot(worlds=2, weights=HAND_SET)
    expert.candidates(deal.view(deal.turn), deal.legal_actions())
    assert expert.policy.weights is HAND_SET


def test_a_hint_needs_no_search_where_the_expert_has_one_candidate() -> None:
    """Where the greedy player's lay-down is the only candidate the expert searches
    nothing; its values are then empty, and a hint reads them all the same."""
    from burraco.bots.hints import suggest

    assert ExpertBot().last_values == {}
    deal = Deal.new(variant("italian"), 2, dealer=0)
    greedy = GreedyBot()
    while len(ExpertBot().candidates(deal.view(deal.turn), deal.legal_actions())) != 1 or (
        len(deal.legal_actions()) < 2
    ):
        deal.apply(greedy.choose(deal.view(deal.turn), deal.legal_actions()))
    hint = suggest(deal.view(deal.turn), seconds=0.01)
    assert hint.action in deal.legal_actions()
