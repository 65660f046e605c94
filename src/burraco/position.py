"""Positions: a deal's whole state as one line of text, in the spirit of FEN for chess.

A position holds everything that decides how a deal goes on from here: the variant,
the dealer, the turn and the phase, every hand, the stock in order, the pile, the
pozzetti, every meld with its reading, each line's opening and counters, and the
counters of the turn and of the stall and time-out rules. It holds no move list: a
deal loaded from a position has an empty history and no deck order, and plays on
exactly like the deal it was written from. ``docs/position.md`` describes the format.

A seat's view (``Deal.position(seat=k)``) is the same line as that seat knows it: the
other hands, the stock, the pozzetti and canasta's buried pile cards are counts
(``#11``), never cards. It loads into a :class:`~burraco.view.DealView`, never into a
playable :class:`~burraco.deal.Deal`.

>>> from burraco import Deal, DealView, variant
>>> deal = Deal.new(variant("italian"), seed=7)
>>> text = deal.position()
>>> text.split()[:3]
['bp1', 'italian/2/2', '0/1/draw']
>>> Deal.from_position(text).position() == text
True
>>> seen = deal.position(seat=1)
>>> fields = seen.split()
>>> fields[0], fields[3].split("/")[0], fields[4], fields[6]
('bp1@1', '#11', '#63', '#11/#11')
>>> DealView.from_position(seen) == deal.view(1)
True
>>> Deal.from_position(seen)
Traceback (most recent call last):
...
burraco.position.PositionError: field 1 (version): 'bp1@1' is seat 1's view of a deal: it shows counts where the hidden cards are, so it cannot be played as a full deal (load it with DealView.from_position)
"""

from __future__ import annotations

import ast
import functools
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from burraco.cards import CARDS, JOKER, KINDS, cards_from_counts, deck, format_cards, parse_card
from burraco.deal import DRAW_PHASE, OVER, PLAY_PHASE, Deal, pozzetto_sizes
from burraco.errors import RuleError, SetupError
from burraco.melds import SEQUENCE, Meld, is_wild, meld_or_refusal
from burraco.refusals import Refusal
from burraco.variants import Variant, options_of, parse_option, variant
from burraco.view import DealView, view_of

__all__ = [
    "DEAL_SLOTS",
    "FIELDS",
    "VERSION",
    "PositionError",
    "compose",
    "deal_from_position",
    "normalize",
    "position_of",
    "view_from_position",
    "view_position",
]

#: The version tag a position starts with (``bp1@SEAT`` for a seat's view).
VERSION: Final = "bp1"
#: The fields of a position, in order, separated by single spaces.
FIELDS: Final = (
    "version",
    "variant",
    "turn",
    "hands",
    "stock",
    "pile",
    "pozzetti",
    "taken",
    "melds",
    "lines",
    "seats",
    "known",
    "state",
)
#: Every slot of :class:`~burraco.deal.Deal` and where a position keeps it, or why it
#: does not (a test checks that this names every slot of ``Deal.__slots__``).
DEAL_SLOTS: Final[dict[str, str]] = {
    "v": "variant",
    "dealer": "turn",
    "turn": "turn",
    "phase": "turn",
    "hands": "hands",
    "sizes": "hands (each hand's size)",
    "stock": "stock",
    "pile": "pile",
    "pile_hidden": "pile",
    "pozzetti": "pozzetti",
    "pending_pozzetto": "taken",
    "melds": "melds",
    "opened": "lines",
    "has_pozzetto": "lines",
    "minimum_raised": "lines",
    "minimum": "lines",
    "pending_value": "lines",
    "red_threes": "lines",
    "relancinhos": "lines",
    "line_of": "seats",
    "_melded_seat": "seats",
    "known": "known",
    "turns": "state turns",
    "_first_turn": "state first",
    "drawn": "state drawn",
    "redrawn": "state redrawn",
    "taken_single": "state single",
    "pile_top": "state tomeld",
    "_progress": "state progress",
    "_pending_melds": "state pending",
    "_from_pile": "state frompile",
    "quiet_turns": "state quiet",
    "timeout_turns": "state timeout",
    "final_turn": "state final",
    "_partnerships_form": "state forming",
    "closer": "state closer",
    "went_out": "state out",
    "end_reason": "state end",
    "history": "not kept: a position has no move list (loaded: empty)",
    "deck_order": "not kept: the order the deck was dealt from (loaded: empty)",
    "_last_take_meld": "not kept: the scratch of a trial take (loaded: None)",
    "_legal": "not kept: the cache of legal_actions() (loaded: None)",
    "_tables": "not kept: the variant's meld tables (loaded: the variant's)",
    "_rules": "not kept: the variant's rules read at every move (loaded: the variant's)",
}

_PHASES: Final = (DRAW_PHASE, PLAY_PHASE, OVER)
_END_REASONS: Final = ("went out", "closed", "stock", "stall", "time-out")
_VERSION_TAG: Final = re.compile(r"bp(\d+)(?:@(\d+))?")
#: A card as the writer writes it; the lenient form (any case, T for 10) is only for
#: :func:`normalize` and :func:`compose`.
_CARD: Final = re.compile(r"(?:10|[2-9AJQK])[SHDC]|JK")
_LOOSE_CARD: Final = re.compile(r"(?:10|[2-9AJQKT])[SHDC]|JK", re.IGNORECASE)
#: Any white space but a single space between two fields.
_ODD_SPACE: Final = re.compile(r"[^\S ]|  |^ | $")
_MELD: Final = re.compile(r"([^()]+)(?:\((\d+)-(\d+)(?:@(\d+(?:\.\d+)*))?\))?")
_LINE_ITEM: Final = re.compile(r"([a-z])(-?\d+)?")
_SEAT: Final = re.compile(r"(\d+)(m?)")
_CARD_HELP: Final = (
    "a card is a rank A 2-10 J Q K and a suit S H D C, or JK; "
    "the cards of a list follow each other with no space, as 5H10SJK"
)


