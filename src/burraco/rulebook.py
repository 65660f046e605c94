"""The figures a rules page shows, read from the engine's own data.

The room's rules pages (``/rules/{variant}``) say each game in words; every number
in those words comes from here, and everything here comes from the
:class:`~burraco.variants.Variant`, the VP rules of :mod:`burraco.vp` and the deal's
pozzetti (:func:`burraco.deal.pozzetto_sizes`), so a page can never disagree with
the engine. :func:`figures` is pure: the same variant, the same figures, as JSON.

>>> from burraco.variants import variant
>>> f = figures(variant("italian"))
>>> f["values"][:3]
[{'ranks': ['joker'], 'points': 30}, {'ranks': ['2'], 'points': 20}, {'ranks': ['A'], 'points': 15}]
>>> [(g["grade"], g["bonus"]) for g in f["grades"]]
[('clean', 200), ('semi-clean', 150), ('dirty', 100)]
>>> f["going_out"]["closing_bonus"], f["going_out"]["no_pozzetto_penalty"], f["match"]["target"]
(100, 100, 2005)
>>> f["match"]["vp_bands"][0], f["match"]["vp_bands"][-1]
({'low': 0, 'high': 50, 'winner': 10, 'loser': 10}, {'low': 1505, 'high': None, 'winner': 20, 'loser': 0})
>>> [(s["players"], s["lines"], s["pozzetti"]) for s in f["setups"]][:2]
[(2, 2, [11, 11]), (3, 3, [18, 11])]
>>> [g["grade"] for g in figures(variant("canasta"))["grades"]]
['clean', 'dirty', 'jokers', 'twos', 'twos-and-jokers']
"""

from __future__ import annotations

from typing import Final, TypedDict

from burraco.cards import RANK_NAMES
from burraco.deal import pozzetto_sizes
from burraco.variants import Family, Variant, preset, variant
from burraco.vp import (
    ABANDON_MIN_VP,
    MP_STEP,
    TOTAL_VP,
    abandonment,
    one_off_points,
    victory_points,
    vp_band_floor,
)

__all__ = ["Figures", "figures"]

#: The ranks as a rules page lists their values: the joker, the 2, the ace, then K down to 3.
_RANK_ORDER: Final = (0, 2, 1, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3)


class ValueGroup(TypedDict):
    """Ranks next to each other in :data:`_RANK_ORDER` that are worth the same."""

    ranks: list[str]
    points: int


class Grade(TypedDict):
    """A grade of burraco (canastra, canasta) and its bonus (``melds.grade_of``)."""

    grade: str
    bonus: int


class Cards(TypedDict):
    decks: int
    jokers: int
    total: int
    hand_size: int
    #: Cards drawn from the stock in a turn.
    draw_count: int
    #: A card turned up starts the discard pile (burraco); else the first discard does.
    up_card: bool
    #: Buraco: the dealer may put the first card drawn on the pile and draw again.
    dealer_redraw: bool
    dealer_plays_first: bool
    #: Canasta: the pile is taken with two naturals equal to its top card.
    pile_needs_pair: bool
    #: The stock's last cards, which no one draws (0: all are drawn).
    dead_stock: int
    discard_back_rule: bool
    single_card_no_single_pile: bool
    #: Whole quiet rounds that end a deal (0: never).
    stall_rounds: int
    red_threes: bool
    red_three_bonus: int
    opening_minimum: int
    #: The pile shows every card; closed (False), only its top, taken only to meld it.
    pile_open: bool
    #: A morto nobody took becomes the stock when the stock runs out.
    morto_as_stock: bool


class Melds(TypedDict):
    sequences: bool
    #: Sets (trincas) may be laid down.
    sets: bool
    max_wildcards: int
    #: The most cards a set may hold (0: no limit but the cards in play).
    set_max: int
    sets_of_twos: bool
    wild_melds: bool
    wildcard_displacement: bool
    canasta_wild_limit: bool
    black_threes_only_out: bool
    canastra_real: bool
    #: The cards of a burraco (canastra, canasta).
    burraco_length: int
    semi_clean: bool
    semi_inner: bool
    set_bonus_1000: bool
    relancinho_bonus: int


class GoingOut(TypedDict):
    pozzetti: bool
    pozzetto_size: int
    no_pozzetto_penalty: int
    burraco_before_pozzetto: bool
    closing_bonus: int
    close_needs_burraco: bool
    close_by_discard: bool
    close_no_wild_discard: bool
    go_out_needs_canastra: bool
    #: The canastra a line needs to go out must be clean.
    go_out_needs_clean: bool
    #: A morto taken by a discard waits for its taker's turn; unused at the deal's end, it
    #: counts as never taken.
    unused_morto_untaken: bool
    go_out_needs_two_canastas: bool
    double_unmelded_hand: bool


