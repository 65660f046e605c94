"""Game records: a whole match as text, in the spirit of PGN for chess.

A record holds header tags (the variant and every option that differs from
its preset, the players' names, the first dealer, the result), then one
section per deal: its dealer, the whole deck order, every action with the seat
that made it, and the deal's score. Replaying a record rebuilds the match from
the deck orders and checks every action and every score. ``docs/records.md``
describes the format.

>>> from burraco import variant
>>> from burraco.bots import RandomBot
>>> from burraco.match import Match
>>> match = Match(variant("italian", deals=1), seed=1)
>>> bot = RandomBot(seed=1)
>>> while not match.is_over:
...     match.apply(bot.choose(match.view(match.turn), match.legal_actions()))
>>> text = write_record(match, names=["Anna", "Bruno"], date="2025-01-01")
>>> print("\\n".join(text.splitlines()[:10]))
[Date "2025-01-01"]
[Variant "italian"]
[Players "2"]
[Lines "2"]
[Option "target=None"]
[Option "deals=1"]
[Seat0 "Anna"]
[Seat1 "Bruno"]
[Seed "1"]
[FirstDealer "0"]
>>> record = read_record(text)
>>> record.names, record.deals[0].actions[0].seat
(('Anna', 'Bruno'), 1)
>>> replay(record).totals == match.totals
True
>>> format_record(record) == text
True
"""

from __future__ import annotations

import ast
import dataclasses
import datetime
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from burraco.actions import Action
from burraco.cards import Card, deck, format_cards, parse_cards
from burraco.errors import RuleError
from burraco.match import Match
from burraco.variants import Variant, options_of, parse_option, variant

__all__ = [
    "TIME_OUT",
    "DealRecord",
    "MatchRecord",
    "RecordError",
    "RecordedAction",
    "ReplayError",
    "ReplayStep",
    "format_record",
    "load",
    "options_of",
    "parse_option",
    "read_record",
    "record_of",
    "replay",
    "replay_steps",
    "save",
    "write_record",
]

#: The director's time-out, as ``Deal.call_time_out`` stores it in a deal's history.
TIME_OUT: Final = "time-out"
#: How a match ended: over by its rules, still in play, or abandoned by a seat.
NORMAL: Final = "normal"
UNTERMINATED: Final = "unterminated"
ABANDONED: Final = "abandoned"

# Header tags the format defines (written in a fixed order by format_record).
_HEADER_TAGS: Final = frozenset(
    {
        "Event",
        "Date",
        "Variant",
        "Players",
        "Lines",
        "Option",
        "Seed",
        "FirstDealer",
        "Knockout",
        "Result",
        "Termination",
    }
)
_TAG_LINE: Final = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]')
_SEAT_TAG: Final = re.compile(r"Seat(\d+)")
_DEAL_LINE: Final = re.compile(r"Deal\s+(\d+)")
_ACTION_LINE: Final = re.compile(r"(\d+)\s*:\s*(.*)")
_ABANDONED: Final = re.compile(r"abandoned by seat (\d+)")