class PositionError(RuleError):
    """A position that cannot be read: the message names the field (``field 4 (hands)``),
    the part of it (a seat, a line, a meld, a key) and what is wrong."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


# --- the parts of a position ----------------------------------------------------------------

#: A place's cards, or (in a seat's view) how many cards it hides.
Held = list[int] | int


class _Line(NamedTuple):
    opened: bool
    pozzetto: bool
    raised: bool
    minimum: int
    pending: int
    red_threes: int
    relancinhos: int


@dataclass
class _State:
    turns: int = 0
    first: bool = False
    drawn: int = -1
    redrawn: bool = False
    single: int = -1
    tomeld: int = -1
    progress: bool = False
    pending: list[int] = field(default_factory=list)
    from_pile: list[int] | None = None
    quiet: int = 0
    timeout: int = -1
    final: bool = False
    forming: bool = False
    closer: int = -1
    out: bool = False
    end: str | None = None


@dataclass
class _Parts:
    """A position as data: what the text says, field by field."""

    v: Variant
    #: None for a whole deal; the seat of a seat's view.
    seat: int | None
    dealer: int
    turn: int
    phase: str
    hands: list[Held]
    #: The stock, its top card first.
    stock: Held
    #: The face-down cards under the pile (canasta), bottom first.
    buried: Held
    #: The face-up pile, bottom first.
    pile: list[int]
    pozzetti: list[Held]
    taken: list[Held | None]
    melds: list[list[Meld]]
    lines: list[_Line]
    line_of: list[int]
    melded: list[bool]
    known: list[list[int]]
    state: _State


def _where(index: int, detail: str = "") -> str:
    text = f"field {index + 1} ({FIELDS[index]})"
    return f"{text}, {detail}" if detail else text


_VARIANT, _TURN, _HANDS, _STOCK, _PILE, _POZZETTI, _TAKEN, _MELDS, _LINES, _SEATS = range(1, 11)
_KNOWN, _STATE = 11, 12


# --- writing ----------------------------------------------------------------------------------


def position_of(deal: Deal) -> str:
    """The whole deal as a position (``Deal.position()``)."""
    return _format(_parts_of_deal(deal))


def view_position(view: DealView) -> str:
    """A seat's view as a position (``DealView.position()``, ``Deal.position(seat=k)``)."""
    return _format(_parts_of_view(view))


def _parts_of_deal(deal: Deal) -> _Parts:
    players = deal.v.players
    return _Parts(
        v=deal.v,
        seat=None,
        dealer=deal.dealer,
        turn=deal.turn,
        phase=deal.phase,
        hands=[_kinds(h) for h in deal.hands],
        stock=deal.stock[::-1],
        buried=deal.pile[: deal.pile_hidden],
        pile=deal.pile[deal.pile_hidden :],
        pozzetti=[list(p) for p in deal.pozzetti],
        taken=[None if p is None else list(p) for p in deal.pending_pozzetto],
        melds=[list(m) for m in deal.melds],
        lines=_lines_of(deal),
        line_of=list(deal.line_of),
        melded=[deal._melded_seat[s] for s in range(players)],
        known=[_kinds(k) for k in deal.known],
        state=_State(
            turns=deal.turns,
            first=deal._first_turn,
            drawn=_card_or_none(deal.drawn),
            redrawn=deal.redrawn,
            single=_card_or_none(deal.taken_single),
            tomeld=_card_or_none(deal.pile_top),
            progress=deal._progress,
            pending=list(deal._pending_melds),
            from_pile=None if deal._from_pile is None else _kinds(deal._from_pile),
            quiet=deal.quiet_turns,
            timeout=deal.timeout_turns,
            final=deal.final_turn,
            forming=deal._partnerships_form,
            closer=deal.closer,
            out=deal.went_out,
            end=deal.end_reason or None,
        ),
    )


def _parts_of_view(view: DealView) -> _Parts:
    v = view.rules
    if v is None:
        raise PositionError("view", "the view carries no rules, so no position can name them")
    shown = {view.seat: _ints(view.hand), **{p: _ints(c) for p, c in view.partner_hands}}
    return _Parts(
        v=v,
        seat=view.seat,
        dealer=view.dealer,
        turn=view.turn,
        phase=view.phase,
        hands=[shown.get(s, view.hand_sizes[s]) for s in range(view.players)],
        stock=view.stock_size,
        buried=view.pile_hidden,
        pile=_ints(view.pile),
        pozzetti=list(view.pozzetti),
        taken=[n or None for n in view.pozzetto_face_down],
        melds=[list(m) for m in view.melds],
        lines=_lines_of(view),
        line_of=list(view.line_of),
        melded=list(view.melded_seats),
        known=[_ints(k) for k in view.known],
        state=_State(
            turns=view.turns,
            first=view.first_turn,
            drawn=_card_or_none(view.drawn),
            redrawn=view.redrawn,
            single=_card_or_none(view.taken_single),
            tomeld=-1 if view.pile_top is None else int(view.pile_top),
            progress=view.progress,
            pending=list(view.pending_melds),
            from_pile=_kinds(view.from_pile) if view.from_pile else None,
            quiet=view.quiet_turns,
            timeout=view.timeout_turns,
            final=view.final_turn,
            forming=view.partnerships_form,
            closer=view.closer,
            out=view.went_out,
            end=view.end_reason or None,
        ),
    )


def _kinds(counts: Sequence[int]) -> list[int]:
    """The cards of a count per kind, sorted by kind."""
    return [c for c in range(KINDS) if counts[c] for _ in range(counts[c])]


def _ints(cards: Iterable[int]) -> list[int]:
    return [int(c) for c in cards]


def _card_or_none(card: object) -> int:
    """A card slot as a card kind, or -1 for none (the engine writes -1 or None)."""
    return int(card) if isinstance(card, int) and card >= 0 else -1


def _lines_of(table: Deal | DealView) -> list[_Line]:
    """Each line's state, read alike from a deal and from a view (the same names, all public)."""
    rows = zip(
        table.opened,
        table.has_pozzetto,
        table.minimum_raised,
        table.minimum,
        table.pending_value,
        table.red_threes,
        table.relancinhos,
        strict=True,
    )
    return [_Line(*row) for row in rows]


