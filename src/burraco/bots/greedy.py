"""A rule-based bot that plays like a sound club player, fast (well under 5 ms a decision).

It takes the pile when the cards in it fit its hand or its line's melds, lays
down natural melds and extensions, keeps its wildcards for a burraco, goes to
the pozzetto and closes when it can, and discards safely: it remembers the
cards each opponent took from the pile (the view's ``known`` cards) and the ones
they threw away, and avoids feeding an opponent's melds.

The same player also runs inside the expert's search (:meth:`GreedyBot.playout`), where
it reads the search's own sampled deal directly instead of a frozen
:class:`~burraco.view.DealView`, and lists only the actions it would play instead of
every legal one; it reads only what the seat on turn could know, and chooses exactly
what :meth:`GreedyBot.choose` chooses from that seat's view.

>>> from burraco import Deal, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> bot = GreedyBot()
>>> while not deal.is_over:
...     deal.apply(bot.choose(deal.view(deal.turn), deal.legal_actions()))
>>> deal.end_reason in ("closed", "stock", "stall")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import TYPE_CHECKING, Final

from burraco.actions import DISCARD, DRAW, EXTEND, MELD, TAKE, Action
from burraco.bots.weights import HAND_SET, GreedyWeights, level_weights
from burraco.cards import CARDS, JOKER, KINDS, counts_of
from burraco.melds import SEQUENCE, SET, WILD, Meld, extended, grade_of, read_meld, tables_for
from burraco.variants import PerVariant, Variant
from burraco.view import DealView

if TYPE_CHECKING:
    from burraco.deal import Deal

__all__ = ["GreedyBot", "discard_danger", "discarded_by", "pile_worth"]

#: Going out needs a clean canastra (buraco aberto, STBL): what dirtying a clean meld costs
#: (a rule of those games, not one of the tuned weights).
_CLEAN_KEEP: Final = 60.0
#: Entries a memo keeps before it starts again: a bound on memory, rarely reached.
_MEMO_LIMIT: Final = 1 << 12

_DISCARDS: Final = tuple(Action(DISCARD, (CARDS[c],)) for c in range(KINDS))
_MELD_ACTIONS: dict[tuple[int, ...], Action] = {}
_EXTEND_ACTIONS: dict[tuple[int, int], Action] = {}

_WILDCARDS: Final = (1, 14, 27, 40, JOKER)
_KIND_RANGE: Final = range(KINDS)
#: A new meld worth laying down: its score, its cards and the rank of a set.
_Worth = tuple[float, tuple[int, ...], int]


def _sequence_kinds(meld: Meld, v: Variant) -> tuple[int, ...]:
    """The kinds that may fit a sequence, in order: the wildcards, and its suit's naturals
    just beyond its ends (as far as its wildcards may reach) or in a wildcard's place; a
    natural inside it holds a place already."""
    reach = v.max_wildcards + 1
    lo, hi = meld.lo, meld.hi
    places = {meld.gap, *meld.fixed}
    base = meld.suit * 13
    kinds = set(_WILDCARDS)
    for rank in range(13):
        for p in (1, 14) if rank == 0 else (rank + 1,):
            if lo - 1 - reach <= p < lo or hi < p <= hi + 1 + reach or p in places:
                kinds.add(base + rank)
    return tuple(sorted(kinds))


class _Fits:
    """A meld on the table and the cards it takes: the cards that fit, how good adding
    each is, and the cards that feed it (those that fit, but a wildcard for a sequence
    already holding all the wildcards it may). A sequence's are read card by card when it
    is first met; a set's cards come from the engine's rule (:meth:`MeldTables.fitting`),
    and how good each is when it is first asked."""

    __slots__ = ("cards", "feeds", "grade", "meld", "scores", "v", "w")

    def __init__(self, meld: Meld, v: Variant, w: GreedyWeights) -> None:
        self.meld = meld
        self.v = v
        self.w = w
        self.grade = grade_of(meld, v)
        #: Card -> (score, wildcard penalty): adding it from a hand of ``size`` cards
        #: scores ``score - penalty``, or ``score + extend_last`` from the last card.
        self.scores: dict[int, tuple[float, float]] = {}
        if meld.kind == SEQUENCE:
            for card in _sequence_kinds(meld, v):
                after = extended(meld, card, v)
                if isinstance(after, Meld):
                    self.scores[card] = self._score(card, after)
            self.cards = frozenset(self.scores)
        else:
            self.cards = frozenset(tables_for(v).fit_kinds(meld))
        full = meld.kind == SEQUENCE and len(meld.wilds) >= v.max_wildcards
        self.feeds = (
            frozenset(
                c for c in self.cards if not ((c == JOKER or c % 13 == 1) and c // 13 != meld.suit)
            )
            if full
            else self.cards
        )

    def score(self, card: int) -> tuple[float, float]:
        """(score, wildcard penalty) of adding ``card``, one of :attr:`cards`."""
        found = self.scores.get(card)
        if found is None:
            after = extended(self.meld, card, self.v)
            assert isinstance(after, Meld)
            found = self.scores[card] = self._score(card, after)
        return found

    def _score(self, card: int, after: Meld) -> tuple[float, float]:
        w = self.w
        old_grade = self.grade
        new_grade = grade_of(after, self.v)
        score = w.extend_per_card + self.v.value(card)
        if old_grade is None and new_grade is not None:
            score += w.extend_burraco
        if old_grade == "clean" and new_grade != "clean":
            score -= w.extend_spoils_clean
        # Spending a wildcard short of a burraco (but with the last card in hand).
        spends_wild = card == JOKER or (card % 13 == 1 and bool(after.wilds))
        penalty = 0.0
        if spends_wild and new_grade is None:
            penalty = w.extend_wild_sequence if self.meld.kind == SEQUENCE else w.extend_wild_set
        if spends_wild and self.v.go_out_needs_clean and not self.meld.wilds:
            # Bate limpo: a clean meld on its way is the line's way out; keep it clean.
            penalty += _CLEAN_KEEP
        return score, penalty


class _Memo:
    """A variant's pure results the greedy player with some weights asks for again and
    again, kept by value: the score parts of a new meld's cards, and the cards each meld on
    the table takes."""

    __slots__ = ("by_id", "fits", "hands", "lays", "v", "values", "w")

    def __init__(self, v: Variant, w: GreedyWeights) -> None:
        self.v = v
        self.w = w
        #: The points of each card kind.
        self.values = tuple(v.value(c) for c in range(KINDS))
        #: Cards of a new meld -> (how many, its points and bonus, the wildcard penalty).
        self.lays: dict[tuple[int, ...], tuple[int, float, float]] = {}
        self.fits: dict[Meld, _Fits] = {}
        #: The same by the meld object (a deal and its clones share their melds): no hashing
        #: of the meld's cards. The entry holds the meld, so its id is not reused meanwhile.
        self.by_id: dict[int, tuple[Meld, _Fits]] = {}
        #: A hand (its counts as bytes) -> its new melds (cards, rank of a set) by their
        #: cards, and those that score above nothing.
        self.hands: dict[
            bytes, tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[_Worth, ...]]
        ] = {}

    def meld_score(self, cards: tuple[int, ...], size: int) -> float:
        """How good laying down a new meld of ``cards`` is, from a hand of ``size`` cards."""
        parts = self.lays.get(cards)
        if parts is None:
            if len(self.lays) >= _MEMO_LIMIT:
                self.lays.clear()
            v = self.v
            w = self.w
            n = len(cards)
            base = w.meld_per_card * n + sum(v.value(c) for c in cards)
            joker = JOKER in cards
            wilds = joker or any(c % 13 == 1 for c in cards)
            # The reading matters for a burraco, or for a 2 in a short meld (it may stand as
            # itself); a short meld holds a wildcard if it holds a joker, none if no 2 either.
            if n >= v.burraco_length or (wilds and not joker and n < 6):
                meld = read_meld(cards, v)
                wilds = bool(meld.wilds)
                if grade_of(meld, v) is not None:
                    base += w.meld_burraco
            # Keep the wildcard for a burraco.
            penalty = w.meld_wild + w.meld_wild_short * (6 - n) if wilds and n < 6 else 0.0
            if wilds and v.go_out_needs_clean:
                penalty += _CLEAN_KEEP / 2  # bate limpo: dirty melds do not take the line out
            parts = self.lays[cards] = (n, base, penalty)
        n, score, penalty = parts
        if n < size:
            score -= penalty
        elif n == size:
            score += self.w.meld_all  # the pozzetto in diretta, or going out
        return score

    def new_melds(self, hand: list[int], size: int) -> tuple[_Worth, ...]:
        """The new melds of a hand (counts per kind, ``size`` cards) that score above nothing:
        (score, cards, rank of a set), by their cards. Kept by hand: a search's playouts
        come back to the same hands often."""
        key = bytes(hand)
        found = self.hands.get(key)
        if found is None:
            # The engine's tables list them sorted by their cards.
            candidates = tables_for(self.v).candidates(hand)
            found = self._keep(key, tuple((cards, rank) for cards, rank, _ in candidates), size)
        return found[1]

    def laid(self, hand: list[int], size: int, cards: tuple[int, ...]) -> None:
        """Prepare the new melds of the hand left once ``cards`` are laid from ``hand``: those
        of the hand that it still holds (laying cards makes no new meld)."""
        found = self.hands.get(bytes(hand))
        if found is None:
            return
        after = hand[:]
        for c in cards:
            after[c] -= 1
        key = bytes(after)
        if key in self.hands:
            return
        kinds = set(cards)
        left = tuple(
            (meld, rank)
            for meld, rank in found[0]
            if kinds.isdisjoint(meld) or all(meld.count(c) <= after[c] for c in kinds)
        )
        self._keep(key, left, size - len(cards))

    def _keep(
        self, key: bytes, candidates: tuple[tuple[tuple[int, ...], int], ...], size: int
    ) -> tuple[tuple[tuple[tuple[int, ...], int], ...], tuple[_Worth, ...]]:
        if len(self.hands) >= _MEMO_LIMIT:
            self.hands.clear()
        worth = []
        lays = self.lays
        meld_all = self.w.meld_all
        for cards, rank in candidates:
            parts = lays.get(cards)
            if parts is None:
                score = self.meld_score(cards, size)
            else:  # as meld_score() counts it
                n, score, penalty = parts
                if n < size:
                    score -= penalty
                elif n == size:
                    score += meld_all
            if score > 0:
                worth.append((score, cards, rank))
        found = self.hands[key] = (candidates, tuple(worth))
        return found

    def of(self, meld: Meld) -> _Fits:
        mine = self.by_id.get(id(meld))
        if mine is not None and mine[0] is meld:
            return mine[1]
        found = self.fits.get(meld)
        if found is None:
            if len(self.fits) >= _MEMO_LIMIT:
                self.fits.clear()
            found = self.fits[meld] = _Fits(meld, self.v, self.w)
        if len(self.by_id) >= _MEMO_LIMIT:
            self.by_id.clear()
        self.by_id[id(meld)] = (meld, found)
        return found

    def extend_score(self, before: Meld, card: int, size: int) -> float:
        """How good adding ``card`` to the line's meld ``before`` is (-1 if it does not fit)."""
        fits = self.of(before)
        if card not in fits.cards:
            return -1.0
        score, penalty = fits.score(card)
        return score - penalty if size > 1 else score + self.w.extend_last

    def all_of(self, melds: Sequence[Meld]) -> list[_Fits]:
        """:meth:`of` each meld."""
        by_id = self.by_id
        out = []
        for m in melds:
            mine = by_id.get(id(m))
            out.append(mine[1] if mine is not None and mine[0] is m else self.of(m))
        return out

    def feeds(self, melds: Sequence[Meld]) -> frozenset[int]:
        """The cards that can be added to one of ``melds``."""
        if not melds:
            return _NOTHING
        return _NOTHING.union(*[f.feeds for f in self.all_of(melds)])


