"""The review of a deal (``burraco.bots.review``, ``burraco review``): planted blunders are
tagged, the expert's own play costs next to nothing, and a review reads no unseen card."""

from __future__ import annotations

import json
import random
import statistics
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from burraco import Deal, compose, variant
from burraco.actions import DISCARD
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot, discarded_by
from burraco.bots.review import (
    BLUNDER,
    CLOSE,
    MISTAKE,
    PILE,
    POZZETTO,
    DealReview,
    _Playout,
    review_deal,
    review_position,
    reviewer,
    tag_of,
)
from burraco.cli import app
from burraco.errors import RuleError
from burraco.match import Match
from burraco.record import MatchRecord, read_record, save, write_record

ITALIAN = variant("italian")


def _edit(deal: Deal, change: dict[int, str]) -> Deal:
    """The deal with some fields of its position (0-based) replaced."""
    fields = deal.position().split(" ")
    for index, text in change.items():
        fields[index] = text
    return Deal.from_position(" ".join(fields))


def _with_pozzetto(deal: Deal, line: int) -> Deal:
    """The deal with ``line``'s pozzetto taken (its cards put back in the stock)."""
    fields = deal.position().split(" ")
    pozzetti = fields[6].split("/")
    taken = pozzetti.pop(line)
    flags = fields[9].split("/")
    flags[line] += "p"
    return _edit(deal, {4: fields[4] + taken, 6: "/".join(pozzetti) or "-", 9: "/".join(flags)})


def test_a_discard_that_hands_the_opponent_a_burraco_is_a_blunder() -> None:
    # Seat 1 holds one card, has its pozzetto and a six-card sequence of hearts: the 10H
    # discarded makes its burraco and lets it close. Seat 0 holds the other 10H and both 3H.
    deal = compose(
        ITALIAN,
        ["10H 10H 3H KC QS 9C 5D 5S 8S 7C", "KD"],
        melds=[["AH 2H 3H"], ["4H 5H 6H 7H 8H 9H", "JS QS KS"]],
        stock_top="JH",
        turn=0,
    )
    deal = _with_pozzetto(deal, 1)
    deal.apply("draw")
    decision = review_position(deal, "discard 10H", worlds=32, seed=1)
    assert decision.tag == BLUNDER, decision
    assert decision.reason == PILE and decision.pile_taken[0] > 0.9
    assert decision.best.startswith("discard") and decision.best != "discard 10H"
    # A safe discard is not tagged.
    safe = review_position(deal, decision.best, worlds=32, seed=1)
    assert safe.tag is None and safe.cost < 20


def test_a_close_missed_is_a_blunder() -> None:
    # Seat 0 has its pozzetto and a clean burraco: extending 7C and discarding KD closes.
    deal = compose(
        ITALIAN,
        ["KD"],
        melds=[["4S 5S 6S 7S 8S 9S 10S", "4C 5C 6C"], ["JH QH KH"]],
        stock_top="7C",
        turn=0,
    )
    deal = _with_pozzetto(deal, 0)
    deal.apply("draw")
    # At the room's budget (64): at 32 the split sample's interval, 124 ± 26 MP, is honest
    # that the loss might fall short of a blunder's 100.
    for played in ("discard KD", "discard 7C"):
        decision = review_position(deal, played, worlds=64, seed=2)
        assert decision.tag == BLUNDER, decision
        assert decision.best == "extend 1 7C" and decision.reason == CLOSE
    closing = review_position(deal, "extend 1 7C", worlds=64, seed=2)
    assert closing.cost == 0 and closing.tag is None


def test_a_pozzetto_left_untaken_is_a_blunder() -> None:
    # The stock's last card: the deal ends with this turn. Laying down both sets and
    # discarding takes the pozzetto; discarding at once leaves it (and the hand) to count.
    deal = compose(
        ITALIAN,
        ["AS AD AC KS KD KC"],
        melds=[["8D 9D 10D"], ["JH QH KH"]],
        stock_top="QD",
        turn=0,
    )
    fields = deal.position().split(" ")
    hands = fields[3].split("/")
    stock = fields[4]
    assert stock.startswith("QD")
    deal = _edit(deal, {3: f"{hands[0]}/{hands[1]}{stock[2:]}", 4: "QD"})
    deal.apply("draw")
    decision = review_position(deal, "discard QD", worlds=32, seed=3)
    assert decision.tag == BLUNDER, decision
    assert decision.reason == POZZETTO and decision.best.startswith("meld")