def _format(p: _Parts) -> str:
    version = VERSION if p.seat is None else f"{VERSION}@{p.seat}"
    return " ".join(
        (
            version,
            _variant_text(p.v),
            f"{p.dealer}/{p.turn}/{p.phase}",
            "/".join(_held_text(h) for h in p.hands),
            _held_text(p.stock),
            _pile_text(p.buried, p.pile),
            "/".join(_held_text(h) for h in p.pozzetti) or "-",
            "/".join("-" if h is None else _held_text(h) for h in p.taken),
            "/".join(",".join(_meld_text(m, p.v) for m in line) or "-" for line in p.melds),
            "/".join(_line_text(line) for line in p.lines),
            "/".join(
                f"{line}{'m' if m else ''}" for line, m in zip(p.line_of, p.melded, strict=True)
            ),
            "/".join(_cards_text(k) for k in p.known),
            _state_text(p.state),
        )
    )


def _cards_text(cards: Iterable[int]) -> str:
    return format_cards(cards).replace(" ", "") or "-"


def _held_text(held: Held) -> str:
    return f"#{held}" if isinstance(held, int) else _cards_text(held)


def _pile_text(buried: Held, pile: list[int]) -> str:
    if buried == 0 or buried == []:
        return _cards_text(pile)
    return f"{_held_text(buried)}|{_cards_text(pile)}"


@functools.lru_cache(maxsize=256)
def _variant_text(v: Variant) -> str:
    words = [f"{v.name}/{v.players}/{v.lines}"]
    for name, value in options_of(v):
        literal = repr(value).replace(" ", "")
        if ";" in literal or ast.literal_eval(literal) != value:
            raise RuleError(f"the option {name}={value!r} cannot be written in a position")
        words.append(f"{name}={literal}")
    return ";".join(words)


@functools.lru_cache(maxsize=8192)
def _meld_text(m: Meld, v: Variant) -> str:
    """A meld's cards in display order, and its reading in parentheses when it is not the
    one a fresh lay-down of the same cards gets: ``(LO-HI@W.W)``, the positions of the
    lowest and highest natural card and the places of the wildcards (0: at an end,
    free to move)."""
    cards = _cards_text(m.cards)
    if meld_or_refusal(m.cards, v) == m:
        return cards
    if m.kind == SEQUENCE:
        places = m.fixed or ((m.gap,) if m.wilds else ())
        reading = f"{m.lo}-{m.hi}" + ("@" + ".".join(map(str, places)) if places else "")
        text = f"{cards}({reading})"
        if _meld_of(text, v) == m:
            return text
    raise RuleError(f"the meld {m} has a reading a position cannot write: {m!r}")


def _line_text(line: _Line) -> str:
    text = "o" * line.opened + "p" * line.pozzetto + "r" * line.raised
    for letter, number in zip(
        "mvtx", (line.minimum, line.pending, line.red_threes, line.relancinhos), strict=True
    ):
        if number:
            text += f"{letter}{number}"
    return text or "-"


def _state_text(s: _State) -> str:
    items: list[str] = []
    if s.turns:
        items.append(f"turns={s.turns}")
    if s.first:
        items.append("first")
    if s.drawn >= 0:
        items.append(f"drawn={CARDS[s.drawn]}")
    if s.redrawn:
        items.append("redrawn")
    if s.single >= 0:
        items.append(f"single={CARDS[s.single]}")
    if s.tomeld >= 0:
        items.append(f"tomeld={CARDS[s.tomeld]}")
    if s.progress:
        items.append("progress")
    if s.pending:
        items.append("pending=" + ".".join(map(str, s.pending)))
    if s.from_pile is not None:
        items.append(f"frompile={_cards_text(s.from_pile)}")
    if s.quiet:
        items.append(f"quiet={s.quiet}")
    if s.timeout >= 0:
        items.append(f"timeout={s.timeout}")
    if s.final:
        items.append("final")
    if s.forming:
        items.append("forming")
    if s.closer >= 0:
        items.append(f"closer={s.closer}")
    if s.out:
        items.append("out")
    if s.end:
        items.append(f"end={s.end.replace(' ', '_')}")
    return ",".join(items) or "-"


# --- reading ----------------------------------------------------------------------------------


def deal_from_position(text: str) -> Deal:
    """The deal a whole position describes (``Deal.from_position``); raise
    :class:`PositionError` saying what is wrong and where.

    >>> deal_from_position("bp1 italian/2/2 0/1/draw")
    Traceback (most recent call last):
    ...
    burraco.position.PositionError: position: a position has 13 fields separated by spaces (version variant turn hands stock pile pozzetti taken melds lines seats known state), this one has 3
    """
    parts = _parse(text, view=False)
    _check_deck(parts)
    return _build(parts)


def view_from_position(text: str) -> DealView:
    """The seat's view a view position describes (``DealView.from_position``)."""
    parts = _parse(text, view=True)
    _check_view_cards(parts)
    assert parts.seat is not None
    return view_of(_build(parts), parts.seat)


#: The fields that list cards, and the keys of the state field that name cards.
_CARD_FIELDS: Final = (_HANDS, _STOCK, _PILE, _POZZETTI, _TAKEN, _MELDS, _KNOWN)
_CARD_KEYS: Final = ("drawn", "single", "frompile")


def normalize(text: str) -> str:
    """A position typed loosely, in the one form the reader takes: the fields separated
    by single spaces (any run of spaces, tabs or line breaks between them, none around
    them), the cards in upper case with 10 for T, the variant by its preset's own name
    with its options in order, and all else as the writer writes it (a hand sorted by
    kind). It is read and written again, so a position that is wrong in another way
    raises :class:`PositionError` as the reader does.

    >>> from burraco import Deal, variant
    >>> text = Deal.new(variant("italian"), seed=7).position()
    >>> loose = "  " + text.replace(" ", "\\t", 2).replace("AS", "as").replace("10", "T") + "\\n"
    >>> loose.startswith("  bp1\\titalian/2/2\\t0/1/draw ")
    True
    >>> normalize(loose) == text
    True
    """
    if not isinstance(text, str):
        raise PositionError("position", f"{text!r} is not a position (it starts with {VERSION})")
    fields = text.split()
    if len(fields) == len(FIELDS):
        fields[_VARIANT] = _variant_text(_variant_of(fields[_VARIANT], loose=True))
        for index in _CARD_FIELDS:
            fields[index] = _LOOSE_CARD.sub(_upper_card, fields[index])
        items = fields[_STATE].split(",")
        for k, item in enumerate(items):
            key, equals, value = item.partition("=")
            if equals and key in _CARD_KEYS:
                items[k] = f"{key}={_LOOSE_CARD.sub(_upper_card, value)}"
        fields[_STATE] = ",".join(items)
    written = " ".join(fields)
    if fields and "@" in fields[0]:  # a seat's view
        return view_from_position(written).position()
    return deal_from_position(written).position()


