"""Our determinized search on OpenSpiel's gin rummy (``burraco.bots.gin``), when OpenSpiel is
installed (``pip install -e '.[anchor]'``); skipped otherwise."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from burraco.bots.gin import (  # noqa: E402
    KNOCK,
    PASS,
    SLOT,
    GinSearchBot,
    SimplePolicy,
    _finish,
    _follow,
    _misfits,
    _misfits_and_hand,
    _posterior,
    _Public,
    _Rules,
    determinize,
    keen_discard,
    lay_off,
    load_game,
    play_game,
    posterior,
    shuffled_deck,
)


def _midgame(seed: int, searcher: int, turns: int) -> Any:
    """A game between two simple bots, stopped at ``searcher``'s draw after ``turns`` turns."""
    game = load_game()
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in (0, 1)]
    deck = shuffled_deck(random.Random(seed))
    state = game.new_initial_state()
    drawn = draws = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(deck[drawn])
            drawn += 1
            continue
        player = state.current_player()
        if player == searcher and state.current_phase().name == "DRAW":
            draws += 1
            if draws > turns:
                return state
        state.apply_action(bots[player].step(state))
    pytest.skip("that game ended too soon")


@pytest.mark.parametrize(("seed", "searcher"), [(1, 0), (2, 1), (3, 0)])
def test_the_opponents_real_cards_explain_its_every_decision(seed: int, searcher: int) -> None:
    """The guess that is the truth (the cards the simple opponent really got unseen),
    followed through what the searcher saw: the simple bot's rules explain each of its
    decisions, counted whole (_misfits) or up to any event (_follow), and the hand it
    ends with is the one it holds."""
    state = _midgame(seed, searcher, turns=4)
    public = _Public(state, searcher)
    rules = _Rules(int(state.get_game().get_parameters()["knock_card"]))
    history = state.full_history()
    placed = [history[index].action for index in public.slots]
    assert _misfits(public, rules, placed) == 0
    decisions = [e for e, (kind, _) in enumerate(public.events) if kind != SLOT]
    assert decisions and all(_follow(public, rules, placed, e)[0] == 0 for e in decisions)
    wrong, hand = _misfits_and_hand(public.events, rules, placed)
    assert (wrong, sorted(hand)) == (0, sorted(state.hands()[1 - searcher]))


@pytest.mark.parametrize(("seed", "searcher"), [(1, 0), (2, 1), (3, 0)])
def test_determinized_worlds_keep_the_searchers_information(seed: int, searcher: int) -> None:
    state = _midgame(seed, searcher, turns=4)
    rng = random.Random(seed)
    guesses = posterior(state, searcher, rng, particles=128, chains=16, moves=20)
    opponent = 1 - searcher
    hands = set()
    for k in range(20):
        world = determinize(state, searcher, rng, guesses=guesses if k % 2 else None)
        copy = world.state
        assert copy.information_state_string(searcher) == state.information_state_string(searcher)
        assert sorted(copy.hands()[searcher]) == sorted(state.hands()[searcher])
        assert copy.discard_pile() == state.discard_pile() and copy.upcard() == state.upcard()
        assert len(copy.hands()[opponent]) == len(state.hands()[opponent])
        assert set(state.known_cards()[opponent]) <= set(copy.hands()[opponent])
        assert len(world.stock) == state.stock_size()
        assert set(world.stock).isdisjoint(copy.hands()[opponent])
        hands.add(tuple(sorted(copy.hands()[opponent])))
    assert len(hands) > 1, "the opponent's hidden cards are dealt again"


def test_pimc_plays_a_game_against_the_simple_bot() -> None:
    game = load_game()
    for seat in (0, 1):
        ours = GinSearchBot(game, seat, worlds=4, particles=64, seed=seat)
        theirs = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - seat)
        players = [ours, theirs] if seat == 0 else [theirs, ours]
        returns = play_game(game, players, shuffled_deck(random.Random(7)))
        assert returns[0] == -returns[1]
        assert ours.decisions > 0


