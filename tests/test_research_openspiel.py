"""The OpenSpiel game ``python_burraco`` (burraco.research.spiel)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
spiel = pytest.importorskip("burraco.research.spiel")
make_observation = pytest.importorskip("open_spiel.python.observation").make_observation

from burraco import variant  # noqa: E402
from burraco.cards import KINDS, format_cards, parse_cards  # noqa: E402
from burraco.encoding import DRAW_ID, MELD_ID, PICK_BASE, observation_layout  # noqa: E402
from burraco.errors import SetupError  # noqa: E402

TABLES = (
    ("italian", 2),
    ("italian", 4),
    ("buraco", 2),
    ("canasta", 2),
    # Buraco with a closed pile: its face-down cards are unseen cards like the stock's.
    ("stbl", 2),
    ("buraco-fechado", 4),
)


def load(name: str = "italian", players: int = 2, **params: Any) -> Any:
    return pyspiel.load_game(SHORT, {"variant": name, "players": players, **params})


SHORT = "python_burraco"


def dealt(game: Any, seed: int) -> Any:
    """A state right after the shuffle, from a seeded choice of the chance outcomes."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        kinds, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(kinds, probabilities)[0])
    return state


def played(game: Any, seed: int, steps: int) -> Any:
    """A dealt state after ``steps`` random ids (or at the end of the deal)."""
    rng = random.Random(seed)
    state = dealt(game, seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def sampler(seed: int) -> Any:
    rng = random.Random(seed)
    return rng.random


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_random_simulations_pass_openspiel_checks(name: str, players: int) -> None:
    # About a second a deal (a hundred-odd chance nodes, a few hundred ids).
    pyspiel.random_sim_test(load(name, players), num_sims=2, serialize=False, verbose=False)


def test_load_game_by_its_string() -> None:
    game = pyspiel.load_game("python_burraco(variant=canasta,players=2)")
    assert game.num_distinct_actions() == 2974
    assert game.max_chance_outcomes() == KINDS
    assert game.get_type().short_name == SHORT
    assert game.observation_tensor_size() == observation_layout(variant("canasta")).size
    assert game.max_utility() == -game.min_utility() > 0
    assert game.utility_sum() == 0.0


def test_the_default_is_italian_for_two_with_partners_for_four() -> None:
    assert pyspiel.load_game(SHORT).num_players() == 2
    four = load("italian", 4)
    assert four.num_players() == 4
    assert four.rules.v.lines == 2


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"variant": "tresette"}, "no variant 'tresette'"),
        ({"players": 3, "variant": "canasta"}, "canasta is played by"),
        ({"dealer": 2}, "no seat 2 to deal"),
        ({"stall_rounds": -2}, "stall_rounds must be 1 or more"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, Any], words: str) -> None:
    with pytest.raises(SetupError, match=words):
        spiel.BurracoGame(params)


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(SetupError, match="no parameter 'seed'"):
        spiel.variant_of({"seed": 3})


def test_chance_outcomes_are_the_kinds_left_and_sum_to_one() -> None:
    game = load("canasta")
    state = game.new_initial_state()
    rng = random.Random(4)
    left = {k: 3 for k in range(52)} | {52: 6}
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        assert [k for k, _ in outcomes] == sorted(k for k, n in left.items() if n)
        kind = rng.choice([k for k, _ in outcomes])
        left[kind] -= 1
        state.apply_action(kind)
    assert not any(left.values())
    assert state.current_player() in (0, 1)


def test_a_kind_no_longer_in_the_deck_is_refused() -> None:
    state = load().new_initial_state()
    state.apply_action(5)
    state.apply_action(5)
    with pytest.raises(ValueError, match="no card of kind 5 is left"):
        state.apply_action(5)


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_returns_sum_to_zero_and_stay_in_bounds(name: str, players: int) -> None:
    game = load(name, players)
    state = played(game, seed=11, steps=10**6)
    assert state.is_terminal()
    values = state.returns()
    assert sum(values) == pytest.approx(0.0)
    assert any(values)
    assert all(game.min_utility() <= r <= game.max_utility() for r in values)
    assert len(state.history()) <= game.max_game_length()