def _upper_card(match: re.Match[str]) -> str:
    return str(parse_card(match.group(0)))


def _parse(text: str, *, view: bool) -> _Parts:
    fields = text.split(" ") if isinstance(text, str) else []
    if not text or not isinstance(text, str) or not text.strip():
        raise PositionError("position", f"{text!r} is not a position (it starts with {VERSION})")
    _check_spacing(text)
    seat = _version(fields[0], view)
    if len(fields) != len(FIELDS):
        raise PositionError(
            "position",
            f"a position has {len(FIELDS)} fields separated by spaces ({' '.join(FIELDS)}), "
            f"this one has {len(fields)}",
        )
    v = _variant_of(fields[_VARIANT])
    players = v.players
    dealer, turn, phase = _turn_of(fields[_TURN], players)
    if seat is not None and seat >= players:
        raise PositionError(
            _where(0), f"the view of seat {seat}, but the seats are 0 to {players - 1}"
        )
    template = _template(v)
    lines = _lines_field(fields[_LINES], len(template.opened))
    line_of, melded = _seats_field(fields[_SEATS], players, len(lines))
    hands = [
        _held(
            item,
            _where(_HANDS, f"seat {s}"),
            _shown(v, seat, s, line_of),
            seat is not None,
        )
        for s, item in enumerate(_per(fields[_HANDS], players, _HANDS, "seat"))
    ]
    hidden = seat is not None
    stock = _held(fields[_STOCK], _where(_STOCK), not hidden, hidden)
    buried, pile = _pile_field(fields[_PILE], hidden)
    pozzetti: list[Held] = []
    if fields[_POZZETTI] != "-":
        pozzetti = [
            _held(item, _where(_POZZETTI, f"pozzetto {k}"), not hidden, hidden)
            for k, item in enumerate(fields[_POZZETTI].split("/"))
        ]
    taken = [
        None if item == "-" else _held(item, _where(_TAKEN, f"seat {s}"), not hidden, hidden)
        for s, item in enumerate(_per(fields[_TAKEN], players, _TAKEN, "seat"))
    ]
    melds = _melds_field(fields[_MELDS], len(template.melds), v)
    known = [
        _cards(item, _where(_KNOWN, f"seat {s}"))
        for s, item in enumerate(_per(fields[_KNOWN], players, _KNOWN, "seat"))
    ]
    state = _state_field(fields[_STATE], players)
    parts = _Parts(
        v, seat, dealer, turn, phase, hands, stock, buried, pile, pozzetti, taken, melds,
        lines, line_of, melded, known, state,
    )  # fmt: skip
    _check_state(parts)
    return parts


def _check_spacing(text: str) -> None:
    """The fields are separated by single spaces, with none before or after them: one
    position has one text (python-chess reads a FEN as strictly). :func:`normalize`
    rewrites a position spaced otherwise."""
    if _ODD_SPACE.search(text) is None:
        return
    for at, char in enumerate(text):
        if char == " ":
            if at == 0:
                what = "a space before the first field"
            elif at == len(text) - 1:
                what = "a space after the last field"
            elif text[at - 1] == " ":
                what = "a second space"
            else:
                continue
        elif char.isspace():
            what = {"\t": "a tab", "\n": "a line break", "\r": "a line break"}.get(
                char, f"the space {char!r}"
            )
        else:
            continue
        raise PositionError(
            "position",
            f"character {at + 1} is {what}: the {len(FIELDS)} fields are separated by single "
            "spaces (burraco.position.normalize rewrites a position spaced otherwise)",
        )


def _version(token: str, view: bool) -> int | None:
    where = _where(0)
    match = _VERSION_TAG.fullmatch(token)
    if match is None:
        raise PositionError(
            where,
            f"{token!r} is not a version tag: a position starts with {VERSION} "
            f"(a whole deal) or {VERSION}@SEAT (a seat's view)",
        )
    if f"bp{match.group(1)}" != VERSION:
        raise PositionError(where, f"{token!r}: this reader knows version {VERSION} only")
    seat = None if match.group(2) is None else int(match.group(2))
    if seat is not None and not view:
        raise PositionError(
            where,
            f"{token!r} is seat {seat}'s view of a deal: it shows counts where the hidden "
            "cards are, so it cannot be played as a full deal "
            "(load it with DealView.from_position)",
        )
    if seat is None and view:
        raise PositionError(
            where,
            f"{token!r} is a whole deal, not a seat's view "
            "(load it with Deal.from_position, then take deal.view(seat))",
        )
    return seat


def _variant_of(text: str, *, loose: bool = False) -> Variant:
    """The variant of the field; ``loose`` (:func:`normalize`) also takes an alias, any
    case and the options in any order, which a position never holds."""
    where = _where(_VARIANT)
    head, *words = text.split(";")
    table = head.split("/")
    if len(table) != 3:
        raise PositionError(where, f"{head!r}: the variant is NAME/PLAYERS/LINES, as italian/4/2")
    name = table[0]
    players = _int(table[1], where, "players")
    lines = _int(table[2], where, "lines")
    try:
        base = variant(name, players=players, lines=lines)
    except SetupError as error:
        raise PositionError(where, str(error)) from None
    options: dict[str, object] = {}
    for word in words:
        try:
            option, value = parse_option(word)
        except ValueError as error:
            raise PositionError(where, f"option {word!r}: {error}") from None
        if option in options:
            raise PositionError(where, f"option {option} is given twice")
        options[option] = value
    try:
        v = base.with_options(**options) if options else base
    except SetupError as error:
        # The variant's own refusal, word for word (and as the cause, with its option).
        raise PositionError(where, f"the options do not make a variant: {error}") from error
    written = _variant_text(v)
    if text != written and not loose:
        raise PositionError(
            where,
            f"{text!r} is written {written!r}: the preset's own name in lower case, then each "
            "option that differs from it, in the order of Variant's fields, as the writer "
            "writes it (burraco.position.normalize rewrites it)",
        )
    return v