def _first_layoff(seed: int) -> Any:
    """A game between two simple bots, stopped at the defender's first lay-off decision."""
    game = load_game()
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in (0, 1)]
    deck = shuffled_deck(random.Random(seed))
    state = game.new_initial_state()
    drawn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(deck[drawn])
            drawn += 1
            continue
        if state.current_phase().name == "LAYOFF" and not state.finished_layoffs():
            return state
        state.apply_action(bots[state.current_player()].step(state))
    pytest.skip("nobody knocked in that game")


def test_the_defender_lays_off_the_card_that_cuts_its_deadwood_most() -> None:
    """Seed 12: the defender may lay off its 3 and its 8 of clubs; the 8 is in its set of
    eights, so the 3 goes. Seed 0: its only lay-off, a jack, leaves a set of three jacks
    but no less deadwood, so it passes."""
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    state = _first_layoff(12)
    hand, legal = state.hands()[state.current_player()], state.legal_actions()
    assert sorted(legal) == [2, 7, PASS]
    assert lay_off(utils, hand, legal) == 2
    state = _first_layoff(0)
    hand, legal = state.hands()[state.current_player()], state.legal_actions()
    assert sorted(legal) == [36, PASS]
    assert lay_off(utils, hand, legal) == PASS


def test_our_seat_lays_off_in_playouts_and_the_simple_bot_does_not() -> None:
    game = load_game()
    state = _first_layoff(12)
    seat = state.current_player()
    assert SimplePolicy(game, seat).act(state) == PASS
    ours = SimplePolicy(game, seat, lays_off=True)
    assert ours.act(state) == 2
    # Laid off one at a time, until none is worth it; then its melds are laid down.
    state.apply_action(2)
    while not state.finished_layoffs():
        state.apply_action(ours.act(state))
    assert 7 in state.hands()[seat]


@pytest.mark.parametrize(("seed", "searcher"), [(1, 0), (2, 1), (3, 0)])
def test_a_capped_misfit_count_answers_the_markov_steps_question(seed: int, searcher: int) -> None:
    """With ``limit``, ``_misfits`` may stop counting early, but whether a guess explains
    at most ``limit`` decisions less than all is answered as by the full count."""
    state = _midgame(seed, searcher, turns=4)
    public = _Public(state, searcher)
    rules = _Rules(int(state.get_game().get_parameters()["knock_card"]))
    rng = random.Random(seed)
    guesses = posterior(state, searcher, rng, particles=16, chains=0, moves=0)
    guesses += _posterior(public, None, 20, rng)[0]  # from the prior: most explain less
    counts = set()
    for guess in guesses:
        full = _misfits(public, rules, guess)
        counts.add(full)
        for limit in range(3):
            capped = _misfits(public, rules, guess, limit=limit)
            assert (capped <= limit) == (full <= limit)
            assert capped <= full
    assert len(counts) > 1, "the guesses should not all explain as much"


