"""The bots' weights as data: the default weights play as the hand-set ones did, a weight
set round-trips through its file, and the tuner runs a generation."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from benches import load_bench

from burraco import Deal, variant
from burraco.bots import RandomBot
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.weights import (
    HAND_SET,
    LEVEL_SET,
    LEVEL_TABLES,
    GreedyWeights,
    level_weights,
    shipped_names,
    weight_names,
)

GOLDEN = Path(__file__).parent / "golden" / "greedy_choices.json"
#: The setups the golden choices were taken from, and the deals of each.
GOLDEN_SETUPS = (("italian", 2), ("italian", 4), ("buraco", 2), ("canasta", 2))
GOLDEN_DEALS = 3


def _positions() -> Iterator[tuple[str, Deal]]:
    """Positions of real play: deals where the greedy player plays two moves in three and a
    random player the third (so that its choices meet more kinds of position)."""
    for name, players in GOLDEN_SETUPS:
        v = variant(name, players=players)
        for seed in range(GOLDEN_DEALS):
            deal = Deal.new(v, seed, dealer=seed % players)
            chooser = random.Random(seed)
            wild = RandomBot(seed)
            while not deal.is_over:
                key = f"{name}{players} {seed} {deal.turns} {len(deal.view(deal.turn).history)}"
                yield key, deal
                view, legal = deal.view(deal.turn), deal.legal_actions()
                bot = wild if chooser.random() < 1 / 3 else GreedyBot()
                deal.apply(bot.choose(view, legal))


def _choices(bot: GreedyBot, expert: ExpertBot) -> dict[str, list[str]]:
    """Per position: the greedy choice and, in the play phase, a digest of its ranking of
    the actions (the expert's candidates); at every 40th position, the expert's choice on
    a budget of worlds (its playouts are the greedy player's)."""
    out: dict[str, list[str]] = {}
    for i, (key, deal) in enumerate(_positions()):
        view, legal = deal.view(deal.turn), deal.legal_actions()
        row = [str(bot.choose(view, legal))]
        if deal.phase == "play":
            ranked = " ".join(str(a) for a in bot.ranked(view, legal))
            row.append(hashlib.sha256(ranked.encode()).hexdigest()[:16])
        if i % 40 == 0:
            row.append(f"expert {expert.choose(view, legal)}")
        out[key] = row
    return out


def _expert() -> ExpertBot:
    # The leaf of the expert the golden choices were taken with (the hands counted in full):
    # this test holds the greedy weights, not the expert's leaf value (tests/test_expert.py);
    # and its candidates then, four discards and two lay-downs at every table, with the
    # hand-set weights at every table.
    return ExpertBot(worlds=6, seed=5, hand_weight=1.0, discards=4, lays=2, weights=HAND_SET)


def write_golden() -> None:
    """Write the golden choices (run by hand, once, on the code the weights came from)."""
    choices = _choices(GreedyBot(), _expert())
    GOLDEN.write_text(json.dumps(choices, indent=0, sort_keys=True) + "\n")


def test_the_default_weights_choose_as_the_hand_set_greedy_did() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert len(golden) >= 300
    choices = _choices(GreedyBot(), _expert())
    assert choices.keys() == golden.keys()
    changed = [key for key in golden if choices[key] != golden[key]]
    assert not changed, changed[:5]


def test_the_golden_choices_see_a_changed_weight() -> None:
    """The golden test can fail: one weight moved changes choices."""
    golden = json.loads(GOLDEN.read_text())
    moved = GreedyBot(weights=GreedyWeights(danger_feeds=0.0))
    expert = ExpertBot(worlds=6, seed=5, weights=moved.weights, hand_weight=1.0, discards=4, lays=2)
    choices = _choices(moved, expert)
    assert sum(choices[key] != golden[key] for key in golden) > 20


def test_weights_round_trip_through_their_file(tmp_path: Path) -> None:
    w = GreedyWeights.of_vector([x * 1.5 + 0.25 for x in HAND_SET.vector()])
    assert w != HAND_SET
    path = tmp_path / "w.json"
    w.save(path)
    assert GreedyWeights.load(path) == w
    assert GreedyWeights.of_vector(w.vector()) == w
    assert json.loads(path.read_text()).keys() == HAND_SET.to_dict().keys()
    # A file may name only the weights it changes; a tuner's 20.0 cards read as 20.
    assert GreedyWeights.from_dict({"keep_wild": 150}) == GreedyWeights(keep_wild=150)
    assert GreedyWeights.from_dict({"pile_late_stock": 12.0}).pile_late_stock == 12
    assert "pile_late_stock" not in weight_names()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"keep_wilds": 1}', "no weight 'keep_wilds' (keep_wild?)"),
        ('{"keep_wild": "high"}', "keep_wild must be a number"),
        ('{"keep_wild": true}', "keep_wild must be a number"),
        ('{"keep_wild": NaN}', "keep_wild must be finite"),
        ('{"danger_pile": 0}', "danger_pile must be above 0"),
        ('{"pile_late_stock": 2.5}', "pile_late_stock must be a whole number"),
        ("[1, 2]", "expected an object of weights"),
        ("{", "not JSON"),
    ],
)
def test_bad_weights_are_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        GreedyWeights.from_json(text)


