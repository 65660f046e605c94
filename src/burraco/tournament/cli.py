"""``burraco tournament``: bot tournaments, movements and saved tournaments from the terminal.

::

    burraco tournament run --format danish --pairs 16 --rounds 5 --deals 3 --bots greedy,random
    burraco tournament pairings --format mitchell --pairs 10 --rounds 3
    burraco tournament show club-night.json --csv standings.csv --html standings.html
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.table import Table

from burraco.terminal import refusal
from burraco.tournament.botplay import BotOptions, BotTableResult, bot_levels, play_tournament
from burraco.tournament.errors import TournamentError
from burraco.tournament.printing import (
    standings_csv,
    standings_html,
    table_cards_html,
    table_cards_text,
)
from burraco.tournament.standings import Standing
from burraco.tournament.tables import ByeRule, Kind
from burraco.tournament.tournament import (
    FORMATS,
    Format,
    Phase,
    Seeding,
    Settings,
    Tournament,
)

__all__ = ["standings_table", "tournament_app"]

tournament_app = typer.Typer(
    name="tournament",
    help="Tournaments: bot tournaments, movements, saved standings and table cards.",
    no_args_is_help=True,
    add_completion=False,
)

_DANISH_ROUNDS = 5

FormatOption = Annotated[str, typer.Option("--format", help=f"Movement: {', '.join(FORMATS)}.")]
PairsOption = Annotated[
    int | None, typer.Option("--pairs", help="A pairs tournament of this many pairs.")
]
PlayersOption = Annotated[
    int | None, typer.Option("--players", help="An individual tournament of this many players.")
]
RoundsOption = Annotated[
    int | None,
    typer.Option(
        help=f"Rounds (default: the whole movement; Danish {_DANISH_ROUNDS}; knock-out: the bracket)."
    ),
]
SeedOption = Annotated[int, typer.Option(help="Seed of the draw and of the deals.")]
SeedingOption = Annotated[
    str, typer.Option(help="Order of the field: 'draw' (random from the seed) or 'registration'.")
]

CsvOption = Annotated[Path | None, typer.Option("--csv", help="Write the standings as CSV.")]
HtmlOption = Annotated[
    Path | None, typer.Option("--html", help="Write the standings as an HTML page.")
]


def _field(pairs: int | None, players: int | None) -> tuple[str, int]:
    if pairs is not None and players is not None:
        raise TournamentError("pairs_or_players")
    if players is not None:
        return "individual", players
    return "pairs", pairs if pairs is not None else 16


def _settings(
    fmt: str,
    kind: str,
    rounds: int | None,
    deals: int,
    seed: int,
    seeding: str,
    bye: ByeRule | None = None,
    name: str | None = None,
    game: str = "italian",
) -> Settings:
    if fmt == "danish" and rounds is None:
        rounds = _DANISH_ROUNDS
    # Settings checks the format, the kind and the seeding, and names the rule if wrong.
    return Settings(
        name=name or f"{fmt.capitalize()} {kind} tournament",
        game=game,
        format=cast(Format, fmt),
        kind=cast(Kind, kind),
        rounds=rounds,
        deals=deals,
        seed=seed,
        seeding=cast(Seeding, seeding),
        bye=bye or ByeRule(),
    )


def standings_table(t: Tournament, standings: list[Standing] | None = None) -> Table:
    """The standings as a rich table: rank, entrant, VP, MP difference, played."""
    rows = standings if standings is not None else t.standings()
    s = t.settings
    done = sum(1 for r in t.rounds if r.closed)
    when = "final standings" if t.phase is Phase.FINISHED else f"standings after round {done}"
    table = Table(title=f"{s.name}: {when}")
    with_bots = any(e.bot for e in t.entrants)
    with_byes = any(x.byes for x in rows)
    columns = ["Rank", "Line", "Entrant", *(["Bot"] if with_bots else [])]
    columns += ["VP", "MP diff", "Played", *(["Byes"] if with_byes else [])]
    for column in columns:
        table.add_column(column, justify="left" if column in ("Entrant", "Bot") else "right")
    for x in rows:
        cells = [str(x.rank), str(x.entrant), x.name]
        if with_bots:
            cells.append(t.entrant(x.entrant).bot or "")
        cells += [str(x.vp), f"{x.mp:+d}", str(x.played)]
        if with_byes:
            cells.append(str(x.byes))
        table.add_row(*cells)
    return table


def _expected_tables(t: Tournament) -> int:
    lines = len(t.entrants)
    if t.settings.format == "knockout":
        return lines - 1
    rounds = t.planned_rounds if t.planned_rounds is not None else t.settings.rounds or 1
    return rounds * (lines // 2)


@tournament_app.command("run")
def run_command(
    fmt: FormatOption = "danish",
    pairs: PairsOption = None,
    players: PlayersOption = None,
    rounds: RoundsOption = None,
    deals: Annotated[int, typer.Option(help="Deals a round (3 or 4 pick the VP table).")] = 3,
    bots: Annotated[
        str, typer.Option(help="Bot levels, comma separated, given to the lines in turn.")
    ] = "greedy,random",
    seed: SeedOption = 0,
    seeding: SeedingOption = "draw",
    workers: Annotated[int, typer.Option(help="Processes playing the tables.")] = 2,
    clock: Annotated[
        int | None,
        typer.Option(help="Deal clock: call the time-out after this many decisions in a deal."),
    ] = None,
    bye: Annotated[str, typer.Option(help="A bye's worth: VP (default 12) or 'average'.")] = "12",
    worlds: Annotated[
        int, typer.Option(help="Expert bots: sampled deals per decision (its budget).")
    ] = 2,
    name: Annotated[str | None, typer.Option(help="The tournament's name.")] = None,
    game: Annotated[
        str, typer.Option(help="The game of every table (a preset: italian, stbl...).")
    ] = "italian",
    save: Annotated[Path | None, typer.Option(help="Save the tournament as JSON.")] = None,
    csv_path: CsvOption = None,
    html_path: HtmlOption = None,
) -> None:
    """Play a whole tournament with bots and print the final standings."""
    from burraco.terminal import progress_bar

    console = Console(highlight=False)
    try:
        kind, size = _field(pairs, players)
        levels = bot_levels(bots)
        settings = _settings(
            fmt, kind, rounds, deals, seed, seeding, bye=ByeRule.parse(bye), name=name, game=game
        )
        options = BotOptions(clock=clock, worlds=worlds)
        t = Tournament(settings)
        t.pad_with_bots(size, levels)
    except (TournamentError, ValueError) as error:
        raise refusal(console, error) from None
    start = time.perf_counter()
    deals_played = 0
    time_outs = 0
    with progress_bar(console) as progress:
        task = progress.add_task("tables", total=None)

        def seated(number: int, tables: int) -> None:
            progress.update(
                task, description=f"round {number} ({tables} tables)", total=_expected_tables(t)
            )

        def played(result: BotTableResult) -> None:
            nonlocal deals_played, time_outs
            deals_played += result.deals
            time_outs += result.time_outs
            progress.advance(task)

        try:
            play_tournament(t, options=options, workers=workers, on_round=seated, on_table=played)
        except TournamentError as error:
            raise refusal(console, error) from None
    seconds = time.perf_counter() - start
    console.print(standings_table(t))
    tables = sum(len(r.tables) for r in t.rounds)
    clock_text = f", {time_outs} time-outs" if clock is not None else ""
    console.print(
        f"{size} {'pairs' if kind == 'pairs' else 'players'}, {t.round_number} rounds, "
        f"{tables} tables, {deals_played} deals{clock_text} in {seconds:.1f} s "
        f"({workers} worker{'s' if workers != 1 else ''}); a bye is worth {settings.bye}",
        soft_wrap=True,
    )
    _write_outputs(console, t, save, csv_path, html_path)


def _write_outputs(
    console: Console,
    t: Tournament,
    save: Path | None,
    csv_path: Path | None,
    html_path: Path | None,
) -> None:
    if save is not None:
        t.save(save)
        console.print(f"Tournament saved in {save}")
    if csv_path is not None:
        csv_path.write_text(standings_csv(t.standings()), encoding="utf-8")
        console.print(f"Standings written to {csv_path}")
    if html_path is not None:
        html_path.write_text(standings_html(t), encoding="utf-8")
        console.print(f"Standings page written to {html_path}")


@tournament_app.command("pairings")
def pairings_command(
    fmt: FormatOption = "mitchell",
    pairs: PairsOption = None,
    players: PlayersOption = None,
    rounds: RoundsOption = None,
    seed: SeedOption = 0,
    seeding: SeedingOption = "registration",
) -> None:
    """Show a movement round by round, as table cards.

    The Danish movement and the knock-out depend on the results, so here they
    follow random results (from the seed).
    """
    console = Console(highlight=False)
    try:
        kind, size = _field(pairs, players)
        t = Tournament(_settings(fmt, kind, rounds, 3, seed, seeding))
        prefix = "Pair" if kind == "pairs" else "Player"
        for i in range(1, size + 1):
            t.register((f"{prefix} {i}N", f"{prefix} {i}S") if kind == "pairs" else f"Player {i}")
    except TournamentError as error:
        raise refusal(console, error) from None
    if fmt in ("danish", "knockout"):
        console.print("(results drawn at random, since this movement follows them)\n")
    rng = random.Random(seed)
    while t.phase is not Phase.FINISHED:
        t.start_round()
        console.print(table_cards_text(t) + "\n")
        current = t.current_round
        assert current is not None
        for a in current.tables:
            first, second = rng.randrange(0, 2000, 5), rng.randrange(0, 2000, 5)
            t.enter_result(a.table, first, second, last_mover=a.first)
        t.close_round()


@tournament_app.command("show")
def show_command(
    path: Annotated[Path, typer.Argument(help="A tournament saved as JSON.")],
    cards: Annotated[int | None, typer.Option(help="Print the table cards of this round.")] = None,
    cards_html: Annotated[
        Path | None, typer.Option(help="Write the table cards of --cards (or the last round).")
    ] = None,
    csv_path: CsvOption = None,
    html_path: HtmlOption = None,
) -> None:
    """Show a saved tournament's standings; export them or its table cards."""
    console = Console(highlight=False)
    try:
        t = Tournament.load(path)
        if cards is not None:
            console.print(table_cards_text(t, cards) + "\n")
        if cards_html is not None:
            cards_html.write_text(table_cards_html(t, cards), encoding="utf-8")
            console.print(f"Table cards written to {cards_html}")
    except (TournamentError, OSError, ValueError, KeyError) as error:
        raise refusal(console, error) from None
    console.print(standings_table(t))
    _write_outputs(console, t, None, csv_path, html_path)