_NOTHING: Final[frozenset[int]] = frozenset()


#: Per variant, the memos of each set of weights: by the weights object first (a bot holds
#: its own), then by their values.
_MEMOS: PerVariant[dict[object, tuple[GreedyWeights, _Memo]]] = PerVariant(lambda v: {})
#: Weight sets a variant keeps memos for at most (a tuner makes a new set per candidate).
_WEIGHTS_LIMIT: Final = 8


def _memo(v: Variant, w: GreedyWeights) -> _Memo:
    """The :class:`_Memo` of the variant and the weights (kept while both live)."""
    kept = _MEMOS.of(v)
    entry = kept.get(id(w))
    if entry is not None and entry[0] is w:
        return entry[1]
    entry = kept.get(w)
    if entry is None:
        if len(kept) >= 2 * _WEIGHTS_LIMIT:
            kept.clear()
        entry = kept[w] = (w, _Memo(v, w))
    kept[id(w)] = (w, entry[1])
    return entry[1]


def _fits_hand(card: int, counts: Sequence[int], less: int = 0) -> bool:
    """Whether a card makes a meld, or most of one, with cards of the hand (``less`` of
    the card's own copies left out)."""
    if card == JOKER:
        return True
    rank = card % 13  # 0 the ace; the ace also follows the king
    if rank == 1:
        return True  # a 2: a wildcard
    if counts[rank] + counts[13 + rank] + counts[26 + rank] + counts[39 + rank] - less >= 2:
        return True
    # The neighbours are other kinds than the card's own.
    base = card - rank
    below = rank >= 1 and counts[base + rank - 1] > 0
    above = counts[base + (rank + 1) % 13] > 0
    if below and above:
        return True
    if below and rank >= 2 and counts[base + rank - 2] > 0:
        return True
    return above and rank <= 11 and counts[base + (rank + 2) % 13] > 0