def _turn_of(text: str, players: int) -> tuple[int, int, str]:
    where = _where(_TURN)
    words = text.split("/")
    if len(words) != 3:
        raise PositionError(where, f"{text!r}: the field is DEALER/TURN/PHASE, as 0/1/draw")
    dealer = _seat(words[0], where, "dealer", players)
    turn = _seat(words[1], where, "turn", players)
    if words[2] not in _PHASES:
        raise PositionError(where, f"no phase {words[2]!r} (draw, play or over)")
    return dealer, turn, words[2]


def _int(text: str, where: str, what: str, low: int | None = None) -> int:
    if re.fullmatch(r"-?\d+", text) is None:
        raise PositionError(where, f"{what}: {text!r} is not a whole number")
    number = int(text)
    if low is not None and number < low:
        raise PositionError(where, f"{what}: {number} is below {low}")
    return number


def _seat(text: str, where: str, what: str, players: int) -> int:
    seat = _int(text, where, what)
    if not 0 <= seat < players:
        raise PositionError(
            where, f"{what}: no seat {seat} at a table of {players} (seats 0 to {players - 1})"
        )
    return seat


def _per(text: str, count: int, index: int, what: str) -> list[str]:
    items = text.split("/")
    if len(items) != count:
        raise PositionError(
            _where(index), f"{len(items)} entries separated by / for {count} {what}s"
        )
    return items


def _cards(text: str, where: str, *, loose: bool = False) -> list[int]:
    """The cards of a list written with no spaces; ``loose`` also takes lower case and T
    for 10 (:func:`compose`), which a position never holds."""
    if text == "-":
        return []
    found: list[int] = []
    at = 0
    while at < len(text):
        lenient = _LOOSE_CARD.match(text, at)
        match = lenient if loose else _CARD.match(text, at)
        if match is None and lenient is not None:
            token = lenient.group(0)
            canonical = parse_card(token)
            raise PositionError(
                where,
                f"{token!r} (at character {at + 1} of {text!r}) is written {canonical}: a "
                "position writes its cards in upper case, with 10 for ten "
                "(burraco.position.normalize rewrites them)",
            )
        if match is None:
            bad = re.match(r"#?\w{1,3}|.", text[at:])
            token = bad.group(0) if bad else text[at:]
            raise PositionError(
                where, f"{token!r} (at character {at + 1} of {text!r}) is not a card: {_CARD_HELP}"
            )
        found.append(parse_card(match.group(0).upper()))
        at = match.end()
    return found


def _held(text: str, where: str, shown: bool, counted: bool) -> Held:
    """A place's cards, or ``#N``: the count of hidden cards a seat's view writes."""
    if text.startswith("#"):
        if not counted:
            raise PositionError(
                where,
                f"{text!r} counts hidden cards, which only a seat's view does; "
                "a whole deal lists every card",
            )
        if shown:
            raise PositionError(where, f"{text!r}: this seat's view shows these cards")
        return _int(text[1:], where, "the count", 0)
    if not shown:
        raise PositionError(
            where, f"{text!r}: a seat's view shows no card here; write how many there are, as #11"
        )
    return _cards(text, where)


def _shown(v: Variant, seat: int | None, s: int, line_of: Sequence[int]) -> bool:
    """Whether a seat's view (seat None: the whole deal) shows the hand of seat ``s``."""
    if seat is None or s == seat:
        return True
    return v.open_hands and line_of[s] == line_of[seat]


def _pile_field(text: str, hidden: bool) -> tuple[Held, list[int]]:
    where = _where(_PILE)
    if "|" not in text:
        return ([] if not hidden else 0), _cards(text, where)
    under, _, pile = text.partition("|")
    buried = _held(under, _where(_PILE, "the face-down cards"), not hidden, hidden)
    return buried, _cards(pile, where)


def _melds_field(text: str, count: int, v: Variant) -> list[list[Meld]]:
    out: list[list[Meld]] = []
    for line, item in enumerate(_per(text, count, _MELDS, "line")):
        melds: list[Meld] = []
        if item != "-":
            for k, token in enumerate(item.split(",")):
                found = _meld_of(token, v)
                if isinstance(found, str):
                    raise PositionError(_where(_MELDS, f"line {line}, meld {k}"), found)
                melds.append(found)
        out.append(melds)
    return out


@functools.lru_cache(maxsize=8192)
def _meld_of(token: str, v: Variant) -> Meld | str:
    """The meld a token writes, or what is wrong with it."""
    match = _MELD.fullmatch(token)
    if match is None:
        return (
            f"{token!r} is not a meld: a meld is its cards, followed by its reading in "
            "parentheses when it differs from a fresh lay-down's, as 2H3H4H5H(3-5@0)"
        )
    try:
        cards = _cards(match.group(1), "")
    except PositionError as error:
        return error.reason
    if match.group(2) is None:
        found = meld_or_refusal(cards, v)
        if isinstance(found, Refusal):
            return f"{format_cards(cards)} is not a meld: {found}"
        return found
    places = tuple(int(p) for p in match.group(4).split(".")) if match.group(4) else ()
    return _sequence_of(cards, int(match.group(2)), int(match.group(3)), places, v)


def _card_at(suit: int, place: int) -> int:
    return suit * 13 + (0 if place == 14 else place - 1)


