"""What one seat may see of a deal.

A :class:`DealView` holds the seat's own hand, every meld, the face-up pile,
the size of every other hand, the stock's size and which pozzetti are taken.
With open hands (002's optional rule) it also holds the partners' hands. It
never holds a card the seat may not see: not the stock, not another player's
hand, not a pozzetto (not even one the seat took with a discard, which stays
face down until the partner's discard).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from burraco.actions import Action
from burraco.cards import CARDS, Card, cards_from_counts
from burraco.melds import Meld
from burraco.variants import Variant

if TYPE_CHECKING:
    from burraco.deal import Deal

__all__ = ["DealView", "PublicView", "public_view_of", "view_of"]


@dataclass(frozen=True, slots=True)
class DealView:
    """One seat's information about a deal."""

    variant: str
    seat: int
    players: int
    dealer: int
    phase: str
    turn: int
    hand: tuple[Card, ...]
    #: Partners' hands, by seat, when hands are open; else empty.
    partner_hands: tuple[tuple[int, tuple[Card, ...]], ...]
    hand_sizes: tuple[int, ...]
    line_of: tuple[int, ...]
    #: The melds of each line, indexed by line (as are the other per-line tuples:
    #: ``has_pozzetto``, ``red_threes``, ``opened``, ``minimum``, ``pending_value``,
    #: ``relancinhos``, ``minimum_raised``; one entry per line of the table).
    melds: tuple[tuple[Meld, ...], ...]
    #: The face-up pile, bottom first (its top is the last card).
    pile: tuple[Card, ...]
    #: Face-down cards under the pile (canasta), or under a closed pile's top (buraco fechado).
    pile_hidden: int
    stock_size: int
    #: Sizes of the pozzetti nobody has taken yet.
    pozzetti: tuple[int, ...]
    has_pozzetto: tuple[bool, ...]
    #: Per seat: the size of a pozzetto taken with a discard and still face down.
    pozzetto_face_down: tuple[int, ...]
    red_threes: tuple[int, ...]
    opened: tuple[bool, ...]
    minimum: tuple[int, ...]
    taken_single: int
    final_turn: bool
    timeout_turns: int
    #: Why the deal ended (``Deal.end_reason``); None while it is in play.
    end_reason: str | None
    history: tuple[Action, ...]
    #: Per seat, the cards everyone knows to be in that hand: taken from the pile, not played.
    known: tuple[tuple[Card, ...], ...] = ()
    #: The rules in play (public: every option of the variant).
    rules: Variant | None = None
    # The rest of the public state, for bots that rebuild a deal from what they see.
    turns: int = 0
    quiet_turns: int = 0
    progress: bool = False
    first_turn: bool = False
    redrawn: bool = False
    #: The card the seat drew this turn (only in the view of the seat on turn); else None.
    drawn: Card | None = None
    pending_value: tuple[int, ...] = ()
    #: Canasta, the seat on turn only: the cards the rest of the pile just brought to its
    #: unopened line's hand (counts per card kind); they never count toward the opening.
    from_pile: tuple[int, ...] = ()
    pending_melds: tuple[int, ...] = ()
    melded_seats: tuple[bool, ...] = ()
    relancinhos: tuple[int, ...] = ()
    minimum_raised: tuple[bool, ...] = ()
    partnerships_form: bool = False
    closer: int = -1
    went_out: bool = False
    #: A closed pile just taken: its top card, to be melded first this turn; else None.
    pile_top: Card | None = field(default=None, repr=False)

    @property
    def line(self) -> int:
        return self.line_of[self.seat]

    @property
    def own_melds(self) -> tuple[Meld, ...]:
        return self.melds[self.line]

    @property
    def to_play(self) -> bool:
        return self.turn == self.seat and self.phase != "over"

    def position(self) -> str:
        """This view as a seat's position (docs/position.md): hidden cards as counts."""
        # position stands floors above the view (it builds deals): a convenience, imported here.
        from burraco.position import view_position

        return view_position(self)

    @classmethod
    def from_position(cls, text: str) -> DealView:
        """The view a seat's position describes (its history is empty)."""
        # A convenience, as position() is (tests/test_floors.py names both).
        from burraco.position import view_from_position

        return view_from_position(text)


