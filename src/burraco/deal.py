"""The deal (smazzata, mão): dealing, turns, melds, pozzetti, closing.

A :class:`Deal` is an explicit state machine. Its phase is ``draw`` (the player
on turn must draw from the stock or take the pile), ``play`` (the player melds,
extends and finally discards) or ``over``. For every state it lists the legal
actions exactly; :meth:`Deal.check` explains why any other action is illegal
and :meth:`Deal.apply` performs a legal one. An illegal action raises
:class:`~burraco.errors.IllegalMove` and leaves the state untouched.

>>> from burraco import variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> deal.phase, deal.turn, len(deal.stock)
('draw', 1, 63)
>>> [str(a) for a in deal.legal_actions()]
['draw', 'take']
>>> deal.apply(Action.parse("draw"))
>>> deal.phase
'play'
>>> deal.apply(Action.parse("meld 5H 6H 7H"))
Traceback (most recent call last):
...
burraco.errors.IllegalMove: meld 5H 6H 7H: the hand does not hold 5H 6H 7H
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from types import MappingProxyType
from typing import Any, Final

from burraco.actions import (
    DISCARD,
    DRAW,
    EXTEND,
    MELD,
    PASS,
    REDRAW,
    TAKE,
    Action,
    extend_tables,
    take_action,
)
from burraco.cards import CARDS, JOKER, KINDS, Card, cards_from_counts, deck, format_cards
from burraco.errors import IllegalMove, RuleError
from burraco.melds import (
    SET,
    WILD,
    Candidate,
    Meld,
    MeldTables,
    Part,
    extended,
    grade_of,
    is_wild,
    meld_candidates,
    meld_or_refusal,
    meld_points,
    merged,
    read_meld,
    tables_for,
)
from burraco.refusals import Refusal, nested
from burraco.scoring import DealScore, score_deal
from burraco.variants import PerVariant, Variant
from burraco.view import DealView, view_of

__all__ = ["DRAW_PHASE", "OVER", "PLAY_PHASE", "Deal", "pozzetto_sizes"]

#: 000: with 3 or 5 players the first to run out takes a pozzetto of 18 cards.
BIG_POZZETTO: Final = 18


def pozzetto_sizes(v: Variant, phase: int = 1) -> tuple[int, ...]:
    """The pozzetti of a deal, in cards (none without pozzetti). With 3 or 5 players
    (``italian``), the first phase has one of 18 and the partnerships' (000), the
    second one of 11 for each player.

    >>> from burraco.variants import variant
    >>> pozzetto_sizes(variant("italian", players=3)), pozzetto_sizes(variant("italian", players=5), 2)
    ((18, 11), (11, 11, 11, 11, 11))
    >>> pozzetto_sizes(variant("italian", players=4)), pozzetto_sizes(variant("buraco"))
    ((11, 11), ())
    """
    if not v.pozzetti:
        return ()
    if v.players in (3, 5) and phase == 1:
        return (BIG_POZZETTO,) + (v.pozzetto_size,) * (v.players // 2)
    if v.players in (3, 5):
        return (v.pozzetto_size,) * v.players
    return (v.pozzetto_size,) * v.lines


DRAW_PHASE: Final = "draw"
PLAY_PHASE: Final = "play"
OVER: Final = "over"

# The refusals without params, built once (codes of burraco.refusals).
_DEAL_OVER: Final = Refusal("deal_over")
_TIME_OUT_CALLED: Final = Refusal("time_out_called")
_NOT_A_CARD: Final = Refusal("not_a_card")
_NOT_DRAWN_YET: Final = Refusal("not_drawn_yet")
_ALREADY_DRAWN: Final = Refusal("already_drawn")
_STOCK_EMPTY: Final = Refusal("stock_empty")
_PASS_NEEDS_EMPTY_STOCK: Final = Refusal("pass_needs_empty_stock")
_MUST_TAKE_PILE: Final = Refusal("must_take_pile")
_OPENED_DRAWS_FROM_STOCK: Final = Refusal("opened_draws_from_stock")
_OPEN_BEFORE_DRAW: Final = Refusal("open_before_draw")
_NO_REDRAW: Final = Refusal("no_redraw")
_REDRAW_DEALER_FIRST_TURN: Final = Refusal("redraw_dealer_first_turn")
_REDRAW_ONCE: Final = Refusal("redraw_once")
_PILE_EMPTY: Final = Refusal("pile_empty")
_TAKE_NAMES_NO_CARDS: Final = Refusal("take_names_no_cards")
_ONE_CARD_NO_SINGLE_PILE: Final = Refusal("one_card_no_single_pile")
_PILE_FROZEN_BLACK_THREE: Final = Refusal("pile_frozen_black_three")
_WILD_PILE_NEEDS_THREE: Final = Refusal("wild_pile_needs_three")
_EXTEND_ONE_CARD: Final = Refusal("extend_one_card")
_LINE_NOT_OPENED: Final = Refusal("line_not_opened")
_TWO_SETS_SAME_RANK: Final = Refusal("two_sets_same_rank")
_ONE_MELD_PER_RANK: Final = Refusal("one_meld_per_rank")
_ONE_WILD_MELD: Final = Refusal("one_wild_meld")
_BLACK_THREES_GOING_OUT: Final = Refusal("black_threes_going_out")
_DISCARD_ONE_CARD: Final = Refusal("discard_one_card")
_DISCARD_BACK_SINGLE: Final = Refusal("discard_back_single")
_LEAVES_TAKEN_CARD: Final = Refusal("leaves_taken_card")
_LEAVES_ONLY_WILDCARD: Final = Refusal("leaves_only_wildcard")
_LEAVES_DEAD_END: Final = Refusal("leaves_dead_end")
_GO_OUT_BY_DISCARD: Final = Refusal("go_out_by_discard")
_GO_OUT_NEEDS_CANASTRA: Final = Refusal("go_out_needs_canastra")
_GO_OUT_NEEDS_CLEAN: Final = Refusal("go_out_needs_clean_canastra")
_CLOSED_PILE_TOP_UNMELDABLE: Final = Refusal("closed_pile_top_unmeldable")
_MELD_PILE_TOP_FIRST: Final = Refusal("meld_pile_top_first")
_GO_OUT_TWO_CANASTAS: Final = Refusal("go_out_two_canastas")
_CLOSE_BY_DISCARD: Final = Refusal("close_by_discard")
_BURRACO_BEFORE_POZZETTO: Final = Refusal("burraco_before_pozzetto")
_CLOSE_NEEDS_BURRACO: Final = Refusal("close_needs_burraco")
_CLOSING_DISCARD_WILDCARD: Final = Refusal("closing_discard_wildcard")
#: The reasons a line may not empty its hand yet for want of burracos (canastras,
#: canastas): a last card they hold back is refused as ``leaves_last_card_no_burraco``.
_NO_BURRACO_YET: Final = frozenset(
    r.code
    for r in (
        _BURRACO_BEFORE_POZZETTO,
        _CLOSE_NEEDS_BURRACO,
        _GO_OUT_NEEDS_CANASTRA,
        _GO_OUT_NEEDS_CLEAN,
        _GO_OUT_TWO_CANASTAS,
    )
)


# The refusals with params, built once per params where legal_actions() and is_legal() meet
# them often; shared, so their params are read-only.


@functools.lru_cache(maxsize=1024)
def _lacks(cards: tuple[int, ...]) -> Refusal:
    return Refusal("hand_lacks_cards", MappingProxyType({"cards": format_cards(cards)}))


@functools.cache
def _minimum(code: str, minimum: int) -> Refusal:
    """``meld_minimum_not_reached``, ``meld_minimum_unreachable``, ``take_cannot_open``,
    ``vulnerable_minimum``: the minimum a line's first melds must reach."""
    return Refusal(code, MappingProxyType({"minimum": minimum}))


@functools.cache
def _laid_so_far(minimum: int, laid: int) -> Refusal:
    return Refusal("meld_minimum_laid_so_far", MappingProxyType({"minimum": minimum, "laid": laid}))


@functools.cache
def _pile_needs_pair(top: int) -> Refusal:
    return Refusal("pile_needs_pair", MappingProxyType({"top": str(CARDS[top])}))


@functools.lru_cache(maxsize=256)
def _no_such_meld(target: int, last: int) -> Refusal:
    return Refusal("no_such_meld", MappingProxyType({"target": target, "last": last}))


@functools.lru_cache(maxsize=1024)
def _cannot_add(card: int, meld: Meld, reason: Refusal) -> Refusal:
    params = {**reason.params, "card": str(CARDS[card]), "meld": str(meld), "reason": reason.code}
    return Refusal("cannot_add", MappingProxyType(params))


# Interned actions: legal_actions() builds no new objects for the ones seen before.
_DRAW: Final = Action(DRAW)
_TAKE: Final = Action(TAKE)
_REDRAW: Final = Action(REDRAW)
_PASS: Final = Action(PASS)
#: Whether this module runs compiled (built by mypyc from this source, see setup.py) rather
#: than from its source: an extension module's file is not a .py.
COMPILED: Final = not __file__.endswith((".py", ".pyc"))
_DISCARDS: Final = tuple(Action(DISCARD, (CARDS[c],)) for c in range(KINDS))


class _Rules:
    """The variant's rules a deal reads at every move, as native fields of a compiled
    class: a :class:`Variant` stays an interpreted class, each of its fields looked up by
    name. Built once a variant (:data:`_RULES`)."""

    def __init__(self, v: Variant) -> None:
        self.v = v
        self.players: int = int(v.players)
        self.buraco: bool = v.family == "buraco"
        self.sequences: bool = bool(v.sequences)
        self.opening_minimum: int = int(v.opening_minimum)
        self.black_threes_only_out: bool = bool(v.black_threes_only_out)
        self.open_draws_one: bool = bool(v.open_draws_one)
        self.dealer_redraw: bool = bool(v.dealer_redraw)
        self.pile_needs_pair: bool = bool(v.pile_needs_pair)
        self.draw_count: int = int(v.draw_count)
        self.morto_as_stock: bool = bool(v.morto_as_stock)
        self.red_threes: bool = bool(v.red_threes)
        self.dead_stock: int = int(v.dead_stock)
        self.unused_morto_untaken: bool = bool(v.unused_morto_untaken)
        self.stall_rounds: int = int(v.stall_rounds)
        self.vulnerable_refuse: bool = bool(v.vulnerable_refuse)
        self.discard_back_rule: bool = bool(v.discard_back_rule)

    def __reduce__(self) -> tuple[Callable[[Variant], _Rules], tuple[Variant]]:
        # Pickled or copied with a deal, they come back as the variant's own (_RULES).
        return _rules_of, (self.v,)


_RULES: Final[PerVariant[_Rules]] = PerVariant(_Rules)