def test_tags_need_the_cost_beyond_its_noise() -> None:
    assert tag_of(300, 150) is None
    assert tag_of(300, 120) == MISTAKE
    assert tag_of(19.9, 0) is None


def test_a_review_refuses_a_bad_request() -> None:
    record = _record(9)
    with pytest.raises(ValueError, match="no deal 2"):
        review_deal(record, 2, 0, worlds=4)
    with pytest.raises(ValueError, match="no seat 2"):
        review_deal(record, 1, 2, worlds=4)
    with pytest.raises(ValueError, match="at least 4 sampled deals"):
        review_deal(record, 1, 0, worlds=1)
    deal = compose(ITALIAN, ["5H 6H"], turn=0)
    with pytest.raises(ValueError, match="not legal"):
        review_position(deal, "discard 5H", worlds=4)


@cache
def _record(seed: int) -> MatchRecord:
    match = Match(variant("italian", deals=1), seed=seed)
    bot = GreedyBot()
    while not match.is_over:
        match.apply(bot.choose(match.view(match.turn), match.legal_actions()))
    return read_record(write_record(match))


@cache
def _expert_record(seed: int, players: int = 2) -> MatchRecord:
    match = Match(variant("italian", players=players, deals=1), seed=seed)
    bots = [ExpertBot(worlds=16, seed=seed * 10 + s) for s in range(players)]
    while not match.is_over:
        match.apply(bots[match.turn].choose(match.view(match.turn), match.legal_actions()))
    return read_record(write_record(match))


def _expert_costs(seeds: range, players: int = 2) -> list[float]:
    costs = []
    for seed in seeds:
        record = _expert_record(seed, players)
        for seat in range(players):
            review = review_deal(record, 1, seat, worlds=24, seed=seed)
            costs.extend(d.cost for d in review.decisions if d.weighed)
            assert not review.tagged(BLUNDER), review.tagged(BLUNDER)
    return costs


def test_the_experts_own_decisions_cost_next_to_nothing() -> None:
    # Its own decisions, weighed with its own eyes: the split sample's costs are unbiased,
    # what remains is the expert's own smaller sample (test_review_calibration.py bounds
    # it closer).
    costs = _expert_costs(range(1, 2))
    assert len(costs) > 40
    assert statistics.mean(costs) < 15, statistics.mean(costs)


@pytest.mark.slow
def test_the_experts_own_decisions_cost_next_to_nothing_over_more_deals() -> None:
    costs = _expert_costs(range(1, 9)) + _expert_costs(range(1, 3), players=4)
    assert statistics.mean(costs) < 12, statistics.mean(costs)


def test_the_greedy_players_decisions_cost_more_than_the_experts() -> None:
    greedy = review_deal(_record(9), 1, 0, worlds=24, seed=1)
    expert = _expert_costs(range(1, 2))
    weighed = [d.cost for d in greedy.decisions if d.weighed]
    assert statistics.mean(weighed) > 1.5 * statistics.mean(expert)


def test_a_review_is_reproducible_and_round_trips_through_json() -> None:
    record = _record(9)
    first = review_deal(record, 1, 1, worlds=6, seed=4)
    again = review_deal(record, 1, 1, worlds=6, seed=4)
    assert first == again
    assert DealReview.from_json(first.to_json()) == first
    assert 0 <= first.accuracy <= 100
    # The deal's total is the signed sum of its decisions' unbiased costs.
    assert first.cost == pytest.approx(sum(d.cost for d in first.decisions), abs=0.1)
    with pytest.raises(ValueError, match="not a deal review"):
        DealReview.from_dict({"deal": 1})