class RecordError(ValueError):
    """A record that cannot be read; the message starts with the line number."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class ReplayError(RuleError):
    """A record whose replay fails: an illegal action, or a deal, score or result that
    differs from the recorded one. The message names the line, the deal and the action."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class RecordedAction:
    """One line of a deal: the seat that acted and its action; the director's
    time-out has no seat."""

    seat: int | None
    action: Action
    #: The line of the record it was read from (0 when not read from text).
    line: int = field(default=0, compare=False, repr=False)

    @property
    def is_time_out(self) -> bool:
        return self.action.kind == TIME_OUT

    def __str__(self) -> str:
        """The text form: ``1: meld 5H 6H 7H``, or ``time-out``."""
        return TIME_OUT if self.seat is None else f"{self.seat}: {self.action}"


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal: its dealer, its deck (top card first), its actions, and, once it is
    over, how it ended and the points of each match line."""

    dealer: int
    deck: tuple[Card, ...]
    actions: tuple[RecordedAction, ...] = ()
    #: How the deal ended (``Deal.end_reason``); None while it is in play.
    end: str | None = None
    #: Points per match line (per player in the 3- and 5-player games); None while in play.
    scores: tuple[int, ...] | None = None
    line: int = field(default=0, compare=False, repr=False)
    deck_line: int = field(default=0, compare=False, repr=False)
    score_line: int = field(default=0, compare=False, repr=False)

    @property
    def is_over(self) -> bool:
        return self.scores is not None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole match as data: what :func:`read_record` returns and :func:`format_record`
    writes."""

    #: The preset's name (``italian``, ``online``, ``buraco``, ``canasta``).
    variant: str
    players: int
    lines: int
    #: Every option that differs from the preset for this table, as (name, value).
    options: tuple[tuple[str, Any], ...] = ()
    #: One name per seat, or none.
    names: tuple[str, ...] = ()
    first_dealer: int = 0
    deals: tuple[DealRecord, ...] = ()
    #: The match totals per match line; None when not recorded.
    result: tuple[int, ...] | None = None
    #: ``normal``, ``unterminated`` or ``abandoned``; None when not recorded.
    termination: str | None = None
    abandoned_by: int | None = None
    seed: int | None = None
    date: str | None = None
    event: str | None = None
    knockout: bool = False
    #: Other header tags, kept in order.
    tags: tuple[tuple[str, str], ...] = ()
    result_line: int = field(default=0, compare=False, repr=False)

    def rules(self) -> Variant:
        """The variant of the match: the preset for the table, with the options.

        >>> MatchRecord("online", 4, 2, options=(("deals", 5),)).rules().deals
        5
        """
        base = variant(self.variant, players=self.players, lines=self.lines)
        return base.with_options(**dict(self.options))

    def __str__(self) -> str:
        return format_record(self)


# --- from a match -----------------------------------------------------------------------------


def record_of(
    match: Match,
    names: Sequence[str] | None = None,
    event: str | None = None,
    date: str | None = None,
) -> MatchRecord:
    """The record of a match, played or in play.

    ``date`` defaults to today's date (ISO form). Each action's seat is found by
    replaying the deals from their deck orders.
    """
    v = match.v
    if names is not None and len(names) != v.players:
        raise ValueError(f"{len(names)} names for {v.players} seats")
    options = options_of(v)
    for name, value in options:
        if ast.literal_eval(repr(value)) != value:
            raise ValueError(f"option {name}={value!r} has no literal form")
    shadow = Match(
        v,
        match.seed,
        first_dealer=match.first_dealer,
        deck_orders=[d.deck_order for d in match.deals],
        knockout=match.knockout,
    )
    deals: list[DealRecord] = []
    for index, played in enumerate(match.deals):
        actions: list[RecordedAction] = []
        for action in played.history:
            if action.kind == TIME_OUT:
                shadow.call_time_out()
                actions.append(RecordedAction(None, action))
            else:
                actions.append(RecordedAction(shadow.deal.turn, action))
                shadow.apply(action)
        over = index < len(match.scores)
        deals.append(
            DealRecord(
                dealer=played.dealer,
                deck=played.deck_order,
                actions=tuple(actions),
                end=played.end_reason if over else None,
                scores=tuple(match.scores[index].points) if over else None,
            )
        )
    if match.abandoned is not None:
        termination = ABANDONED
    else:
        termination = NORMAL if match.is_over else UNTERMINATED
    return MatchRecord(
        variant=v.name,
        players=v.players,
        lines=v.lines,
        options=options,
        names=tuple(names) if names is not None else (),
        first_dealer=match.first_dealer,
        deals=tuple(deals),
        result=tuple(match.totals),
        termination=termination,
        abandoned_by=match.abandoned_by if match.abandoned is not None else None,
        seed=match.seed,
        date=date if date is not None else datetime.date.today().isoformat(),
        event=event,
        knockout=match.knockout,
    )