def test_a_shortlist_spends_one_rounds_playouts_on_the_best_discards() -> None:
    """At a discard with k options and a budget of 8 worlds: one round plays 8 k playouts;
    with a shortlist of 3, 4 worlds for all, then 4 k / 3 more for the 3 best — about as
    many playouts, and the choice is the best of those 3 over both rounds."""
    state = _midgame(1, 0, turns=4)
    state.apply_action(53)  # draw from the stock
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_phase().name == "DISCARD" and state.current_player() == 0
    game = state.get_game()
    for shortlist in (0, 3):
        bot = GinSearchBot(game, 0, worlds=8, particles=64, chains=8, moves=10, seed=1)
        bot.shortlist = shortlist
        real = bot._value
        calls: list[int] = []

        def counted(world: Any, action: int, real: Any = real, calls: list[int] = calls) -> float:
            calls.append(action)
            return float(real(world, action))

        bot._value = counted  # type: ignore[method-assign]
        options = bot.candidates(state)
        best = bot.step(state)
        k = len(options)
        assert k > 3 and set(bot.last_values) == set(options)
        if not shortlist:
            assert len(calls) == 8 * k
            continue
        assert len(calls) == 4 * k + 3 * (4 * k // 3)
        finalists = {a for a in options if calls.count(a) > 4}
        assert len(finalists) == 3 and best in finalists
        assert bot.last_values[best] == max(bot.last_values[a] for a in finalists)


# Two melds (the ace, two and three of suit 2; three sevens) and five deadwood cards: the
# king and queen of suit 0 (a run in the making), the jack of suit 2, the eight of suit 1
# and the four of suit 0, each alone. Card ids are suit * 13 + rank (rank 0: ace).
_KEEN_HAND = [26, 27, 28, 6, 19, 32, 12, 11, 36, 20, 3]


def test_a_keen_discard_keeps_a_near_meld_where_the_simple_bot_breaks_it() -> None:
    """The simple bot throws its highest deadwood card, the king, out of king-queen
    suited; the keen discard leaves as much deadwood (32) throwing the lone jack, and keeps
    both (each charged 2 for the other)."""
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    rules = _Rules(10)
    assert rules.discard(_KEEN_HAND) == 12
    assert keen_discard(utils, rules, _KEEN_HAND, [], _KEEN_HAND) == 36


def test_a_keen_discard_does_not_feed_the_opponent() -> None:
    """The opponent holds the nine and ten of suit 2: the jack of suit 2 would make it a
    run, so the king goes (the queen ties, the king is thrown first); if every card would
    feed it, the best is thrown anyway; a card the rules forbid is never thrown."""
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    rules = _Rules(10)
    opponent = [34, 35, 0, 14, 41, 49, 9, 23, 46, 5]
    assert rules.takes(opponent, 36)
    assert keen_discard(utils, rules, _KEEN_HAND, opponent, _KEEN_HAND) == 12
    assert keen_discard(utils, rules, _KEEN_HAND, opponent, [36]) == 36
    assert keen_discard(utils, rules, _KEEN_HAND, opponent, [36, 20, 3]) == 20


def _opponent_takes_our_discards(keen: bool, seeds: range) -> tuple[int, int]:
    """Playouts from midgames, seat 0 played by ``SimplePolicy(keen=keen)``: how many of
    its discards (not after a knock) the simple opponent took, and how many of those it
    took though seat 0 had a legal card it would not have taken."""
    game = load_game()
    rules = _Rules(10)
    taken = avoidable = 0
    for seed in seeds:
        try:
            state = _midgame(seed, 0, turns=1)
        except pytest.skip.Exception:
            continue  # that game ended too soon
        stock = [c for c in range(52) if c not in (*state.hands()[0], *state.hands()[1])]
        stock = [c for c in stock if c not in state.discard_pile() and c != state.upcard()]
        random.Random(seed).shuffle(stock)
        played = state.clone()
        _finish(played, stock, [SimplePolicy(game, 0, keen=keen), SimplePolicy(game, 1)])
        replay, history = state.clone(), played.full_history()[len(state.full_history()) :]
        for step, after in zip(history, [*history[1:], None], strict=True):
            phase = replay.current_phase().name
            if step.player == 0 and phase == "DISCARD" and not any(replay.knocked()):
                took = after is not None and after.player == 1 and after.action == 52
                if took:
                    taken += 1
                    opponent = replay.hands()[1]
                    cards = [c for c in replay.legal_actions() if c < 52]
                    avoidable += any(not rules.takes(opponent, c) for c in cards)
            replay.apply_action(step.action)
    return taken, avoidable


def test_a_keen_seat_feeds_the_opponent_only_when_every_card_would() -> None:
    """The simple bot in seat 0 hands its opponent melds it could have kept; the keen
    policy, in the same playouts, never does (every discard it took was forced)."""
    assert _opponent_takes_our_discards(False, range(1, 25))[1] > 0
    assert _opponent_takes_our_discards(True, range(1, 25))[1] == 0


def test_racing_options_spend_fewer_playouts_on_the_same_worlds() -> None:
    """At a discard with k options and 16 worlds: without a race every option is played
    in every world (16 k playouts); racing at 1 standard error drops the options clearly
    behind after 10 worlds, so fewer playouts, and the choice is still one of the options."""
    state = _midgame(1, 0, turns=4)
    state.apply_action(53)  # draw from the stock
    state.apply_action(state.chance_outcomes()[0][0])
    game = state.get_game()
    counts = {}
    for race in (None, 1.0):
        bot = GinSearchBot(game, 0, worlds=16, particles=64, chains=8, moves=10, seed=1, race=race)
        options = bot.candidates(state)
        best = bot.step(state)
        assert best in options
        counts[race] = bot.playouts
    assert counts[None] == 16 * len(options)
    assert counts[1.0] < counts[None]


def _discard_after_stock_draw(seed: int, turns: int) -> Any:
    """Seat 0's discard after it drew from the stock, ``turns`` turns into a game of two
    simple bots (None if the game ended before)."""
    try:
        state = _midgame(seed, 0, turns=turns)
    except pytest.skip.Exception:
        return None
    state.apply_action(53)  # draw from the stock
    state.apply_action(state.chance_outcomes()[0][0])
    return state


def test_feed_leaves_out_the_discards_the_posterior_says_the_opponent_takes() -> None:
    """With ``feed`` 0, a discard stays an option only if no guess of the opponent's hand
    would take it (by its rules); in some positions that drops cards the search would
    otherwise play out, never the knock."""
    game = load_game()
    rules = _Rules(10)
    dropped = 0
    for seed in range(1, 40):
        state = _discard_after_stock_draw(seed, turns=6)
        if state is None or state.current_phase().name != "DISCARD":
            continue
        every = GinSearchBot(game, 0, worlds=4, particles=64, chains=8, moves=10, seed=seed)
        safe = GinSearchBot(
            game, 0, worlds=4, particles=64, chains=8, moves=10, seed=seed, feed=0.0
        )
        options, kept = every.candidates(state), safe.candidates(state)
        assert set(kept) <= set(options)
        assert (KNOCK in kept) == (KNOCK in options)
        public = _Public(state, 0)
        hands = [_misfits_and_hand(public.events, rules, g)[1] for g in safe._guesses(public)]
        fed = {c: sum(rules.takes(h, c) for h in hands) for c in options if c < 52}
        unfed = [c for c in options if c < 52 and not fed[c]]
        cards = [c for c in kept if c < 52]
        # The cards no guess takes; if every card is taken by some guess, the least taken.
        assert cards == (unfed or [min(fed, key=lambda c: (fed[c], options.index(c)))])
        dropped += len(options) - len(kept)
        if dropped >= 3:
            return
    pytest.fail("no discard was ever left out")


def test_keen_discards_are_not_searched() -> None:
    """With ``keen_discards``, a discard costs no playout: it is the knock when legal, else
    :func:`keen_discard` over the options left (here all of them); a draw is searched."""
    game = load_game()
    state = _discard_after_stock_draw(1, turns=4)
    assert state is not None and state.current_phase().name == "DISCARD"
    bot = GinSearchBot(game, 0, worlds=4, particles=64, chains=8, moves=10, keen_discards=True)
    options = bot.candidates(state)
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    cards = [a for a in options if a < 52]
    expected = (
        KNOCK if KNOCK in options else keen_discard(utils, bot.rules, state.hands()[0], (), cards)
    )
    assert bot.step(state) == expected
    assert bot.playouts == 0
    draw = _midgame(1, 0, turns=4)
    bot.step(draw)
    assert bot.playouts == 4 * len(bot.candidates(draw))