class _Seen:
    """What the greedy player reads of a position: the seat on turn's hand (counts), the
    table, the cards known in each hand and the cards each seat has thrown. Built from a
    :class:`DealView`, or from a deal for the seat on turn (the same facts: nothing the
    seat could not know)."""

    __slots__ = (
        "hand",
        "hidden",
        "known",
        "line",
        "line_of",
        "melds",
        "memo",
        "pile",
        "players",
        "seat",
        "size",
        "stock_size",
        "thrown",
        "v",
        "view",
        "w",
    )

    v: Variant
    w: GreedyWeights
    memo: _Memo
    seat: int
    players: int
    line_of: Sequence[int]
    line: int
    #: The hand as counts per card kind: read only.
    hand: list[int]
    size: int
    melds: Sequence[Sequence[Meld]]
    #: The face-up pile.
    pile: Sequence[int]
    #: The pile's cards no one sees: canasta's buried cards, a closed pile's all but its top.
    hidden: int
    stock_size: int
    #: Per seat, the counts of the cards known to be in its hand (None: nothing known).
    known: Sequence[Sequence[int]] | None
    #: Per seat, the cards it has discarded in this deal (None: not read from the view yet).
    thrown: list[set[int]] | None
    view: DealView | None

    @classmethod
    def of_view(cls, view: DealView, w: GreedyWeights) -> _Seen:
        v = view.rules
        assert v is not None
        s = cls.__new__(cls)
        s.v = v
        s.w = w
        s.memo = _memo(v, w)
        s.seat = view.seat
        s.players = view.players
        s.line_of = view.line_of
        s.line = view.line_of[view.seat]
        s.hand = counts_of(view.hand)
        s.size = len(view.hand)
        s.melds = view.melds
        s.pile = view.pile
        s.hidden = view.pile_hidden
        s.stock_size = view.stock_size
        s.known = [counts_of(k) for k in view.known] if view.known else None
        s.view = view
        s.thrown = None
        return s

    @classmethod
    def of_deal(cls, deal: Deal, thrown: list[set[int]], w: GreedyWeights) -> _Seen:
        # Inside a search's own sampled deal, read in place (nothing here is written to):
        # only what the seat on turn could know, as its view holds it. Its own hand; the
        # melds, the face-up pile and the stock's size; the cards known to be in each hand
        # (taken from the pile, as everyone saw); the discards, kept by the playout.
        v = deal.v
        seat = deal.turn
        s = cls.__new__(cls)
        s.v = v
        s.w = w
        s.memo = _memo(v, w)
        s.seat = seat
        s.players = v.players
        s.line_of = deal.line_of
        s.line = deal.line_of[seat]
        s.hand = deal.hands[seat]
        s.size = deal.sizes[seat]
        s.melds = deal.melds
        hidden = deal.face_down_in_pile
        s.pile = deal.pile[hidden:] if hidden else deal.pile
        s.hidden = hidden
        s.stock_size = len(deal.stock)
        s.known = deal.known
        s.thrown = thrown
        s.view = None
        return s

    def discards(self) -> list[set[int]]:
        """Per seat, the cards it has discarded in this deal."""
        if self.thrown is None:
            assert self.view is not None
            self.thrown = discarded_by(self.view)
        return self.thrown