# --- writing ----------------------------------------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _tag(name: str, value: str) -> str:
    return f'[{name} "{_escape(value)}"]'


def _numbers(values: Sequence[int]) -> str:
    return " ".join(str(n) for n in values)


def format_record(record: MatchRecord) -> str:
    """The text of a record (see ``docs/records.md``); :func:`read_record` reads it back."""
    out: list[str] = []
    if record.event is not None:
        out.append(_tag("Event", record.event))
    if record.date is not None:
        out.append(_tag("Date", record.date))
    out.append(_tag("Variant", record.variant))
    out.append(_tag("Players", str(record.players)))
    out.append(_tag("Lines", str(record.lines)))
    out.extend(_tag("Option", f"{name}={value!r}") for name, value in record.options)
    out.extend(_tag(f"Seat{seat}", name) for seat, name in enumerate(record.names))
    if record.seed is not None:
        out.append(_tag("Seed", str(record.seed)))
    out.append(_tag("FirstDealer", str(record.first_dealer)))
    if record.knockout:
        out.append(_tag("Knockout", "True"))
    if record.result is not None:
        out.append(_tag("Result", _numbers(record.result)))
    if record.termination is not None:
        termination = record.termination
        if termination == ABANDONED:
            termination = f"abandoned by seat {record.abandoned_by}"
        out.append(_tag("Termination", termination))
    out.extend(_tag(name, value) for name, value in record.tags)
    for number, deal in enumerate(record.deals, 1):
        out.append("")
        out.append(f"Deal {number}")
        out.append(_tag("Dealer", str(deal.dealer)))
        out.append(_tag("Deck", format_cards(deal.deck)))
        out.extend(str(a) for a in deal.actions)
        if deal.scores is not None:
            out.append(_tag("End", deal.end or ""))
            out.append(_tag("Score", _numbers(deal.scores)))
    return "\n".join(out) + "\n"


def write_record(
    match: Match,
    names: Sequence[str] | None = None,
    event: str | None = None,
    date: str | None = None,
) -> str:
    """The text record of a match (``date`` defaults to today)."""
    return format_record(record_of(match, names=names, event=event, date=date))


def save(
    match: Match,
    path: str | Path,
    names: Sequence[str] | None = None,
    event: str | None = None,
    date: str | None = None,
) -> None:
    """Write the record of a match to a file (UTF-8)."""
    Path(path).write_text(write_record(match, names, event, date), encoding="utf-8")