def _sequence_of(
    cards: list[int], lo: int, hi: int, places: tuple[int, ...], v: Variant
) -> Meld | str:
    """A sequence with an explicit reading: its naturals from ``lo`` to ``hi`` (1-14), its
    wildcards at ``places`` (a single 0: at an end, free to move), or what is wrong."""
    reading = f"{lo}-{hi}" + ("@" + ".".join(map(str, places)) if places else "")
    head = f"{format_cards(cards)} ({reading}) is not a sequence"
    if not 1 <= lo < hi <= 14:
        return f"{head}: LO-HI are the places of its lowest and highest natural, 1 to 14"
    if len(set(places)) != len(places) or any(not 0 <= p <= 14 for p in places):
        return f"{head}: the wildcards' places are distinct, 1 to 14 (or a single 0)"
    if 0 in places and len(places) > 1:
        return f"{head}: only a single wildcard stands free at an end (place 0)"
    if lo in places or hi in places:
        return f"{head}: its places {lo} and {hi} hold naturals, not wildcards"
    if len(places) > v.max_wildcards:
        return f"{head}: a meld holds at most {v.max_wildcards} wildcard(s) in {v.name}"
    if places == (0,):
        layout = [(p, False) for p in range(lo, hi + 1)]
        layout.insert(0 if lo > 1 else len(layout), (0, True))
    else:
        first, last = min((lo, *places)), max((hi, *places))
        layout = [(p, p in places) for p in range(first, last + 1)]
    if len(layout) > 14:
        return f"{head}: a sequence has at most 14 cards"
    if len(layout) < 3:
        return f"{head}: a meld has at least three cards"
    if len(layout) != len(cards):
        return f"{head}: its reading places {len(layout)} cards, not {len(cards)}"
    first_natural = next(c for (_, wild), c in zip(layout, cards, strict=True) if not wild)
    if first_natural == JOKER:
        return f"{head}: JK stands where a natural card should"
    suit = first_natural // 13
    for (p, wild), c in zip(layout, cards, strict=True):
        if wild and not is_wild(c):
            return f"{head}: {CARDS[c]} stands as a wildcard but is not one"
        if not wild and c != _card_at(suit, p):
            return f"{head}: place {p} holds {CARDS[c]}, not {CARDS[_card_at(suit, p)]}"
    if lo == 1 and hi == 14 and not v.canastra_real:
        return f"{head}: a sequence holds one natural ace at most"
    wilds = tuple(CARDS[c] for (_, wild), c in zip(layout, cards, strict=True) if wild)
    shown = tuple(CARDS[c] for c in cards)
    if len(places) > 1:
        return Meld(SEQUENCE, suit, 0, lo, hi, 0, wilds, shown, tuple(sorted(places)))
    return Meld(SEQUENCE, suit, 0, lo, hi, places[0] if places else 0, wilds, shown)


def _lines_field(text: str, count: int) -> list[_Line]:
    out: list[_Line] = []
    for line, item in enumerate(_per(text, count, _LINES, "line")):
        where = _where(_LINES, f"line {line}")
        flags: set[str] = set()
        numbers = {"m": 0, "v": 0, "t": 0, "x": 0}
        if item != "-":
            if re.fullmatch(r"(?:[a-z](?:-?\d+)?)+", item) is None:
                raise PositionError(where, f"{item!r} is not a line's flags and counters")
            seen: set[str] = set()
            for letter, number in _LINE_ITEM.findall(item):
                if letter in seen:
                    raise PositionError(where, f"{letter!r} is given twice in {item!r}")
                seen.add(letter)
                if letter in "opr" and not number:
                    flags.add(letter)
                elif letter in numbers and number:
                    numbers[letter] = int(number)
                else:
                    raise PositionError(
                        where,
                        f"{letter}{number!s} in {item!r}: a line has the flags o (opened), "
                        "p (has its pozzetto), r (minimum raised) and the numbers m (minimum), "
                        "v (value laid toward the opening), t (red 3s), x (relancinhos)",
                    )
        out.append(
            _Line(
                "o" in flags,
                "p" in flags,
                "r" in flags,
                numbers["m"],
                numbers["v"],
                numbers["t"],
                numbers["x"],
            )
        )
    return out


def _seats_field(text: str, players: int, lines: int) -> tuple[list[int], list[bool]]:
    line_of: list[int] = []
    melded: list[bool] = []
    for s, item in enumerate(_per(text, players, _SEATS, "seat")):
        where = _where(_SEATS, f"seat {s}")
        match = _SEAT.fullmatch(item)
        if match is None:
            raise PositionError(
                where, f"{item!r}: a seat is its line, then m if it has melded, as 0m"
            )
        line = int(match.group(1))
        if line >= lines:
            raise PositionError(where, f"no line {line} (lines 0 to {lines - 1})")
        line_of.append(line)
        melded.append(bool(match.group(2)))
    return line_of, melded


_FLAGS: Final = ("first", "redrawn", "progress", "final", "forming", "out")
_NUMBERS: Final = ("turns", "quiet", "timeout", "closer")
_STATE_KEYS: Final = (
    *_FLAGS,
    *_NUMBERS,
    "drawn",
    "single",
    "tomeld",
    "pending",
    "frompile",
    "end",
)


def _state_field(text: str, players: int) -> _State:
    s = _State()
    if text == "-":
        return s
    seen: set[str] = set()
    for item in text.split(","):
        key, equals, value = item.partition("=")
        where = _where(_STATE, key or repr(item))
        if key not in _STATE_KEYS:
            raise PositionError(
                where, f"{item!r}: no key {key!r} (the keys: {', '.join(_STATE_KEYS)})"
            )
        if key in seen:
            raise PositionError(where, f"{key} is given twice")
        seen.add(key)
        if key in _FLAGS:
            if equals:
                raise PositionError(where, f"{item!r}: {key} is a flag, written alone")
            setattr(s, key, True)
            continue
        if not equals or not value:
            raise PositionError(where, f"{item!r}: {key} takes a value, as {key}=...")
        if key in ("turns", "quiet"):
            setattr(s, key, _int(value, where, key, 0))
        elif key == "timeout":
            s.timeout = _int(value, where, key, 0)
        elif key == "closer":
            s.closer = _seat(value, where, key, players)
        elif key in ("drawn", "single", "tomeld"):
            cards = _cards(value, where)
            if len(cards) != 1:
                raise PositionError(where, f"{item!r}: {key} is one card")
            setattr(s, key, cards[0])
        elif key == "pending":
            s.pending = [_int(p, where, key, 0) for p in value.split(".")]
        elif key == "frompile":
            s.from_pile = _cards(value, where)
        else:
            reason = value.replace("_", " ")
            if reason not in _END_REASONS:
                raise PositionError(
                    where,
                    f"no end {value!r} (the ends: "
                    + ", ".join(r.replace(" ", "_") for r in _END_REASONS)
                    + ")",
                )
            s.end = reason
    return s


def _check_state(p: _Parts) -> None:
    """What each field cannot say alone: the fields must agree."""
    s = p.state
    where = _where(_STATE)
    if (p.phase == OVER) != (s.end is not None):
        if s.end is None:
            raise PositionError(where, "the deal is over (phase over) but no end=REASON says why")
        raise PositionError(where, f"end={s.end.replace(' ', '_')} but the phase is {p.phase}")
    line = p.line_of[p.turn]
    for index in s.pending:
        if index >= len(p.melds[line]):
            raise PositionError(
                _where(_STATE, "pending"),
                f"meld {index} of line {line} (the line on turn): it has "
                f"{len(p.melds[line])} melds",
            )
    if p.seat is not None and p.seat != p.turn:
        for key, value in (("drawn", s.drawn >= 0), ("frompile", s.from_pile is not None)):
            if value:
                raise PositionError(
                    _where(_STATE, key),
                    f"seat {p.seat} is not on turn, so its view does not know {key}",
                )