def _midgame(name: str, turns: int, seed: int) -> Deal:
    """A deal for two played on by the greedy player for ``turns`` turns, in its play phase
    (drawn), with several discards to choose from."""
    deal = Deal.new(variant(name), seed, dealer=0)
    greedy = GreedyBot()
    while deal.turns < turns or deal.phase != "play" or deal.sizes[deal.turn] < 6:
        assert not deal.is_over
        deal.apply(greedy.choose(deal.view(deal.turn), deal.legal_actions()))
    return deal


@pytest.mark.parametrize(
    ("name", "horizon"), [("italian", 6), ("italian", 2), ("buraco-fechado", 6)]
)
def test_the_review_values_a_playout_with_the_experts_leaf(name: str, horizon: int) -> None:
    """A candidate's outcome in a sampled deal is the expert's own rollout value: its
    playouts, its horizon (to the end with a closed pile) and its leaf, the hands left out
    at the cutoff (the review counted them in full, and judged a pruned expert by another
    measure than its own)."""
    deal = _midgame(name, 12, 4)
    seat = deal.turn
    view = deal.view(seat)
    thrown = discarded_by(view)
    expert = ExpertBot(horizon=horizon)
    playout = _Playout(reviewer(horizon))
    counted = 0
    for k in range(3):
        world = Deal.resample(view, random.Random(k))
        for action in deal.legal_actions()[:6]:
            value = expert._rollout(world, action, seat, thrown)
            assert playout(world, action, seat, thrown).value == value
            full = ExpertBot(horizon=horizon, hand_weight=1.0)._rollout(world, action, seat, thrown)
            counted += full != value
    # The hands in full give other values: the test tells the two leaves apart (a closed
    # pile plays to the end, where the hands count in full in both).
    assert counted > 0 or not deal.v.pile_open


def test_the_review_weighs_a_wide_list_whatever_the_experts_pruning() -> None:
    deal = _midgame("italian", 12, 4)
    view, legal = deal.view(deal.turn), deal.legal_actions()
    wide = ExpertBot(discards=4, lays=2).candidates(view, legal)
    pruned = ExpertBot(discards=2, lays=1).candidates(view, legal)
    assert len(pruned) < len(wide)
    played = next(a for a in legal if a.kind == DISCARD and a not in wide)
    decision = review_position(deal, played, worlds=4, seed=1)
    assert {c.action for c in decision.candidates} == {str(a) for a in [played, *wide]}


def test_a_time_budget_bounds_the_review() -> None:
    seen: list[tuple[int, int]] = []
    review = review_deal(
        _record(9), 1, 0, seconds=0.01, seed=1, progress=lambda d, t: seen.append((d, t))
    )
    assert seen and seen[-1][0] == seen[-1][1] == len(review.decisions)
    # Every decision weighs at least a few sampled deals, then stops near its time.
    assert review.elapsed < len(review.decisions) * 0.5


@pytest.mark.parametrize(
    ("name", "players"),
    [("buraco", 2), ("canasta", 2), ("online", 4), ("italian", 3), ("buraco", 4), ("canasta", 4)],
)
def test_every_variant_and_table_is_reviewed(name: str, players: int) -> None:
    match = Match(variant(name, players=players, deals=1), seed=3)
    bot = GreedyBot()
    while not match.is_over:
        match.apply(bot.choose(match.view(match.turn), match.legal_actions()))
    record = read_record(write_record(match))
    for seat in range(players):
        review = review_deal(record, 1, seat, worlds=4, seed=1)
        assert review.players == players and review.decisions
        assert any(d.weighed for d in review.decisions)
        assert DealReview.from_json(review.to_json()) == review


# --- the review reads no unseen card -----------------------------------------------------------


def _seat_views(order: list, record: MatchRecord, seat: int) -> list | None:
    """Seat's view at each of its decisions when the record's actions are played on the deck
    ``order``; None when an action is illegal there."""
    d = record.deals[0]
    deal = Deal.from_deck(record.rules(), order, dealer=d.dealer)
    views = []
    for recorded in d.actions:
        if deal.is_over:
            return None
        if recorded.seat == seat:
            views.append((deal.view(seat), tuple(deal.legal_actions())))
        try:
            deal.apply(recorded.action)
        except RuleError:
            return None
    return views