# --- reading ----------------------------------------------------------------------------------


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of a record, with ``{...}`` comments and blank lines removed.

    A comment may span lines; a tag line is taken whole (its value may hold braces).
    """
    in_comment = False
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw
        if not in_comment and line.lstrip().startswith("["):
            yield number, line.strip()
            continue
        kept: list[str] = []
        i = 0
        while i < len(line):
            if in_comment:
                end = line.find("}", i)
                if end < 0:
                    i = len(line)
                else:
                    in_comment = False
                    i = end + 1
            else:
                begin = line.find("{", i)
                if begin < 0:
                    kept.append(line[i:])
                    i = len(line)
                else:
                    kept.append(line[i:begin])
                    in_comment = True
                    start = number
                    i = begin + 1
        stripped = "".join(kept).strip()
        if stripped:
            yield number, stripped
    if in_comment:
        raise RecordError(start, "a comment opened with '{' is never closed")


def _int(text: str, what: str, line: int, low: int = 0, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise RecordError(line, f"{what} must be a whole number, not {text!r}") from None
    if value < low or (high is not None and value > high):
        top = "" if high is None else f" to {high}"
        raise RecordError(line, f"{what} must be {low}{top}, not {value}")
    return value


def _ints(text: str, what: str, count: int, line: int) -> tuple[int, ...]:
    words = text.split()
    values: list[int] = []
    for word in words:
        try:
            values.append(int(word))
        except ValueError:
            raise RecordError(line, f"{what}: {word!r} is not a whole number") from None
    if len(values) != count:
        raise RecordError(line, f"{what} needs {count} numbers, one per match line, not {text!r}")
    return tuple(values)


def _option(text: str, line: int) -> tuple[str, Any]:
    try:
        return parse_option(text)
    except ValueError as error:
        raise RecordError(line, str(error)) from None


class _DealDraft:
    def __init__(self, number: int, line: int) -> None:
        self.number = number
        self.line = line
        self.dealer: int | None = None
        self.deck: tuple[Card, ...] | None = None
        self.deck_line = 0
        self.actions: list[RecordedAction] = []
        self.end: str | None = None
        self.end_line = 0
        self.scores: tuple[int, ...] | None = None
        self.score_line = 0

    def done(self) -> DealRecord:
        where = f"deal {self.number}"
        if self.dealer is None:
            raise RecordError(self.line, f"{where} has no [Dealer] tag")
        if self.deck is None:
            raise RecordError(self.line, f"{where} has no [Deck] tag")
        if (self.end is None) != (self.scores is None):
            line = self.end_line or self.score_line
            raise RecordError(line, f"{where}: [End] and [Score] go together")
        return DealRecord(
            dealer=self.dealer,
            deck=self.deck,
            actions=tuple(self.actions),
            end=self.end,
            scores=self.scores,
            line=self.line,
            deck_line=self.deck_line,
            score_line=self.score_line,
        )


def read_record(text: str) -> MatchRecord:
    """Read a record; raise :class:`RecordError` (a ``ValueError``) with the line number of
    anything malformed. The variant and its options are checked; the actions are checked
    by :func:`replay`.

    >>> read_record('[Variant "italian"]\\n[Players "2"]\\n[Option "semi_clean=Flase"]\\n')
    Traceback (most recent call last):
    ...
    burraco.record.RecordError: line 3: option semi_clean: 'Flase' is not a literal
    """
    header: dict[str, tuple[str, int]] = {}
    options: list[tuple[str, Any]] = []
    seats: dict[int, tuple[str, int]] = {}
    extra: list[tuple[str, str]] = []
    drafts: list[_DealDraft] = []
    players = 0
    for number, line in _logical_lines(text):
        deal = drafts[-1] if drafts else None
        tag = _TAG_LINE.fullmatch(line)
        if tag is not None:
            name, value = tag.group(1), _unescape(tag.group(2))
            if deal is None:
                _header_tag(name, value, number, header, options, seats, extra)
            else:
                if not players:
                    players = _players(header)
                _deal_tag(deal, name, value, number, players, header)
            continue
        if line.startswith("["):
            raise RecordError(number, f'a tag is [Name "value"], not {line!r}')
        found = _DEAL_LINE.fullmatch(line)
        if found is not None:
            expected = len(drafts) + 1
            if int(found.group(1)) != expected:
                raise RecordError(number, f"expected Deal {expected}, not {line!r}")
            if deal is not None:
                deal.done()
            drafts.append(_DealDraft(expected, number))
            continue
        if deal is None:
            raise RecordError(number, f"expected a header tag or 'Deal 1', not {line!r}")
        if not players:
            players = _players(header)
        if deal.deck is None or deal.dealer is None:
            raise RecordError(number, f"deal {deal.number}: [Dealer] and [Deck] come first")
        if deal.scores is not None or deal.end is not None:
            raise RecordError(number, f"deal {deal.number}: an action after the deal's end")
        deal.actions.append(_action(line, number, players))
    return _finish(header, options, seats, extra, drafts)


def _header_tag(
    name: str,
    value: str,
    line: int,
    header: dict[str, tuple[str, int]],
    options: list[tuple[str, Any]],
    seats: dict[int, tuple[str, int]],
    extra: list[tuple[str, str]],
) -> None:
    if name == "Option":
        option = _option(value, line)
        if any(option[0] == known for known, _ in options):
            raise RecordError(line, f"option {option[0]} is given twice")
        options.append(option)
        return
    seat = _SEAT_TAG.fullmatch(name)
    if seat is not None:
        index = int(seat.group(1))
        if index in seats:
            raise RecordError(line, f"seat {index} is named twice")
        seats[index] = (value, line)
        return
    if name in ("Dealer", "Deck", "End", "Score"):
        raise RecordError(line, f"[{name}] belongs to a deal: it comes after 'Deal N'")
    if name in _HEADER_TAGS:
        if name in header:
            raise RecordError(line, f"[{name}] is given twice")
        header[name] = (value, line)
        return
    extra.append((name, value))


def _players(header: dict[str, tuple[str, int]]) -> int:
    if "Players" not in header:
        line = header["Variant"][1] if "Variant" in header else 1
        raise RecordError(line, "the header has no [Players] tag")
    value, line = header["Players"]
    return _int(value, "Players", line, 2, 6)


def _deal_tag(
    deal: _DealDraft,
    name: str,
    value: str,
    line: int,
    players: int,
    header: dict[str, tuple[str, int]],
) -> None:
    where = f"deal {deal.number}"
    if name == "Dealer":
        if deal.dealer is not None or deal.actions:
            raise RecordError(line, f"{where}: [Dealer] comes once, before the actions")
        deal.dealer = _int(value, "Dealer", line, 0, players - 1)
    elif name == "Deck":
        if deal.deck is not None or deal.actions:
            raise RecordError(line, f"{where}: [Deck] comes once, before the actions")
        try:
            deal.deck = tuple(parse_cards(value))
        except ValueError as error:
            raise RecordError(line, f"{where}: {error}") from None
        deal.deck_line = line
    elif name == "End":
        if deal.end is not None:
            raise RecordError(line, f"{where}: [End] is given twice")
        deal.end = value
        deal.end_line = line
    elif name == "Score":
        if deal.scores is not None:
            raise RecordError(line, f"{where}: [Score] is given twice")
        lines = _lines(header, players)
        deal.scores = _ints(value, "Score", lines, line)
        deal.score_line = line
    else:
        raise RecordError(
            line, f"{where}: a deal holds [Dealer], [Deck], [End] and [Score], not [{name}]"
        )


def _lines(header: dict[str, tuple[str, int]], players: int) -> int:
    if "Lines" in header:
        value, line = header["Lines"]
        return _int(value, "Lines", line, 2, players)
    name = header["Variant"][0] if "Variant" in header else "italian"
    try:
        return variant(name, players=players).lines
    except RuleError:
        return players


def _action(text: str, line: int, players: int) -> RecordedAction:
    if text.lower() == TIME_OUT:
        return RecordedAction(None, Action(TIME_OUT), line)
    found = _ACTION_LINE.fullmatch(text)
    if found is None:
        raise RecordError(line, f"an action line is 'SEAT: ACTION' or 'time-out', not {text!r}")
    seat = _int(found.group(1), "the seat", line, 0, players - 1)
    try:
        action = Action.parse(found.group(2))
    except ValueError as error:
        raise RecordError(line, str(error)) from None
    return RecordedAction(seat, action, line)


def _finish(
    header: dict[str, tuple[str, int]],
    options: list[tuple[str, Any]],
    seats: dict[int, tuple[str, int]],
    extra: list[tuple[str, str]],
    drafts: list[_DealDraft],
) -> MatchRecord:
    if "Variant" not in header:
        raise RecordError(1, "the header has no [Variant] tag")
    name, name_line = header["Variant"]
    players = _players(header)
    lines = _lines(header, players)
    deals = tuple(d.done() for d in drafts)
    if seats:
        missing = [s for s in range(players) if s not in seats]
        if missing or len(seats) != players:
            line = max(line for _, line in seats.values())
            raise RecordError(line, f"name every seat 0 to {players - 1}, or none")
    names = tuple(seats[s][0] for s in range(players)) if seats else ()
    if "FirstDealer" in header:
        value, line = header["FirstDealer"]
        first_dealer = _int(value, "FirstDealer", line, 0, players - 1)
    elif deals:
        first_dealer = deals[0].dealer
    else:
        raise RecordError(name_line, "the header has no [FirstDealer] tag")
    result: tuple[int, ...] | None = None
    result_line = 0
    if "Result" in header:
        value, result_line = header["Result"]
        result = _ints(value, "Result", lines, result_line)
    termination: str | None = None
    abandoned_by: int | None = None
    if "Termination" in header:
        value, line = header["Termination"]
        abandoned = _ABANDONED.fullmatch(value)
        if abandoned is not None:
            termination = ABANDONED
            abandoned_by = _int(abandoned.group(1), "the seat", line, 0, players - 1)
        elif value in (NORMAL, UNTERMINATED):
            termination = value
        else:
            raise RecordError(
                line, f"Termination is normal, unterminated or 'abandoned by seat N', not {value!r}"
            )
    seed: int | None = None
    if "Seed" in header:
        value, line = header["Seed"]
        seed = _int(value, "Seed", line, -(2**63))
    knockout = False
    if "Knockout" in header:
        value, line = header["Knockout"]
        if value not in ("True", "False"):
            raise RecordError(line, f"Knockout is True or False, not {value!r}")
        knockout = value == "True"
    record = MatchRecord(
        variant=name,
        players=players,
        lines=lines,
        options=tuple(options),
        names=names,
        first_dealer=first_dealer,
        deals=deals,
        result=result,
        termination=termination,
        abandoned_by=abandoned_by,
        seed=seed,
        date=header["Date"][0] if "Date" in header else None,
        event=header["Event"][0] if "Event" in header else None,
        knockout=knockout,
        tags=tuple(extra),
        result_line=result_line,
    )
    try:
        v = record.rules()
    except (RuleError, TypeError, ValueError) as error:
        raise RecordError(name_line, f"the variant cannot be built: {error}") from None
    if v.name != name:
        record = dataclasses.replace(record, variant=v.name)
    return record


def load(path: str | Path) -> MatchRecord:
    """Read a record from a file (UTF-8); :func:`replay` turns it into a match."""
    return read_record(Path(path).read_text(encoding="utf-8"))


# --- replaying --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The state of a replay just after one recorded action."""

    match: Match
    #: The deal's number, from 1.
    deal: int
    #: The action's number in its deal, from 1.
    index: int
    action: RecordedAction