def test_shipped_weight_sets_load() -> None:
    names = shipped_names()
    assert names[0] == "hand-set" and GreedyWeights.named("hand-set") is HAND_SET
    for name in names:
        GreedyWeights.named(name)
    with pytest.raises(ValueError, match="no greedy weight set 'nonsense'"):
        GreedyWeights.named("nonsense")


def test_two_weight_sets_play_side_by_side() -> None:
    """The greedy player's memos are kept per weight set: a bot with other weights in the
    same process does not change the hand-set player's choices."""
    other = GreedyBot(weights=GreedyWeights(meld_burraco=10.0, extend_burraco=5.0))
    golden = json.loads(GOLDEN.read_text())
    for i, (key, deal) in enumerate(_positions()):
        if i % 3:
            continue
        view, legal = deal.view(deal.turn), deal.legal_actions()
        other.choose(view, legal)
        assert str(GreedyBot().choose(view, legal)) == golden[key][0], key


@pytest.mark.parametrize(
    ("name", "players", "lines"), [("italian", 4, 2), ("italian", 3, 3), ("canasta", 2, 2)]
)
def test_the_greedy_level_plays_its_tables_weights(name: str, players: int, lines: int) -> None:
    """The ``greedy`` level plays the tuned set at the tables where it was measured to win,
    the hand-set weights elsewhere; in its playouts too (the expert's search reads the deal
    in place)."""
    from burraco.bots.arena import make_bot

    v = variant(name, players=players, lines=lines)
    tuned = (name, players, lines) in LEVEL_TABLES
    assert tuned == ((name, players) == ("italian", 4))
    expected = GreedyWeights.named(LEVEL_SET) if tuned else HAND_SET
    assert level_weights(v) is expected
    level = make_bot("greedy", seed=1)
    assert isinstance(level, GreedyBot)
    fixed = GreedyBot(weights=expected)
    deal = Deal.new(v, 3)
    thrown: list[set[int]] = [set() for _ in range(players)]
    while not deal.is_over:
        view, legal = deal.view(deal.turn), deal.legal_actions()
        action = level.choose(view, legal)
        assert action == fixed.choose(view, legal) == level.playout(deal, thrown)
        if action.kind == "discard":
            thrown[deal.turn].add(action.cards[0])
        deal.apply(action)