def pile_worth(view: DealView, v: Variant, weights: GreedyWeights = HAND_SET) -> float:
    """How much taking the whole pile is worth to the seat, in rough points."""
    return _pile_worth(_Seen.of_view(view, weights))


def _pile_worth(s: _Seen) -> float:
    memo = s.memo
    counts = s.hand[:]
    pile = s.pile
    for c in pile:
        counts[c] += 1
    own = memo.feeds(s.melds[s.line])
    worth = 0.0
    w = s.w
    fit = w.pile_fit
    late = s.stock_size < w.pile_late_stock
    waste = w.pile_waste_late if late else w.pile_waste
    values = memo.values
    for c in pile:
        if _fits_hand(c, counts, 1) or c in own:
            worth += fit + values[c]
        else:
            worth -= values[c] * waste
    if s.hidden and s.v.pile_open is False:
        # A closed pile: its unseen cards are more cards for canastras early, more points
        # to lose late.
        worth += s.hidden * (-5.0 if late else 4.0)
    return worth


def discarded_by(view: DealView) -> list[set[int]]:
    """The cards each seat has discarded in this deal (cards it did not want)."""
    seat = (view.dealer + 1) % view.players
    if view.rules is not None and view.rules.dealer_plays_first:
        seat = view.dealer
    thrown: list[set[int]] = [set() for _ in range(view.players)]
    for action in view.history:
        if action.kind == DISCARD:
            thrown[seat].add(action.cards[0])
            seat = (seat + 1) % view.players
        elif action.kind == "pass":
            seat = (seat + 1) % view.players
    return thrown