def replay(record: MatchRecord) -> Match:
    """Rebuild the match of a record, checking every action, every deal's score and the
    result; raise :class:`ReplayError` (a :class:`~burraco.errors.RuleError`) naming the
    line, the deal and the action at the first difference."""
    match: Match | None = None
    for step in replay_steps(record):
        match = step.match
    if match is None:  # pragma: no cover - replay_steps raises on a record with no deal
        raise ReplayError(0, "the record has no deal")
    return match


def replay_steps(record: MatchRecord) -> Iterator[ReplayStep]:
    """Replay a record action by action, yielding the match after each one; the checks
    are those of :func:`replay`, made as the replay reaches them."""
    v = record.rules()
    if not record.deals:
        raise ReplayError(0, "the record has no deal")
    cards = sorted(deck(v.decks, v.jokers))
    for number, d in enumerate(record.deals, 1):
        if sorted(d.deck) != cards:
            raise ReplayError(
                d.deck_line,
                f"deal {number}: the deck must hold the {len(cards)} cards of {v.name} "
                f"({v.decks} decks and {v.jokers} jokers) exactly once each; "
                f"it holds {len(d.deck)} cards{_deck_difference(d.deck, cards)}",
            )
    match = Match(
        v,
        record.seed,
        first_dealer=record.first_dealer,
        deck_orders=[d.deck for d in record.deals],
        knockout=record.knockout,
    )
    for index, d in enumerate(record.deals):
        number = index + 1
        if len(match.deals) <= index:
            raise ReplayError(
                d.line, f"the match is over after deal {index}, yet deal {number} follows"
            )
        deal = match.deals[index]
        if deal.dealer != d.dealer:
            raise ReplayError(
                d.line, f"deal {number}: the dealer is seat {deal.dealer}, not seat {d.dealer}"
            )
        for k, recorded in enumerate(d.actions, 1):
            where = f"deal {number}, action {k} ({recorded})"
            if deal.is_over:
                raise ReplayError(
                    recorded.line, f"{where}: the deal is already over ({deal.end_reason})"
                )
            try:
                if recorded.seat is None:
                    match.call_time_out()
                else:
                    if recorded.seat != deal.turn:
                        raise ReplayError(recorded.line, f"{where}: it is seat {deal.turn}'s turn")
                    match.apply(recorded.action)
            except ReplayError:
                raise
            except RuleError as error:
                reason = str(error)
                prefix = f"{recorded.action}: "
                if reason.startswith(prefix):
                    reason = reason[len(prefix) :]
                raise ReplayError(recorded.line, f"{where} is illegal: {reason}") from error
            yield ReplayStep(match, number, k, recorded)
        _check_deal_end(match, index, d, number)
    _check_result(match, record)