def test_the_tuner_runs_a_generation_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("cma")  # the tune extra
    tune = load_bench("tune")
    out = tmp_path / "run"
    args = tune.parser().parse_args(
        ["run", "--out", str(out), "--boards", "2", "--popsize", "4", "--generations", "1"]
    )
    lines: list[str] = []
    first = tune.run(args, lines.append)
    assert [g.generation for g in first] == [0] and len(first[0].fitnesses) == 4
    assert (out / "state.pkl").exists() and (out / "log.jsonl").exists()
    mean = GreedyWeights.load(out / "mean.json")
    assert mean == first[0].mean != HAND_SET
    assert GreedyWeights.load(out / "best.json") == first[0].best
    # Run again: it resumes at generation 1, and the same setup is asked for.
    args.generations = 2
    second = tune.run(args, lines.append)
    assert [g.generation for g in second] == [1]
    assert any(line.startswith("resuming") for line in lines)
    assert len((out / "log.jsonl").read_text().splitlines()) == 2
    args.boards = 3
    with pytest.raises(SystemExit, match="holds a run of"):
        tune.run(args, lines.append)
    # Against two opponents: the gain over the hand-set weights against each, averaged.
    mixed = tune.parser().parse_args(
        [
            *("run", "--out", str(tmp_path / "mixed"), "--boards", "2", "--popsize", "4"),
            *("--generations", "1", "--against", "greedy,random"),
        ]
    )
    assert len(tune.run(mixed, lines.append)) == 1
    assert "against random" in lines[-2]
    mixed.against = "greedy,genius"
    with pytest.raises(SystemExit, match="no opponent 'genius'"):
        tune.run(mixed, lines.append)


def test_the_hand_set_weights_are_level_with_themselves() -> None:
    """The fitness of the hand-set weights against themselves is 0 on every board: the
    duplicate seating cancels the cards exactly."""
    tune = load_bench("tune")
    v = variant("italian", players=2)
    assert tune.fitness(v, HAND_SET, [tune.board_seed(1, 0, b) for b in range(3)]) == 0.0
    assert tune.decode(tune.encode(HAND_SET)) == HAND_SET


def test_the_tuners_fast_games_are_the_bots_games() -> None:
    """The tuner plays the greedy players as the expert's playouts do, unchecked: the
    margins are those of the bots choosing from their views, deal by deal."""
    tune = load_bench("tune")
    moved = GreedyWeights.of_vector([x * 1.3 for x in HAND_SET.vector()])
    for name, players in (("italian", 2), ("italian", 4), ("canasta", 2)):
        v = variant(name, players=players)
        seeds = [tune.board_seed(2, 1, b) for b in range(4)]
        slow = [
            tune.board_value(
                v, s, s % players, tune.greedy_maker(moved), tune.greedy_maker(HAND_SET)
            )
            for s in seeds
        ]
        assert tune.fitness(v, moved, seeds) == pytest.approx(sum(slow) / len(slow))
        assert any(slow)
        against_random = [
            tune.board_value(v, s, s % players, tune.greedy_maker(moved), RandomBot) for s in seeds
        ]
        assert tune.fitness_vs_random(v, moved, seeds) == pytest.approx(
            sum(against_random) / len(against_random)
        )


def test_verify_gives_zero_for_the_hand_set_weights(tmp_path: Path) -> None:
    tune = load_bench("tune")
    path = tmp_path / "same.json"
    HAND_SET.save(path)
    for worlds in (None, 1):
        args = tune.parser().parse_args(["verify", str(path), "--boards", "2", "--seed", "3"])
        args.expert_worlds = worlds
        lines: list[str] = []
        assert tune.verify(args, lines.append) == (0.0, 0.0, 0.0)
        assert lines[-1].startswith("result: italian 2p")
    for against in ("random", "expert"):
        args = tune.parser().parse_args(
            ["verify", str(path), "--boards", "1", "--against", against, "--expert-worlds", "1"]
        )
        lines = []
        assert tune.verify(args, lines.append) == (0.0, 0.0, 0.0)
        assert f"against the {against} bot, less the hand-set one's" in lines[-1]


if __name__ == "__main__":
    write_golden()