def test_returns_are_zero_before_the_end() -> None:
    game = load()
    assert game.new_initial_state().returns() == [0.0, 0.0]
    assert played(game, 3, 20).returns() == [0.0, 0.0]


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_resampled_state_has_the_same_information_state(name: str, players: int) -> None:
    game = load(name, players)
    for seed in range(3):
        state = played(game, seed, 40 + 37 * seed)
        if state.is_terminal():
            continue
        seat = state.current_player()
        info = state.information_state_string(seat)
        for k in range(3):
            other = state.resample_from_infostate(seat, sampler(k))
            assert other.current_player() == seat
            assert other.information_state_string(seat) == info
            assert other.legal_actions() == state.legal_actions()
            np.testing.assert_array_equal(
                other.information_state_tensor(seat), state.information_state_tensor(seat)
            )


def test_resampling_deals_the_hidden_cards_anew() -> None:
    game = load()
    state = played(game, 5, 30)
    seat = state.current_player()
    worlds = [state.resample_from_infostate(seat, sampler(k)).deal for k in range(5)]
    assert len({tuple(w.hands[1 - seat]) for w in worlds}) > 1
    assert all(w.hands[seat] == state.deal.hands[seat] for w in worlds)
    assert all(w.history == state.deal.history for w in worlds)