def _rules_of(v: Variant) -> _Rules:
    return _RULES.of(v)


class Deal:
    """One deal of a variant, from the shuffle to the score.

    Seats are numbered 0 to ``players - 1`` in turn order; seat ``s`` belongs to
    line ``line_of[s]``. Build a deal with :meth:`new` (a seeded shuffle) or
    :meth:`from_deck` (an explicit deck order, top card first).
    """

    __slots__ = (
        "_first_turn",
        "_from_pile",
        "_last_take_meld",
        "_legal",
        "_melded_seat",
        "_partnerships_form",
        "_pending_melds",
        "_progress",
        "_rules",
        "_tables",
        "closer",
        "dealer",
        "deck_order",
        "drawn",
        "end_reason",
        "final_turn",
        "hands",
        "has_pozzetto",
        "history",
        "known",
        "line_of",
        "melds",
        "minimum",
        "minimum_raised",
        "opened",
        "pending_pozzetto",
        "pending_value",
        "phase",
        "pile",
        "pile_hidden",
        "pile_top",
        "pozzetti",
        "quiet_turns",
        "red_threes",
        "redrawn",
        "relancinhos",
        "sizes",
        "stock",
        "taken_single",
        "timeout_turns",
        "turn",
        "turns",
        "v",
        "went_out",
    )

    v: Variant
    dealer: int
    deck_order: tuple[Card, ...]
    line_of: list[int]
    hands: list[list[int]]
    sizes: list[int]
    stock: list[int]
    pile: list[int]
    pile_hidden: int
    #: A closed pile just taken: its top card, which must be melded before anything else
    #: this turn (-1: none).
    pile_top: int
    pozzetti: list[list[int]]
    has_pozzetto: list[bool]
    pending_pozzetto: list[list[int] | None]
    melds: list[list[Meld]]
    phase: str
    turn: int
    turns: int
    drawn: int
    redrawn: bool
    taken_single: int
    quiet_turns: int
    final_turn: bool
    timeout_turns: int
    closer: int
    went_out: bool
    #: Why the deal ended ("went out", "closed", "stock", "stall", "time-out"); None before.
    end_reason: str | None
    red_threes: list[int]
    relancinhos: list[int]
    opened: list[bool]
    minimum: list[int]
    minimum_raised: list[bool]
    pending_value: list[int]
    history: list[Action]
    #: Per seat, the cards everyone knows to be in that hand (taken from the pile, not played).
    known: list[list[int]]
    _first_turn: bool
    _melded_seat: list[bool]
    _pending_melds: list[int]
    _progress: bool
    _partnerships_form: bool
    _last_take_meld: Meld | Refusal | None
    #: The actions :meth:`legal_actions` listed for this state, until it changes: an
    #: action among them needs no second check in :meth:`apply`.
    _legal: tuple[Action, ...] | None
    #: Canasta: the cards the rest of the pile brought to an unopened line's hand this
    #: turn (counts per card kind), which never count toward the opening; else None.
    _from_pile: list[int] | None
    #: The variant's meld tables (``tables_for(v)``), kept on the deal: compiled, a native
    #: field read, where looking them up by the variant ran interpreted code every call.
    _tables: MeldTables
    #: The variant's rules read at every move (:class:`_Rules`), kept as the tables are.
    _rules: _Rules

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        v: Variant,
        seed: int | None = None,
        *,
        dealer: int = 0,
        phase: int = 1,
        minimum: Sequence[int] | None = None,
    ) -> Deal:
        """A deal with the deck shuffled from ``seed``.

        ``phase`` is 1 or 2 for the 3- and 5-player games (see RULES.md);
        ``minimum`` is each line's minimum first lay-down (buraco vulnerability).
        """
        order = deck(v.decks, v.jokers)
        random.Random(seed).shuffle(order)
        return cls._dealt(v, order, dealer, phase, minimum)

    @classmethod
    def from_deck(
        cls,
        v: Variant,
        order: Iterable[int],
        *,
        dealer: int = 0,
        phase: int = 1,
        minimum: Sequence[int] | None = None,
    ) -> Deal:
        """A deal dealt from an explicit deck order, top card first (after the cut).

        The order must hold exactly the variant's cards.
        """
        cards = [CARDS[c] for c in order]
        expected = sorted(deck(v.decks, v.jokers))
        if sorted(cards) != expected:
            raise RuleError(
                f"a deck order for {v.name} must hold its {len(expected)} cards exactly once "
                f"each (got {len(cards)} cards)"
            )
        return cls._dealt(v, cards, dealer, phase, minimum)

    @classmethod
    def _dealt(
        cls,
        v: Variant,
        cards: list[Card],
        dealer: int,
        phase: int,
        minimum: Sequence[int] | None,
    ) -> Deal:
        # The deal from a deck order known to be whole (checked, or shuffled from the deck).
        if not 0 <= dealer < v.players:
            raise RuleError(f"no seat {dealer} at a table of {v.players}")
        self = cls()
        self.v = v
        self._tables = tables_for(v)
        self._rules = _RULES.of(v)
        self.dealer = dealer
        self.deck_order = tuple(cards)
        self.line_of = list(v.line_of)
        self.hands = [[0] * KINDS for _ in range(v.players)]
        self.sizes = [0] * v.players
        self.pile = []
        self.pile_hidden = 0
        self.pile_top = -1
        self.pozzetti = []
        # Per line (indexed by line_of[seat]): has_pozzetto, melds, red_threes, relancinhos,
        # opened, minimum, minimum_raised, pending_value. Per seat: the rest.
        lines = v.lines
        self.has_pozzetto = [False] * lines
        self.pending_pozzetto = [None] * v.players
        self.melds = [[] for _ in range(lines)]
        self.turns = 0
        self.drawn = -1
        self.redrawn = False
        self.taken_single = -1
        self.quiet_turns = 0
        self.final_turn = False
        self.timeout_turns = -1
        self.closer = -1
        self.went_out = False
        self.end_reason = None
        self.red_threes = [0] * lines
        self.relancinhos = [0] * lines
        self.opened = [True] * lines
        self.minimum = [0] * lines
        self.minimum_raised = [False] * lines
        self.pending_value = [0] * lines
        self.history = []
        self.known = [[0] * KINDS for _ in range(v.players)]
        self._first_turn = True
        self._melded_seat = [False] * v.players
        self._pending_melds = []
        self._from_pile = None
        self._progress = False
        if v.opening_minimum:
            self.minimum = [v.opening_minimum] * lines
        if minimum is not None:
            if len(minimum) > lines:
                raise RuleError(
                    f"a minimum for {len(minimum)} lines, but the table has {lines} "
                    "(minimum is per line, not per seat)"
                )
            for line, need in enumerate(minimum):
                self.minimum[line] = max(self.minimum[line], need)
        for line in range(lines):
            self.opened[line] = self.minimum[line] == 0

        top: list[int] = list(cards)  # top card first
        stock_bottom = len(top)
        if v.pozzetti:
            sizes = self._pozzetto_sizes(phase)
            piles: list[list[int]] = [[] for _ in sizes]
            # Built card by card, alternately, from the bottom of the deck (000).
            while any(len(p) < n for p, n in zip(piles, sizes, strict=True)):
                for p, n in zip(piles, sizes, strict=True):
                    if len(p) < n:
                        stock_bottom -= 1
                        p.append(CARDS[top[stock_bottom]])
            self.pozzetti = piles
        self._partnerships_form = v.players in (3, 5) and phase == 1 and v.pozzetti
        self._last_take_meld = None
        self._legal = None
        position = 0
        first = (dealer + 1) % v.players
        for _ in range(v.hand_size):
            for k in range(v.players):
                seat = (first + k) % v.players
                card = top[position]
                position += 1
                self.hands[seat][card] += 1
                self.sizes[seat] += 1
        rest = top[position:stock_bottom]
        self.stock = rest[::-1]  # the top of the stock is the end of the list
        if v.red_threes:
            for k in range(v.players):
                self._lay_aside_red_threes((first + k) % v.players)
        if v.up_card:
            self.pile.append(CARDS[self.stock.pop()])
        if v.pile_needs_pair:
            self._turn_up_canasta_pile()
        self.turn = dealer if v.dealer_plays_first else first
        self.phase = DRAW_PHASE
        return self

    def _pozzetto_sizes(self, phase: int) -> list[int]:
        return list(pozzetto_sizes(self.v, phase))

    def _turn_up_canasta_pile(self) -> None:
        # Canasta (003): the turned card is buried under as many cards as its value.
        # A wildcard or a 3 goes to the bottom of the stock and the next is turned (decision).
        while self.stock:
            card = self.stock.pop()
            rank = card % 13 + 1
            if card == JOKER or rank in (2, 3):
                self.stock.insert(0, CARDS[card])
                continue
            count = 14 if rank == 1 else rank
            count = min(count, len(self.stock))
            under = [CARDS[self.stock.pop()] for _ in range(count)]
            self.pile = [*under, CARDS[card]]
            self.pile_hidden = count
            return

    def _lay_aside_red_threes(self, seat: int) -> None:
        hand = self.hands[seat]
        line = self.line_of[seat]
        while True:
            reds = hand[15] + hand[28]  # 3H, 3D
            if not reds:
                return
            hand[15] = hand[28] = 0
            self.sizes[seat] -= reds
            self.red_threes[line] += reds
            for _ in range(reds):
                if self.stock:
                    hand[self.stock.pop()] += 1
                    self.sizes[seat] += 1

    @classmethod
    def resample(cls, view: DealView, rng: random.Random) -> Deal:
        """A whole deal consistent with what ``view``'s seat sees (a determinization).

        The cards the seat cannot see (the other hands, the stock, the pozzetti,
        canasta's buried pile cards) are dealt at random, except the cards
        everyone knows to be in a hand (taken from the pile), which stay there.
        Search bots play such deals to weigh their options.
        """
        v = view.rules
        if v is None:
            raise RuleError("the view carries no rules to rebuild the deal from")
        unseen = [0] * KINDS
        for c in deck(v.decks, v.jokers):
            unseen[c] += 1

        def remove(cards: Iterable[int]) -> None:
            for c in cards:
                unseen[c] -= 1

        remove(view.hand)
        open_hands = dict(view.partner_hands)
        for cards in open_hands.values():
            remove(cards)
        for melds in view.melds:
            for m in melds:
                remove(m.cards)
        remove(view.pile)
        for line_reds in view.red_threes:
            for _ in range(line_reds):
                unseen[15 if unseen[15] >= unseen[28] else 28] -= 1
        hidden_hands: dict[int, list[int]] = {}
        for seat in range(view.players):
            if seat == view.seat or seat in open_hands:
                continue
            known_cards: list[int] = list(view.known[seat]) if view.known else []
            remove(known_cards)
            hidden_hands[seat] = known_cards
        pool = [c for c in range(KINDS) for _ in range(unseen[c])]
        if any(n < 0 for n in unseen):
            raise RuleError("the view is inconsistent with the deck")
        rng.shuffle(pool)

        self = cls()
        self.v = v
        self._tables = tables_for(v)
        self._rules = _RULES.of(v)
        self.dealer = view.dealer
        self.deck_order = ()
        self.line_of = list(view.line_of)
        self.hands = [[0] * KINDS for _ in range(v.players)]
        for c in view.hand:
            self.hands[view.seat][c] += 1
        for seat, cards in open_hands.items():
            for c in cards:
                self.hands[seat][c] += 1
        for seat, held in hidden_hands.items():
            hand = self.hands[seat]
            for kind in held:
                hand[kind] += 1
            for _ in range(view.hand_sizes[seat] - len(held)):
                hand[pool.pop()] += 1
        self.sizes = list(view.hand_sizes)
        self.pending_pozzetto = [
            [pool.pop() for _ in range(n)] if n else None for n in view.pozzetto_face_down
        ]
        self.pozzetti = [[pool.pop() for _ in range(n)] for n in view.pozzetti]
        buried = [pool.pop() for _ in range(view.pile_hidden)]
        self.pile = [*buried, *view.pile]
        self.pile_hidden = view.pile_hidden
        self.pile_top = -1 if view.pile_top is None else int(view.pile_top)
        if len(pool) != view.stock_size:
            raise RuleError("the view is inconsistent with the deck")
        self.stock = pool
        self.has_pozzetto = list(view.has_pozzetto)
        self.melds = [list(m) for m in view.melds]
        self.phase = view.phase
        self.turn = view.turn
        self.turns = view.turns
        self.drawn = -1 if view.drawn is None else int(view.drawn)
        self.redrawn = view.redrawn
        self.taken_single = view.taken_single
        self.quiet_turns = view.quiet_turns
        self.final_turn = view.final_turn
        self.timeout_turns = view.timeout_turns
        self.closer = view.closer
        self.went_out = view.went_out
        self.end_reason = view.end_reason
        self.red_threes = list(view.red_threes)
        self.relancinhos = list(view.relancinhos)
        self.opened = list(view.opened)
        self.minimum = list(view.minimum)
        self.minimum_raised = list(view.minimum_raised)
        self.pending_value = list(view.pending_value)
        self.history = list(view.history)
        self.known = [[0] * KINDS for _ in range(v.players)]
        for seat, cards in enumerate(view.known):
            for c in cards:
                self.known[seat][c] += 1
        self._first_turn = view.first_turn
        self._melded_seat = list(view.melded_seats)
        self._pending_melds = list(view.pending_melds)
        self._from_pile = list(view.from_pile) if view.from_pile else None
        self._progress = view.progress
        self._partnerships_form = view.partnerships_form
        self._last_take_meld = None
        self._legal = None
        return self

    def settle(self) -> None:
        """Keep a finished deal as it will only be read from now on (its score, its views,
        its record): every list of plain values becomes a tuple, and what only play needed
        goes.

        A long match, and a room of them, keeps every finished deal; a list stays under the
        cyclic collector's watch for good, a tuple of ints leaves it after one pass, so
        the collector's full walk no longer grows with the deals played. Nothing changes
        a settled deal again (every action is refused once it is over).

        >>> from burraco.variants import variant
        >>> deal = Deal.new(variant("italian"), seed=1)
        >>> deal.settle()
        Traceback (most recent call last):
        ...
        burraco.errors.RuleError: only a finished deal is settled (this one is in play)
        """
        if not self.is_over:
            raise RuleError("only a finished deal is settled (this one is in play)")
        self._from_pile = None
        self._last_take_meld = None
        self._legal = None
        if COMPILED:
            # A compiled Deal's attributes hold the types they are declared with (lists):
            # its lists stay (the same values; the collector's saving is the pure engine's).
            return
        # Typed as the lists of play: a settled deal is read, never changed.
        read_only: Any = tuple
        self.line_of = read_only(self.line_of)
        self.hands = read_only(read_only(h) for h in self.hands)
        self.sizes = read_only(self.sizes)
        self.stock = read_only(self.stock)
        self.pile = read_only(self.pile)
        self.pozzetti = read_only(read_only(p) for p in self.pozzetti)
        self.has_pozzetto = read_only(self.has_pozzetto)
        self.pending_pozzetto = read_only(
            None if p is None else read_only(p) for p in self.pending_pozzetto
        )
        self.red_threes = read_only(self.red_threes)
        self.relancinhos = read_only(self.relancinhos)
        self.opened = read_only(self.opened)
        self.minimum = read_only(self.minimum)
        self.minimum_raised = read_only(self.minimum_raised)
        self.pending_value = read_only(self.pending_value)
        self.known = read_only(read_only(k) for k in self.known)
        self._melded_seat = read_only(self._melded_seat)
        self._pending_melds = read_only(self._pending_melds)

    def clone(self) -> Deal:
        """A copy that shares nothing mutable with this deal (for search)."""
        other = Deal()
        other.v = self.v
        other._tables = self._tables
        other._rules = self._rules
        other.dealer = self.dealer
        other.deck_order = self.deck_order
        other.line_of = self.line_of[:]
        other.hands = [h[:] for h in self.hands]
        other.sizes = self.sizes[:]
        other.stock = self.stock[:]
        other.pile = self.pile[:]
        other.pile_hidden = self.pile_hidden
        other.pile_top = self.pile_top
        other.pozzetti = [p[:] for p in self.pozzetti]
        other.has_pozzetto = self.has_pozzetto[:]
        other.pending_pozzetto = [None if p is None else p[:] for p in self.pending_pozzetto]
        other.melds = [m[:] for m in self.melds]
        other.phase = self.phase
        other.turn = self.turn
        other.turns = self.turns
        other.drawn = self.drawn
        other.redrawn = self.redrawn
        other.taken_single = self.taken_single
        other.quiet_turns = self.quiet_turns
        other.final_turn = self.final_turn
        other.timeout_turns = self.timeout_turns
        other.closer = self.closer
        other.went_out = self.went_out
        other.end_reason = self.end_reason
        other.red_threes = self.red_threes[:]
        other.relancinhos = self.relancinhos[:]
        other.opened = self.opened[:]
        other.minimum = self.minimum[:]
        other.minimum_raised = self.minimum_raised[:]
        other.pending_value = self.pending_value[:]
        other.history = self.history[:]
        other.known = [k[:] for k in self.known]
        other._first_turn = self._first_turn
        other._melded_seat = self._melded_seat[:]
        other._pending_melds = self._pending_melds[:]
        other._from_pile = None if self._from_pile is None else self._from_pile[:]
        other._progress = self._progress
        other._partnerships_form = self._partnerships_form
        other._last_take_meld = self._last_take_meld
        other._legal = self._legal
        return other

    # --- questions ------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def face_down_in_pile(self) -> int:
        """The pile's cards no seat sees, at its bottom: canasta's buried cards, or all but
        the top of a closed pile (buraco fechado, STBL)."""
        return self.pile_hidden if self.v.pile_open else max(len(self.pile) - 1, 0)

    @property
    def players(self) -> int:
        return self.v.players

    def hand(self, seat: int) -> list[Card]:
        """The cards in a seat's hand, sorted by kind."""
        return cards_from_counts(self.hands[seat])

    def partners(self, seat: int) -> list[int]:
        """The other seats of the seat's line."""
        line = self.line_of[seat]
        return [s for s in range(self.v.players) if s != seat and self.line_of[s] == line]

    def line_melds(self, seat: int) -> list[Meld]:
        return self.melds[self.line_of[seat]]

    def _has_burraco(self, line: int) -> bool:
        v = self.v
        return any(grade_of(m, v) is not None for m in self.melds[line])

    def _canastas(self, line: int) -> tuple[int, int]:
        v = self.v
        total = clean = 0
        for m in self.melds[line]:
            grade = grade_of(m, v)
            if grade is not None:
                total += 1
                clean += grade == "clean"
        return total, clean

    # --- the legal actions ----------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player on turn, in a fixed order."""
        if self.phase == DRAW_PHASE:
            actions = self._draw_actions()
            if self._opens_before_drawing(self.turn):
                actions.extend(self._lay_actions())
        elif self.phase == OVER:
            actions = []
        else:
            actions = self._play_actions()
        self._legal = tuple(actions)
        return actions

    def _play_actions(self) -> list[Action]:
        if self.pile_top >= 0:
            # A closed pile was taken: its top card is melded first (docs/brazil.md).
            top = CARDS[self.pile_top]
            return [a for a in self._lay_actions() if top in a.cards]
        actions = []
        if self._rules.dealer_redraw and self._may_redraw():
            actions.append(_REDRAW)
        if not self._drew_before_opening(self.turn):
            actions.extend(self._lay_actions())
        seat = self.turn
        hand = self.hands[seat]
        line = self.line_of[seat]
        # Plain loops over the kinds: compiled, native reads, where extend(compress(...))
        # went through a list built and copied again.
        if self.sizes[seat] >= 2 and self.opened[line] and self.taken_single < 0:
            for card in range(KINDS):
                if hand[card]:
                    actions.append(_DISCARDS[card])
        else:
            for card in range(KINDS):
                if hand[card] and self._discard_problem(seat, line, card) is None:
                    actions.append(_DISCARDS[card])
        return actions

    def _opens_before_drawing(self, seat: int) -> bool:
        # 003 with open_draws_one: an unopened line's player may open before drawing,
        # and then draws one card.
        return self._rules.open_draws_one and not self.opened[self.line_of[seat]]

    def _drew_before_opening(self, seat: int) -> bool:
        # ... and a player who drew two cards does not open in that turn.
        line = self.line_of[seat]
        return self._rules.open_draws_one and not self.opened[line] and not self._pending_melds

    def _lay_actions(self) -> list[Action]:
        """The new melds and extensions the player on turn may lay down now."""
        seat = self.turn
        hand = self.hands[seat]
        line = self.line_of[seat]
        v = self.v
        rules = self._rules
        actions: list[Action] = []
        size = self.sizes[seat]
        opened = self.opened[line]
        melds = self.melds[line]
        opening: _OpeningBase | None = None
        if not opened and rules.opening_minimum:
            opening = self._opening_base(seat, line)
            totals, sets, wild_meld = opening
            need = self.minimum[line] - self.pending_value[line]
            if not _reaches(totals, sets, wild_meld, v.values, need):
                # Nothing this hand lays down can reach the opening: no meld, no extension.
                return actions
        tables = self._tables
        # A line melds one set of a rank (and one meld of wildcards).
        taken = {m.rank for m in melds}  # 0 (a sequence's, wildcards') stands for no rank
        if 0 in taken and any(m.kind == WILD for m in melds):
            taken.add(-1)
        parts = tables.parts(hand, taken)
        if parts:
            # Fast path: with two cards left after it and no opening to reach, only the
            # line's own melds can make a candidate illegal; the rest are checked one by one.
            slow = rules.black_threes_only_out
            quick = size - 2 if opened else -1
            shapes = None if rules.sequences else self._shapes(seat, opened, opening)
            legal: list[tuple[Candidate, ...]] = []
            for part in parts:
                if part[1] <= quick and not (slow and part[2] == 3):
                    legal.append(part[0])  # every meld of the part leaves two cards
                else:
                    legal.append(self._checked_melds(seat, line, size, part, quick, shapes))
            # A plain loop: compiled, native reads, where map() and itemgetter were
            # generic calls a candidate.
            by_number = tables.actions
            for candidate in merged(legal):
                actions.append(by_number[candidate[2]])
        if not melds:
            return actions
        # Extensions: each meld's cards that fit (kept per meld); with three cards or more
        # and the line opened, every fitting card may be added.
        quick_extend = opened and size >= 3
        slow = rules.black_threes_only_out
        extends = extend_tables(len(melds))
        for target, m in enumerate(melds):
            extend = extends[target]
            # Plain loops: cheaper than building the list of fitting cards first (and the
            # tables' method called on them, not a bound method: native when compiled).
            if quick_extend and not (slow and m.rank == 3 and m.kind == SET):
                for card in tables.fit_kinds(m):
                    if hand[card]:
                        actions.append(extend[card])
                continue
            for card in tables.fit_kinds(m):
                if not hand[card]:
                    continue
                grown = extended(m, card, v)
                assert isinstance(grown, Meld)
                if self._grown_problem(seat, line, target, card, grown) is None:
                    actions.append(extend[card])
        return actions

    def _checked_melds(
        self,
        seat: int,
        line: int,
        size: int,
        part: Part,
        quick: int,
        shapes: _Shapes | None,
    ) -> tuple[Candidate, ...]:
        """The melds of a part the hand may lay down, checked one by one: those that leave
        it two cards or more after an opening need no check (``quick``: the most cards
        such a meld holds).

        ``shapes`` (without sequences): whether a meld that leaves two cards or more is
        legal depends on its rank, its wildcards and how many of its cards the pile just
        brought, not on the suits of its naturals, so it is worked out once a shape.
        """
        candidates, _, rank = part
        if rank == 3 and self.v.black_threes_only_out:
            # Black 3s are melded only as the last meld before going out.
            return tuple(
                c
                for c in candidates
                if len(c[0]) == size - 1 and self._meld_problem(seat, line, c[0], size) is None
            )
        legal: list[Candidate] = []
        known = opening = None
        pile: list[tuple[int, int, int]] = []
        if shapes is not None:
            known, opening = shapes.known, shapes.opening
            # Only the kinds this part's melds may hold tell its shapes apart.
            pile = [e for e in shapes.pile if e[0] == JOKER or e[0] % 13 in (1, rank - 1)]
        for candidate in candidates:
            cards = candidate[0]
            n = len(cards)
            if n <= quick:
                legal.append(candidate)
            elif known is not None and n <= size - 2:
                # Counted in one loop: compiled, native, where tuple.count is a call by name.
                twos = jokers = 0
                for c in cards:
                    if c == JOKER:
                        jokers += 1
                    elif c % 13 == 1:
                        twos += 1
                shape: _Shape = (
                    (rank, n, jokers, twos, *_from_the_pile(cards, pile))
                    if pile
                    else (rank, n, jokers, twos, 0, 0, 0)
                )
                ok = known.get(shape)
                if ok is None:
                    if opening is not None:
                        ok = self._opening_shape_ok(line, shape, opening)
                    else:
                        ok = self._meld_problem(seat, line, cards, size) is None
                    known[shape] = ok
                if ok:
                    legal.append(candidate)
            elif self._meld_problem(seat, line, cards, size) is None:
                legal.append(candidate)
        return tuple(legal)

    def _shapes(self, seat: int, opened: bool, opening: _OpeningBase | None) -> _Shapes | None:
        """What :meth:`_checked_melds` needs to work a new set out once a shape; None when
        that does not hold (a hand with fewer copies of its own than the pile's count, as
        only a position could give)."""
        share = self._from_pile
        if share is None or opened:
            # An opened line's melds never count toward an opening: the pile is no matter.
            return _Shapes(opening, ())
        if opening is None:
            return None
        hand = self.hands[seat]
        pile = tuple((c, hand[c] - share[c], _PILE_SLOT[c]) for c in range(KINDS) if share[c])
        if any(own < 0 for _, own, _ in pile):
            return None
        return _Shapes(opening, pile)

    def _opening_base(self, seat: int, line: int) -> _OpeningBase:
        """What :meth:`_opening_shape_ok` starts from: the ranks' totals of the hand's own
        cards (not those the pile just brought), the line's sets (rank, naturals,
        wildcards), whether it has a meld of wildcards."""
        melds = self.melds[line]
        sets = [(m.rank, m.size - len(m.wilds), len(m.wilds)) for m in melds if m.kind == SET]
        hand = self.hands[seat] if self._from_pile is None else self._opening_hand(seat)
        return _rank_totals(hand), sets, any(m.kind == WILD for m in melds)

    def _opening_shape_ok(self, line: int, shape: _Shape, base: _OpeningBase) -> bool:
        """Canasta, a line not opened: whether a new set or meld of wildcards of this shape
        that leaves two cards or more keeps the opening within reach; :meth:`_after_laying`'s
        rule, worked from ranks' totals. The cards the pile just brought count neither
        toward the opening nor in the hand left (the hand's own copies are laid first)."""
        rank, n, jokers, twos, pile_naturals, pile_jokers, pile_twos = shape
        values = self.v.values
        naturals = n - jokers - twos
        own_naturals = naturals - pile_naturals
        own_jokers = jokers - pile_jokers
        own_twos = twos - pile_twos
        value = own_jokers * values[0] + own_twos * values[2]
        if rank > 0:
            value += own_naturals * values[rank]
        need = self.minimum[line] - self.pending_value[line] - value
        if need <= 0:
            return True
        hand_totals, line_sets, wild_meld = base
        totals = list(hand_totals)
        totals[0] -= own_jokers
        totals[2] -= own_twos
        sets = line_sets
        if rank > 0:
            totals[rank] -= own_naturals
            sets = [*line_sets, (rank, naturals, jokers + twos)]
        return _reaches(tuple(totals), sets, wild_meld or rank < 0, values, need)

    def _draw_actions(self) -> list[Action]:
        actions: list[Action] = []
        seat = self.turn
        if self.stock:
            actions.append(_DRAW)
        if self._pending_melds:
            # Opened before drawing: one card from the stock (003), or, the stock empty,
            # the pass that ends the deal.
            return actions if self.stock else [_PASS]
        if self._rules.pile_needs_pair:
            actions.extend(take_action(c) for c in self._pair_takes(seat))
        elif self._take_problem(seat) is None:
            actions.append(_TAKE)
        if not self.stock and (self._rules.pile_needs_pair or not actions):
            actions.append(_PASS)
        return actions

    def is_legal(self, action: Action) -> bool:
        return self._problem(action) is None

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalMove` naming the rule if ``action`` is illegal now."""
        problem = self._problem(action)
        if problem is not None:
            raise IllegalMove(problem, str(action))

    def _problem(self, action: Action) -> Refusal | None:
        if self.phase == OVER:
            return _DEAL_OVER
        kind = action.kind
        seat = self.turn
        line = self.line_of[seat]
        hand = self.hands[seat]
        if self.phase == DRAW_PHASE:
            if kind == DRAW:
                return None if self.stock else _STOCK_EMPTY
            if kind == TAKE:
                if self._pending_melds:
                    return _OPENED_DRAWS_FROM_STOCK
                if self.v.pile_needs_pair:
                    return self._pair_take_problem(seat, action.cards)
                if action.cards:
                    return _TAKE_NAMES_NO_CARDS
                return self._take_problem(seat)
            if kind == PASS:
                if self.stock:
                    return _PASS_NEEDS_EMPTY_STOCK
                if not self.v.pile_needs_pair and self._take_problem(seat) is None:
                    return _MUST_TAKE_PILE
                return None
            if kind not in (MELD, EXTEND) or not self._opens_before_drawing(seat):
                return _NOT_DRAWN_YET
        elif kind in (DRAW, TAKE, PASS):
            return _ALREADY_DRAWN
        elif kind in (MELD, EXTEND) and self._drew_before_opening(seat):
            return _OPEN_BEFORE_DRAW
        elif self.pile_top >= 0 and (
            kind not in (MELD, EXTEND) or self.pile_top not in action.cards
        ):
            # A closed pile just taken: its top goes to the table first (not back to the pile).
            return _MELD_PILE_TOP_FIRST
        if kind == REDRAW:
            return None if self._may_redraw() else self._redraw_problem()
        # Typed as ints: an Action may be built with plain ints, and compiled code checks a
        # value typed Card to be one.
        cards: tuple[int, ...] = action.cards
        need = [0] * KINDS
        for c in cards:
            if not 0 <= c < KINDS:
                return _NOT_A_CARD
            need[c] += 1
        if any(need[c] > hand[c] for c in cards):
            return _lacks(tuple(cards))
        size = self.sizes[seat]
        if kind == MELD:
            found = meld_or_refusal(cards, self.v)
            if isinstance(found, Refusal):
                return nested("not_a_meld", found)
            return self._meld_problem(seat, line, tuple(sorted(cards)), size, found)
        if kind == EXTEND:
            melds = self.melds[line]
            if not 0 <= action.target < len(melds) or len(cards) != 1:
                if len(cards) != 1:
                    return _EXTEND_ONE_CARD
                return _no_such_meld(action.target, len(melds) - 1)
            return self._extend_problem(seat, line, action.target, melds[action.target], cards[0])
        if kind == DISCARD:
            if len(cards) != 1:
                return _DISCARD_ONE_CARD
            return self._discard_problem(seat, line, cards[0])
        return Refusal("unknown_kind", {"kind": kind})

    # Each _problem helper returns None when legal, else the rule that forbids it.

    def _take_problem(self, seat: int) -> Refusal | None:
        if not self.pile:
            return _PILE_EMPTY
        v = self.v
        if v.single_card_no_single_pile and self.sizes[seat] == 1 and len(self.pile) == 1:
            return _ONE_CARD_NO_SINGLE_PILE
        if not v.pile_open and not self._top_meldable(seat):
            return _CLOSED_PILE_TOP_UNMELDABLE
        return None

    def _top_meldable(self, seat: int) -> bool:
        """A closed pile: whether the hand can meld the pile's top card at once, in a new
        meld or on one of the line's melds, and still end the turn. Judged on the hand and
        the top alone: the rest of the pile is face down, so no take may depend on it
        (the rest only adds cards to the hand, which never makes a meld illegal)."""
        v = self.v
        top = self.pile[-1]
        line = self.line_of[seat]
        tables = self._tables
        fits = any(top in tables.fit_kinds(m) for m in self.melds[line])
        if fits and self.sizes[seat] >= 2 and self.opened[line] and not v.black_threes_only_out:
            return True  # onto that meld, keeping two cards: legal as _lay_actions lists it
        hand = self.hands[seat]
        wild = hand[JOKER] or hand[1] or hand[14] or hand[27] or hand[40]
        if not fits and top != JOKER and top % 13 != 1 and not wild:
            # No wildcard: a new meld needs the top's neighbours in its suit, or two of its
            # rank for a set. (Counting too many here only sends it to the trial.)
            base, rank = top - top % 13, top % 13
            near = any(
                hand[base + r]
                for r in range(13)
                if r != rank and min((r - rank) % 13, (rank - r) % 13) <= 2
            )
            same = hand[rank] + hand[13 + rank] + hand[26 + rank] + hand[39 + rank]
            if not near and not (v.sets and same >= 2):
                return False
        return self._top_meldable_trial(seat)

    def _top_meldable_trial(self, seat: int) -> bool:
        """:meth:`_top_meldable` worked out in full: the top in the hand, the melds listed."""
        trial = self.clone()
        top = trial.pile.pop()
        trial.hands[seat][top] += 1
        trial.sizes[seat] += 1
        trial.pile_top = top
        trial.phase = PLAY_PHASE
        if not trial.pile:
            trial.taken_single = top
        return bool(trial._play_actions())

    def _pair_takes(self, seat: int) -> list[tuple[int, ...]]:
        # Canasta: the ways to take the pile, by the cards melded with its top.
        if not self.pile:
            return []
        top = self.pile[-1]
        hand = self.hands[seat]
        if top == JOKER or top % 13 == 1:
            kinds = [JOKER] if top == JOKER else [k for k in (1, 14, 27, 40) if hand[k]]
            need = 3
        else:
            kinds = [s * 13 + top % 13 for s in range(4) if hand[s * 13 + top % 13]]
            need = 2
        if sum(hand[k] for k in kinds) < need or (top % 13 == 2 and top // 13 in (0, 3)):
            return []  # too few cards to meld the top with, or a black 3 freezes the pile
        # The multisets of ``need`` cards the hand holds, in the order of
        # combinations_with_replacement(kinds, need).
        pool = [k for k in kinds for _ in range(min(hand[k], need))]
        combos = list(dict.fromkeys(combinations(pool, need)))
        if not self.opened[self.line_of[seat]]:
            return [c for c in combos if self._pair_take_meld_problem(seat, c) is None]
        # The meld the top grows is the same whatever joins it: found once.
        start = self._take_start(seat)
        if need == 2 and top % 13 != 2 and self._left_after_take(seat, need) >= 2:
            # The take stands or falls with its meld, and a set of naturals (not 3s) does
            # not depend on their suits: one pair's verdict is every pair's.
            return combos if self._pair_take_meld_problem(seat, combos[0], start) is None else []
        return [c for c in combos if self._pair_take_meld_problem(seat, c, start) is None]

    def _pair_take_problem(self, seat: int, cards: Sequence[int]) -> Refusal | None:
        if not self.pile:
            return _PILE_EMPTY
        top = self.pile[-1]
        if top % 13 == 2 and top != JOKER and top // 13 in (0, 3):
            return _PILE_FROZEN_BLACK_THREE
        hand = self.hands[seat]
        wild_top = top == JOKER or top % 13 == 1
        if wild_top:
            same = (
                all(c == JOKER for c in cards)
                if top == JOKER
                else all(c != JOKER and c % 13 == 1 for c in cards)
            )
            if len(cards) != 3 or not same:
                return _WILD_PILE_NEEDS_THREE
        elif len(cards) != 2 or any(c == JOKER or c % 13 != top % 13 for c in cards):
            return _pile_needs_pair(top)
        need = [0] * KINDS
        for c in cards:
            need[c] += 1
        if any(need[c] > hand[c] for c in cards):
            return _lacks(tuple(cards))
        return self._pair_take_meld_problem(seat, tuple(cards))

    def _pair_take_meld_problem(
        self, seat: int, cards: tuple[int, ...], start: _TakeStart | None = None
    ) -> Refusal | None:
        """:meth:`_pair_take_problem` for cards the hand holds that may meld the top: the
        meld they make and what the take leaves (``start``: :meth:`_take_start`, if known)."""
        line = self.line_of[seat]
        if self.opened[line] and self._left_after_take(seat, len(cards)) >= 2:
            # An opened line's take is legal when its meld is: the hand keeps two cards or
            # more (the rest of the pile comes in, less the red 3s, which may not be replaced).
            found = self._take_meld(seat, tuple(cards), start)[1]
            return found if isinstance(found, Refusal) else None
        trial = self.clone()
        trial._do_pair_take(seat, tuple(cards))
        meld_or_reason = trial._last_take_meld
        if isinstance(meld_or_reason, Refusal):
            return meld_or_reason
        if not trial.opened[line] and not trial._opening_reachable(seat, line):
            return _minimum("take_cannot_open", self.minimum[line])
        stuck = trial._after_laying(seat, line, (), trial.sizes[seat], trial.melds[line], 0)
        if stuck is not None:
            return nested("take_leaves_dead_end", stuck)
        return None

    def _left_after_take(self, seat: int, melded: int) -> int:
        """The cards a take leaves in hand: ``melded`` go with the top, the rest of the pile
        comes in, less the red 3s (laid aside)."""
        pile = self.pile
        reds = pile.count(15) + pile.count(28) - (pile[-1] in (15, 28))
        return self.sizes[seat] - melded + len(pile) - 1 - reds

    def _may_redraw(self) -> bool:
        return self._redraw_problem() is None

    def _redraw_problem(self) -> Refusal | None:
        v = self.v
        if not v.dealer_redraw:
            return _NO_REDRAW
        if not (self._first_turn and self.turn == self.dealer and self.turns == 0):
            return _REDRAW_DEALER_FIRST_TURN
        # Right after the first draw: the dealer has drawn and laid nothing yet this turn
        # (read from the state, not the history, so a deal loaded from a position agrees).
        if self.redrawn or self.pile or self.drawn < 0 or self._melded_seat[self.turn]:
            return _REDRAW_ONCE
        if not self.stock:
            return _STOCK_EMPTY
        return None

    def _meld_problem(
        self,
        seat: int,
        line: int,
        cards: tuple[int, ...],
        size: int,
        meld: Meld | None = None,
    ) -> Refusal | None:
        v = self.v
        if meld is None:
            found = self._tables.reading(cards)
            if isinstance(found, Refusal):
                return found
            meld = found
        melds = self.melds[line]
        if meld.kind == SET and any(m.kind == SET and m.rank == meld.rank for m in melds):
            if v.sequences:
                return _TWO_SETS_SAME_RANK
            return _ONE_MELD_PER_RANK
        if meld.kind == WILD and any(m.kind == WILD for m in melds):
            return _ONE_WILD_MELD
        left = size - len(cards)
        melds_after = [*melds, meld]
        if v.black_threes_only_out and meld.kind == SET and meld.rank == 3:
            return self._black_threes_problem(seat, line, cards, melds_after)
        value = 0
        if not self.opened[line]:
            value = meld_points(meld, v) - self._pile_value(seat, cards)
        return self._after_laying(seat, line, cards, left, melds_after, value)

    def _extend_problem(
        self, seat: int, line: int, target: int, m: Meld, card: int
    ) -> Refusal | None:
        result = extended(m, card, self.v)
        if isinstance(result, Refusal):
            return _cannot_add(card, m, result)
        return self._grown_problem(seat, line, target, card, result)

    def _grown_problem(
        self, seat: int, line: int, target: int, card: int, result: Meld
    ) -> Refusal | None:
        """:meth:`_extend_problem` once the meld has taken the card: the line's rules."""
        v = self.v
        if not self.opened[line] and target not in self._pending_melds:
            return _LINE_NOT_OPENED
        opened = self.opened[line]
        if opened and self.sizes[seat] >= 3 and not v.black_threes_only_out:
            return None
        if v.black_threes_only_out and result.kind == SET and result.rank == 3:
            melds_after = self.melds[line][:]
            melds_after[target] = result
            return self._black_threes_problem(seat, line, (card,), melds_after)
        melds_after = self.melds[line][:]
        melds_after[target] = result
        value = 0
        if not self.opened[line]:
            value = _points(v.values, (card,)) - self._pile_value(seat, (card,))
        return self._after_laying(seat, line, (card,), self.sizes[seat] - 1, melds_after, value)

    def _black_threes_problem(
        self, seat: int, line: int, cards: Sequence[int], melds_after: list[Meld]
    ) -> Refusal | None:
        # Canasta (decision): black 3s are melded only as the last meld before going out.
        rule = _BLACK_THREES_GOING_OUT
        if self.sizes[seat] - len(cards) != 1:
            return rule
        if self._go_out_problem(line, melds_after) is not None:
            return rule
        if not self.opened[line]:
            value = self.pending_value[line] + _points(self.v.values, cards)
            if value - self._pile_value(seat, cards) < self.minimum[line]:
                return rule
        return None

    def _after_laying(
        self,
        seat: int,
        line: int,
        cards: Sequence[int],
        left: int,
        melds_after: list[Meld],
        value: int,
    ) -> Refusal | None:
        """The no-dead-end rule: after laying ``cards`` the turn must still end legally."""
        v = self.v
        pending_after = self.pending_value[line] + value
        short = not self.opened[line] and pending_after < self.minimum[line]
        if left == 0:
            return self._empty_by_meld_problem(line, melds_after, short)
        if short and (v.opening_minimum or v.vulnerable_refuse):
            hand = self._opening_hand(seat, cards)
            need = self.minimum[line] - pending_after
            if v.opening_minimum:
                reachable = _best_set_lay(hand, v, melds_after) >= need
            else:
                pending = [melds_after[i] for i in self._pending_melds] + melds_after[
                    len(self.melds[line]) :
                ]
                reachable = _can_lay(hand, pending, need, v)
            if not reachable:
                return _minimum("meld_minimum_unreachable", self.minimum[line])
        if left >= 2:
            return None
        # One card left: it must leave by a legal discard or a legal last extension.
        hand = self.hands[seat][:]
        for c in cards:
            hand[c] -= 1
        last = next(c for c in range(KINDS) if hand[c])
        by_discard = self._empty_by_discard_problem(line, last, melds_after, short, 1)
        if by_discard is None:
            return None
        for m in melds_after:
            grown = extended(m, last, v)
            if isinstance(grown, Meld):
                after = [grown if x is m else x for x in melds_after]
                if self._empty_by_meld_problem(line, after, short) is None:
                    return None
        # Refused: say why the last card cannot leave.
        if last == self.taken_single and v.discard_back_rule:
            return _LEAVES_TAKEN_CARD
        if by_discard.code in _NO_BURRACO_YET:
            # Discarding the last card would empty the hand, which the line may not do
            # before it has its burraco(s); nor can it meld the card to get out.
            return nested("leaves_last_card_no_burraco", by_discard)
        if v.close_no_wild_discard and is_wild(last) and self.has_pozzetto[line]:
            return _LEAVES_ONLY_WILDCARD
        return _LEAVES_DEAD_END

    def _empty_by_meld_problem(
        self, line: int, melds_after: list[Meld], short: bool
    ) -> Refusal | None:
        v = self.v
        if v.family == "canasta":
            return _GO_OUT_BY_DISCARD
        if v.family == "buraco":
            if short:
                return _minimum("vulnerable_minimum", v.vulnerable_minimum)
            if self._morto_waits(line):
                return None  # the hand runs out into the morto: not going out
            return self._buraco_go_out_problem(melds_after)
        if self.has_pozzetto[line]:
            return _CLOSE_BY_DISCARD
        if v.burraco_before_pozzetto and not any(grade_of(m, v) for m in melds_after):
            return _BURRACO_BEFORE_POZZETTO
        return None

    def _empty_by_discard_problem(
        self, line: int, card: int, melds_after: list[Meld], short: bool, held: int
    ) -> Refusal | None:
        v = self.v
        if card == self.taken_single and v.discard_back_rule and held < 2:
            return _DISCARD_BACK_SINGLE
        if v.family == "canasta":
            if short:
                return _minimum("meld_minimum_not_reached", self.minimum[line])
            return self._go_out_problem(line, melds_after)
        if v.family == "buraco":
            if short or self._morto_waits(line):
                return None  # the short lay-down goes back to the hand first; or the morto
            return self._buraco_go_out_problem(melds_after)
        if not self.has_pozzetto[line]:
            if v.burraco_before_pozzetto and not any(grade_of(m, v) for m in melds_after):
                return _BURRACO_BEFORE_POZZETTO
            return None
        if v.close_needs_burraco and not any(grade_of(m, v) for m in melds_after):
            return _CLOSE_NEEDS_BURRACO
        if v.close_no_wild_discard and is_wild(card):
            return _CLOSING_DISCARD_WILDCARD
        return None

    def _morto_waits(self, line: int) -> bool:
        """Buraco with mortos: the line has not taken one and one is left, so a hand that
        runs out takes it instead of going out."""
        return self.v.pozzetti and not self.has_pozzetto[line] and bool(self.pozzetti)

    def _buraco_go_out_problem(self, melds: list[Meld]) -> Refusal | None:
        v = self.v
        if v.go_out_needs_clean:
            if not any(grade_of(m, v) == "clean" for m in melds):
                return _GO_OUT_NEEDS_CLEAN
        elif v.go_out_needs_canastra and not any(grade_of(m, v) for m in melds):
            return _GO_OUT_NEEDS_CANASTRA
        return None

    def _go_out_problem(self, line: int, melds: list[Meld]) -> Refusal | None:
        v = self.v
        if v.go_out_needs_two_canastas:
            total = sum(1 for m in melds if grade_of(m, v) is not None)
            clean = sum(1 for m in melds if grade_of(m, v) == "clean")
            if total < 2 or clean < 1:
                return _GO_OUT_TWO_CANASTAS
        return None

    def _discard_problem(self, seat: int, line: int, card: int) -> Refusal | None:
        v = self._rules
        held = self.hands[seat][card]
        short = not self.opened[line] and self.pending_value[line] < self.minimum[line]
        if short and (v.opening_minimum or v.vulnerable_refuse) and self.pending_value[line] > 0:
            return _laid_so_far(self.minimum[line], self.pending_value[line])
        if self.sizes[seat] == 1:
            return self._empty_by_discard_problem(line, card, self.melds[line], short, held)
        if card == self.taken_single and v.discard_back_rule and held < 2:
            return _DISCARD_BACK_SINGLE
        return None

    # --- applying actions -----------------------------------------------------------------

    def apply(self, action: Action | str) -> None:
        """Perform a legal action; raise :class:`IllegalMove` and change nothing otherwise."""
        if isinstance(action, str):
            action = Action.parse(action)
        legal = self._legal
        if legal is None or not _listed(action, legal):
            problem = self._problem(action)
            if problem is not None:
                raise IllegalMove(problem, str(action))
        self._perform(action)

    def _perform(self, action: Action) -> None:
        """Perform an action known to be legal (checked, or listed by legal_actions())."""
        self._act(action)
        self._legal = None

    def _act(self, action: Action) -> None:
        kind = action.kind
        seat = self.turn
        self.history.append(action)
        if kind == DRAW:
            self._draw(seat)
            self.phase = PLAY_PHASE
            if self.sizes[seat] <= 1 and not self.legal_actions():
                # Canasta: a red 3 drawn from a stock too short to replace it can leave a
                # single card that may not go out; the deal then ends as at the stock's end.
                self._end("stock")
        elif kind == TAKE:
            if self._rules.pile_needs_pair:
                self._do_pair_take(seat, tuple(action.cards))
            else:
                self._take(seat)
            self.phase = PLAY_PHASE
        elif kind == PASS:
            if self._rules.pile_needs_pair:
                self._end("stock")
            else:
                self._end_turn(seat)
        elif kind == REDRAW:
            card = self.drawn
            self.hands[seat][card] -= 1
            self.sizes[seat] -= 1
            self.pile.append(CARDS[card])
            self.redrawn = True
            self._draw(seat)
        elif kind == MELD:
            self._lay(seat, action.cards, -1)
        elif kind == EXTEND:
            self._lay(seat, action.cards, action.target)
        else:
            discarded: tuple[int, ...] = action.cards
            self._discard(seat, discarded[0])

    def _draw(self, seat: int) -> None:
        v = self._rules
        hand = self.hands[seat]
        count = 1 if v.open_draws_one and self._pending_melds else v.draw_count
        for _ in range(count):
            if not self.stock:
                break
            card = self.stock.pop()
            hand[card] += 1
            self.sizes[seat] += 1
            self.drawn = card
        if not self.stock and v.morto_as_stock and self.pozzetti:
            # A morto nobody took becomes the stock (rafaelmuylaert/buraco, docs/brazil.md).
            self.stock = self.pozzetti.pop(0)
        if v.red_threes:
            self._lay_aside_red_threes(seat)
        self._progress = True
        if v.dead_stock and len(self.stock) <= v.dead_stock:
            # 002: the player who drew the third-last card is the last to play.
            self.final_turn = True

    def _take(self, seat: int) -> None:
        hand = self.hands[seat]
        if len(self.pile) == 1:
            self.taken_single = self.pile[0]
        known = self.known[seat]
        for card in self.pile:
            hand[card] += 1
        if self.v.pile_open:
            for card in self.pile:
                known[card] += 1
        else:
            # A closed pile: only its top was face up, and it goes to the table at once.
            self.pile_top = self.pile[-1]
            known[self.pile_top] += 1
        self.sizes[seat] += len(self.pile)
        self.pile = []
        self.pile_hidden = 0

    def _do_pair_take(self, seat: int, cards: tuple[int, ...]) -> None:
        v = self.v
        line = self.line_of[seat]
        top = self.pile[-1]
        melds = self.melds[line]
        target, result = self._take_meld(seat, cards)
        self._last_take_meld = result
        if isinstance(result, Refusal):
            return
        hand = self.hands[seat]
        known = self.known[seat]
        for c in cards:
            hand[c] -= 1
            if known[c]:
                known[c] -= 1
        rest = self.pile[:-1]
        before = hand[:]
        for c in rest:
            hand[c] += 1
        for c in self.pile[self.pile_hidden : -1]:
            known[c] += 1
        self.sizes[seat] += len(rest) - len(cards)
        self.pile = []
        self.pile_hidden = 0
        if not self.opened[line]:
            self.pending_value[line] += _points(v.values, (top, *cards))
        if target >= 0:
            melds[target] = result
        else:
            melds.append(result)
            target = len(melds) - 1
            if not self.opened[line]:
                self._pending_melds.append(target)
        self._melded_seat[seat] = True
        if v.red_threes:
            self._lay_aside_red_threes(seat)
        if not self.opened[line]:
            # The opening is reached with the top card and the hand only (RULES.md): what
            # the take brought (the rest of the pile, a card drawn for a red 3 in it) is set
            # apart from the count.
            self._from_pile = [max(0, n - b) for n, b in zip(hand, before, strict=True)]

    def _take_meld(
        self, seat: int, cards: tuple[int, ...], start: _TakeStart | None = None
    ) -> tuple[int, Meld | Refusal]:
        """Canasta: the meld the pile's top makes with ``cards`` (the line's meld of its
        rank grown, or a new one, target -1), or the reason it makes none (``start``:
        :meth:`_take_start`, if known)."""
        target, result = self._take_start(seat) if start is None else start
        if result is None:
            return target, self._tables.reading(tuple(sorted((self.pile[-1], *cards))))
        v = self.v
        for c in cards:
            if isinstance(result, Meld):
                result = extended(result, c, v)
        return target, result

    def _take_start(self, seat: int) -> _TakeStart:
        """Canasta: the line's meld the pile's top grows, grown by it (or the reason it
        cannot be); target -1 and None when the top starts a new meld."""
        top = self.pile[-1]
        melds = self.melds[self.line_of[seat]]
        if top == JOKER or top % 13 == 1:
            target = next((i for i, m in enumerate(melds) if m.kind == WILD), -1)
        else:
            rank = top % 13 + 1
            target = next((i for i, m in enumerate(melds) if m.kind == SET and m.rank == rank), -1)
        if target < 0:
            return target, None
        return target, extended(melds[target], top, self.v)

    def _opening_reachable(self, seat: int, line: int) -> bool:
        extra = _best_set_lay(self._opening_hand(seat), self.v, self.melds[line])
        return self.pending_value[line] + extra >= self.minimum[line]

    def _opening_hand(self, seat: int, cards: Sequence[int] = ()) -> list[int]:
        """The cards of the hand that may count toward the opening, once ``cards`` are
        laid: all of them, but in canasta those the rest of the pile just brought."""
        hand = self.hands[seat][:]
        share = self._from_pile
        if share is not None:
            for c in range(KINDS):
                hand[c] -= share[c]
        for c in cards:
            if hand[c] > 0:
                hand[c] -= 1
        return hand

    def _pile_value(self, seat: int, cards: Sequence[int]) -> int:
        """The value in ``cards`` that must come from the rest of the pile just taken
        (the hand's own copies of a card are laid first): it never counts toward the
        opening."""
        share = self._from_pile
        if share is None:
            return 0
        hand = self.hands[seat]
        wanted: dict[int, int] = {}
        for c in cards:
            wanted[c] = wanted.get(c, 0) + 1
        own = self.v.value
        return sum(max(0, k - (hand[c] - share[c])) * own(c) for c, k in wanted.items())

    def _lay(self, seat: int, cards: Sequence[int], target: int) -> None:
        v = self.v
        line = self.line_of[seat]
        hand = self.hands[seat]
        melds = self.melds[line]
        if target < 0:
            found = self._tables.reading(tuple(sorted(cards)))
            assert isinstance(found, Meld)
            meld = found
            melds.append(meld)
            if not self.opened[line]:
                self._pending_melds.append(len(melds) - 1)
            if v.relancinho_bonus and len(cards) == v.hand_size and grade_of(meld, v) is not None:
                self.relancinhos[line] += 1
        else:
            result = extended(melds[target], cards[0], v)
            assert isinstance(result, Meld)
            melds[target] = result
        known = self.known[seat]
        counted = 0
        if not self.opened[line]:
            counted = _points(v.values, cards) - self._pile_value(seat, cards)
        share = self._from_pile
        for c in cards:
            if share is not None and share[c] and hand[c] - share[c] <= 0:
                share[c] -= 1  # the hand's own copies are gone: this one came from the pile
            hand[c] -= 1
            if known[c]:
                known[c] -= 1
        self.sizes[seat] -= len(cards)
        self.pending_value[line] += counted
        if self.pile_top >= 0 and self.pile_top in cards:
            self.pile_top = -1
        self._melded_seat[seat] = True
        self._progress = True
        if self.sizes[seat] == 0:
            self._emptied(seat, by_discard=False)

    def _discard(self, seat: int, card: int) -> None:
        line = self.line_of[seat]
        hand = self.hands[seat]
        if not self.opened[line] and self._pending_melds:
            if self.pending_value[line] >= self.minimum[line]:
                self._settle_opening(line)
            else:
                self._return_short_lay_down(seat, line)
        hand[card] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1
        self.sizes[seat] -= 1
        self.pile.append(CARDS[card])
        if self.sizes[seat] == 0:
            self._emptied(seat, by_discard=True)
        if self.phase != OVER:
            self._end_turn(seat)

    def _settle_opening(self, line: int) -> None:
        self.opened[line] = True
        self._pending_melds = []
        self._from_pile = None

    def _return_short_lay_down(self, seat: int, line: int) -> None:
        # 001: a vulnerable line's short lay-down goes back to the hand, and from then on
        # that line needs 90.
        v = self.v
        hand = self.hands[seat]
        melds = self.melds[line]
        for index in sorted(self._pending_melds, reverse=True):
            for c in melds[index].cards:
                hand[c] += 1
                self.known[seat][c] += 1
                self.sizes[seat] += 1
            del melds[index]
        self._pending_melds = []
        self.pending_value[line] = 0
        self.minimum[line] = max(self.minimum[line], v.vulnerable_penalty_minimum)
        self.minimum_raised[line] = True
        # A lay-down that went back to the hand laid nothing down: for the stall rule the
        # turn moved the deal on only if it drew from the stock (else a vulnerable line
        # could take a small pile, lay down short and discard forever).
        self._progress = self.drawn >= 0

    def _emptied(self, seat: int, by_discard: bool) -> None:
        v = self.v
        line = self.line_of[seat]
        if (v.family == "buraco" and not self._morto_waits(line)) or (
            v.family == "canasta" and by_discard
        ):
            self.closer = seat
            self.went_out = True
            self._end("went out")
            return
        if self.has_pozzetto[line]:
            self.closer = seat
            self._end("closed")
            return
        pozzetto = self.pozzetti.pop(0)
        self.has_pozzetto[line] = True
        if self._partnerships_form:
            self._form_partnerships(seat)
        if by_discard:
            self.pending_pozzetto[seat] = pozzetto
        else:
            hand = self.hands[seat]
            for c in pozzetto:
                hand[c] += 1
            self.sizes[seat] += len(pozzetto)

    def _form_partnerships(self, seat: int) -> None:
        # 000: the first to run out plays alone; the others pair up from now on.
        n = self.v.players
        self._partnerships_form = False
        pairs = (
            [((seat + 1) % n, (seat + 2) % n)]
            if n == 3
            else [
                ((seat + 1) % n, (seat + 3) % n),
                ((seat + 2) % n, (seat + 4) % n),
            ]
        )
        for a, b in pairs:
            keep, gone = self.line_of[a], self.line_of[b]
            self.melds[keep].extend(self.melds[gone])
            self.melds[gone] = []
            self.red_threes[keep] += self.red_threes[gone]
            self.line_of[b] = keep

    def _end_turn(self, seat: int) -> None:
        v = self._rules
        line = self.line_of[seat]
        # A pozzetto taken by a discard is released by the partner's discard; a morto that
        # counts as untaken until it is used waits for its own taker's turn (docs/brazil.md).
        for other in range(v.players):
            if (
                not v.unused_morto_untaken
                and other != seat
                and self.pending_pozzetto[other] is not None
                and self.line_of[other] == line
            ):
                self._release_pozzetto(other)
        if not self.opened[line] and self._pending_melds:
            self._settle_opening(line)
        self.quiet_turns = 0 if self._progress else self.quiet_turns + 1
        self._progress = False
        self.pile_top = -1
        self._from_pile = None
        self.taken_single = -1
        self.drawn = -1
        self._first_turn = False
        self.turns += 1
        if self.timeout_turns > 0:
            self.timeout_turns -= 1
            if self.timeout_turns == 0:
                self._end("time-out")
                return
        if self.final_turn:
            self._end("stock")
            return
        if v.stall_rounds and self.quiet_turns >= v.stall_rounds * v.players:
            self._end("stall")
            return
        self.turn = (seat + 1) % v.players
        self.phase = DRAW_PHASE
        if self.pending_pozzetto[self.turn] is not None:
            self._release_pozzetto(self.turn)
        if not self.stock and not v.pile_needs_pair and not v.buraco:
            self._end("stock")

    def _release_pozzetto(self, seat: int) -> None:
        pozzetto = self.pending_pozzetto[seat]
        assert pozzetto is not None
        hand = self.hands[seat]
        for c in pozzetto:
            hand[c] += 1
        self.sizes[seat] += len(pozzetto)
        self.pending_pozzetto[seat] = None

    def _end(self, reason: str) -> None:
        self.phase = OVER
        self.end_reason = reason

    def call_time_out(self) -> None:
        """The director's time-out (000): one more round of turns, then the deal ends.

        If the player on turn has drawn, that player finishes the turn and every
        other player plays one more; if not, every player, starting with the one
        on turn, plays one more turn.
        """
        if self.phase == OVER:
            raise IllegalMove(_DEAL_OVER, "time-out")
        if self.timeout_turns >= 0:
            raise IllegalMove(_TIME_OUT_CALLED, "time-out")
        self.timeout_turns = self.v.players
        self.history.append(Action("time-out"))
        self._legal = None

    # --- views and scores -----------------------------------------------------------------

    def score(self) -> DealScore:
        """The deal's score per line, with its breakdown (provisional before the end)."""
        return score_deal(self)

    def view(self, seat: int) -> DealView:
        """What one seat may see: its hand, the table, counts of the other hands."""
        if not 0 <= seat < self.v.players:
            raise RuleError(f"no seat {seat} at a table of {self.v.players}")
        return view_of(self, seat)

    def position(self, seat: int | None = None) -> str:
        """The deal as one line of text (docs/position.md): its whole state, or with
        ``seat`` what that seat knows (load that with ``DealView.from_position``)."""
        # position stands a floor above the deal (it builds deals): a convenience, imported here.
        from burraco.position import position_of, view_position

        return position_of(self) if seat is None else view_position(self.view(seat))

    @classmethod
    def from_position(cls, text: str) -> Deal:
        """The deal a position describes; raise :class:`~burraco.position.PositionError`
        naming the field and what is wrong. It has no history and no deck order."""
        # A convenience, as position() is (tests/test_floors.py names both).
        from burraco.position import deal_from_position

        return deal_from_position(text)

    def __repr__(self) -> str:
        return (
            f"<Deal {self.v.name} {self.v.players}p turn={self.turn} phase={self.phase} "
            f"stock={len(self.stock)} pile={len(self.pile)}>"
        )


def _points(values: Sequence[int], cards: Iterable[int]) -> int:
    """The points of some cards (``Variant.value`` of each): read from the values here, as
    the variant's method runs interpreted even where this module is compiled."""
    total = 0
    for c in cards:
        total += values[0 if c == JOKER else c % 13 + 1]
    return total


def _listed(action: Action, legal: tuple[Action, ...]) -> bool:
    """Whether ``legal`` lists the action. By identity first: a player mostly passes back an
    action legal_actions() listed, and comparing actions by value (their cards) down a long
    list cost more than the rest of apply()."""
    for listed in legal:
        if listed is action:
            return True
    return action in legal


def _best_set_lay(hand: Sequence[int], v: Variant, melds: Sequence[Meld]) -> int:
    """The most card points a canasta hand can still lay down, keeping one card to discard.

    Sets only: every rank with three naturals melds them all; a pair needs a
    wildcard; the rest of the wildcards fill free places or a meld of wildcards.
    Suits do not matter here, so one card of each rank (and each kind of
    wildcard) is tried as the card kept back for the discard.
    """
    by_rank = tuple(
        sorted((m.rank, m.size - len(m.wilds), len(m.wilds)) for m in melds if m.kind == SET)
    )
    wild_meld = any(m.kind == WILD for m in melds)
    return _best_from_totals(_rank_totals(hand), by_rank, wild_meld, v.values)


def _rank_totals(hand: Sequence[int]) -> tuple[int, ...]:
    """Naturals by rank; index 2 counts the 2s, index 0 the jokers."""
    # One walk over a list: compiled, native reads, where thirteen strided slices summed
    # by a generator were generic calls.
    counts: list[int] = hand if isinstance(hand, list) else list(hand)
    totals = [0] * 14
    totals[0] = counts[JOKER]
    for kind in range(52):
        totals[kind % 13 + 1] += counts[kind]
    return tuple(totals)


def _best_from_totals(
    totals: tuple[int, ...],
    by_rank: tuple[tuple[int, int, int], ...],
    wild_meld: bool,
    values: tuple[int, ...],
) -> int:
    """:func:`_best_set_lay` from ranks' totals and the sets laid (rank, naturals,
    wildcards), kept."""
    key = (totals, by_rank, wild_meld, values)
    best = _BEST_LAYS.get(key)
    if best is None:
        if len(_BEST_LAYS) >= 1 << 15:
            _BEST_LAYS.clear()
        best = _BEST_LAYS[key] = _best_lay(totals, values, by_rank, wild_meld)
    return best


def _reaches(
    totals: tuple[int, ...],
    sets: list[tuple[int, int, int]],
    wild_meld: bool,
    values: tuple[int, ...],
    need: int,
) -> bool:
    """Whether :func:`_best_from_totals` of the sets laid (rank, naturals, wildcards, in
    any order) is ``need`` or more. Most hands that do reach it show it by the points
    they lay for sure, without the search."""
    if _sure_lay(totals, sets, values) >= need:
        return True
    return _best_from_totals(totals, tuple(sorted(sets)), wild_meld, values) >= need


def _sure_lay(
    totals: tuple[int, ...], sets: list[tuple[int, int, int]], values: Sequence[int]
) -> int:
    """A lower bound of :func:`_best_lay`: the naturals that go down whatever the
    wildcards do (a rank's three or more, or any of the rank of a set laid), less the
    least that keeping one of them back for the discard can cost, unless another card
    (a 3, a wildcard, a natural short of a set) may be kept back at no cost."""
    on_table = [rank for rank, _, _ in sets]
    base = 0
    spare = totals[0] or totals[2] or totals[3]
    cost = -1
    for rank in _SET_RANKS:
        n = totals[rank]
        if not n:
            continue
        if rank in on_table or n >= 4:
            loss = values[rank]
        elif n == 3:
            loss = 3 * values[rank]  # one kept back leaves a pair: none of the three for sure
        else:
            spare = True
            continue
        base += n * values[rank]
        if cost < 0 or loss < cost:
            cost = loss
    return base if spare or cost < 0 else base - cost


#: A hand's ranks' totals, its line's sets (rank, naturals, wildcards), and whether the
#: line has a meld of wildcards.
_OpeningBase = tuple[tuple[int, ...], list[tuple[int, int, int]], bool]

#: Where the pile's top goes (:meth:`Deal._take_start`): the index of the line's meld it
#: grows and that meld grown by it, or -1 and None for a new meld.
_TakeStart = tuple[int, Meld | Refusal | None]

#: A new set (or meld of wildcards) as far as its legality goes: its rank (-1: wildcards),
#: cards, jokers and 2s, then the naturals, jokers and 2s of it that the pile just brought.
_Shape = tuple[int, int, int, int, int, int, int]


class _Shapes:
    """One listing's shapes of new melds worked out (see :meth:`Deal._checked_melds`)."""

    __slots__ = ("known", "opening", "pile")

    def __init__(self, opening: _OpeningBase | None, pile: tuple[tuple[int, int, int], ...]):
        self.known: dict[_Shape, bool] = {}
        #: Where the hand starts from toward the opening; None once the line is opened.
        self.opening = opening
        #: The kinds the pile just brought: (kind, the hand's own copies, its slot in a
        #: shape: 0 natural, 1 joker, 2 a 2).
        self.pile = pile


#: A card kind's slot among the naturals, jokers and 2s of a shape.
_PILE_SLOT: Final = tuple(1 if c == JOKER else 2 if c % 13 == 1 else 0 for c in range(KINDS))


def _from_the_pile(
    cards: tuple[int, ...], pile: list[tuple[int, int, int]]
) -> tuple[int, int, int]:
    """The naturals, jokers and 2s among ``cards`` that the pile just brought: the copies of
    a kind beyond the hand's own."""
    taken = [0, 0, 0]
    for kind, own, slot in pile:
        extra = cards.count(kind) - own
        if extra > 0:
            taken[slot] += extra
    return taken[0], taken[1], taken[2]


#: :func:`_best_set_lay` by what it depends on: ranks' totals, the sets laid, the values.
_BEST_LAYS: dict[tuple[object, ...], int] = {}


def _best_lay(
    totals: tuple[int, ...],
    values: Sequence[int],
    by_rank: tuple[tuple[int, int, int], ...],
    wild_meld: bool,
) -> int:
    """:func:`_best_set_lay` from the ranks' totals: each rank's share is worked out once,
    then again only for the rank of the card kept back."""
    existing = {rank: (naturals, wilds) for rank, naturals, wilds in by_rank}
    shares: list[tuple[int, int, int]] = [_NO_SHARE] * 14
    base = slots = 0
    pairs: list[int] = []
    for rank in _SET_RANKS:
        n = totals[rank]
        if n or rank in existing:
            shares[rank] = x = _share(rank, n, existing, values)
            base += x[0]
            slots += x[1]
            if x[2]:
                pairs.append(x[2])
    pairs.sort(reverse=True)
    jokers, twos = totals[0], totals[2]
    # The wildcards' best use depends on the free places and the pairs only, and adds to
    # the points laid for sure: keeping back a natural that changes neither costs its
    # points, so one evaluation serves every such card.
    same = _wild_lay(base, slots, pairs, jokers, twos, values, wild_meld)
    best = 0
    for kept in range(14):
        if not totals[kept]:
            continue
        if kept == 0:
            value = _wild_lay(base, slots, pairs, jokers - 1, twos, values, wild_meld)
        elif kept == 2:
            value = _wild_lay(base, slots, pairs, jokers, twos - 1, values, wild_meld)
        elif kept == 3:
            value = same
        else:
            was = shares[kept]
            now = _share(kept, totals[kept] - 1, existing, values)
            if was[1] == now[1] and was[2] == now[2]:
                value = same - was[0] + now[0]
            else:
                rest = list(pairs)
                if was[2]:
                    rest.remove(was[2])
                if now[2]:
                    rest.append(now[2])
                    rest.sort(reverse=True)
                value = _wild_lay(
                    base - was[0] + now[0],
                    slots - was[1] + now[1],
                    rest,
                    jokers,
                    twos,
                    values,
                    wild_meld,
                )
        if value > best:
            best = value
    return best


#: The ranks a canasta set may have (not 2s, wildcards; not 3s, never in a set but black
#: 3s going out).
_SET_RANKS: Final = (1, *range(4, 14))
_NO_SHARE: Final = (0, 0, 0)


def _share(
    rank: int, n: int, existing: dict[int, tuple[int, int]], values: Sequence[int]
) -> tuple[int, int, int]:
    """A rank's share of a lay-down with ``n`` naturals in hand: the points laid for sure,
    the free wildcard places, the points of a pair that needs a wildcard."""
    on_table = existing.get(rank)
    if on_table is not None:
        # A set on the table takes wildcards up to its cap whether or not the hand
        # still holds naturals of its rank (4H 4D 2D + 4S leaves a place for a 2).
        cap = 1 if on_table[0] + n <= 2 else 2
        return n * values[rank], max(0, cap - on_table[1]), 0
    if n >= 3:
        return n * values[rank], 2, 0
    if n == 2:
        return 0, 0, 2 * values[rank]
    return _NO_SHARE


def _wild_lay(
    base: int,
    slots: int,
    pairs: list[int],
    jokers: int,
    twos: int,
    values: Sequence[int],
    wild_meld: bool,
) -> int:
    """The best lay-down once the naturals are counted (``pairs`` sorted, greatest first):
    wildcards (jokers first: worth more) complete pairs, fill free places, or make a meld
    of their own."""
    joker, two = values[0], values[2]
    wilds = jokers + twos
    best = 0
    completed = 0  # the points of the k best pairs
    for k in range(min(wilds, len(pairs)) + 1):
        if k:
            completed += pairs[k - 1]
        left = wilds - k
        used = wilds if wild_meld or left >= 3 else k + min(left, slots)
        laid = used * joker if used <= jokers else jokers * joker + (used - jokers) * two
        value = base + completed + laid
        if value > best:
            best = value
    return best


def _can_lay(hand: Sequence[int], pending: Sequence[Meld], need: int, v: Variant) -> bool:
    """Whether a hand can still lay down ``need`` card points this turn, by new melds and
    extensions of the melds laid this turn, and still end the turn: keeping a card to
    discard, or going out as the line may (buraco's refused short lay-down). An exact
    search over lay-downs, remembering the positions it has seen.
    """
    values = v.values
    seen: set[tuple[tuple[int, ...], tuple[Meld, ...]]] = set()

    def value(c: int) -> int:
        return values[0 if c == JOKER else c % 13 + 1]

    def ends_well(counts: list[int], melds: tuple[Meld, ...]) -> bool:
        # The minimum reached, the turn must still end: two cards or more keep one to
        # discard; one last card, or none, leaves the hand empty, which a line that needs
        # a canastra to go out may do only with one (the last card may make it).
        left = [c for c in range(KINDS) for _ in range(counts[c])]
        if len(left) >= 2 or not v.go_out_needs_canastra:
            return True
        if any(grade_of(m, v) for m in melds):
            return True
        return len(left) == 1 and any(
            isinstance(grown := extended(m, left[0], v), Meld) and grade_of(grown, v) for m in melds
        )

    def search(counts: list[int], melds: tuple[Meld, ...], need: int) -> bool:
        if need <= 0:
            return ends_well(counts, melds)
        cards = [c for c in range(KINDS) for _ in range(counts[c])]
        if len(cards) <= 1 or sum(map(value, cards)) - min(map(value, cards)) < need:
            return False
        key = (tuple(counts), melds)
        if key in seen:
            return False
        seen.add(key)
        for i, m in enumerate(melds):
            for c in range(KINDS):
                if counts[c]:
                    grown = extended(m, c, v)
                    if isinstance(grown, Meld):
                        counts[c] -= 1
                        found = search(
                            counts, (*melds[:i], grown, *melds[i + 1 :]), need - value(c)
                        )
                        counts[c] += 1
                        if found:
                            return True
        taken = {m.rank for m in melds if m.kind == SET}
        candidates = meld_candidates(counts, v)
        for meld_cards in sorted(candidates, key=lambda k: -sum(map(value, k))):
            rank = candidates[meld_cards]
            if (rank and rank in taken) or len(meld_cards) >= len(cards):
                continue
            for c in meld_cards:
                counts[c] -= 1
            found = search(
                counts, (*melds, read_meld(meld_cards, v)), need - sum(map(value, meld_cards))
            )
            for c in meld_cards:
                counts[c] += 1
            if found:
                return True
        return False

    return search(list(hand), tuple(pending), need)