class Vulnerability(TypedDict):
    #: The total from which a line is vulnerable.
    at: int
    minimum: int
    #: The minimum after a short lay-down, for the rest of the game.
    penalty_minimum: int
    #: The engine refuses a short lay-down instead.
    refuse: bool


class Band(TypedDict):
    """A band of the VP table: MP differences from ``low`` to ``high`` (None: no end)."""

    low: int
    high: int | None
    winner: int
    loser: int


class Abandon(TypedDict):
    penalty: int
    #: The least VP of the other line, and the MP that go with them.
    min_vp: int
    min_vp_mp: int
    #: A one-off game without a VP table: the other line's VP.
    one_off_vp: int


class Match(TypedDict):
    target: int | None
    deals: int | None
    move_seconds: int
    deal_minutes: int
    vp_total: int
    #: MP move in steps of this (a shared total is rounded down to a multiple of it).
    mp_step: int
    vp_bands: list[Band]
    #: 002's one-off game: VP of a win, a draw, a loss.
    one_off: list[int]
    abandon: Abandon
    open_hands: bool


class Setup(TypedDict):
    """One table of the preset: its players, lines, cards and pozzetti."""

    players: int
    lines: int
    decks: int
    jokers: int
    cards: int
    #: The pozzetti of a deal (of the first phase with 3 or 5 players).
    pozzetti: list[int]
    #: 3 and 5 players: the pozzetti once the phase limit is reached ([] otherwise).
    later_pozzetti: list[int]
    phase_limit: int
    burraco_before_pozzetto: bool


class Figures(TypedDict):
    variant: str
    family: Family
    players: int
    lines: int
    cards: Cards
    values: list[ValueGroup]
    melds: Melds
    grades: list[Grade]
    going_out: GoingOut
    vulnerability: Vulnerability | None
    match: Match
    setups: list[Setup]


def figures(v: Variant) -> Figures:
    """Every figure of ``v`` that its rules page shows (see the module's examples)."""
    return {
        "variant": v.name,
        "family": v.family,
        "players": v.players,
        "lines": v.lines,
        "cards": {
            "decks": v.decks,
            "jokers": v.jokers,
            "total": v.deck_size,
            "hand_size": v.hand_size,
            "draw_count": v.draw_count,
            "up_card": v.up_card,
            "dealer_redraw": v.dealer_redraw,
            "dealer_plays_first": v.dealer_plays_first,
            "pile_needs_pair": v.pile_needs_pair,
            "dead_stock": v.dead_stock,
            "discard_back_rule": v.discard_back_rule,
            "single_card_no_single_pile": v.single_card_no_single_pile,
            "stall_rounds": v.stall_rounds,
            "red_threes": v.red_threes,
            "red_three_bonus": v.red_three_bonus if v.red_threes else 0,
            "opening_minimum": v.opening_minimum,
            "pile_open": v.pile_open,
            "morto_as_stock": v.morto_as_stock,
        },
        "values": card_values(v),
        "melds": {
            "sequences": v.sequences,
            "sets": v.sets,
            "max_wildcards": v.max_wildcards,
            "set_max": v.set_max,
            "sets_of_twos": v.sets_of_twos,
            "wild_melds": v.wild_melds,
            "wildcard_displacement": v.wildcard_displacement,
            "canasta_wild_limit": v.canasta_wild_limit,
            "black_threes_only_out": v.black_threes_only_out,
            "canastra_real": v.canastra_real,
            "burraco_length": v.burraco_length,
            "semi_clean": v.semi_clean,
            "semi_inner": v.semi_inner,
            "set_bonus_1000": v.set_bonus_1000,
            "relancinho_bonus": v.relancinho_bonus,
        },
        "grades": grades(v),
        "going_out": {
            "pozzetti": v.pozzetti,
            "pozzetto_size": v.pozzetto_size if v.pozzetti else 0,
            "no_pozzetto_penalty": v.no_pozzetto_penalty if v.pozzetti else 0,
            "burraco_before_pozzetto": v.burraco_before_pozzetto,
            "closing_bonus": v.closing_bonus,
            "close_needs_burraco": v.close_needs_burraco,
            "close_by_discard": v.close_by_discard,
            "close_no_wild_discard": v.close_no_wild_discard,
            "go_out_needs_canastra": v.go_out_needs_canastra,
            "go_out_needs_clean": v.go_out_needs_clean,
            "unused_morto_untaken": v.pozzetti and v.unused_morto_untaken,
            "go_out_needs_two_canastas": v.go_out_needs_two_canastas,
            "double_unmelded_hand": v.double_unmelded_hand,
        },
        "vulnerability": (
            {
                "at": v.vulnerable_at,
                "minimum": v.vulnerable_minimum,
                "penalty_minimum": v.vulnerable_penalty_minimum,
                "refuse": v.vulnerable_refuse,
            }
            if v.vulnerable_at
            else None
        ),
        "match": _match(v),
        "setups": setups(v),
    }


