"""The ``burraco`` command: play in the terminal, replay a record, list the variants.

::

    burraco play --variant italian --players 2 --seat 0 --seed 7 --deals 1 --save game.txt
    burraco replay game.txt --step
    burraco review game.txt --seat 0 --deal 1 --seconds 0.5
    burraco variants

At the prompt of ``play`` a player types an action in its text form (``draw``,
``take``, ``meld 5H 6H 7H``, ``extend 0 8H``, ``discard 9C``; suit symbols and
lower case are accepted), or the number of an action in the list that ``?`` or
``help`` shows, ``table`` to draw the table again, or ``quit``.

>>> from burraco.cards import format_cards, parse_cards
>>> cards_text(parse_cards("10H JK 2S")).plain
'10♥ JK 2♠'
>>> format_cards(hand_order(parse_cards("5H 2S AS JK KD 3C"), wild_first=True))
'JK 2S AS 5H 3C KD'
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from burraco.actions import DISCARD, Action
from burraco.bots import Bot
from burraco.bots.arena import bot_names, make_bot, run_arena
from burraco.cards import JOKER, Card
from burraco.errors import IllegalMove, RuleError
from burraco.match import Match
from burraco.melds import grade_of
from burraco.record import TIME_OUT, load, parse_option, replay_steps, save
from burraco.scoring import DealScore
from burraco.terminal import refusal
from burraco.variants import PRESETS, SETUPS, Variant, variant
from burraco.view import DealView

__all__ = ["app", "card_text", "cards_text", "hand_order"]

#: The options that set a table, shared by the commands that play.
VariantName = Annotated[
    str,
    typer.Option(
        "--variant", help="italian, online, buraco, canasta, buraco-aberto, buraco-fechado or stbl."
    ),
]
Players = Annotated[int, typer.Option(help="Players at the table.")]
Lines = Annotated[int | None, typer.Option(help="Lines (teams).")]
VariantOptions = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="A variant option NAME=VALUE (repeatable)."),
]

app = typer.Typer(
    name="burraco",
    help="Burraco, Buraco and Italian Canasta in the terminal.",
    no_args_is_help=True,
    add_completion=False,
)


def engine_line() -> str:
    """The package's version and the rules engine that runs (compiled by mypyc, or pure)."""
    from burraco import __version__
    from burraco._engine import REASON, engine

    return f"burraco {__version__}, {engine()} engine ({REASON})"


def _print_version(value: bool) -> None:
    if value:
        print(engine_line())
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Show the version and which rules engine runs (compiled or pure), and exit.",
        ),
    ] = False,
) -> None:
    """Burraco, Buraco and Italian Canasta in the terminal."""


_SUIT_SYMBOLS: Final = "♠♥♦♣"
# Suits in the hand alternate colours: spades, hearts, clubs, diamonds.
_SUIT_ORDER: Final = (0, 1, 3, 2)
_RANKS: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_QUIT: Final = frozenset({"quit", "q", "exit"})
_HELP: Final = frozenset({"?", "help", "h"})
_GRADE_NAMES: Final = {"burraco": "burraco", "buraco": "canastra", "canasta": "canasta"}


# --- cards on screen --------------------------------------------------------------------------


def card_text(card: int) -> Text:
    """A card with its suit symbol; hearts and diamonds red, jokers magenta."""
    if card == JOKER:
        return Text("JK", style="bold magenta")
    rank, suit = card % 13 + 1, card // 13
    return Text(_RANKS[rank] + _SUIT_SYMBOLS[suit], style="red" if suit in (1, 2) else "")


def cards_text(cards: Iterable[int], sep: str = " ") -> Text:
    return Text(sep).join(card_text(c) for c in cards)


def action_text(action: Action) -> Text:
    """An action with its cards drawn as cards: ``meld 5♥ 6♥ 7♥``."""
    if action.kind == TIME_OUT:
        return Text("time-out (the director)", style="bold yellow")
    text = Text(action.kind if action.target < 0 else f"{action.kind} {action.target}")
    if action.cards:
        text.append(" ")
        text.append_text(cards_text(action.cards))
    return text


def _is_wild(card: int) -> bool:
    return card == JOKER or card % 13 == 1