@cache
def _unseen_indices(seed: int, seat: int) -> tuple[int, ...]:
    """The deck places whose card the seat never sees in the deal (swapping one with the
    stock's bottom card changes none of its views), with the deal still playable."""
    record = _record(seed)
    order = list(record.deals[0].deck)
    views = _seat_views(order, record, seat)
    bottom = None
    unseen = []
    # The stock's last card is never drawn in a deal closed with the stock half full; it
    # lies just above the pozzetti (the deck's last 22 cards).
    for j in range(len(order) - 23, 0, -1):
        if order[j] != order[j - 1]:
            bottom = j
            break
    assert bottom is not None
    for i, card in enumerate(order):
        if card == order[bottom]:
            continue
        swapped = order[:]
        swapped[i], swapped[bottom] = swapped[bottom], swapped[i]
        if _seat_views(swapped, record, seat) == views:
            unseen.append(i)
    return tuple(unseen)


@settings(max_examples=6, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.data())
def test_changing_only_unseen_cards_changes_no_figure(data: st.DataObject) -> None:
    record = _record(9)
    seat = 0
    unseen = _unseen_indices(9, seat)
    # The opponent's hand and the stock, not only the stock's bottom.
    assert len(unseen) > 30
    i = data.draw(st.sampled_from(unseen))
    j = data.draw(st.sampled_from(unseen))
    order = list(record.deals[0].deck)
    assume(order[i] != order[j])
    swapped = order[:]
    swapped[i], swapped[j] = swapped[j], swapped[i]
    assume(_seat_views(swapped, record, seat) == _seat_views(order, record, seat))
    # The same actions on the other deck: the other seat's hand (and the scores) differ.
    deal = record.deals[0]
    other = MatchRecord(
        record.variant,
        record.players,
        record.lines,
        record.options,
        first_dealer=record.first_dealer,
        deals=(type(deal)(deal.dealer, tuple(swapped), deal.actions, deal.end, deal.scores),),
    )
    assert other.deals[0].deck != deal.deck
    before = review_deal(record, 1, seat, worlds=6, seed=5)
    after = review_deal(other, 1, seat, worlds=6, seed=5)
    assert after.decisions == before.decisions
    assert (after.cost, after.error, after.accuracy) == (before.cost, before.error, before.accuracy)


# --- the command ------------------------------------------------------------------------------

runner = CliRunner()


def _saved(tmp_path: Path) -> Path:
    match = Match(variant("italian", deals=1), seed=9)
    bot = GreedyBot()
    while not match.is_over:
        match.apply(bot.choose(match.view(match.turn), match.legal_actions()))
    path = tmp_path / "game.txt"
    save(match, path, names=["Anna", "Bruno"])
    return path


def test_review_command_prints_a_table_and_json(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    result = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "4"])
    assert result.exit_code == 0, result.output
    assert "Deal 1 · Anna (seat 0)" in result.output and "accuracy" in result.output
    result = runner.invoke(
        app, ["review", str(path), "--deal", "1", "--worlds", "4", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    start = result.stdout.index("[")
    reviews = [DealReview.from_dict(r) for r in json.loads(result.stdout[start:])]
    assert [r.seat for r in reviews] == [0, 1]


def test_review_command_refuses_a_deal_the_record_lacks(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    result = runner.invoke(app, ["review", str(path), "--deal", "3"])
    assert result.exit_code == 2
    assert "no deal 3" in result.output
    result = runner.invoke(app, ["review", str(path), "--seat", "5"])
    assert result.exit_code == 2 and "no seat 5" in result.output


def test_review_command_with_worlds_alone_gives_the_same_figures(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    command = ["review", str(path), "--seat", "1", "--worlds", "4", "--json"]
    first, again = (runner.invoke(app, command) for _ in range(2))
    assert first.exit_code == 0, first.output
    reviews = [json.loads(r.stdout[r.stdout.index("[") :]) for r in (first, again)]
    assert reviews[0][0]["seconds"] is None and reviews[0][0]["worlds"] == 4
    for review in reviews:
        review[0].pop("elapsed")
    assert reviews[0] == reviews[1]