def card_values(v: Variant) -> list[ValueGroup]:
    """The card values, the joker first (if the game has jokers), then 2, A and K down to 3,
    neighbours of equal value together.

    >>> [(g["ranks"][0], g["ranks"][-1], g["points"]) for g in card_values(variant("buraco"))]
    [('2', '2', 10), ('A', 'A', 15), ('K', '8', 20), ('7', '3', 5)]
    """
    found: list[ValueGroup] = []
    last = 0
    for rank in _RANK_ORDER:
        if rank == 0 and not v.jokers:
            continue
        name = "joker" if rank == 0 else RANK_NAMES[rank]
        points = v.values[rank]
        # The joker, the 2 and the ace have a row each; K down to 3 go by equal values.
        if rank >= 3 and last >= 3 and found[-1]["points"] == points:
            found[-1]["ranks"].append(name)
        else:
            found.append({"ranks": [name], "points": points})
        last = rank
    return found


def grades(v: Variant) -> list[Grade]:
    """The grades a burraco (canastra, canasta) of ``v`` can have, with their bonuses,
    as ``melds.meld_bonus`` pays them.

    >>> grades(variant("buraco"))
    [{'grade': 'clean', 'bonus': 200}, {'grade': 'dirty', 'bonus': 100}, {'grade': 'twos', 'bonus': 1000}]
    """
    found: list[Grade] = [{"grade": "clean", "bonus": v.clean_bonus}]
    if v.semi_clean:
        found.append({"grade": "semi-clean", "bonus": v.semi_clean_bonus})
    found.append({"grade": "dirty", "bonus": v.dirty_bonus})
    if v.wild_melds:
        # Melds of wildcards only (canasta): six jokers and one 2, all 2s, any other mix.
        if v.jokers >= 6:  # melds.grade_of: six jokers and one 2
            found.append({"grade": "jokers", "bonus": v.jokers_bonus})
        found.append({"grade": "twos", "bonus": v.twos_bonus})
        if v.jokers:
            found.append({"grade": "twos-and-jokers", "bonus": v.wild_mix_bonus})
    elif v.sets_of_twos:
        found.append({"grade": "twos", "bonus": v.twos_bonus})
    if v.long_clean_bonus:
        found.append({"grade": "long-clean", "bonus": v.long_clean_bonus})
    if v.canastra_real:
        found.append({"grade": "real-clean", "bonus": v.real_clean_bonus})
        found.append({"grade": "real-dirty", "bonus": v.real_dirty_bonus})
    return found


def vp_bands(v: Variant) -> list[Band]:
    """The VP table of ``v`` as bands of MP differences, the last one open-ended.

    >>> vp_bands(variant("italian"))[1]
    {'low': 55, 'high': 150, 'winner': 11, 'loser': 9}
    """
    found: list[Band] = []
    low = 0
    for high, _ in v.vp_table:
        winner, loser = victory_points(high, table=v.vp_table)
        found.append({"low": low, "high": high, "winner": winner, "loser": loser})
        low = high + MP_STEP
    winner, loser = victory_points(low, table=v.vp_table)
    found.append({"low": low, "high": None, "winner": winner, "loser": loser})
    return found


def _match(v: Variant) -> Match:
    one_off = [one_off_points(1, 0)[0], one_off_points(0, 0)[0], one_off_points(0, 1)[0]]
    return {
        "target": v.target,
        "deals": v.deals,
        "move_seconds": v.move_seconds,
        "deal_minutes": v.deal_minutes,
        "vp_total": TOTAL_VP,
        "mp_step": MP_STEP,
        "vp_bands": vp_bands(v),
        "one_off": one_off,
        "abandon": {
            "penalty": v.abandon_penalty,
            "min_vp": ABANDON_MIN_VP,
            "min_vp_mp": vp_band_floor(ABANDON_MIN_VP, v.vp_table),
            "one_off_vp": abandonment(0, 0, penalty=v.abandon_penalty, deals=None).other_vp,
        },
        "open_hands": v.open_hands,
    }


def setups(v: Variant) -> list[Setup]:
    """Every table of ``v``'s preset, with the cards and pozzetti each is dealt.

    >>> [(s["players"], s["decks"], s["pozzetti"], s["later_pozzetti"]) for s in setups(variant("italian"))][3]
    (5, 3, [18, 11, 11], [11, 11, 11, 11, 11])
    """
    found: list[Setup] = []
    for players, lines in preset(v.name).tables:
        table = variant(v.name, players=players, lines=lines)
        phased = table.pozzetti and table.players in (3, 5)
        found.append(
            {
                "players": players,
                "lines": lines,
                "decks": table.decks,
                "jokers": table.jokers,
                "cards": table.deck_size,
                "pozzetti": list(pozzetto_sizes(table, 1)),
                "later_pozzetti": list(pozzetto_sizes(table, 2)) if phased else [],
                "phase_limit": table.phase_limit if phased else 0,
                "burraco_before_pozzetto": table.burraco_before_pozzetto,
            }
        )
    return found