#: One opponent as a discard sees it: its weight, the cards its line's melds take, the
#: counts of the cards known in its hand (None if none) and the cards it has thrown.
_Opponent = tuple[float, frozenset[int], Sequence[int] | None, set[int]]


class _Discards:
    """Weighs the discards of one position: what each card is worth keeping to the seat,
    and how much it may help the opponents."""

    __slots__ = ("counts", "opponents", "own", "scale", "values", "w")

    def __init__(self, s: _Seen, pile: int | None = None) -> None:
        memo = s.memo
        w = self.w = s.w
        self.values = memo.values
        self.counts = s.hand  # read only
        self.own = memo.feeds(s.melds[s.line])
        thrown = s.discards()
        known = s.known
        next_seat = (s.seat + 1) % s.players
        opponents: list[_Opponent] = []
        lines: dict[int, frozenset[int]] = {}
        for seat in range(s.players):
            line = s.line_of[seat]
            if line == s.line:
                continue
            feeds = lines.get(line)
            if feeds is None:
                feeds = lines[line] = memo.feeds(s.melds[line])
            held = known[seat] if known is not None else None
            opponents.append(
                (
                    w.danger_next if seat == next_seat else 1.0,
                    feeds,
                    held if held is not None and any(held) else None,
                    thrown[seat],
                )
            )
        self.opponents = opponents
        self.scale = 1 + (len(s.pile) if pile is None else pile) / w.danger_pile

    def danger(self, card: int) -> float:
        """How much discarding ``card`` may help the opponents."""
        w = self.w
        danger = 0.0
        for weight, feeds, held, thrown in self.opponents:
            if card in feeds:
                danger += w.danger_feeds * weight
            if held is not None and (held[card] > 0 or _fits_hand(card, held)):
                danger += w.danger_held * weight
            if card in thrown:
                danger -= w.danger_thrown
        if card == JOKER or card % 13 == 1:
            danger += w.danger_wild
        return danger * self.scale

    def keep(self, card: int) -> float:
        """Lower is a better discard: little use to us, little help to them."""
        w = self.w
        use = w.keep_fits_hand if _fits_hand(card, self.counts, 1) else 0.0
        if card in self.own:
            use += w.keep_feeds_own
        if card == JOKER or card % 13 == 1:
            use += w.keep_wild
        return use + self.danger(card) - w.keep_points * self.values[card]

    def safest(self, cards: Sequence[int]) -> int:
        """The card of ``cards`` best discarded (the lowest of equals)."""
        best = -1
        best_keep = 0.0
        keep = self.keep
        for card in cards:
            k = keep(card)
            if best < 0 or k < best_keep:
                best, best_keep = card, k
        return best