# --- the cards must add up ------------------------------------------------------------------


def _deck_counts(v: Variant) -> list[int]:
    counts = [0] * KINDS
    for c in deck(v.decks, v.jokers):
        counts[c] += 1
    return counts


def _all_cards(p: _Parts) -> list[int]:
    """Every card the position lists (cards only: the counts of a view are left out)."""
    counts = [0] * KINDS
    places: list[Held | None] = [*p.hands, p.stock, p.buried, p.pile, *p.pozzetti, *p.taken]
    for place in places:
        if isinstance(place, list):
            for c in place:
                counts[c] += 1
    for line in p.melds:
        for m in line:
            for c in m.cards:
                counts[c] += 1
    return counts


def _difference(v: Variant, counts: Sequence[int], red_aside: int) -> str | None:
    """What keeps the cards from being the variant's deck exactly, or None."""
    full = _deck_counts(v)
    missing = [max(0, full[c] - counts[c]) for c in range(KINDS)]
    extra = [max(0, counts[c] - full[c]) for c in range(KINDS)]
    for red in (15, 28):  # 3H, 3D: those laid aside are counted by the lines, not listed
        gone = min(missing[red], red_aside)
        missing[red] -= gone
        red_aside -= gone
    parts: list[str] = []
    if any(extra):
        parts.append(f"too many {format_cards(cards_from_counts(extra))}")
    if any(missing):
        parts.append(f"missing {format_cards(cards_from_counts(missing))}")
    if red_aside:
        parts.append(f"{red_aside} more red 3s laid aside than the deck holds")
    if not parts:
        return None
    return (
        f"the cards do not add up to the {v.deck_size} cards of {v.name}'s deck "
        f"({'; '.join(parts)}): a deal holds every card exactly once, in the hands, the "
        "stock, the pile, the pozzetti and the melds (red 3s laid aside are counted by "
        "their lines)"
    )


def _check_deck(p: _Parts) -> None:
    problem = _difference(p.v, _all_cards(p), sum(line.red_threes for line in p.lines))
    if problem is not None:
        raise PositionError("cards", problem)


def _check_view_cards(p: _Parts) -> None:
    counts = _all_cards(p)
    full = _deck_counts(p.v)
    extra = [max(0, counts[c] - full[c]) for c in range(KINDS)]
    if any(extra):
        raise PositionError(
            "cards",
            f"the view shows more cards than {p.v.name}'s deck holds: too many "
            + format_cards(cards_from_counts(extra)),
        )
    places: list[Held | None] = [*p.hands, p.stock, p.buried, *p.pozzetti, *p.taken]
    hidden = sum(place for place in places if isinstance(place, int))
    total = sum(counts) + hidden + sum(line.red_threes for line in p.lines)
    if total != p.v.deck_size:
        raise PositionError(
            "cards",
            f"the cards shown and counted make {total}, not the {p.v.deck_size} "
            f"cards of {p.v.name}'s deck",
        )


# --- building the deal ------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _template(v: Variant) -> Deal:
    """A fresh deal of the variant: the lengths of its lists and the values a deal starts
    with (a position sets every slot; see :data:`DEAL_SLOTS`)."""
    return Deal.from_deck(v, deck(v.decks, v.jokers))


def _counts(held: Held) -> list[int]:
    """A count per kind; hidden cards (a view's ``#N``) stand as that many aces of spades."""
    counts = [0] * KINDS
    if isinstance(held, int):
        counts[0] = held
    else:
        for c in held:
            counts[c] += 1
    return counts


def _listed(held: Held) -> list[int]:
    return [0] * held if isinstance(held, int) else list(held)


def _build(p: _Parts) -> Deal:
    """The deal of a position's parts. A view's hidden cards stand as placeholders, so
    such a deal serves only to make the view (``view_of``)."""
    template = _template(p.v)
    deal = template.clone()
    deal.dealer = p.dealer
    deal.turn = p.turn
    deal.phase = p.phase
    deal.deck_order = ()
    deal.history = []
    deal.hands = [_counts(h) for h in p.hands]
    deal.sizes = [sum(h) for h in deal.hands]
    deal.stock = _listed(p.stock)[::-1]
    buried = _listed(p.buried)
    deal.pile = [*buried, *p.pile]
    deal.pile_hidden = len(buried)
    deal.pozzetti = [_listed(h) for h in p.pozzetti]
    deal.pending_pozzetto = [None if h is None else _listed(h) for h in p.taken]
    deal.melds = [list(line) for line in p.melds]
    deal.opened = [line.opened for line in p.lines]
    deal.has_pozzetto = [line.pozzetto for line in p.lines]
    deal.minimum_raised = [line.raised for line in p.lines]
    deal.minimum = [line.minimum for line in p.lines]
    deal.pending_value = [line.pending for line in p.lines]
    deal.red_threes = [line.red_threes for line in p.lines]
    deal.relancinhos = [line.relancinhos for line in p.lines]
    deal.line_of = list(p.line_of)
    deal._melded_seat = list(p.melded)
    deal.known = [_counts(k) for k in p.known]
    s = p.state
    deal.turns = s.turns
    deal._first_turn = s.first
    deal.drawn = s.drawn
    deal.redrawn = s.redrawn
    deal.taken_single = s.single
    deal.pile_top = s.tomeld
    deal._progress = s.progress
    deal._pending_melds = list(s.pending)
    deal._from_pile = None if s.from_pile is None else _counts(s.from_pile)
    deal.quiet_turns = s.quiet
    deal.timeout_turns = s.timeout
    deal.final_turn = s.final
    deal._partnerships_form = s.forming
    deal.closer = s.closer
    deal.went_out = s.out
    deal.end_reason = template.end_reason if s.end is None else s.end
    deal._last_take_meld = None
    deal._legal = None
    return deal


# --- composing a position from the parts a user cares about ---------------------------------

CardsLike = str | Iterable[int]