def picking_state(game: Any, seed: int) -> Any:
    """A state in which the seat on turn has picked some cards of a meld."""
    rng = random.Random(seed)
    state = dealt(game, seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        picks = [a for a in legal if PICK_BASE <= a < PICK_BASE + KINDS]
        if picks:
            state.apply_action(picks[0])
            return state
        state.apply_action(rng.choice(legal))
    raise AssertionError("no meld in the deal")


def test_resampling_keeps_the_seats_own_picks() -> None:
    game = load()
    state = picking_state(game, 2)
    seat = state.current_player()
    assert state.decisions.picking
    other = state.resample_from_infostate(seat, sampler(1))
    assert other.decisions.picked == state.decisions.picked
    assert other.legal_actions() == state.legal_actions()
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert " picked " in state.observation_string(seat)


def test_the_other_seat_sees_no_picks() -> None:
    game = load()
    state = picking_state(game, 2)
    seat = state.current_player()
    watcher = 1 - seat
    before = state.clone()
    for _ in range(3):
        if not state.decisions.picking or MELD_ID in state.legal_actions():
            break
        state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(watcher) == before.information_state_string(watcher)
    np.testing.assert_array_equal(
        state.observation_tensor(watcher), before.observation_tensor(watcher)
    )
    # Resampled by the other seat, the picker starts its meld anew.
    other = state.resample_from_infostate(watcher, sampler(0))
    assert not other.decisions.picking
    assert other.information_state_string(watcher) == state.information_state_string(watcher)


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_observations_never_change_when_unseen_cards_are_dealt_again(
    name: str, players: int
) -> None:
    game = load(name, players)
    for seed in range(3):
        state = played(game, seed, 25 * seed)
        for seat in range(players):
            for k in range(2):
                other = state.resample_from_infostate(seat, sampler(k))
                np.testing.assert_array_equal(
                    other.observation_tensor(seat), state.observation_tensor(seat)
                )
                assert other.observation_string(seat) == state.observation_string(seat)


def test_a_draw_shows_its_card_to_the_drawer_only() -> None:
    game = load()
    state = dealt(game, 8)
    seat = state.current_player()
    watcher = 1 - seat
    # Two worlds the watcher cannot tell apart, whose stocks differ.
    worlds = [state.resample_from_infostate(watcher, sampler(k)) for k in range(6)]
    for world in worlds:
        world.apply_action(DRAW_ID)
    drawn = {w.deal.drawn for w in worlds}
    assert len(drawn) > 1
    assert len({w.information_state_string(watcher) for w in worlds}) == 1
    assert len({w.observation_string(watcher) for w in worlds}) == 1
    for w in worlds:
        card = format_cards([w.deal.drawn])
        assert w.information_state_string(seat).endswith(f"{seat}:draw {seat}+{card}")
        assert w.information_state_string(watcher).endswith(f"{seat}:draw")
    own = worlds[0]
    card = own.deal.drawn
    layout = spiel.info_state_layout(game.rules.v)
    tensor = np.asarray(own.information_state_tensor(seat))
    assert tensor[layout.slice("received")][card] == 1


def test_information_state_tensor_starts_with_the_observation() -> None:
    game = load("italian", 4)
    state = played(game, 6, 60)
    size = game.observation_tensor_size()
    assert game.information_state_tensor_size() == spiel.info_state_layout(game.rules.v).size
    for seat in range(4):
        info = np.asarray(state.information_state_tensor(seat))
        np.testing.assert_array_equal(info[:size], state.observation_tensor(seat))
        layout = spiel.info_state_layout(game.rules.v)
        assert info[layout.slice("dealt")].sum() == 11


def test_discards_are_counted_per_seat_from_the_observer() -> None:
    game = load()
    state = dealt(game, 9)
    seat = state.current_player()
    state.apply_action(DRAW_ID)
    discard = next(a for a in state.legal_actions() if 6 <= a < 6 + KINDS)
    state.apply_action(discard)
    layout = spiel.info_state_layout(game.rules.v)
    own = layout.unflatten(np.asarray(state.information_state_tensor(seat), dtype=np.float32))
    other = layout.unflatten(np.asarray(state.information_state_tensor(1 - seat), dtype=np.float32))
    assert own["discarded"][0][discard - 6] == 1
    assert other["discarded"][1][discard - 6] == 1
    assert own["discarded"].sum() == other["discarded"].sum() == 1


def test_states_during_the_shuffle() -> None:
    game = load()
    state = game.new_initial_state()
    for kind in parse_cards("5H 5H JK"):
        state.apply_action(int(kind))
    assert state.is_chance_node()
    assert state.information_state_string(0) == state.information_state_string(1)
    assert not np.any(state.observation_tensor(0))
    other = state.resample_from_infostate(0, sampler(2))
    assert other.is_chance_node()
    assert other.information_state_string(0) == state.information_state_string(0)
    assert len(other.history()) == 3
    assert str(state).startswith("shuffled 3")


def test_clone_is_independent() -> None:
    game = load()
    state = played(game, 4, 15)
    copy = state.clone()
    assert str(copy) == str(state)
    assert copy.information_state_string(0) == state.information_state_string(0)
    copy.apply_action(copy.legal_actions()[0])
    assert str(copy) != str(state)
    assert len(copy.history()) == len(state.history()) + 1


def test_state_from_view_is_at_the_views_decision() -> None:
    game = load()
    state = played(game, 7, 33)
    while state.decisions.picking:  # a view has no picks: finish the meld
        legal = state.legal_actions()
        state.apply_action(MELD_ID if MELD_ID in legal else legal[0])
    seat = state.current_player()
    from_view = spiel.state_from_view(game, state.deal.view(seat), random.Random(0))
    assert from_view.current_player() == seat
    assert from_view.legal_actions() == state.legal_actions()
    assert from_view.observation_string(seat) == state.observation_string(seat)
    np.testing.assert_array_equal(
        from_view.observation_tensor(seat), state.observation_tensor(seat)
    )
    again = from_view.resample_from_infostate(seat, sampler(5))
    assert again.information_state_string(seat) == from_view.information_state_string(seat)


def test_state_from_view_refuses_another_variant() -> None:
    game = load("canasta")
    state = played(load(), 7, 3)
    with pytest.raises(ValueError, match="the view is of italian"):
        spiel.state_from_view(game, state.deal.view(0), random.Random(0))


def test_stall_rounds_and_the_bounds() -> None:
    v = variant("italian")
    quick = load(stall_rounds=1)
    assert quick.rules.v.stall_rounds == 1
    assert quick.max_game_length() < load().max_game_length() == spiel.max_game_length(v)
    assert load().max_utility() == spiel.utility_bound(v)


def test_open_hands_show_the_partners_hand() -> None:
    game = load("italian", 4, open_hands=True)
    state = played(game, 2, 30)
    seat = state.current_player()
    partner = (seat + 2) % 4
    other = state.resample_from_infostate(seat, sampler(0))
    assert other.deal.hands[partner] == state.deal.hands[partner]
    assert other.information_state_string(seat) == state.information_state_string(seat)


# --- OpenSpiel's factored observations: the public one and a seat's private one ------------

PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PUBLIC_RECALL = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def public_of(observer: Any, state: Any, player: int = 0) -> tuple[str, Any]:
    observer.set_from(state, player)
    return observer.string_from(state, player), observer.tensor.copy()


def private_elsewhere(state: Any, seed: int) -> Any:
    """A state of the same public information, every seat's hidden cards dealt anew: each
    seat's turn to resample what it cannot see (its own hand is dealt by the next one)."""
    other = state
    for k, seat in enumerate([*range(state.deal.v.players), 0]):
        other = other.resample_from_infostate(seat, sampler(seed + k))
    return other


@pytest.mark.parametrize(("name", "players"), TABLES)
def test_states_differing_only_in_private_cards_have_one_public_observation(
    name: str, players: int
) -> None:
    game = load(name, players)
    public = make_observation(game, PUBLIC)
    recall = make_observation(game, PUBLIC_RECALL)
    compared = 0
    for seed in range(4):
        state = played(game, seed, 20 + 45 * seed)
        other = private_elsewhere(state, seed)
        # The private cards did change: the hands are not all the same.
        assert other.deal.hands != state.deal.hands or other.deal.stock != state.deal.stock
        text, tensor = public_of(public, state)
        assert public_of(public, other)[0] == text
        np.testing.assert_array_equal(public_of(public, other)[1], tensor)
        # The same whoever observes it.
        for seat in range(players):
            seen_text, seen_tensor = public_of(public, state, seat)
            assert seen_text == text
            np.testing.assert_array_equal(seen_tensor, tensor)
        # With perfect recall: the public history and what each seat discarded and took.
        recall_text, recall_tensor = public_of(recall, state)
        assert public_of(recall, other)[0] == recall_text
        np.testing.assert_array_equal(public_of(recall, other)[1], recall_tensor)
        assert recall_text.startswith(text + "\n")
        compared += 1
    assert compared == 4


def test_the_public_observation_names_no_hidden_card() -> None:
    game = load("italian", 4, open_hands=True)
    public = make_observation(game, PUBLIC)
    state = played(game, 4, 60)
    text, tensor = public_of(public, state)
    fields = text.split(" ")
    assert fields[0] == "public"
    assert fields[3] == "/".join(f"#{n}" for n in state.deal.sizes)
    assert "drawn=" not in fields[12]
    parts = spiel.public_layout(game.rules.v).unflatten(tensor)
    assert parts["hand_sizes"].tolist() == state.deal.sizes
    assert parts["turn"].tolist() == [float(s == state.deal.turn) for s in range(4)]
    np.testing.assert_array_equal(parts["known"], np.array(state.deal.known, dtype=np.float32))


def test_the_private_observation_is_what_the_seat_alone_sees() -> None:
    game = load()
    private = make_observation(game, PRIVATE)
    state = picking_state(game, 2)
    seat = state.current_player()
    private.set_from(state, seat)
    parts = spiel.private_layout(game.rules.v).unflatten(private.tensor)
    assert parts["hand"].tolist() == state.deal.hands[seat]
    assert parts["picked"].tolist() == state.decisions.picked
    assert " picked " not in private.string_from(state, 1 - seat)
    assert "; picked " in private.string_from(state, seat)
    # Resampled by this seat, the other seat's private cards change, its own do not.
    other = state.resample_from_infostate(seat, sampler(3))
    assert private.string_from(other, seat) == private.string_from(state, seat)
    open_game = load("italian", 4, open_hands=True)
    seen = played(open_game, 1, 10)
    partner_view = make_observation(open_game, PRIVATE)
    partner_view.set_from(seen, 0)
    rows = spiel.private_layout(open_game.rules.v).unflatten(partner_view.tensor)["seen_hands"]
    assert rows[1].tolist() == seen.deal.hands[2] and not rows[0].any() and not rows[2].any()


def test_openspiels_api_checks_of_the_factored_observations() -> None:
    # As open_spiel/integration_tests/api_test.py: a public string for every state, and
    # private information for some player in an imperfect-information game.
    game = load("canasta")
    public = make_observation(game, PUBLIC)
    private = make_observation(game, PRIVATE)
    states = [played(game, seed, steps) for seed in range(2) for steps in (0, 30, 10**6)]
    states.append(game.new_initial_state())
    for state in states:
        assert public.string_from(state, 0) is not None
    assert any(private.string_from(s, p) for s in states for p in range(2))


def test_observation_types_not_offered_are_refused() -> None:
    every = pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
    )
    with pytest.raises(ValueError, match="python_burraco observes"):
        load().make_py_observer(every)


@pytest.mark.slow
def test_openspiels_playthrough_writes_every_observer() -> None:
    # OpenSpiel's own playthrough (its golden-file tool) asks for the public and the
    # private observers of every imperfect-information game: about 30 s a deal.
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(
        "python_burraco(variant=italian,players=2)", action_sequence=None, alsologtostdout=False
    )
    assert 'PublicObservationString() = "public italian/2/2' in text
    assert 'PrivateObservationString(1) = "seat 1 hand' in text