def discard_danger(
    card: int,
    view: DealView,
    v: Variant,
    thrown: list[set[int]] | None = None,
    weights: GreedyWeights = HAND_SET,
) -> float:
    """How much a discard may help the opponents (``thrown``: each seat's discards so far)."""
    s = _Seen.of_view(view, weights)
    s.thrown = thrown
    return _Discards(s).danger(card)


def _lay_order(action: Action) -> tuple[int, int, tuple[int, ...]]:
    """Equal scores go to new melds (by their cards) before extensions (by meld, then card),
    whatever the order of the legal actions."""
    if action.kind == MELD:
        return (0, 0, action.cards)
    return (1, action.target, action.cards)


def _lay_score(action: Action, s: _Seen) -> float:
    if action.kind == MELD:
        return s.memo.meld_score(action.cards, s.size)
    if action.kind == EXTEND:
        return s.memo.extend_score(s.melds[s.line][action.target], action.cards[0], s.size)
    return -1.0  # redraw: never the greedy choice


def _draw_or_take(s: _Seen, legal: Sequence[Action]) -> Action:
    takes = [a for a in legal if a.kind == TAKE]
    draw = next((a for a in legal if a.kind == DRAW), None)
    if not takes:
        return draw or legal[0]
    if draw is None:
        return takes[0]
    if s.v.pile_needs_pair:
        return takes[0]  # canasta: the pile is the game
    return takes[0] if _pile_worth(s) > s.w.pile_above else draw