def _deck_difference(given: Sequence[int], cards: Sequence[int]) -> str:
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    for c in given:
        counts[c] = counts.get(c, 0) - 1
    extra = [Card(c) for c, n in sorted(counts.items()) for _ in range(-n) if n < 0]
    missing = [Card(c) for c, n in sorted(counts.items()) for _ in range(n) if n > 0]
    parts = []
    if extra:
        parts.append(f"too many {format_cards(extra)}")
    if missing:
        parts.append(f"missing {format_cards(missing)}")
    return f" ({'; '.join(parts)})" if parts else ""


def _check_deal_end(match: Match, index: int, d: DealRecord, number: int) -> None:
    deal = match.deals[index]
    last = d.actions[-1].line if d.actions else d.line
    if d.scores is None:
        if deal.is_over:
            raise ReplayError(
                last,
                f"deal {number} is over after this action ({deal.end_reason}), "
                "but the record gives no [End] and [Score]",
            )
        return
    if not deal.is_over:
        raise ReplayError(
            d.score_line,
            f"deal {number} is not over after its {len(d.actions)} actions, "
            f"yet the record ends it ({d.end})",
        )
    if deal.end_reason != d.end:
        raise ReplayError(
            d.score_line, f"deal {number} ended by {deal.end_reason!r}, the record says {d.end!r}"
        )
    got = tuple(match.scores[index].points)
    if got != d.scores:
        raise ReplayError(
            d.score_line,
            f"deal {number}: the record gives the score {_numbers(d.scores)}, "
            f"the replay {_numbers(got)}",
        )


def _check_result(match: Match, record: MatchRecord) -> None:
    last = record.deals[-1]
    if record.termination == ABANDONED and record.abandoned_by is not None:
        if match.is_over:
            raise ReplayError(last.line, "the match is over; it cannot be abandoned")
        match.abandon(record.abandoned_by)
    if record.termination == NORMAL and not match.is_over:
        raise ReplayError(
            last.score_line or last.line,
            f"the record says the match is over, but after deal {len(record.deals)} it is not",
        )
    if record.termination == UNTERMINATED and match.is_over:
        raise ReplayError(last.line, "the record says the match is in play, but it is over")
    if record.result is not None and tuple(match.totals) != record.result:
        raise ReplayError(
            record.result_line,
            f"the record gives the result {_numbers(record.result)}, "
            f"the replay {_numbers(match.totals)}",
        )