def hand_order(cards: Iterable[Card], wild_first: bool = True) -> list[Card]:
    """A hand sorted by suit (spades, hearts, clubs, diamonds) and rank, the ace low;
    with ``wild_first`` the jokers and the 2s come first."""

    def key(card: Card) -> tuple[int, int, int]:
        if card == JOKER:
            return (0, 0, 0)
        wild = 0 if wild_first and _is_wild(card) else 1
        return (wild, _SUIT_ORDER.index(card // 13), card % 13)

    return sorted(cards, key=key)


def _hand_text(cards: Sequence[Card], wild_first: bool) -> Text:
    ordered = hand_order(cards, wild_first)
    groups: list[list[Card]] = []
    last: tuple[bool, int] | None = None
    for card in ordered:
        group = (wild_first and _is_wild(card), -1 if _is_wild(card) and wild_first else card // 13)
        if group != last:
            groups.append([])
            last = group
        groups[-1].append(card)
    return Text("   ").join(cards_text(g) for g in groups)


# --- the table --------------------------------------------------------------------------------


def _line_names(names: Sequence[str], line_of: Sequence[int], line: int) -> str:
    return " & ".join(names[s] for s, ln in enumerate(line_of) if ln == line)


def _match_line_names(v: Variant, names: Sequence[str]) -> list[str]:
    return [_line_names(names, v.line_of, line) for line in range(v.lines)]


def _totals_text(match: Match, names: Sequence[str]) -> Text:
    v = match.v
    text = Text("Totals  ", style="bold")
    parts = [
        f"{label} {total}"
        for label, total in zip(_match_line_names(v, names), match.totals, strict=True)
    ]
    text.append(" · ".join(parts))
    goal = []
    if v.target is not None:
        goal.append(f"to {v.target}")
    if v.deals is not None:
        goal.append(f"{v.deals} deal{'s' if v.deals != 1 else ''}")
    if goal:
        text.append(f"   ({', '.join(goal)})", style="dim")
    return text


def _line_heading(
    view: DealView, v: Variant, line: int, names: Sequence[str], you: str | None
) -> Text:
    """``Line 1: Bot 1 11 cards, Bot 3 9 cards · no pozzetto yet``; the seat on turn in cyan."""
    me = view.seat
    text = Text(f"Line {line}: ", style="bold")
    seats = [s for s, ln in enumerate(view.line_of) if ln == line]
    for k, seat in enumerate(seats):
        if k:
            text.append(", ")
        label = you if seat == me and you is not None else names[seat]
        text.append(label, style="bold cyan" if seat == view.turn else "bold")
        if seat != me or you is None:
            text.append(f" {view.hand_sizes[seat]} cards")
            if view.pozzetto_face_down[seat]:
                text.append(f" + pozzetto of {view.pozzetto_face_down[seat]} face down")
    status = []
    if v.pozzetti:
        status.append("pozzetto taken" if view.has_pozzetto[line] else "no pozzetto yet")
    if v.red_threes and view.red_threes[line]:
        status.append(f"red 3s: {view.red_threes[line]}")
    if not view.opened[line] and view.minimum[line]:
        status.append(f"opens with {view.minimum[line]}")
    if status:
        text.append(" · " + ", ".join(status), style="dim")
    return text


def _melds_block(
    view: DealView, v: Variant, line: int, names: Sequence[str], you: str | None
) -> list[RenderableType]:
    rows: list[RenderableType] = [_line_heading(view, v, line, names, you)]
    melds = view.melds[line]
    if not melds:
        rows.append(Text("   no melds", style="dim"))
    kind = _GRADE_NAMES[v.family]
    for number, meld in enumerate(melds):
        row = Text(f"  {number:>2}  ")
        row.append_text(cards_text(meld.cards))
        grade = grade_of(meld, v)
        if grade is not None:
            row.append(f"   ★ {grade} {kind}", style="green")
        rows.append(row)
    return rows


def _pile_text(view: DealView) -> Text:
    text = Text(f"Stock {view.stock_size}", style="bold")
    if view.pozzetti:
        text.append(f" · Pozzetti left: {' and '.join(map(str, view.pozzetti))} cards")
    text.append(f" · Pile {len(view.pile) + view.pile_hidden}")
    if view.pile_hidden:
        text.append(f" ({view.pile_hidden} face down)")
    if view.pile:
        text.append(": ")
        shown = view.pile[-16:]
        if len(shown) < len(view.pile):
            text.append("… ")
        text.append_text(cards_text(shown[:-1]))
        if len(shown) > 1:
            text.append(" ")
        text.append("[")
        text.append_text(card_text(shown[-1]))
        text.append("] top")
    return text


def render_table(
    view: DealView,
    match: Match,
    names: Sequence[str],
    *,
    recent: Sequence[tuple[int | None, Action]] = (),
    this_turn: Sequence[Action] = (),
    wild_first: bool = True,
    title: str | None = None,
    hand_label: str = "Your hand",
    you: str | None = "you",
) -> RenderableType:
    """The table as one seat sees it: the other lines and their melds above, the stock,
    the pile and the pozzetti, the seat's own line, its melds and its hand below. Melds
    are numbered as in ``extend N CARD``. ``you`` names the seat in its line's heading
    (None: by its name, with its hand size)."""
    v = match.v
    me = view.seat
    mine = view.line
    parts: list[RenderableType] = []
    heading = title or f"{v.name} · deal {len(match.deals)} · dealer {names[view.dealer]}"
    parts.append(Rule(heading))
    parts.append(_totals_text(match, names))
    for line in sorted(set(view.line_of)):
        if line != mine:
            parts.extend(_melds_block(view, v, line, names, you))
    parts.append(_pile_text(view))
    parts.extend(_melds_block(view, v, mine, names, you))
    for partner, cards in view.partner_hands:
        shown = Text(f"{names[partner]}'s hand: ", style="bold")
        parts.append(shown.append_text(_hand_text(cards, wild_first)))
    hand = Text(f"{hand_label} ({len(view.hand)}): ", style="bold")
    hand.append_text(_hand_text(view.hand, wild_first))
    if view.pozzetto_face_down[me]:
        hand.append(f"   + pozzetto of {view.pozzetto_face_down[me]} face down", style="dim")
    parts.append(hand)
    if recent:
        parts.append(_recent_text(recent, names))
    if this_turn:
        done = Text("This turn: ", style="dim")
        done.append_text(Text(" · ").join(action_text(a) for a in this_turn))
        parts.append(done)
    return Group(*parts)


def _recent_text(recent: Sequence[tuple[int | None, Action]], names: Sequence[str]) -> Text:
    """The actions of the others, one line per turn."""
    text = Text()
    last: int | None = -1
    for seat, action in recent:
        if seat != last or seat is None:
            if text:
                text.append("\n")
            text.append("director" if seat is None else names[seat], style="bold")
            text.append(": ")
            last = seat
        else:
            text.append(" · ")
        text.append_text(action_text(action))
    return text


def score_table(score: DealScore, v: Variant, names: Sequence[str]) -> Table:
    """A deal's score, line by line, with its parts."""
    kind = _GRADE_NAMES[v.family]
    table = Table(title=f"Deal score ({score.end_reason or 'in play'})", title_justify="left")
    table.add_column("Line")
    table.add_column("Melded", justify="right")
    table.add_column("In hand", justify="right")
    table.add_column(f"{kind.capitalize()}s")
    table.add_column("Going out" if v.family != "burraco" else "Closing", justify="right")
    if v.pozzetti:
        table.add_column("Pozzetto", justify="right")
    relancinho = any(ls.relancinho for ls in score.lines)
    if relancinho:
        table.add_column("Relancinho", justify="right")
    if v.red_threes:
        table.add_column("Red 3s", justify="right")
    table.add_column("Total", justify="right", style="bold")
    for ls in score.lines:
        bonuses = ", ".join(f"{grade} {bonus}" for grade, bonus in ls.burracos) or "-"
        row = [
            " & ".join(names[s] for s in ls.seats),
            str(ls.melded),
            str(ls.in_hand),
            bonuses,
            str(ls.closing),
        ]
        if v.pozzetti:
            row.append(str(ls.pozzetto_penalty))
        if relancinho:
            row.append(str(ls.relancinho))
        if v.red_threes:
            row.append(str(ls.red_threes))
        row.append(str(ls.total))
        table.add_row(*row)
    return table


def _points_text(score: DealScore, v: Variant, names: Sequence[str]) -> Text:
    labels = _match_line_names(v, names)
    text = Text("Points  ", style="bold")
    text.append(" · ".join(f"{n} {p:+d}" for n, p in zip(labels, score.points, strict=True)))
    return text


def _result_text(match: Match, names: Sequence[str]) -> Text:
    v = match.v
    labels = _match_line_names(v, names)
    text = Text()
    if match.abandoned is not None:
        text.append(f"{names[match.abandoned_by]} abandoned the match. ", style="bold red")
    winner = match.winner()
    if winner is None:
        text.append("The match is a draw.", style="bold")
    else:
        text.append(f"{labels[winner]} won the match.", style="bold green")
    if v.lines == 2:
        vp = match.victory_points()
        text.append(f"   VP {labels[0]} {vp[0]} · {labels[1]} {vp[1]}")
    return text


def score_sheet(match: Match, names: Sequence[str]) -> Table:
    """Every deal's points per match line, and the totals."""
    v = match.v
    table = Table(title="Score sheet", title_justify="left")
    table.add_column("Deal")
    labels = _match_line_names(v, names)
    for label in labels:
        table.add_column(label, justify="right")
    for number, score in enumerate(match.scores, 1):
        table.add_row(str(number), *(str(p) for p in score.points))
    table.add_section()
    table.add_row("Total", *(str(t) for t in match.totals), style="bold")
    return table


# --- play -------------------------------------------------------------------------------------


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


@dataclass
class _Session:
    """A match in the terminal: one person and the bots in the other seats."""

    console: Console
    match: Match
    human: int
    bots: dict[int, Bot]
    names: list[str]
    wild_first: bool = True
    ask: Callable[[str], str] = input
    log: list[tuple[int | None, Action]] = field(default_factory=list)
    mark: int = 0
    turn_start: int = 0
    in_turn: bool = False
    recent: list[tuple[int | None, Action]] = field(default_factory=list)
    this_turn: list[Action] = field(default_factory=list)

    def run(self) -> bool:
        """Play until the match ends (True) or the person quits (False)."""
        match = self.match
        while not match.is_over:
            index = len(match.deals) - 1
            seat = match.turn
            if seat == self.human:
                if not self.human_action():
                    return False
            else:
                action = self.bots[seat].choose(match.view(seat), match.legal_actions())
                self.log.append((seat, action))
                match.apply(action)
            if len(match.scores) > index and not self.deal_over(index):
                return False
        return True

    def prompt(self, text: str) -> str | None:
        self.console.print(text, end="", markup=True)
        try:
            return self.ask("").strip()
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            return None

    def draw_table(self) -> None:
        match = self.match
        if self.console.is_terminal:
            self.console.clear()
        self.console.print(
            render_table(
                match.view(self.human),
                match,
                self.names,
                recent=self.recent,
                this_turn=self.this_turn,
                wild_first=self.wild_first,
            )
        )

    def human_action(self) -> bool:
        match = self.match
        if not self.in_turn:
            self.in_turn = True
            self.turn_start = len(self.log)
            self.recent = self.log[self.mark :]
            self.this_turn = []
        self.draw_table()
        phase = match.deal.phase
        hint = "draw or take" if phase == "draw" else "meld, extend or discard"
        while True:
            text = self.prompt(f"[bold]Your move[/] ({hint}; ? for help): ")
            if text is None or text.lower() in _QUIT:
                return False
            if not text:
                continue
            legal = match.legal_actions()
            if text.lower() in _HELP:
                self.show_help(legal)
                continue
            if text.lower() in ("table", "t"):
                self.draw_table()
                continue
            action: Action
            if text.isdigit():
                number = int(text)
                if not 1 <= number <= len(legal):
                    self.console.print(f"[red]No action {number}: choose 1 to {len(legal)}.[/]")
                    continue
                action = legal[number - 1]
            else:
                try:
                    action = Action.parse(text)
                except ValueError as error:
                    self.console.print(Text(str(error), style="red"), soft_wrap=True)
                    continue
            try:
                match.check(action)
            except IllegalMove as error:
                self.console.print(Text(f"Illegal: {error}", style="red"), soft_wrap=True)
                continue
            self.log.append((self.human, action))
            self.this_turn.append(action)
            deals = len(match.scores)
            match.apply(action)
            if len(match.scores) > deals or match.turn != self.human or action.kind == DISCARD:
                self.in_turn = False
                self.mark = len(self.log)
            return True

    def show_help(self, legal: Sequence[Action]) -> None:
        self.console.print(
            "Type an action (draw, take, meld 5H 6H 7H, extend 0 8H, discard 9C) "
            "or its number, [bold]table[/] to draw the table again, [bold]quit[/] to stop."
        )
        items = [
            Text(f"{n:>3} ", style="dim").append_text(action_text(a))
            for n, a in enumerate(legal, 1)
        ]
        self.console.print(Columns(items, padding=(0, 3)))

    def deal_over(self, index: int) -> bool:
        match = self.match
        score = match.scores[index]
        ended = self.log[min(self.turn_start, self.mark) :]
        console = self.console
        console.print(Rule(f"Deal {index + 1} is over"))
        if ended:
            console.print(_recent_text(ended, self.names))
        console.print(score_table(score, match.v, self.names))
        console.print(_points_text(score, match.v, self.names))
        console.print(_totals_text(match, self.names))
        self.log = []
        self.mark = self.turn_start = 0
        self.in_turn = False
        self.recent = []
        if not match.is_over and _stdin_is_tty():
            answer = self.prompt("Press Enter for the next deal (or quit): ")
            if answer is None or answer.lower() in _QUIT:
                return False
        return True


def _build_variant(
    name: str,
    players: int,
    lines: int | None,
    deals: int | None,
    target: int | None,
    options: Sequence[str],
) -> Variant:
    settings: dict[str, Any] = {"players": players}
    if lines is not None:
        settings["lines"] = lines
    for text in options:
        key, value = parse_option(text)
        settings[key] = value
    if deals is not None and target is not None:
        raise ValueError("give --deals or --target, not both")
    if deals is not None:
        settings["deals"] = deals
        settings["target"] = None
    if target is not None:
        settings["target"] = target
        settings["deals"] = None
    return variant(name, **settings)


@app.command()
def play(
    variant_name: VariantName = "italian",
    players: Annotated[int, typer.Option(help="Players at the table (2 to 6).")] = 2,
    lines: Annotated[
        int | None, typer.Option(help="Lines (teams); by default pairs with 4 or 6 players.")
    ] = None,
    seat: Annotated[int, typer.Option(help="Your seat, from 0.")] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of the shuffles and the bots.")] = None,
    deals: Annotated[int | None, typer.Option(help="Play this many deals.")] = None,
    target: Annotated[int | None, typer.Option(help="Play to this many points.")] = None,
    option: VariantOptions = None,
    save_path: Annotated[
        Path | None, typer.Option("--save", help="Write the game record to this file.")
    ] = None,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "You",
    wild_first: Annotated[
        bool, typer.Option("--wild-first/--no-wild-first", help="Show wildcards first in hand.")
    ] = True,
    bot: Annotated[
        str, typer.Option(help="The bots in the other seats: random, greedy, expert or learned.")
    ] = "greedy",
) -> None:
    """Play a match in the terminal against bots in the other seats."""
    console = Console(highlight=False)
    try:
        v = _build_variant(variant_name, players, lines, deals, target, option or [])
    except ValueError as error:
        raise refusal(console, error) from None
    if not 0 <= seat < v.players:
        raise refusal(
            console, f"no seat {seat} at a table of {v.players} (seats 0 to {v.players - 1})"
        )
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    names = [name if s == seat else f"Bot {s}" for s in range(v.players)]
    try:
        bots: dict[int, Bot] = {
            s: make_bot(bot, seed=seed * 10 + s) for s in range(v.players) if s != seat
        }
    except ValueError as error:
        raise refusal(console, error) from None
    match = Match(v, seed=seed)
    console.print(
        f"[bold]{v.name}[/], {v.players} players in {v.lines} lines; "
        f"you are {name} in seat {seat}. Seed {seed}."
    )
    session = _Session(console, match, seat, bots, names, wild_first)
    finished = session.run()
    if finished:
        console.print(Rule("The match is over"))
        console.print(score_sheet(match, names))
        console.print(_result_text(match, names))
    else:
        console.print(Text("You left the match.", style="bold"))
        console.print(_totals_text(match, names))
    if save_path is not None:
        save(match, save_path, names=names)
        console.print(f"Record saved to {save_path}")


# --- replay -----------------------------------------------------------------------------------


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(help="A game record.")],
    step: Annotated[
        bool, typer.Option("--step", help="Show the table and wait for Enter after each action.")
    ] = False,
) -> None:
    """Replay a game record, checking every action and score; print the deals and the scores."""
    console = Console(highlight=False)
    try:
        record = load(file)
    except (OSError, ValueError) as error:
        raise refusal(console, f"{file}: {error}", status=1) from None
    names = list(record.names) or [f"Seat {s}" for s in range(record.players)]
    head = f"{record.variant}, {record.players} players in {record.lines} lines"
    if record.event:
        head += f" · {record.event}"
    if record.date:
        head += f" · {record.date}"
    console.print(Text(head, style="bold"))
    console.print("Seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)))
    if record.options:
        console.print("Options: " + ", ".join(f"{k}={val!r}" for k, val in record.options))
    wait = step and _stdin_is_tty()
    match: Match | None = None
    turn: list[tuple[int | None, Action]] = []
    shown_deal = 0

    def flush() -> None:
        if turn:
            console.print(Text("  ").append_text(_recent_text(turn, names)))
            turn.clear()

    def deal_heading(number: int) -> None:
        nonlocal shown_deal
        dealer = record.deals[number - 1].dealer
        console.print(Rule(f"Deal {number} · dealer {names[dealer]}"))
        shown_deal = number

    try:
        for st in replay_steps(record):
            match = st.match
            if st.deal != shown_deal:
                flush()
                deal_heading(st.deal)
            seat = st.action.seat
            if step:
                actor = seat if seat is not None else match.deals[st.deal - 1].turn
                deal = match.deals[st.deal - 1]
                line = Text(f"{st.index}. ")
                line.append("director" if seat is None else names[seat], style="bold")
                line.append(": ")
                line.append_text(action_text(st.action.action))
                console.print(
                    render_table(
                        deal.view(actor),
                        match,
                        names,
                        title=f"deal {st.deal} · action {st.index}",
                        hand_label=f"{names[actor]}'s hand",
                        you=None,
                    )
                )
                console.print(line)
                if wait:
                    try:
                        input("")
                    except (EOFError, KeyboardInterrupt):
                        wait = False
            else:
                if turn and (turn[-1][0] != seat or seat is None):
                    flush()
                turn.append((seat, st.action.action))
            deal = match.deals[st.deal - 1]
            if deal.is_over and st.index == len(record.deals[st.deal - 1].actions):
                flush()
                score = match.scores[st.deal - 1]
                console.print(score_table(score, match.v, names))
                console.print(_points_text(score, match.v, names))
    except RuleError as error:
        flush()
        console.print(Text(f"{file}: {error}", style="bold red"), soft_wrap=True)
        raise typer.Exit(1) from None
    flush()
    if match is None:
        return
    for number in range(shown_deal + 1, len(record.deals) + 1):
        deal_heading(number)
        console.print(Text("  (no actions yet)", style="dim"))
    console.print(Rule("Result"))
    console.print(score_sheet(match, names))
    if match.is_over:
        console.print(_result_text(match, names))
    else:
        console.print(Text("The match is unfinished.", style="bold"))


# --- review -----------------------------------------------------------------------------------


@app.command("review")
def review_command(
    file: Annotated[Path, typer.Argument(help="A game record.")],
    seat: Annotated[
        int | None, typer.Option(help="The seat reviewed (default: every seat).")
    ] = None,
    deal: Annotated[
        int | None, typer.Option(help="The deal reviewed, from 1 (default: every finished deal).")
    ] = None,
    seconds: Annotated[
        float | None,
        typer.Option(help="Seconds of sampling a decision (0.5 without --worlds)."),
    ] = None,
    worlds: Annotated[
        int | None,
        typer.Option(help="Sampled deals a decision: the same figures on any machine."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sampled deals.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reviews as JSON.")] = False,
) -> None:
    """Review a record's deals: every decision of a seat weighed from what it could see,
    the better action found and what the one played cost (docs/review.md)."""
    import json

    from burraco.bots.review import DealReview, explain, review_deal
    from burraco.terminal import progress_of

    console = Console(highlight=False)
    # The bar goes to the error stream, so that --json prints nothing else on the output.
    bar_console = Console(stderr=True, highlight=False)
    try:
        record = load(file)
    except (OSError, ValueError) as error:
        raise refusal(console, f"{file}: {error}", status=1) from None
    if seat is not None and not 0 <= seat < record.players:
        raise refusal(console, f"no seat {seat} at a table of {record.players}")
    if deal is not None and not 1 <= deal <= len(record.deals):
        raise refusal(console, f"the record has {len(record.deals)} deals; there is no deal {deal}")
    if deal is not None and not record.deals[deal - 1].is_over:
        raise refusal(console, f"deal {deal} is not finished: only a finished deal is reviewed")
    if seconds is None and worlds is None:
        seconds = 0.5
    if (seconds is not None and seconds <= 0) or (worlds is not None and worlds < 4):
        # Two sampled deals to choose the best action on, two to measure its cost on.
        raise refusal(console, "--seconds must be positive and --worlds at least 4")
    deals = [deal] if deal is not None else [n for n, d in enumerate(record.deals, 1) if d.is_over]
    seats = [seat] if seat is not None else list(range(record.players))
    names = list(record.names) or [f"Seat {s}" for s in range(record.players)]
    reviews: list[DealReview] = []
    try:
        for number in deals:
            for s in seats:
                with progress_of(bar_console, f"deal {number}, {names[s]}") as advance:
                    reviews.append(
                        review_deal(
                            record,
                            number,
                            s,
                            seconds=seconds,
                            worlds=worlds,
                            seed=seed,
                            progress=advance,
                        )
                    )
    except (RuleError, ValueError) as error:
        raise refusal(console, f"{file}: {error}", status=1) from None
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in reviews], indent=1) + "\n")
        return
    for r in reviews:
        # The total is a sum of unbiased costs with its own interval: said as a loss only
        # when that interval lies above zero.
        lost = (
            f"{r.cost:.0f} MP lost (± {r.margin:.0f})"
            if r.cost - r.margin > 0
            else f"nothing lost beyond noise ({r.cost:+.0f} MP ± {r.margin:.0f})"
        )
        table = Table(
            title=f"Deal {r.deal} · {names[r.seat]} (seat {r.seat}): "
            f"{lost}, accuracy {r.accuracy:.1f}%"
        )
        for column in ("#", "played", "best found", "cost MP", "95% interval", "tag"):
            table.add_column(column, justify="right" if column in ("#", "cost MP") else "left")
        for d in r.decisions:
            # Only the decisions that lost something for sure: the rest is noise.
            if not d.beyond_noise:
                continue
            table.add_row(
                str(d.index),
                d.played,
                d.best,
                f"{d.cost:.0f}",
                f"{d.low:.0f} .. {d.high:.0f}",
                Text(
                    d.tag or "",
                    style={"blunder": "bold red", "mistake": "red"}.get(d.tag or "", ""),
                ),
            )
        console.print(table)
        weighed = sum(1 for d in r.decisions if d.weighed)
        tags = ", ".join(f"{t}: {len(r.tagged(t))}" for t in ("blunder", "mistake", "inaccuracy"))
        rough = f"; {r.rough} rough (budget short of the interval's width)" if r.rough else ""
        console.print(
            f"{len(r.decisions)} decisions, {weighed} weighed, {r.beyond} beyond noise; "
            f"{tags}{rough}"
        )
        for d in r.decisions:
            if d.tag in ("blunder", "mistake"):
                console.print(Text(f"  {d.index}. {explain(d)}"), soft_wrap=True)


# --- variants ---------------------------------------------------------------------------------


def _setups(name: str) -> list[str]:
    """The tables a preset (or an alias of one) is played at, by players and then lines."""
    game = variant(name).name
    found = []
    for players, lines in sorted((p, ln) for g, p, ln in SETUPS if g == game):
        if lines == players:
            found.append(f"{players} alone")
        else:
            team = {2: "pairs", 3: "trios"}.get(players // lines, f"teams of {players // lines}")
            found.append(f"{players} in {team}")
    return found


@app.command("variants")
def variants_command(
    name: Annotated[str | None, typer.Argument(help="Show one preset only.")] = None,
) -> None:
    """List the presets, the tables they are played at, and their options."""
    console = Console(highlight=False)
    presets = dict(PRESETS)
    if name is not None:
        try:
            chosen = variant(name)
        except RuleError as error:
            raise refusal(console, error) from None
        presets = {chosen.name: PRESETS[chosen.name]}
    summary = Table(title="Presets", title_justify="left")
    summary.add_column("Preset", style="bold")
    summary.add_column("Cards")
    summary.add_column("Hand", justify="right")
    summary.add_column("Match")
    summary.add_column("Tables")
    for key, preset in presets.items():
        jokers = f" + {preset.jokers} jokers" if preset.jokers else ""
        goal = f"to {preset.target}" if preset.target is not None else f"{preset.deals} deals"
        summary.add_row(
            key,
            f"{preset.decks} decks{jokers} ({preset.deck_size})",
            str(preset.hand_size),
            goal,
            ", ".join(_setups(key)),
        )
    console.print(summary)
    options = Table(title="Options (name=value for --option)", title_justify="left")
    options.add_column("Option", style="bold", no_wrap=True)
    for key in presets:
        options.add_column(key, overflow="fold")
    first = next(iter(presets.values()))
    for option_name in (f for f in first.__dataclass_fields__ if f not in _NOT_OPTIONS):
        values = [getattr(p, option_name) for p in presets.values()]
        cells = [
            Text(repr(value).replace(", ", ","), style="" if value == values[0] else "yellow")
            for value in values
        ]
        options.add_row(option_name, *cells)
    console.print(options)
    console.print(engine_line())


_NOT_OPTIONS: Final = frozenset({"name", "family", "players", "lines", "line_of"})


# --- the web room -----------------------------------------------------------------------------


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database_url: Annotated[
        str,
        typer.Option(
            help="SQLAlchemy database URL: sqlite:///FILE (the default) or postgresql+psycopg://..."
        ),
    ] = "sqlite:///burraco.db",
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before it plays, so people can follow.")
    ] = 0.6,
    expert_seconds: Annotated[float, typer.Option(help="Thinking time of expert bots.")] = 1.0,
    next_deal_seconds: Annotated[
        float,
        typer.Option(
            help="Seconds the score of a deal stays up before the next deal begins by itself "
            "(sooner when every person at the table presses next deal).",
            min=0,
            max=600,
        ),
    ] = 30.0,
    redis_url: Annotated[
        str | None,
        typer.Option(help="Redis URL: run as one process of a cluster (docs/cluster.md)."),
    ] = None,
    node: Annotated[str | None, typer.Option(help="This process's name in the cluster.")] = None,
    search_workers: Annotated[
        int, typer.Option(help="Processes that think for expert bots and hints.", min=1, max=64)
    ] = 1,
    api_docs: Annotated[
        bool, typer.Option("--api-docs", help="Serve the API's own pages at /docs.")
    ] = False,
    quick_wait_seconds: Annotated[
        float,
        typer.Option(
            help="Seconds quick play waits for people before bots fill the empty seats "
            "(for those who allow bots).",
            min=1,
            max=600,
        ),
    ] = 20.0,
    quick_deals: Annotated[
        int | None,
        typer.Option(
            help="Quick play's matches last this many deals (default: the game's own length).",
            min=1,
            max=50,
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            help="Addresses of reverse proxies whose X-Forwarded-For is trusted (docs/operating.md)."
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="The room's address as people reach it, https://host[:port], named in the "
            "pages' security policy (docs/operating.md).",
            envvar="BURRACO_PUBLIC_URL",
        ),
    ] = None,
    compress: Annotated[
        bool,
        typer.Option(
            help="Compress the sockets' messages (permessage-deflate): a state in 40% of its "
            "bytes, for about 7% more of the room's CPU an action (docs/operating.md).",
            envvar="BURRACO_COMPRESS",
        ),
    ] = False,
) -> None:
    """Start the web room: tables of people and bots in the browser.

    Its capacity settings come from BURRACO_* variables (docs/operating.md)."""
    import uvicorn

    from burraco.server.app import create_app
    from burraco.server.door.guard import socket_origin
    from burraco.server.process.collector import freeze_startup
    from burraco.server.process.thinking import ThinkingSettings
    from burraco.storage import Store
    from burraco.storage.store import StoreInUse

    try:
        socket_origin(public_url or "http://localhost")
    except ValueError as error:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]Cannot start:[/] {error}")
        raise typer.Exit(1) from None
    if redis_url is None:
        # One room per database without Redis: say so plainly rather than in a traceback.
        store = Store(database_url)
        try:
            store.hold()
        except StoreInUse as error:
            Console(stderr=True, soft_wrap=True).print(f"[bold red]Cannot start:[/] {error}")
            raise typer.Exit(1) from None
        store.release()
        store.engine.dispose()

    application = create_app(
        database_url,
        bot_delay=bot_delay,
        expert_seconds=expert_seconds,
        next_deal_seconds=next_deal_seconds,
        redis_url=redis_url,
        node=node,
        thinking=ThinkingSettings(workers=search_workers),
        api_docs=api_docs,
        quick_wait_seconds=quick_wait_seconds,
        quick_deals=quick_deals,
        public_url=public_url,
    )
    Console().print(
        f"[bold green]Burraco room[/] at [bold]http://{host}:{port}/[/] "
        f"(database {database_url}); Ctrl+C stops it."
    )
    from burraco.server.process.stopping import BoundedServer

    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="warning",
        # SIGTERM: sockets are told to go (the pages reconnect) and given this long to
        # close, then the room stops its bots and searches; all in well under 5 s.
        timeout_graceful_shutdown=2,
        proxy_headers=forwarded_allow_ips is not None,
        # No WebSocket message of the protocol comes near this (the room refuses any over
        # its own limit); uvicorn's default would let one take 16 MB.
        ws_max_size=256 * 1024,
        # uvicorn compresses by default; a room is bound by its CPU long before its
        # bandwidth (a seat's state is about 1.7 kB), so it does not unless told.
        ws_per_message_deflate=compress,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    # What start-up built lives as long as the process: no collection walks it again.
    freeze_startup()
    # The stop holds its 5 s bound whatever the load: past it the process ends itself.
    BoundedServer(config).run()