def _play(s: _Seen, legal: Sequence[Action]) -> Action:
    best: Action | None = None
    best_score = 0.0
    discards: list[int] = []
    for action in legal:
        kind = action.kind
        if kind == DISCARD:
            discards.append(action.cards[0])
            continue
        if kind != MELD and kind != EXTEND:
            continue
        score = _lay_score(action, s)
        if score > best_score or (
            best is not None and score == best_score and _lay_order(action) < _lay_order(best)
        ):
            best, best_score = action, score
    if best is not None:
        return best
    if not discards:
        return legal[0]
    return _DISCARDS[_Discards(s).safest(sorted(discards))]


class GreedyBot:
    """Plays the best-looking action by simple club rules; deterministic. ``weights`` are
    what it values each kind of move at (:class:`~burraco.bots.weights.GreedyWeights`; the
    hand-set ones by default); None plays the greedy level's weights for the table
    (:func:`~burraco.bots.weights.level_weights`), as the ``greedy`` level does."""

    def __init__(self, seed: int | None = None, weights: GreedyWeights | None = HAND_SET) -> None:
        self.seed = seed
        self.weights = weights
        #: The level's weights of the last table asked about (None: not asked yet).
        self._level: tuple[Variant, GreedyWeights] | None = None

    def _weights(self, v: Variant) -> GreedyWeights:
        if self.weights is not None:
            return self.weights
        level = self._level
        if level is None or level[0] is not v:
            level = self._level = (v, level_weights(v))
        return level[1]

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        assert view.rules is not None
        s = _Seen.of_view(view, self._weights(view.rules))
        if view.phase == "draw":
            return _draw_or_take(s, legal)
        return _play(s, legal)

    def ranked(self, view: DealView, legal: Sequence[Action]) -> list[Action]:
        """The play-phase actions from most to least attractive: lay-downs that score
        above nothing first, by score; then discards, safest first."""
        assert view.rules is not None
        s = _Seen.of_view(view, self._weights(view.rules))
        lays: list[tuple[float, int, Action]] = []
        discards: list[tuple[float, int, Action]] = []
        weigh: _Discards | None = None
        for i, action in enumerate(legal):
            if action.kind in (MELD, EXTEND):
                lays.append((-_lay_score(action, s), i, action))
            elif action.kind == DISCARD:
                if weigh is None:
                    weigh = _Discards(s)
                discards.append((weigh.keep(action.cards[0]), i, action))
        return [a for _, _, a in sorted(lays)] + [a for _, _, a in sorted(discards)]

    def play_on(self, deal: Deal, thrown: list[set[int]], turns: int | None = None) -> None:
        """Play every seat of ``deal`` (a search's own sampled deal, changed in place) on to
        the deal's end, or for ``turns`` turns; ``thrown`` gains each seat's discards.
        :meth:`playout`'s action is legal (listed by the deal, or checked), so it is
        performed without :meth:`Deal.apply`'s second check: a search's playouts are most
        of its time."""
        stop = deal.turns + (1 << 30 if turns is None else turns)
        while deal.phase != "over" and deal.turns < stop:
            chosen = self.playout(deal, thrown)
            if chosen.kind == DISCARD:
                thrown[deal.turn].add(chosen.cards[0])
            deal._perform(chosen)

    def playout(self, deal: Deal, thrown: list[set[int]]) -> Action:
        """The action :meth:`choose` takes for the seat on turn of ``deal``, a search's own
        sampled deal that is not over; ``thrown`` holds each seat's discards so far.

        It reads the deal in place: the seat on turn's hand and the public table (the
        cards known in each hand, the melds, the face-up pile), which is all its view
        holds. In the play phase of an opened line it lists only what it would play,
        best first, and asks the deal whether each is legal, down to the first that is;
        anywhere else it weighs the deal's legal actions as :meth:`choose` does.
        """
        s = _Seen.of_deal(deal, thrown, self._weights(deal.v))
        if deal.phase != "play" or deal.pile_top >= 0:
            # (A closed pile just taken: its top is melded first, among the deal's own list.)
            legal = deal.legal_actions()
            if len(legal) == 1:
                return legal[0]
            return _draw_or_take(s, legal) if deal.phase != "play" else _play(s, legal)
        v = s.v
        memo = s.memo
        hand = s.hand
        size = s.size
        line = s.line
        own = s.melds[line]
        opened = deal.opened[line]
        # The sure cases (as legal_actions() lists them): with the line opened, a new meld
        # that leaves two cards or more, and an extension from three cards or more, are
        # legal whatever else (the turn can still end by a discard); but canasta's black 3s,
        # which go out only.
        slow = v.black_threes_only_out
        sure_meld = size - 2 if opened else -1
        sure_extend = opened and size >= 3
        # The lay-downs worth playing (scoring above nothing), best first: (-score, order,
        # cards, target meld or -1 for a new meld, whether it is surely legal).
        options: list[tuple[float, int, tuple[int, ...], int, bool]] = []
        order = 0
        worth = memo.new_melds(hand, size)
        if worth:
            taken = {m.rank for m in own if m.kind == SET}
            if any(m.kind == WILD for m in own):
                taken.add(-1)
            for score, cards, rank in worth:
                if rank and rank in taken:
                    continue
                sure = len(cards) <= sure_meld and not (slow and rank == 3)
                options.append((-score, order, cards, -1, sure))
                order += 1
        last = size == 1
        extend_last = s.w.extend_last
        if own:
            held = set(compress(_KIND_RANGE, hand))
            by_id = memo.by_id
            for target, m in enumerate(own):
                mine = by_id.get(id(m))
                fits = mine[1] if mine is not None and mine[0] is m else memo.of(m)
                fitting = fits.cards & held
                if not fitting:
                    continue
                # A set of black 3s grows only as the last meld before going out.
                sure = sure_extend and not (slow and m.kind == SET and m.rank == 3)
                for card in sorted(fitting) if len(fitting) > 1 else fitting:
                    score, penalty = fits.score(card)
                    score = score + extend_last if last else score - penalty
                    if score > 0:
                        options.append((-score, order, (card,), target, sure))
                    order += 1
        if options:
            # The best first; the rest in order only if it may not be played.
            best = min(options) if len(options) > 1 else options[0]
            _, _, cards, target, sure = best
            action = _meld_action(cards) if target < 0 else _extend_action(target, cards[0])
            if sure or deal.is_legal(action):
                memo.laid(hand, size, cards)
                return action
            # A line still to open mostly cannot lay down what it would like (the opening is
            # out of reach): after the best lay-down, the deal's list decides.
            options.sort()
            for _, _, cards, target, sure in options[1:] if opened else ():
                action = _meld_action(cards) if target < 0 else _extend_action(target, cards[0])
                if sure or deal.is_legal(action):
                    memo.laid(hand, size, cards)
                    return action
            if not opened:
                return _play(s, deal.legal_actions())
        # No lay-down: the safest legal discard (any card, with two or more in hand and no
        # single card just taken from the pile).
        present = list(compress(_KIND_RANGE, hand))
        weigh = _Discards(s, len(s.pile))
        card = weigh.safest(present)
        if (opened and size >= 2 and deal.taken_single < 0) or deal.is_legal(_DISCARDS[card]):
            return _DISCARDS[card]
        for _, card in sorted((weigh.keep(c), c) for c in present):
            if deal.is_legal(_DISCARDS[card]):
                return _DISCARDS[card]
        return _play(s, deal.legal_actions())


def _meld_action(cards: tuple[int, ...]) -> Action:
    action = _MELD_ACTIONS.get(cards)
    if action is None:
        action = _MELD_ACTIONS[cards] = Action(MELD, tuple(CARDS[c] for c in cards))
    return action


def _extend_action(target: int, card: int) -> Action:
    action = _EXTEND_ACTIONS.get((target, card))
    if action is None:
        action = _EXTEND_ACTIONS[target, card] = Action(EXTEND, (CARDS[card],), target)
    return action
