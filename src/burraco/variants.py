"""The games we ship, as frozen data.

A :class:`Variant` names a family of rules (``italian``, ``online``, ``buraco``,
``canasta``) and holds every decision of ``RULES.md`` as an option, together
with the table setup: how many players and how many lines (a line is one
player, or the partners who share melds and score together).

Each game is one :class:`Preset`, as data: its rules, its tables, what a table size or a
convenience keyword brings. The options as text, as records and positions write them
(:func:`options_of`, :func:`parse_option`), live here too, below every module that
writes them.

>>> v = variant("italian", players=4)
>>> v.name, v.players, v.lines, v.decks, v.jokers, v.hand_size
('italian', 4, 2, 2, 4, 11)
>>> variant("italian", semi_clean=False).semi_clean
False
>>> variant("buraco", players=6).line_of
(0, 1, 0, 1, 0, 1)
>>> variant("canasta", players=3)
Traceback (most recent call last):
...
burraco.errors.SetupError: canasta is played by 2 players alone or 4 in pairs, not by 3 players in 3 lines
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, TypeVar

from burraco.errors import SetupError

__all__ = [
    "BRAZILIAN_TWOS_20_VALUES",
    "BRAZILIAN_VALUES",
    "BURACO_CLASSIC_VALUES",
    "BURACO_VALUES",
    "BURRACO_VALUES",
    "CANASTA_VALUES",
    "OPTION_NAMES",
    "PRESETS",
    "SETUPS",
    "Preset",
    "Variant",
    "options_of",
    "parse_option",
    "preset",
    "preset_of",
    "variant",
    "vp_table_problem",
]

Family = Literal["burraco", "buraco", "canasta"]

#: Card values by rank, index 0 the joker, 1 the ace ... 13 the king (000, 002).
BURRACO_VALUES: Final = (30, 15, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
#: Card values as written in 001: 8-K = 20, A = 15, 2 = 10, 3-7 = 5; jokers 10.
BURACO_VALUES: Final = (10, 15, 10, 5, 5, 5, 5, 5, 20, 20, 20, 20, 20, 20)
#: The usual canasta values: joker 50, 2 and A 20, 8-K 10, 4-7 5, (black) 3 5.
CANASTA_VALUES: Final = (50, 20, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)

#: The federation's table for a round of 3 deals (000): upper end of each band, VP of the winner.
VP_TABLE_3: Final = (
    (50, 10), (150, 11), (250, 12), (350, 13), (500, 14), (650, 15),
    (800, 16), (1000, 17), (1250, 18), (1500, 19),
)  # fmt: skip
#: The table in common federation use for a round of 4 deals.
VP_TABLE_4: Final = (
    (100, 10), (300, 11), (500, 12), (700, 13), (900, 14), (1100, 15),
    (1300, 16), (1500, 17), (1700, 18), (2000, 19),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Variant:
    """The rules of one game and its table setup. Build one with :func:`variant`."""

    # The options of the Brazilian rooms (issue 24) stay out of repr(), as pile_top stays
    # out of a view's: the golden digests of the older games' views (tests/test_folds.py)
    # are of their repr, and those games are unchanged.

    name: str
    family: Family
    players: int = 2
    lines: int = 2

    # The cards.
    decks: int = 2
    jokers: int = 4
    hand_size: int = 11
    values: tuple[int, ...] = BURRACO_VALUES

    # Melds.
    sequences: bool = True
    #: Sets (trincas) may be laid down; False: sequences only (buraco aberto, STBL).
    sets: bool = field(default=True, repr=False)
    #: The most wildcards a meld may hold (canasta has its own rule, see ``canasta_wild_limit``).
    max_wildcards: int = 1
    #: The most cards a set may hold (0: no limit but the cards in play).
    set_max: int = 0
    #: Sets of 2s, where the 2s are their own rank (buraco).
    sets_of_twos: bool = False
    #: Melds of wildcards only (canasta).
    wild_melds: bool = False
    #: A wildcard between two naturals can be displaced by the card it stands for (burraco).
    wildcard_displacement: bool = True
    #: Canastra Real: a sequence from ace to ace (buraco option).
    canastra_real: bool = False
    #: Canasta: two naturals take one wildcard, three or more take two.
    canasta_wild_limit: bool = False
    #: Canasta: black 3s may be melded only by a player going out.
    black_threes_only_out: bool = False

    # Burraco (canastra) grades and bonuses.
    burraco_length: int = 7
    clean_bonus: int = 200
    semi_clean_bonus: int = 150
    dirty_bonus: int = 100
    semi_clean: bool = True
    semi_inner: bool = False
    #: Buraco: a canastra of 2s; canasta: all 2s.
    twos_bonus: int = 1000
    #: Canasta: six jokers and one 2.
    jokers_bonus: int = 0
    #: Canasta: any other mix of wildcards.
    wild_mix_bonus: int = 0
    #: Buraco (decision, option): every set that grows into a canastra gets 1000.
    set_bonus_1000: bool = False
    real_clean_bonus: int = 1000
    real_dirty_bonus: int = 500
    relancinho_bonus: int = 0
    #: Buraco: a clean sequence of 13 cards (ace to king, 2 to ace) scores this instead of
    #: the clean bonus (0: no such canastra); Canastra Real's ace to ace is ``real_*``.
    long_clean_bonus: int = field(default=0, repr=False)

    # The deal.
    pozzetti: bool = True
    pozzetto_size: int = 11
    up_card: bool = True
    dealer_redraw: bool = False
    dealer_plays_first: bool = False
    draw_count: int = 1
    open_draws_one: bool = False
    dead_stock: int = 2
    #: May not discard the card just taken from a one-card pile, unless holding two equal to it.
    discard_back_rule: bool = True
    #: Buraco: a player holding one card may not take a pile of one card.
    single_card_no_single_pile: bool = False
    #: The pile is open: everyone sees all its cards. Closed (False, buraco fechado): only
    #: its top card shows, and a player takes the pile only to meld that top card at once.
    pile_open: bool = field(default=True, repr=False)
    #: Buraco with a morto: a morto nobody took becomes the stock when the stock runs out.
    morto_as_stock: bool = field(default=False, repr=False)
    #: Buraco with a morto: a morto taken by the discard that emptied the hand waits face
    #: down for its taker's next turn (with a partner too), and if the deal ends before then,
    #: other than by the taker's line going out, it counts as a morto never taken: the
    #: penalty, its cards not counted (GameVelvet, Buraco 2009; docs/brazil.md).
    unused_morto_untaken: bool = field(default=False, repr=False)
    #: Canasta: the pile is taken only with two naturals equal to its top, melded at once.
    pile_needs_pair: bool = False
    red_threes: bool = False
    red_three_bonus: int = 100
    #: Canasta: the first melds of a line in a deal are worth at least this (0: none).
    opening_minimum: int = 0
    #: 6 players: a line needs a burraco before it may take its pozzetto.
    burraco_before_pozzetto: bool = False
    #: The stall: the deal ends as at the stock's end after this many whole rounds in a row
    #: in which nobody draws from the stock or lays down or extends a meld (0: never).
    stall_rounds: int = 3

    # Ending a deal.
    closing_bonus: int = 100
    no_pozzetto_penalty: int = 100
    close_needs_burraco: bool = True
    #: The last card must leave as a discard (burraco, canasta); buraco may meld out.
    close_by_discard: bool = True
    close_no_wild_discard: bool = True
    #: Buraco: the line needs a canastra to go out.
    go_out_needs_canastra: bool = False
    #: Buraco ("bate limpo"): the canastra the line needs to go out must be clean.
    go_out_needs_clean: bool = field(default=False, repr=False)
    #: Canasta: two canastas, one of them clean.
    go_out_needs_two_canastas: bool = False
    #: Canasta: cards in hand count double for a player who never melded.
    double_unmelded_hand: bool = False

    # Buraco vulnerability.
    vulnerable_at: int = 0
    vulnerable_minimum: int = 75
    vulnerable_penalty_minimum: int = 90
    vulnerable_refuse: bool = False

    # The match.
    target: int | None = 2005
    deals: int | None = None
    #: 3 and 5 players: partnerships form when the first player runs out, until all reach this.
    phase_limit: int = 0
    #: The VP table: upper ends of the bands with the winner's VP; above the last, 20/0.
    vp_table: tuple[tuple[int, int], ...] = VP_TABLE_3
    abandon_penalty: int = 350
    move_seconds: int = 40
    deal_minutes: int = 15
    open_hands: bool = False

    line_of: tuple[int, ...] = field(default=(), compare=False)

    @property
    def partnered(self) -> bool:
        """Lines of more than one player from the start of the deal."""
        return self.lines < self.players

    @property
    def deck_size(self) -> int:
        return 52 * self.decks + self.jokers

    def value(self, card: int) -> int:
        """The points of one card."""
        return self.values[0 if card == 52 else card % 13 + 1]

    def with_options(self, **options: Any) -> Variant:
        """This variant with some options changed (checked as :func:`variant` checks them)."""
        return _checked(dataclasses.replace(self, **options))


def _line_of(players: int, lines: int) -> tuple[int, ...]:
    # Partners sit apart: seat s is in line s mod lines (pairs opposite, trios alternate).
    return tuple(seat % lines for seat in range(players))


#: Buraco's ``classic_values``: 8-K count 10, as most Brazilian tables count them.
BURACO_CLASSIC_VALUES: Final = (10, 15, 10, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
#: The Brazilian online rooms' values, as GameDesire, Playjoy and pagat publish them: joker
#: 50, 2 10, ace 15, 8-K 10, 3-7 5 (docs/brazil.md).
BRAZILIAN_VALUES: Final = (50, 15, 10, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
#: rafaelmuylaert/buraco's getCardPoints, the 2 at 20: the Brazilian presets' ``twos_20``.
BRAZILIAN_TWOS_20_VALUES: Final = (50, 15, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)


@dataclass(frozen=True, slots=True)
class Preset:
    """One game we ship, as data: its rules, the tables it is played at, and what a table
    or a named bundle of options changes. :func:`variant` knows nothing else of a game."""

    rules: Variant
    #: Every table, as (players, lines); the first is the preset's own.
    tables: tuple[tuple[int, int], ...]
    #: The tables in words, for the error that refuses another.
    tables_text: str
    #: Other names the game goes by.
    aliases: tuple[str, ...] = ()
    #: Options a number of players brings, unless the caller sets them.
    by_players: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    #: Convenience keywords (not options: a record writes what they set): ``NAME=True``
    #: sets these options, over the caller's own.
    bundles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: A target given without ``vulnerable_at`` puts the vulnerability at half of it (buraco).
    vulnerable_at_half_target: bool = False


def _brazilian(name: str, **rules: Any) -> Preset:
    """One of the Brazilian online rooms' games (docs/brazil.md says where each value
    comes from): what they share, with the options that tell them apart."""
    return Preset(
        Variant(
            name=name,
            family="buraco",
            values=BRAZILIAN_VALUES,
            wildcard_displacement=False,
            semi_clean=False,
            semi_clean_bonus=100,
            canastra_real=True,
            real_clean_bonus=1000,
            real_dirty_bonus=100,
            long_clean_bonus=500,
            discard_back_rule=True,
            single_card_no_single_pile=True,
            morto_as_stock=True,
            unused_morto_untaken=True,
            dead_stock=0,
            closing_bonus=100,
            no_pozzetto_penalty=100,
            close_needs_burraco=False,
            close_by_discard=False,
            close_no_wild_discard=False,
            go_out_needs_canastra=True,
            target=3000,
            **rules,
        ),
        ((2, 2), (4, 2)),
        "2 alone or 4 in pairs",
        aliases=_BRAZILIAN_ALIASES[name],
        bundles={"twos_20": {"values": BRAZILIAN_TWOS_20_VALUES}},
    )


_BRAZILIAN_ALIASES: Final = {
    "buraco-aberto": ("aberto",),
    "buraco-fechado": ("fechado",),
    "stbl": ("buraco-stbl", "fechado-stbl"),
}


def _usual_lines(players: int) -> int:
    # Alone at 3 and 5, in pairs at 4, in two teams at 6 (italian's three pairs are its own).
    return players if players in (3, 5) else 2


_GAMES: Final[dict[str, Preset]] = {
    "italian": Preset(
        Variant(name="italian", family="burraco", phase_limit=1000),
        ((2, 2), (3, 3), (4, 2), (5, 5), (6, 3), (6, 2)),
        "2 alone, 3 alone, 4 in pairs, 5 alone, 6 in three pairs or two teams of three",
        aliases=("burraco",),
        # 5 and 6 players need a third deck and its jokers.
        by_players={
            5: {"decks": 3, "jokers": 6, "phase_limit": 1005},
            6: {"lines": 3, "decks": 3, "jokers": 6, "burraco_before_pozzetto": True},
        },
    ),
    "online": Preset(
        Variant(name="online", family="burraco", target=None, deals=3),
        ((2, 2), (4, 2)),
        "2 alone or 4 in pairs",
        aliases=("sisal",),
    ),
    "buraco": Preset(
        Variant(
            name="buraco",
            family="buraco",
            jokers=0,
            values=BURACO_VALUES,
            set_max=8,
            sets_of_twos=True,
            wildcard_displacement=False,
            semi_clean=False,
            semi_clean_bonus=100,
            relancinho_bonus=100,
            pozzetti=False,
            up_card=False,
            dealer_redraw=True,
            dealer_plays_first=True,
            dead_stock=0,
            discard_back_rule=False,
            single_card_no_single_pile=True,
            closing_bonus=50,
            no_pozzetto_penalty=0,
            close_needs_burraco=False,
            close_by_discard=False,
            close_no_wild_discard=False,
            go_out_needs_canastra=True,
            vulnerable_at=750,
            target=1500,
        ),
        ((2, 2), (3, 3), (4, 4), (4, 2), (6, 2)),
        "2, 3 or 4 alone, 4 in pairs or 6 in two trios",
        aliases=("brazilian",),
        bundles={
            "classic_values": {"values": BURACO_CLASSIC_VALUES},
            "scoring_500": {
                "clean_bonus": 500,
                "dirty_bonus": 250,
                "semi_clean_bonus": 250,
                "relancinho_bonus": 200,
                "closing_bonus": 100,
            },
        },
        vulnerable_at_half_target=True,
    ),
    "canasta": Preset(
        Variant(
            name="canasta",
            family="canasta",
            decks=3,
            jokers=6,
            hand_size=15,
            values=CANASTA_VALUES,
            sequences=False,
            max_wildcards=2,
            wild_melds=True,
            canasta_wild_limit=True,
            black_threes_only_out=True,
            clean_bonus=500,
            semi_clean=False,
            semi_clean_bonus=300,
            dirty_bonus=300,
            twos_bonus=3000,
            jokers_bonus=5000,
            wild_mix_bonus=2000,
            pozzetti=False,
            up_card=False,
            draw_count=2,
            dead_stock=0,
            discard_back_rule=False,
            pile_needs_pair=True,
            red_threes=True,
            opening_minimum=50,
            closing_bonus=300,
            no_pozzetto_penalty=0,
            close_needs_burraco=False,
            close_no_wild_discard=False,
            go_out_needs_two_canastas=True,
            double_unmelded_hand=True,
            target=15000,
        ),
        ((2, 2), (4, 2)),
        "2 players alone or 4 in pairs",
    ),
    # Buraco as Brazil's online rooms play it (issue 24; docs/brazil.md): 108 cards, a morto
    # of 11 for each line, one wildcard a meld, the pile open or closed, sets or none.
    "buraco-aberto": _brazilian("buraco-aberto", sets=False, go_out_needs_clean=True),
    "buraco-fechado": _brazilian("buraco-fechado", pile_open=False),
    "stbl": _brazilian("stbl", sets=False, pile_open=False, go_out_needs_clean=True),
}

PRESETS: Final[dict[str, Variant]] = {name: game.rules for name, game in _GAMES.items()}
#: Every table of every preset, as (preset, players, lines).
SETUPS: Final[tuple[tuple[str, int, int], ...]] = tuple(
    (name, players, lines) for name, game in _GAMES.items() for players, lines in game.tables
)
_ALIASES: Final = {alias: name for name, game in _GAMES.items() for alias in game.aliases}


def preset(name: str) -> Preset:
    """A game by its name or one of its aliases (any case).

    >>> preset("Brazilian").rules.name, preset("online").tables
    ('buraco', ((2, 2), (4, 2)))
    >>> preset("tresette")
    Traceback (most recent call last):
    ...
    burraco.errors.SetupError: no variant 'tresette' (italian, online, buraco, canasta, buraco-aberto, buraco-fechado, stbl)
    """
    key = _ALIASES.get(name.lower(), name.lower())
    found = _GAMES.get(key)
    if found is None:
        raise SetupError(f"no variant {name!r} ({', '.join(_GAMES)})")
    return found


#: The whole-number options: the least each may be, and the rule that says so.
_AT_LEAST: Final[dict[str, tuple[int, str]]] = {
    "decks": (1, "a game is played with at least one deck"),
    "jokers": (0, "the jokers are counted, never negative"),
    "hand_size": (1, "a hand is dealt at least one card"),
    "max_wildcards": (1, "a meld may hold at least one wildcard"),
    "set_max": (0, "a set's size is 0 (no limit) or at least 3"),
    "burraco_length": (3, "a burraco is a meld, of at least three cards"),
    "pozzetto_size": (1, "a pozzetto holds at least one card"),
    "draw_count": (1, "a draw takes at least one card"),
    "dead_stock": (0, "the cards left dead in the stock are never negative"),
    "opening_minimum": (0, "an opening minimum is never negative (0: none)"),
    "stall_rounds": (0, "the stall's rounds are never negative (0: no stall rule)"),
    "vulnerable_at": (0, "the score that makes a line vulnerable is never negative (0: never)"),
    "vulnerable_minimum": (0, "a vulnerable line's minimum is never negative"),
    "vulnerable_penalty_minimum": (0, "a vulnerable line's minimum is never negative"),
    "phase_limit": (0, "the partnerships' limit is never negative"),
    "move_seconds": (0, "a move's time is never negative (0: no clock)"),
    "deal_minutes": (1, "a deal lasts at least a minute"),
    "target": (1, "a points target is above 0 (None: the match is a number of deals)"),
    "deals": (1, "a match has at least one deal (None: it is played to a points target)"),
}
#: Points a line earns or loses: never negative (a bonus is added, a penalty taken away).
_POINTS: Final = frozenset(
    {
        "clean_bonus", "semi_clean_bonus", "dirty_bonus", "twos_bonus", "jokers_bonus",
        "wild_mix_bonus", "real_clean_bonus", "real_dirty_bonus", "relancinho_bonus",
        "long_clean_bonus",
        "red_three_bonus", "closing_bonus", "no_pozzetto_penalty", "abandon_penalty",
    }
)  # fmt: skip
#: Options that may be None, and what None means.
_OPTIONAL: Final = frozenset({"target", "deals"})
#: The ranks a card value is given for: the joker, then the ace to the king.
_VALUE_RANKS: Final = 14
#: The VP of a table, shared by its two lines, and each line's when the MP are even.
_TOTAL_VP: Final = 20
_EVEN_VP: Final = 10


def vp_table_problem(table: object) -> str | None:
    """What keeps ``table`` from being a VP table, or None: bands of ``(upper end, winner's
    VP)``, their ends growing from 0, the VP from 10 to 20 and never falling (the lookups
    take the first band that holds a difference).

    >>> vp_table_problem(VP_TABLE_4) is None
    True
    >>> vp_table_problem(((100, 12), (50, 13)))
    'VP table bands must grow: 50 after 100'
    >>> print(vp_table_problem(5))
    a VP table is a tuple of (upper end of the band, winner's VP) pairs, not 5
    """
    shape = "a VP table is a tuple of (upper end of the band, winner's VP) pairs"
    if not isinstance(table, tuple) or not all(
        isinstance(band, tuple)
        and len(band) == 2
        and all(type(n) is int for n in band)  # bool is an int: refused too
        for band in table
    ):
        return f"{shape}, not {table!r}"
    if not table:
        return "a VP table needs at least one band"
    previous_end, previous_vp = -1, _EVEN_VP
    for end, vp in table:
        if end <= previous_end:
            return f"VP table bands must grow: {end} after {previous_end}"
        if not previous_vp <= vp <= _TOTAL_VP:
            return f"VP table: {vp} VP after {previous_vp} (from 10 to 20, never falling)"
        previous_end, previous_vp = end, vp
    return None


def _tuples(value: Any) -> Any:
    """Lists as tuples, all the way down: options given as JSON (a room's stored options)
    or as list literals hold lists where a variant, frozen and hashed, keeps tuples."""
    if isinstance(value, list | tuple):
        return tuple(_tuples(item) for item in value)
    return value


#: The option fields, and each one's type as the presets hold it.
_DEFAULTS: Final = {
    f.name: f.default for f in dataclasses.fields(Variant) if f.name not in ("name", "family")
}


def _option_problem(name: str, value: Any) -> str | None:
    """Which rule of its own the value of option ``name`` breaks, or None."""
    default = _DEFAULTS[name]
    if isinstance(default, bool):
        return None if isinstance(value, bool) else f"True or False, not {value!r}"
    if name == "values":
        if (
            not isinstance(value, tuple)
            or len(value) != _VALUE_RANKS
            or not all(type(n) is int and n >= 0 for n in value)
        ):
            return (
                f"{_VALUE_RANKS} card values, never negative, the joker's then the ace's to the "
                f"king's, not {value!r}"
            )
        return None
    if name == "vp_table":
        return vp_table_problem(value)
    if value is None and name in _OPTIONAL:
        return None
    if type(value) is not int:
        kind = "a whole number or None" if name in _OPTIONAL else "a whole number"
        return f"{kind}, not {value!r}"
    if name in _POINTS:
        return None if value >= 0 else "points a line earns or loses are never negative"
    least, rule = _AT_LEAST[name]  # a new whole-number option needs its rule here
    if value < least or (name == "set_max" and 0 < value < 3):
        return rule
    return None


def _refuse(name: str, value: Any, rule: str) -> SetupError:
    return SetupError(f"option {name}={value!r}: {rule}", option=name)


def _normal(v: Variant) -> Variant:
    """``v`` with its options in the form a variant keeps: lists as tuples, and a VP
    table given as 3 or 4 (the deals of a round) as that table."""
    changes: dict[str, Any] = {}
    for name in ("values", "vp_table"):
        value = getattr(v, name)
        if name == "vp_table" and value in (3, "3", 4, "4"):
            changes[name] = VP_TABLE_4 if str(value) == "4" else VP_TABLE_3
        elif isinstance(value, list) or (isinstance(value, tuple) and value != _tuples(value)):
            changes[name] = _tuples(value)
    return dataclasses.replace(v, **changes) if changes else v


def _checked(v: Variant) -> Variant:
    """``v`` if it can be played, every option checked alone and with the others; else a
    :class:`SetupError` naming the option (``option``) and the rule it breaks."""
    setup = (v.players, v.lines)
    game = _GAMES[v.name]
    if setup not in game.tables:
        raise SetupError(
            f"{v.name} is played by {game.tables_text}, "
            f"not by {v.players} players in {v.lines} lines"
        )
    v = _normal(v)
    for name in OPTION_NAMES:
        value = getattr(v, name)
        problem = _option_problem(name, value)
        if problem is not None:
            raise _refuse(name, value, problem)
    if v.target is None and v.deals is None:
        raise SetupError("a match needs a number of deals or a points target", option="target")
    if v.sequences and v.max_wildcards > 1 and v.wildcard_displacement:
        raise SetupError(
            "several wildcards in a sequence are played with fixed places (buraco's option)",
            option="max_wildcards",
        )
    if v.jokers not in (0, 2, 4, 6):
        raise SetupError(f"{v.jokers} jokers: a game is played with 0, 2, 4 or 6", option="jokers")
    if v.jokers > 2 * v.decks:
        raise _refuse("jokers", v.jokers, f"{v.decks} deck(s) bring at most {2 * v.decks} jokers")
    pozzetti = v.players if v.name == "italian" and v.players in (3, 5) else v.lines
    needed = v.players * v.hand_size + (v.pozzetto_size * pozzetti if v.pozzetti else 0)
    if v.players in (3, 5) and v.pozzetti:
        needed += 7  # the 18-card pozzetto of the first phase
    if needed + 3 > v.deck_size:
        # The hand size deals most of them (the decks and jokers make the deck).
        raise SetupError(
            f"{v.deck_size} cards are too few for this table ({needed} dealt)",
            option="hand_size",
        )
    return dataclasses.replace(v, line_of=_line_of(v.players, v.lines))


def variant(name: str, **options: Any) -> Variant:
    """A preset by name, with some options changed.

    ``players`` and ``lines`` set the table; ``lines`` defaults to pairs for 4
    players (alone in buraco), to three pairs for 6 in italian and two trios in
    buraco. With 5 or 6 players, italian uses 3 decks and 6 jokers.

    >>> variant("online", players=4, deals=5).deals
    5
    >>> variant("tresette")
    Traceback (most recent call last):
    ...
    burraco.errors.SetupError: no variant 'tresette' (italian, online, buraco, canasta, buraco-aberto, buraco-fechado, stbl)
    """
    game = preset(name)
    key = game.rules.name
    players = int(options.pop("players", game.rules.players))
    for option, value in game.by_players.get(players, {}).items():
        options.setdefault(option, value)
    options.setdefault("lines", _usual_lines(players))
    for keyword, bundle in game.bundles.items():
        if options.pop(keyword, False):
            options.update(bundle)
    target = options.get("target")
    if game.vulnerable_at_half_target and "target" in options and "vulnerable_at" not in options:
        # A target that is not a number is refused by the check below, naming it.
        options["vulnerable_at"] = target // 2 if type(target) is int else 0
    names = {f.name for f in dataclasses.fields(Variant)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise SetupError(f"no option {', '.join(map(repr, unknown))} in {key}")
    if "deals" in options and "target" not in options:
        options["target"] = None
    return _checked(dataclasses.replace(game.rules, players=players, **options))


# --- options as text: what a record's Option tags and a position's variant field write ---

# Variant fields that are not options: the name, the family it implies, the table.
_SETUP_FIELDS: Final = frozenset({"name", "family", "players", "lines", "line_of"})
#: Every option of a variant, in the order records and positions write them.
OPTION_NAMES: Final = tuple(
    f.name for f in dataclasses.fields(Variant) if f.name not in _SETUP_FIELDS
)


def preset_of(v: Variant) -> Variant:
    """The preset ``v`` is built on, at the same table: ``v`` without its options.

    >>> preset_of(variant("italian", players=4, deals=3)) == variant("italian", players=4)
    True
    """
    return variant(v.name, players=v.players, lines=v.lines)


def options_of(v: Variant) -> tuple[tuple[str, Any], ...]:
    """The options of a variant that differ from its preset for the same table.

    >>> options_of(variant("italian", semi_clean=False, deals=3))
    (('semi_clean', False), ('target', None), ('deals', 3))
    >>> options_of(variant("italian", players=6))
    ()
    """
    base = preset_of(v)
    return tuple(
        (name, getattr(v, name)) for name in OPTION_NAMES if getattr(v, name) != getattr(base, name)
    )


def parse_option(text: str) -> tuple[str, Any]:
    """Parse ``NAME=VALUE``: an option of :class:`~burraco.variants.Variant` and a Python
    literal, read with ``ast.literal_eval``.

    >>> parse_option("semi_clean=False"), parse_option("vp_table=((50, 10),)")
    (('semi_clean', False), ('vp_table', ((50, 10),)))
    >>> parse_option("colour=1")
    Traceback (most recent call last):
    ...
    ValueError: no option 'colour'
    """
    name, sep, literal = text.partition("=")
    name = name.strip()
    if not sep:
        raise ValueError(f"an option is NAME=VALUE, not {text!r}")
    if name not in OPTION_NAMES:
        raise ValueError(f"no option {name!r}")
    try:
        value = ast.literal_eval(literal.strip())
    except (ValueError, SyntaxError):
        raise ValueError(f"option {name}: {literal.strip()!r} is not a literal") from None
    return name, value


T = TypeVar("T")


class PerVariant(Generic[T]):
    """Something worked out once per variant and kept (the engine's and the bots' tables).

    Looked up by the variant object's identity first: hashing a variant costs more than
    most of what is kept. An object met for the first time is looked up by its rules
    (its fields), so equal variants share one entry: every table of a room, every board of
    an arena builds its own variant object, and each would otherwise fill tables of its
    own (up to about 100 MB a variant) and start cold.

    >>> from burraco.variants import variant
    >>> made = PerVariant(lambda v: object())
    >>> made.of(variant("italian", players=4)) is made.of(variant("italian", players=4))
    True
    >>> made.of(variant("italian")) is made.of(variant("italian", players=4))
    False
    """

    __slots__ = ("_by_rules", "_kept", "_make")

    #: Variant objects kept at most; more start the keeping by identity again.
    LIMIT: Final = 64
    #: Distinct rules kept at most; more start the keeping again (a bound on memory).
    RULES_LIMIT: Final = 16

    def __init__(self, make: Callable[[Variant], T]) -> None:
        self._make = make
        self._kept: dict[int, tuple[Variant, T]] = {}
        self._by_rules: dict[Variant, T] = {}

    def of(self, v: Variant) -> T:
        entry = self._kept.get(id(v))
        if entry is None or entry[0] is not v:
            if len(self._kept) >= self.LIMIT:
                self._kept.clear()
            made = self._by_rules.get(v)
            if made is None:
                if len(self._by_rules) >= self.RULES_LIMIT:
                    self._by_rules.clear()
                    self._kept.clear()
                made = self._by_rules[v] = self._make(v)
            entry = self._kept[id(v)] = (v, made)
        return entry[1]
