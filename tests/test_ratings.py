"""The rating math (burraco.server.results.ratings): OpenSkill over the lines of a match."""

from __future__ import annotations

import pytest

from burraco import variant
from burraco.match import Match
from burraco.server.results.ladder import play_matches, rate_matches, schedule
from burraco.server.results.ratings import (
    BOT_LEVELS,
    GAMES,
    Skill,
    displayed,
    game_key,
    game_variant,
    leaving_lines,
    line_ranks,
    match_ranks,
    rate,
)
from burraco.variants import SETUPS


def test_every_table_has_one_game_key_and_back() -> None:
    assert len(set(GAMES)) == len(SETUPS)
    for name, players, lines in SETUPS:
        v = variant(name, players=players, lines=lines)
        back = game_variant(game_key(v))
        assert back is not None and (back.name, back.players, back.lines) == (name, players, lines)
    assert game_key(variant("italian", players=4)) == "italian-4"
    assert game_key(variant("italian", deals=1)) == "italian-2"
    assert game_key(variant("canasta", players=4)) == "canasta-4"
    assert game_key(variant("italian", players=6, lines=2)) == "italian-6x2"
    assert game_variant("canasta-6") is None and game_variant("x") is None


def test_the_shown_rating_is_the_ordinal_on_a_friendly_scale() -> None:
    assert Skill().shown == displayed(25.0, 25 / 3) == 1000
    assert displayed(30.0, 2.0) == 1000 + 20 * 24
    # More certainty shows higher, at the same mean.
    assert displayed(25.0, 4.0) > displayed(25.0, 6.0)


def test_a_win_raises_and_a_loss_lowers() -> None:
    new = rate([["anna"], ["bruno"]], [0, 1], {})
    assert new["anna"].mu > 25 > new["bruno"].mu
    assert new["anna"].sigma < 25 / 3 and new["bruno"].sigma < 25 / 3
    # Beating a much stronger player moves more than beating a weaker one.
    strong = {"bruno": Skill(35.0, 3.0)}
    weak = {"bruno": Skill(15.0, 3.0)}
    upset = rate([["anna"], ["bruno"]], [0, 1], strong)["anna"].mu
    expected = rate([["anna"], ["bruno"]], [0, 1], weak)["anna"].mu
    assert upset > expected > 25


def test_partners_move_together() -> None:
    new = rate([["anna", "carla"], ["bruno", "dino"]], [0, 1], {})
    assert new["anna"] == new["carla"] and new["bruno"] == new["dino"]
    assert new["anna"].mu > 25 > new["bruno"].mu


def test_three_sides_rank_first_second_third() -> None:
    new = rate([["anna"], ["bruno"], ["carla"]], [0, 1, 2], {})
    assert new["anna"].mu > new["bruno"].mu > new["carla"].mu
    assert new["anna"].mu > 25 > new["carla"].mu


def test_a_draw_between_equals_moves_no_mean() -> None:
    new = rate([["anna"], ["bruno"]], [0, 0], {})
    assert new["anna"].mu == pytest.approx(25) and new["bruno"].mu == pytest.approx(25)
    assert new["anna"].sigma < 25 / 3
    # A draw with a stronger player is good news for the weaker.
    skills = {"anna": Skill(20.0, 4.0), "bruno": Skill(30.0, 4.0)}
    moved = rate([["anna"], ["bruno"]], [0, 0], skills)
    assert moved["anna"].mu > 20 and moved["bruno"].mu < 30


def test_the_same_player_in_two_seats_moves_once_by_the_mean() -> None:
    # Two greedy bots as partners: one team, one move.
    pair = rate([["greedy", "greedy"], ["expert", "expert"]], [1, 0], {})
    alone = rate([["greedy", "g2"], ["expert", "e2"]], [1, 0], {})
    assert pair["greedy"] == alone["greedy"] and pair["expert"] == alone["expert"]
    # Greedy on both sides (a person with a greedy partner against two greedy bots):
    # its win and its loss cancel out.
    both = rate([["anna", "greedy"], ["greedy", "greedy"]], [0, 1], {})
    assert both["greedy"].mu == pytest.approx(25, abs=0.5)
    assert both["anna"].mu > 25
    assert set(both) == {"anna", "greedy"}


def test_rate_refuses_what_is_no_match() -> None:
    with pytest.raises(ValueError, match="teams but"):
        rate([["anna"], ["bruno"]], [0], {})
    with pytest.raises(ValueError, match="at least two sides"):
        rate([["anna"]], [0], {})