# --- the arena --------------------------------------------------------------------------------


@app.command()
def arena(
    variant_name: VariantName = "italian",
    players: Players = 2,
    lines: Lines = None,
    bots: Annotated[
        str, typer.Option(help="Bots, comma separated, one per line in rotation.")
    ] = "greedy,random",
    deals: Annotated[int, typer.Option(help="Play about this many deals in all.")] = 100,
    match_deals: Annotated[
        int | None, typer.Option(help="Deals per match (default: the variant's target).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the boards.")] = 0,
    seconds: Annotated[float, typer.Option(help="Expert: seconds per decision.")] = 1.0,
    worlds: Annotated[
        int | None, typer.Option(help="Expert: sampled deals per decision instead of seconds.")
    ] = None,
    workers: Annotated[int, typer.Option(help="Processes (both cores by default).")] = 2,
    save_dir: Annotated[
        Path | None, typer.Option("--save", help="Write every match's record to this folder.")
    ] = None,
    option: VariantOptions = None,
) -> None:
    """Pit bots against each other on duplicate deals and report their strength."""
    from burraco.terminal import progress_of

    console = Console(highlight=False)
    try:
        names = bot_names(bots)
        v = _build_variant(variant_name, players, lines, match_deals, None, option or [])
    except ValueError as error:
        raise refusal(console, error) from None
    with progress_of(console, "boards") as advance:
        report = run_arena(
            v,
            names,
            deals=deals,
            seed=seed,
            seconds=seconds,
            worlds=worlds,
            workers=workers,
            save=save_dir,
            progress=advance,
        )
    table = Table(
        title=f"{v.name}, {v.players} players: {report.boards} boards, {report.deals} deals"
    )
    for column in ("bot", "deals", "MP/deal", "95% interval", "matches won", "VP", "ms/decision"):
        table.add_column(column, justify="right" if column != "bot" else "left")
    for r in report.results:
        table.add_row(
            r.bot,
            str(r.deals),
            f"{r.mean_difference:+.1f}",
            f"{r.interval[0]:+.1f} .. {r.interval[1]:+.1f}",
            f"{r.wins}/{r.matches} ({100 * r.win_rate:.1f}%)",
            f"{r.victory_points:.2f}",
            f"{r.mean_decision_ms:.2f}",
        )
    console.print(table)
    if save_dir is not None:
        console.print(f"Records saved in {save_dir}")