def _table(deal: Deal) -> dict[str, Any]:
    """What anyone at the table sees of a deal: the fields a seat's view and a spectator's
    share (a :class:`PublicView`'s). No card of a hand, of the stock or of a pozzetto."""
    hidden = deal.face_down_in_pile  # a closed pile (buraco fechado) shows its top only
    return {
        "variant": deal.v.name,
        "players": deal.v.players,
        "dealer": deal.dealer,
        "phase": deal.phase,
        "turn": deal.turn,
        "hand_sizes": tuple(deal.sizes),
        "line_of": tuple(deal.line_of),
        "melds": tuple(tuple(m) for m in deal.melds),
        "pile": tuple(Card(c) for c in deal.pile[hidden:]),
        "pile_hidden": hidden,
        "stock_size": len(deal.stock),
        "pozzetti": tuple(len(p) for p in deal.pozzetti),
        "has_pozzetto": tuple(deal.has_pozzetto),
        "pozzetto_face_down": tuple(0 if p is None else len(p) for p in deal.pending_pozzetto),
        "red_threes": tuple(deal.red_threes),
        "opened": tuple(deal.opened),
        "minimum": tuple(deal.minimum),
        "final_turn": deal.final_turn,
        "end_reason": deal.end_reason,
        "rules": deal.v,
    }


def view_of(deal: Deal, seat: int) -> DealView:
    """What one seat sees: the table, its own hand (and its partners' when hands are open),
    the cards it knows in the others', and the rest of the public state."""
    partners = deal.partners(seat) if deal.v.open_hands else []
    return DealView(
        seat=seat,
        hand=tuple(cards_from_counts(deal.hands[seat])),
        partner_hands=tuple((p, tuple(cards_from_counts(deal.hands[p]))) for p in partners),
        # A card (the compiled engine keeps the deal's as a plain int), or -1 for none.
        taken_single=CARDS[deal.taken_single] if deal.taken_single >= 0 else -1,
        timeout_turns=deal.timeout_turns,
        history=tuple(deal.history),
        known=tuple(tuple(cards_from_counts(k)) for k in deal.known),
        turns=deal.turns,
        quiet_turns=deal.quiet_turns,
        progress=deal._progress,
        first_turn=deal._first_turn,
        redrawn=deal.redrawn,
        drawn=Card(deal.drawn) if seat == deal.turn and deal.drawn >= 0 else None,
        pending_value=tuple(deal.pending_value),
        from_pile=tuple(deal._from_pile) if deal._from_pile and seat == deal.turn else (),
        pending_melds=tuple(deal._pending_melds),
        melded_seats=tuple(deal._melded_seat),
        relancinhos=tuple(deal.relancinhos),
        minimum_raised=tuple(deal.minimum_raised),
        partnerships_form=deal._partnerships_form,
        closer=deal.closer,
        went_out=deal.went_out,
        pile_top=Card(deal.pile_top) if deal.pile_top >= 0 else None,
        **_table(deal),
    )


@dataclass(frozen=True, slots=True)
class PublicView:
    """What anyone standing by the table sees of a deal: a spectator's view.

    Only what lies face up or is counted aloud: the melds, the face-up pile, the size of
    every hand, of the stock and of each pozzetto. It holds no card of any hand (not even
    those known to be in one), none of the stock and none of a pozzetto.
    """

    variant: str
    players: int
    dealer: int
    phase: str
    turn: int
    hand_sizes: tuple[int, ...]
    line_of: tuple[int, ...]
    melds: tuple[tuple[Meld, ...], ...]
    pile: tuple[Card, ...]
    pile_hidden: int
    stock_size: int
    pozzetti: tuple[int, ...]
    has_pozzetto: tuple[bool, ...]
    pozzetto_face_down: tuple[int, ...]
    red_threes: tuple[int, ...]
    opened: tuple[bool, ...]
    minimum: tuple[int, ...]
    final_turn: bool
    end_reason: str | None
    rules: Variant


def public_view_of(deal: Deal) -> PublicView:
    """The deal as a spectator sees it (reads no hand, no stock card, no pozzetto card)."""
    return PublicView(**_table(deal))