def _given(cards: CardsLike, where: str) -> list[int]:
    """Cards given as text (``"5H 6H"``, ``"5H6H"``) or as card kinds."""
    if isinstance(cards, str):
        return [
            c for word in cards.replace(",", " ").split() for c in _cards(word, where, loose=True)
        ]
    return [int(c) for c in cards]


def compose(
    v: Variant,
    hands: Sequence[CardsLike | None] = (),
    *,
    pile: CardsLike = (),
    stock_top: CardsLike = (),
    melds: Sequence[Sequence[CardsLike]] = (),
    dealer: int = 0,
    turn: int | None = None,
    phase: str = DRAW_PHASE,
    seed: int | None = None,
) -> Deal:
    """A deal set up from the parts a position maker cares about; the rest of the deck
    fills the other places.

    ``hands`` gives the cards of seat 0, 1, ... (``None`` or a missing seat: dealt
    ``hand_size`` cards from the rest); ``pile`` the face-up pile, bottom first;
    ``stock_top`` the next cards drawn, the first drawn first; ``melds`` each line's melds
    (its lines count as opened). The cards no one named fill the hands left to deal, then
    the pozzetti, then the stock under ``stock_top``, in the deck's order (by kind), or
    shuffled by ``seed``. The deal is at the start of ``turn``'s turn (by default the
    player who plays first after ``dealer``), in ``phase``, with no turn played yet.

    >>> from burraco import variant
    >>> deal = compose(
    ...     variant("italian"), ["3H 4H 5H 7S 7S 7C JK 9D 9D KC QC"],
    ...     pile="8H", stock_top="6H", turn=0,
    ... )
    >>> deal.turn, [str(c) for c in deal.pile], len(deal.hand(1)), len(deal.pozzetti[1])
    (0, ['8H'], 11, 11)
    >>> deal.apply("draw")
    >>> format_cards(deal.hand(0))
    '7S 7S 3H 4H 5H 6H 9D 9D 7C QC KC JK'
    >>> deal.position().split()[:4]
    ['bp1', 'italian/2/2', '0/0/play', '7S7S3H4H5H6H9D9D7CQCKCJK/ASAS2S2S3S3S4S4S5S5S6S']
    >>> compose(variant("italian"), ["JK JK JK JK JK"])
    Traceback (most recent call last):
    ...
    burraco.position.PositionError: cards: the cards named hold more than the 108 cards of italian's deck: too many JK
    """
    template = _template(v)
    players = v.players
    if isinstance(hands, str):
        raise PositionError("hands", 'give a list of hands, one per seat, as ["5H 6H 7H"]')
    if len(hands) > players:
        raise PositionError("hands", f"{len(hands)} hands for {players} seats")
    if len(melds) > len(template.melds):
        raise PositionError(
            "melds", f"melds for {len(melds)} lines, the table has {len(template.melds)}"
        )
    if not 0 <= dealer < players:
        raise PositionError("dealer", f"no seat {dealer} at a table of {players}")
    if turn is None:
        turn = dealer if v.dealer_plays_first else (dealer + 1) % players
    if not 0 <= turn < players:
        raise PositionError("turn", f"no seat {turn} at a table of {players}")
    if phase not in (DRAW_PHASE, PLAY_PHASE):
        raise PositionError("phase", f"no phase {phase!r} to start from (draw or play)")
    given: list[list[int] | None] = [
        None if h is None else _given(h, f"hands, seat {s}") for s, h in enumerate(hands)
    ]
    given += [None] * (players - len(given))
    laid: list[list[Meld]] = []
    for line, line_melds in enumerate(melds):
        laid.append([])
        for k, cards in enumerate(line_melds):
            found = meld_or_refusal(_given(cards, f"melds, line {line}, meld {k}"), v)
            if isinstance(found, Refusal):
                text = format_cards(_given(cards, ""))
                raise PositionError(
                    f"melds, line {line}, meld {k}", f"{text} is not a meld: {found}"
                )
            laid[line].append(found)
    laid += [[] for _ in range(len(template.melds) - len(laid))]
    if v.red_threes:
        for s, hand in enumerate(given):
            if hand and any(c in (15, 28) for c in hand):
                raise PositionError(f"hands, seat {s}", "red 3s are laid aside at once, never held")
    named = [
        *(c for h in given if h for c in h),
        *_given(pile, "pile"),
        *_given(stock_top, "stock"),
    ]
    named += [c for line in laid for m in line for c in m.cards]
    counts = [0] * KINDS
    for c in named:
        counts[c] += 1
    full = _deck_counts(v)
    extra = [max(0, counts[c] - full[c]) for c in range(KINDS)]
    if any(extra):
        raise PositionError(
            "cards",
            f"the cards named hold more than the {v.deck_size} cards of {v.name}'s deck: "
            f"too many {format_cards(cards_from_counts(extra))}",
        )
    rest = [c for c in range(KINDS) for _ in range(full[c] - counts[c])]
    if seed is not None:
        random.Random(seed).shuffle(rest)

    def take(n: int, where: str, skip_red: bool = False) -> list[int]:
        out: list[int] = []
        for c in list(rest):
            if len(out) == n:
                break
            if skip_red and c in (15, 28):
                continue
            out.append(c)
            rest.remove(c)
        if len(out) < n:
            raise PositionError(where, f"the deck has too few cards left to fill it ({n})")
        return out

    filled: list[Held] = [
        take(v.hand_size, f"hands, seat {s}", v.red_threes) if h is None else h
        for s, h in enumerate(given)
    ]
    pozzetti: list[Held] = [take(n, "pozzetti") for n in pozzetto_sizes(v)]
    lines = [
        _Line(bool(line) or template.minimum[k] == 0, False, False, v.opening_minimum, 0, 0, 0)
        for k, line in enumerate(laid)
    ]
    melded = [bool(laid[template.line_of[s]]) for s in range(players)]
    parts = _Parts(
        v=v,
        seat=None,
        dealer=dealer,
        turn=turn,
        phase=phase,
        hands=filled,
        stock=[*_given(stock_top, "stock"), *rest],
        buried=[],
        pile=_given(pile, "pile"),
        pozzetti=pozzetti,
        taken=[None] * players,
        melds=laid,
        lines=lines,
        line_of=list(template.line_of),
        melded=melded,
        known=[[] for _ in range(players)],
        state=_State(first=True, forming=template._partnerships_form),
    )
    _check_deck(parts)
    return _build(parts)