def test_ranks_from_totals_winner_and_abandonment() -> None:
    assert line_ranks([2100, 1500]) == (0, 1)
    assert line_ranks([1500, 1500]) == (0, 0)
    assert line_ranks([900, 1200, 900]) == (1, 0, 1)
    # Knock-out: level on points, the rule's winner first.
    assert line_ranks([2005, 2005], winner=1) == (1, 0)
    # Abandonment loses, whatever the points.
    assert line_ranks([1800, 200], winner=1, loser=0) == (1, 0)


def test_an_abandoned_match_ranks_the_leaver_last() -> None:
    match = Match(variant("italian", players=4), seed=5)
    match.totals = [900, 100]
    match.abandon(2)  # seat 2 is in line 0
    assert match_ranks(match) == (1, 0)
    rated = rate([["anna", "carla"], ["bruno", "dino"]], list(match_ranks(match)), {})
    assert rated["anna"].mu < 25 < rated["bruno"].mu


def test_lines_a_bot_played_for_rank_last_and_level_whatever_they_scored() -> None:
    # Issue 19: the line of a person a bot played for loses, as the line that abandons.
    assert line_ranks([1800, 200], winner=0, losers=[0]) == (1, 0)
    assert line_ranks([1800, 200, 900], losers=[0, 2]) == (1, 0, 1)
    assert line_ranks([1800, 200], losers=[0, 1]) == (0, 0)
    assert line_ranks([1800, 200], winner=1, loser=0, losers=[1]) == (0, 0)


def test_a_match_ranks_the_line_of_an_absent_seat_last() -> None:
    match = Match(variant("italian", players=4), seed=5)
    match.totals = [900, 100]
    # Seat 2 (line 0) was played by a bot: line 0 loses though it has the points.
    assert leaving_lines(match, {2}) == {0}
    assert match_ranks(match, {2}) == (1, 0)
    assert match_ranks(match) == (0, 1)
    rated = rate([["anna", "carla"], ["bruno", "dino"]], list(match_ranks(match, {2})), {})
    assert rated["anna"].mu < 25 < rated["bruno"].mu
    # Both lines absent (or one absent, the other abandoning): nobody ranks above.
    assert match_ranks(match, {0, 1}) == (0, 0)
    match.abandon(1)
    assert leaving_lines(match, {2}) == {0, 1} and match_ranks(match, {2}) == (0, 0)


def test_a_finished_match_ranks_by_its_result() -> None:
    match = Match(variant("italian", players=3, deals=1), seed=2)
    while not match.is_over:
        match.apply(match.legal_actions()[0])
    ranks = match_ranks(match)
    best = max(match.totals)
    assert [r == 0 for r in ranks] == [t == best for t in match.totals]


def test_the_schedule_seats_every_pairing_both_ways() -> None:
    two = schedule(["random", "greedy", "expert"], lines=2, matches=6)
    assert len(set(two)) == 6 and all(a != b for a, b in two)
    assert two[1] == tuple(reversed(two[0]))
    three = schedule(["random", "greedy", "expert"], lines=3, matches=6)
    assert len(set(three)) == 6
    five = schedule(["random", "greedy"], lines=5, matches=2)
    assert five == [
        ("random", "greedy", "random", "greedy", "random"),
        ("greedy", "random", "greedy", "random", "greedy"),
    ]
    with pytest.raises(ValueError, match="two bot levels"):
        schedule(["greedy"], lines=2, matches=1)


def test_every_bot_level_plays_rating_matches() -> None:
    """``burraco ratings`` rates every level the room seats, the learned one too."""
    assert set(BOT_LEVELS) == {"random", "greedy", "expert", "learned"}
    one_deal = variant("italian", deals=1)
    games = play_matches(one_deal, ["learned", "greedy"], matches=2, seed=3, workers=1)
    assert [g.levels for g in games] == [("learned", "greedy"), ("greedy", "learned")]
    rated = rate_matches(games)
    assert {r.level: r.matches for r in rated.values()} == {"learned": 2, "greedy": 2}


def test_each_brazilian_game_has_ratings_of_its_own() -> None:
    """Issue 24: a rating per preset. The Brazilian rooms' games have a dash in their names;
    their keys read back, and none is another game's."""
    keys = {name: game_key(variant(name, players=4)) for name in ("buraco-aberto", "stbl")}
    assert keys == {"buraco-aberto": "buraco-aberto-4", "stbl": "stbl-4"}
    assert {"buraco-fechado-2", "stbl-2", "buraco-aberto-4"} <= set(GAMES)
    found = game_variant("buraco-fechado-2")
    assert found is not None and (found.name, found.players) == ("buraco-fechado", 2)
    assert game_variant("buraco-aberto-3") is None and game_variant("buraco-aberto-4x4") is None
