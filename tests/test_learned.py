"""The learned bot: numpy inference and the shipped weights (its trainer: test_iterate.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from benches import load_bench
from roomserver import Player, RoomServer, create_table, start_table

from burraco import Deal, variant
from burraco.bots import Bot
from burraco.bots.arena import make_bot
from burraco.bots.greedy import GreedyBot
from burraco.bots.learned import (
    ACTION_SIZE,
    STATE_SIZE,
    WEIGHTS_FILE,
    LearnedBot,
    Policy,
    action_features,
    default_policy,
    state_features,
)
from burraco.cards import KINDS
from burraco.encoding import observation_layout, observe, returns
from burraco.variants import Variant

ITALIAN2 = variant("italian", players=2)


def _play(v: Variant, bots: Sequence[Bot], seed: int) -> Deal:
    deal = Deal.new(v, seed=seed)
    while not deal.is_over:
        legal = deal.legal_actions()
        action = bots[deal.turn].choose(deal.view(deal.turn), legal)
        assert action in legal
        deal.apply(action)
    return deal


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_shipped_bot_plays_legal_actions_through_whole_deals(seed: int) -> None:
    deal = _play(ITALIAN2, [LearnedBot(seed=seed), GreedyBot()], seed)
    assert deal.end_reason in ("closed", "stock", "stall")
    deal = _play(ITALIAN2, [LearnedBot(seed=seed), LearnedBot(seed=seed + 1)], seed)
    assert deal.is_over


def test_at_other_tables_it_plays_the_greedy_move() -> None:
    v = variant("italian", players=3)
    assert not LearnedBot.plays(v) and LearnedBot.plays(ITALIAN2)
    assert not LearnedBot.plays(variant("buraco", players=4))
    deal = Deal.new(v, seed=5)
    bot, greedy = LearnedBot(), make_bot("greedy")
    for _ in range(40):
        view, legal = deal.view(deal.turn), deal.legal_actions()
        action = bot.choose(view, legal)
        assert action == greedy.choose(view, legal)
        deal.apply(action)


def test_no_legal_action_is_refused() -> None:
    deal = Deal.new(ITALIAN2, seed=1)
    with pytest.raises(ValueError, match="no legal action"):
        LearnedBot().choose(deal.view(deal.turn), [])


def test_the_arena_makes_the_learned_level() -> None:
    assert isinstance(make_bot("learned", seed=3), LearnedBot)


def test_the_room_seats_the_learned_bot(db: str) -> None:
    async def scenario(server: RoomServer) -> None:
        table = create_table(server, move_seconds=0, bot="learned")
        rng = random.Random(5)
        async with Player(server, table["table"], table["token"]) as anna:
            await anna.until("state")
            start_table(server, table)
            while True:
                message = await anna.next(60)
                if message["type"] == "match_over":
                    break
                if message["type"] == "state" and message["legal"]:
                    action = rng.choice(message["legal"])
                    await anna.send(
                        {"type": "action", "action": action, "version": message["version"]}
                    )
        room_table = server.room.table(table["table"])
        assert room_table.match is not None and room_table.match.is_over
        names = [seat.name for seat in server.room.store.seats(table["table"])]
        assert "learned bot 1" in names
        assert isinstance(room_table.bots.get(1), LearnedBot)

    with RoomServer(db) as server:
        asyncio.run(scenario(server))


def test_shipped_weights_load_and_stay_small() -> None:
    path = Path(__file__).parent.parent / "src" / "burraco" / "bots" / WEIGHTS_FILE
    assert path.stat().st_size < 2 * 1024 * 1024
    policy = default_policy()
    assert policy.layers[0][0].shape[0] == STATE_SIZE + ACTION_SIZE
    assert policy.layers[-1][0].shape[1] == 1
    assert all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in policy.layers)


def test_weights_round_trip_and_refuse_other_features(tmp_path: Path) -> None:
    policy = Policy.random(hidden=(16,), seed=4)
    path = tmp_path / "p.npz"
    policy.save(path)
    again = Policy.load(path)
    state = np.ones(STATE_SIZE, dtype=np.float32)
    actions = np.ones((3, ACTION_SIZE), dtype=np.float32)
    assert np.array_equal(policy.values(state, actions), again.values(state, actions))
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["version"] = np.array(0)
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match="features version 0"):
        Policy.load(tmp_path / "old.npz")
    w, b = policy.layers[0]
    with pytest.raises(ValueError, match="inputs"):
        Policy(((w[1:], b), policy.layers[1]))
    with pytest.raises(ValueError, match="one output"):
        Policy(((w, b),))


def test_version_1_weights_read_as_the_same_player(tmp_path: Path) -> None:
    # A network of the first features (406 state inputs): written as version 1, read with
    # zero weights on the inputs version 2 added, it values every action as before.
    old_state = STATE_SIZE - KINDS - 3
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((old_state + ACTION_SIZE, 8)).astype(np.float32)
    b0 = rng.standard_normal(8).astype(np.float32)
    w1 = rng.standard_normal((8, 1)).astype(np.float32)
    b1 = rng.standard_normal(1).astype(np.float32)
    np.savez(tmp_path / "v1.npz", version=np.array(1), w0=w0, b0=b0, w1=w1, b1=b1)
    policy = Policy.load(tmp_path / "v1.npz")
    assert policy.players == 2
    deal = _mid_deal(3, 45)
    view, legal = deal.view(deal.turn), deal.legal_actions()
    state, rows = state_features(view), action_features(view, legal)
    # The first features: the seven first blocks, the line features, eleven scalars.
    old = np.concatenate([state[: 7 * KINDS], state[8 * KINDS : -3]])
    x = np.concatenate([np.tile(old, (len(legal), 1)), rows], axis=1)
    expected = (np.maximum(x @ w0 + b0, 0.0) @ w1 + b1)[:, 0]
    assert np.allclose(policy.values(state, rows), expected, atol=1e-4)
    np.savez(tmp_path / "bad.npz", version=np.array(1), w0=w0[1:], b0=b0, w1=w1, b1=b1)
    with pytest.raises(ValueError, match="version-1 first layer"):
        Policy.load(tmp_path / "bad.npz")


def test_four_players_read_the_partner() -> None:
    v = variant("italian", players=4)
    deal = Deal.new(v, seed=8)
    greedy = GreedyBot()
    rng = random.Random(8)
    for _ in range(160):
        if deal.is_over:
            break
        view = deal.view(deal.turn)
        deal.apply(greedy.choose(view, deal.legal_actions()))
        for seat in range(4):
            mine = deal.view(seat)
            state = state_features(mine)
            partner = (seat + 2) % 4
            # The partner's known cards have their block; the opponents' are summed apart.
            assert np.array_equal(
                state[7 * KINDS : 8 * KINDS],
                np.bincount(np.asarray(mine.known[partner], dtype=np.intp), minlength=KINDS),
            )
            assert state[-3] == mine.hand_sizes[partner] / 11 and state[-1] == 1.0
            # Nothing the seat cannot see enters: the hidden cards dealt anew change nothing.
            if not deal.is_over:
                other = Deal.resample(mine, rng)
                assert np.array_equal(state_features(other.view(seat)), state)
    assert state_features(Deal.new(ITALIAN2, seed=1).view(0))[-1] == 0.0


def test_values_batch_the_actions_like_one_by_one() -> None:
    policy = Policy.random(seed=2)
    rng = np.random.default_rng(0)
    state = rng.random(STATE_SIZE, dtype=np.float32)
    actions = rng.random((5, ACTION_SIZE), dtype=np.float32)
    together = policy.values(state, actions)
    alone = [policy.values(state, actions[i : i + 1])[0] for i in range(5)]
    assert np.allclose(together, alone, atol=1e-5)
    x = np.concatenate([np.tile(state, (5, 1)), actions], axis=1)
    for w, b in policy.layers[:-1]:
        x = np.maximum(x @ w + b, 0.0)
    w, b = policy.layers[-1]
    assert np.allclose(together, (x @ w + b)[:, 0], atol=1e-4)


def _mid_deal(seed: int, moves: int) -> Deal:
    deal = Deal.new(ITALIAN2, seed=seed)
    bot = GreedyBot()
    for _ in range(moves):
        if deal.is_over:
            break
        deal.apply(bot.choose(deal.view(deal.turn), deal.legal_actions()))
    return deal


@pytest.mark.parametrize(("seed", "moves"), [(1, 0), (2, 30), (3, 61), (4, 120)])
def test_features_read_only_what_the_seat_sees(seed: int, moves: int) -> None:
    deal = _mid_deal(seed, moves)
    rng = random.Random(seed)
    for seat in range(2):
        view = deal.view(seat)
        state = state_features(view)
        for _ in range(3):
            # Another deal the seat cannot tell apart: the hidden cards dealt anew.
            other = Deal.resample(view, rng)
            assert np.array_equal(state_features(other.view(seat)), state)
        if seat == deal.turn and not deal.is_over:
            legal = deal.legal_actions()
            rows = action_features(view, legal)
            other = Deal.resample(view, rng)
            assert other.legal_actions() == legal
            assert np.array_equal(action_features(other.view(seat), legal), rows)


@pytest.mark.parametrize(("seed", "moves"), [(5, 0), (6, 40), (7, 90)])
def test_state_agrees_with_the_encoding_observation(seed: int, moves: int) -> None:
    deal = _mid_deal(seed, moves)
    layout = observation_layout(ITALIAN2)
    for seat in range(2):
        parts = layout.unflatten(observe(deal, seat))
        state = state_features(deal.view(seat))
        blocks = state[: 7 * KINDS].reshape(7, KINDS)
        assert np.array_equal(blocks[0], parts["hand"])
        assert np.array_equal(blocks[1], parts["pile"])
        assert np.array_equal(blocks[2], parts["pile_top"])
        assert np.array_equal(blocks[3], parts["known"][0])
        # The meld parts, summed over the slots: the compact summary per line.
        melds = parts["melds"].sum(axis=1)
        assert np.array_equal(blocks[5], melds[0])
        assert np.array_equal(blocks[6], melds[1])


def test_action_features_describe_each_action() -> None:
    deal = _mid_deal(2, 61)
    view, legal = deal.view(deal.turn), deal.legal_actions()
    rows = action_features(view, legal)
    assert rows.shape == (len(legal), ACTION_SIZE)
    for action, row in zip(legal, rows, strict=True):
        assert row[:7].sum() == 1.0  # one kind
        assert row[7 : 7 + KINDS].sum() == len(action.cards)
    # Different actions, different rows.
    assert len({row.tobytes() for row in rows}) == len(legal)


def test_the_shipped_weights_play_as_they_did() -> None:
    # Recorded from learned_italian2.npz when it shipped: any change to the features, the
    # inference or the weights' loading that changes the player shows here.
    deal = _mid_deal(2, 10)
    view, legal = deal.view(deal.turn), deal.legal_actions()
    values = default_policy().values(state_features(view), action_features(view, legal))
    recorded = [0.1985, 0.1949, -0.0722, -0.1517, -0.0501, -0.1366, -0.3766, -0.4848, -2.0109]
    assert np.allclose(values, [*recorded, -0.5410], atol=1e-4)
    deal = _play(ITALIAN2, [LearnedBot(seed=1), GreedyBot(2)], 21)
    assert (returns(deal), deal.end_reason) == ([-385.0, 385.0], "closed")


def test_learn_eval_plays_a_weights_file_on_duplicate_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_bench("learn_eval")
    weights = tmp_path / "w.npz"
    Policy.random(hidden=(8,), seed=3).save(weights)
    argv = ["--weights", str(weights), "--opponents", "random", "--boards", "1", "--seed", "4"]
    assert module.main(argv) == 0
    line = capsys.readouterr().out
    assert line.startswith("2 players vs random") and "1 boards  2 deals" in line