# --- self-play trajectories -------------------------------------------------------------------


@app.command("simulate")
def simulate_command(
    out: Annotated[Path, typer.Option("--out", help="The directory to write the files to.")],
    games: Annotated[int, typer.Option(help="Games to play.")] = 100,
    variant_name: VariantName = "italian",
    players: Players = 2,
    lines: Lines = None,
    bots: Annotated[
        str, typer.Option(help="Bot levels, comma separated, taking the seats in turn.")
    ] = "greedy",
    seed: Annotated[int, typer.Option(help="Seed of game 0; game i plays seed + i.")] = 0,
    match: Annotated[
        bool, typer.Option("--match", help="A game is a whole match rather than one deal.")
    ] = False,
    match_deals: Annotated[
        int | None, typer.Option(help="With --match: deals per match (default: the target).")
    ] = None,
    seats: Annotated[
        str | None, typer.Option(help="Record these seats only, comma separated (from 0).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="npz or parquet.")] = "npz",
    shard_games: Annotated[
        int | None, typer.Option(help="Games per file and task (default 10 deals or 1 match).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Processes (default: every CPU); with Ray local, CPUs.")
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(help="Play on Ray: local (a Ray on this machine), auto or ray://HOST:PORT."),
    ] = None,
    seconds: Annotated[float, typer.Option(help="Expert: seconds per decision.")] = 1.0,
    worlds: Annotated[
        int | None,
        typer.Option(help="Expert: sampled deals per decision (reproducible, unlike seconds)."),
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the trajectories already in --out.")
    ] = False,
    option: VariantOptions = None,
) -> None:
    """Bots play games against each other and every decision is written for learning:
    observations, legal-action masks, actions and rewards (see burraco.research.simulate)."""
    from burraco.research.simulate import Plan, simulate
    from burraco.terminal import progress_of

    console = Console(highlight=False)
    try:
        if match_deals is not None and not match:
            raise ValueError("--match-deals is for --match")
        v = _build_variant(variant_name, players, lines, match_deals, None, option or [])
        try:
            recorded = (
                tuple(int(s) for s in seats.split(",") if s.strip()) if seats is not None else None
            )
        except ValueError:
            raise ValueError(
                f"--seats takes seat numbers, comma separated (got {seats!r})"
            ) from None
        plan = Plan(
            v,
            tuple(bot_names(bots)),
            games=games,
            seed=seed,
            match=match,
            seats=recorded,
            fmt=fmt,
            shard_games=shard_games,
            seconds=seconds,
            worlds=worlds,
        )
        with progress_of(console, "games", total=games) as advance:
            summary = simulate(
                plan,
                out,
                workers=workers,
                ray_address=ray_address,
                overwrite=overwrite,
                progress=advance,
            )
    except (ValueError, ImportError) as error:
        raise refusal(console, error) from None
    unit = "matches" if match else "deals"
    table = Table(title=f"{v.name}, {v.players} players: {summary.games} {unit}")
    for column in ("games", "deals", "steps", "recorded", "seconds", "steps/s", "files", "MB"):
        table.add_column(column, justify="right")
    table.add_row(
        str(summary.games),
        str(summary.deals),
        str(summary.steps),
        str(summary.recorded),
        f"{summary.seconds:.1f}",
        f"{summary.steps_per_second:,.0f}",
        str(len(summary.files)),
        f"{summary.bytes / 1e6:.1f}",
    )
    console.print(table)
    returns = Table(title="Mean return per game")
    for column in ("seat", "bot", "recorded", "return"):
        returns.add_column(column, justify="left" if column == "bot" else "right")
    for s, name in enumerate(plan.seat_bots):
        returns.add_row(
            str(s),
            name,
            "yes" if s in plan.recorded_seats else "no",
            f"{summary.mean_returns[s]:+.1f}",
        )
    console.print(returns)
    console.print(f"Trajectories written to {summary.out}")


# --- the bots' ratings ------------------------------------------------------------------------


@app.command("ratings")
def ratings_command(
    game: Annotated[
        str, typer.Option(help="The game and table: italian-2, italian-4, buraco-2, canasta-2...")
    ] = "italian-2",
    matches: Annotated[int, typer.Option(help="Rating matches to play.", min=1)] = 60,
    levels: Annotated[str, typer.Option(help="Bot levels, comma separated.")] = (
        "random,greedy,expert,learned"
    ),
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            "--database",
            help="Store the levels' ratings in this database (sqlite:///FILE or postgresql...).",
        ),
    ] = "sqlite:///burraco.db",
    no_database: Annotated[
        bool, typer.Option("--no-database", help="Store the ratings in no database.")
    ] = False,
    write_defaults: Annotated[
        bool,
        typer.Option(
            "--write-defaults",
            help="Also write them into the package's bot_ratings.json (a fresh room's).",
        ),
    ] = False,
    defaults_file: Annotated[
        Path | None, typer.Option(help="Write the defaults to this file instead.")
    ] = None,
    expert_seconds: Annotated[
        float, typer.Option(help="Expert: seconds per decision in these matches.")
    ] = 0.05,
    seed: Annotated[int, typer.Option(help="Seed of the matches.")] = 0,
    workers: Annotated[int, typer.Option(help="Processes (both cores by default).")] = 2,
) -> None:
    """Rate the bot levels: they play whole matches against each other at one game's table
    and OpenSkill rates them on the players' scale (what the leaderboard shows)."""
    import time

    from burraco.server.results import ladder, record
    from burraco.server.results.ratings import GAMES, game_variant
    from burraco.terminal import progress_of

    console = Console(highlight=False)
    v = game_variant(game)
    try:
        if v is None:
            raise ValueError(f"no game {game!r} ({', '.join(GAMES)})")
        names = bot_names(levels)
        if len(set(names)) < 2:
            raise ValueError("rating matches need at least two different bot levels")
    except ValueError as error:
        raise refusal(console, error) from None
    assert v is not None
    with progress_of(console, "matches", total=matches) as advance:
        played = ladder.play_matches(
            v,
            list(dict.fromkeys(names)),
            matches=matches,
            seed=seed,
            expert_seconds=expert_seconds,
            workers=workers,
            progress=advance,
        )
    rated = ladder.rate_matches(played)
    table = Table(title=f"{game}: {matches} rating matches (expert {expert_seconds} s a move)")
    for column in ("level", "mu", "sigma", "rating", "matches", "won"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for r in rated.values():
        table.add_row(
            r.level,
            f"{r.skill.mu:.2f}",
            f"{r.skill.sigma:.2f}",
            str(r.skill.shown),
            str(r.matches),
            str(r.wins),
        )
    console.print(table)
    if database_url and not no_database:
        from burraco.storage.store import RatingRow, Store

        store = Store(database_url)
        accounts = record.bot_accounts(store)
        now = time.time()
        store.put_ratings(
            [
                RatingRow(accounts[r.level], game, r.skill.mu, r.skill.sigma, r.matches, now)
                for r in rated.values()
                if r.level in accounts
            ]
        )
        console.print(f"Ratings stored in {database_url}")
    if write_defaults or defaults_file is not None:
        path = defaults_file or Path(record.__file__).with_name(record.DEFAULTS)
        ladder.write_defaults(
            path, v, rated, matches=matches, seed=seed, expert_seconds=expert_seconds
        )
        console.print(f"Defaults written to {path}")


@app.command("password")
def password_command(
    name: Annotated[str, typer.Argument(help="The account's name (any case).")],
    database_url: Annotated[
        str,
        typer.Option("--database-url", "--database", help="The room's database."),
    ] = "sqlite:///burraco.db",
) -> None:
    """Give an account a new password (the room asks no e-mail, so a club's operator resets
    a forgotten one): it is read twice without echo, or once from standard input when that
    is not a terminal. Every session of the account ends."""
    from burraco.server.accounts.people import PASSWORD_MAX, PASSWORD_MIN, hasher
    from burraco.storage import Store

    console = Console(stderr=True)
    store = Store(database_url)
    user = store.user_by_name(name)
    if user is None or user.kind != "person":
        console.print(Text(f"no account {name!r} in {database_url}", style="red"))
        raise typer.Exit(2)
    if _stdin_is_tty():
        password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)
    else:
        password = sys.stdin.readline().rstrip("\n")
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        console.print(
            Text(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters", style="red")
        )
        raise typer.Exit(2)
    store.update_user(user.id, password_hash=hasher().hash(password))
    store.delete_sessions(user.id)
    console.print(f"{user.name}: new password set; every session of the account has ended.")


@app.command("bot")
def bot_command(
    token: Annotated[
        str,
        typer.Option(
            envvar="BURRACO_BOT_TOKEN",
            help="The bot account's API token (from /account; or BURRACO_BOT_TOKEN).",
        ),
    ],
    url: Annotated[str, typer.Option(help="The room's address.")] = "http://127.0.0.1:8000",
    level: Annotated[
        str, typer.Option(help="The house bot that plays: random, greedy, expert, learned.")
    ] = "greedy",
    matches: Annotated[
        int, typer.Option(help="Stop after this many matches (0: play on).", min=0)
    ] = 0,
    create: Annotated[
        bool, typer.Option("--create", help="Sitting nowhere, make a table and start it.")
    ] = False,
    join: Annotated[
        bool, typer.Option("--join", help="Sitting nowhere, join an open table.")
    ] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="Sitting nowhere, queue in quick play.")
    ] = False,
    accept: Annotated[bool, typer.Option(help="Accept the challenges people send.")] = True,
    games: Annotated[
        str,
        typer.Option(help="The games of the challenges it accepts, as italian-2,buraco (all)."),
    ] = "",
    clock: Annotated[
        str, typer.Option(help="The move clocks of the challenges it accepts, as 10-120.")
    ] = "1-3600",
    variant: Annotated[str, typer.Option(help="The game of the tables it makes.")] = "italian",
    players: Annotated[int, typer.Option(help="Players of the tables it makes.")] = 2,
    deals: Annotated[
        int, typer.Option(help="Deals of the matches it makes (0: to the target).", min=0)
    ] = 1,
    rated: Annotated[bool, typer.Option("--rated", help="Make or join rated tables.")] = False,
    opponent: Annotated[
        str, typer.Option(help="The house bots in the empty seats of the tables it makes.")
    ] = "greedy",
    expert_seconds: Annotated[float, typer.Option(help="Thinking time of the expert.")] = 1.0,
    seed: Annotated[int, typer.Option(help="The bot's own random seed.")] = 0,
) -> None:
    """Run a house bot as a bot account's program over the bot API (docs/bots.md): it plays
    its tables (again after a dropped socket or a restarted room), accepts challenges,
    and makes (--create), joins (--join) or queues for (--quick) tables."""
    import logging

    from burraco.client import Accepts, BotError, house, play
    from burraco.server.results.ratings import BOT_LEVELS

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    # The bot's own lines (its tables, its matches), not one per HTTP request it makes.
    for chatty in ("httpx", "httpcore", "websockets"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    if level not in BOT_LEVELS:
        raise typer.BadParameter(
            f"no bot {level!r} ({', '.join(BOT_LEVELS)})", param_hint="--level"
        )
    table: dict[str, object] = {
        "variant": variant,
        "players": players,
        "rated": rated,
        "bot": opponent,
    }
    if deals:
        table["deals"] = deals
    low, _, high = clock.partition("-")
    try:
        seconds = (int(low), int(high or low))
    except ValueError:
        raise typer.BadParameter(f"{clock!r} is no range as 10-120", param_hint="--clock") from None
    accepts = Accepts(tuple(g for g in games.split(",") if g), seconds) if accept else False
    try:
        finished = play(
            house(level, seed, expert_seconds),
            url=url,
            token=token,
            matches=matches or None,
            create=table if create else None,
            join={"variant": variant, "players": players, "rated": rated} if join else None,
            quick={"variant": variant, "players": players} if quick else None,
            accept=accepts,
        )
    except BotError as error:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]Refused:[/] {error}")
        raise typer.Exit(1) from None
    Console().print(f"{len(finished)} matches played: {', '.join(finished)}")


# --- tournaments ------------------------------------------------------------------------------
# The `tournament` command group lives in burraco.tournament.cli; it is added here, before the
# __main__ guard, so that `python -m burraco.cli tournament ...` has it too.

from burraco.tournament.cli import tournament_app  # noqa: E402

app.add_typer(tournament_app, name="tournament")

from burraco.server.desk.cli import desk_app  # noqa: E402

app.add_typer(desk_app, name="desk")

from burraco.server.results.moderation_cli import moderation_app, moderator_app  # noqa: E402

app.add_typer(moderator_app, name="moderator")
app.add_typer(moderation_app, name="moderation")


if __name__ == "__main__":
    app()
