"""Paper for the tournament room: table cards for each round, the standings as CSV and HTML.

Table cards tell the players where to sit: the table number, the two lines
and, for pairs, who sits North, South, East and West. The HTML pages are
self-contained (styles inline, no scripts), ready to print.

>>> from burraco.tournament.tournament import Tournament
>>> t = Tournament(format="round-robin", kind="pairs", seeding="registration")
>>> for pair in [("Anna", "Bruno"), ("Carla", "Dario"), ("Elena", "Fabio"), ("Gino", "Ida")]:
...     _ = t.register(pair)
>>> _ = t.start_round()
>>> print(table_cards_text(t))
Burraco tournament, round 1: 2 tables
Table 1  N-S: 1 Anna / Bruno     E-W: 4 Gino / Ida
         N Anna  S Bruno  E Gino  W Ida
Table 2  N-S: 2 Carla / Dario    E-W: 3 Elena / Fabio
         N Carla  S Dario  E Elena  W Fabio
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape
from typing import Final

from burraco.tournament.errors import TournamentError
from burraco.tournament.standings import Standing
from burraco.tournament.tournament import Phase, Round, Tournament

__all__ = [
    "PAGE_STYLE",
    "STANDINGS_COLUMNS",
    "spreadsheet_cell",
    "standings_csv",
    "standings_html",
    "standings_text",
    "table_cards_html",
    "table_cards_text",
]

#: The columns of the exported standings.
STANDINGS_COLUMNS: Final = (
    "rank",
    "entrant",
    "name",
    "vp",
    "mp",
    "played",
    "byes",
    "wins",
    "draws",
    "losses",
)

PAGE_STYLE: Final = """
body { font-family: sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin: 0 0 .4em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: .25em .6em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.card { border: 2px solid #111; padding: 1em; margin: 0 0 1em; width: 24em;
        page-break-inside: avoid; display: inline-block; vertical-align: top; margin-right: 1em; }
.seats td { border: none; padding: .1em .6em .1em 0; }
.bye { font-style: italic; }
@media print { body { margin: 0; } }
"""


def _round_of(t: Tournament, number: int | None) -> Round:
    if not t.rounds:
        raise TournamentError("no_round_seated", action="table cards")
    number = len(t.rounds) if number is None else number
    if not 1 <= number <= len(t.rounds):
        raise TournamentError(
            "no_round_to_print", action="table cards", round=number, last=len(t.rounds)
        )
    return t.rounds[number - 1]


def _line(t: Tournament, line: int) -> str:
    return f"{line} {t.entrant(line).name}"


def _sides(t: Tournament) -> tuple[str, str]:
    return ("N-S", "E-W") if t.settings.kind == "pairs" else ("N", "S")


def table_cards_text(t: Tournament, round_number: int | None = None) -> str:
    """The table cards of a round (the last one by default) as plain text."""
    r = _round_of(t, round_number)
    first_side, second_side = _sides(t)
    width = max((len(_line(t, a.first)) for a in r.tables), default=0)
    count = len(r.tables)
    out = [f"{t.settings.name}, round {r.number}: {count} table{'s' if count != 1 else ''}"]
    for a in r.tables:
        head = f"Table {a.table}"
        out.append(
            f"{head:<8} {first_side}: {_line(t, a.first):<{width}}    "
            f"{second_side}: {_line(t, a.second)}"
        )
        if t.settings.kind == "pairs":
            seats = "  ".join(f"{seat} {name}" for seat, name in t.seats(a).items())
            out.append(f"{'':<8} {seats}")
    out.extend(f"Bye      {_line(t, line)}" for line in r.byes)
    return "\n".join(out)


def table_cards_html(t: Tournament, round_number: int | None = None) -> str:
    """The table cards of a round as a printable, self-contained HTML page."""
    r = _round_of(t, round_number)
    first_side, second_side = _sides(t)
    title = f"{t.settings.name}, round {r.number}"
    cards: list[str] = []
    for a in r.tables:
        seats = "".join(
            f"<tr><td><b>{seat}</b></td><td>{escape(name)}</td></tr>"
            for seat, name in t.seats(a).items()
        )
        cards.append(
            f'<div class="card"><h2>Table {a.table}</h2>'
            f"<p>{first_side}: <b>{escape(_line(t, a.first))}</b><br>"
            f"{second_side}: <b>{escape(_line(t, a.second))}</b></p>"
            f'<table class="seats">{seats}</table></div>'
        )
    cards.extend(
        f'<div class="card bye"><h2>Bye</h2><p>{escape(_line(t, line))}</p></div>'
        for line in r.byes
    )
    return _page(title, f"<h1>{escape(title)}</h1>\n" + "\n".join(cards))


def standings_text(standings: Sequence[Standing]) -> str:
    """The standings as a plain text table.

    >>> print(standings_text([Standing(1, 4, "Anna / Bruno", 33, 610, 2, 1, 2, 0, 0)]))
    Rank  Line  Name                       VP      MP  Played  Byes
       1     4  Anna / Bruno               33    +610       2     1
    """
    out = [f"{'Rank':>4}  {'Line':>4}  {'Name':<24}  {'VP':>3}  {'MP':>6}  Played  Byes"]
    out.extend(
        f"{s.rank:>4}  {s.entrant:>4}  {s.name:<24}  {s.vp:>3}  {s.mp:>+6}  {s.played:>6}  "
        f"{s.byes:>4}"
        for s in standings
    )
    return "\n".join(out)


def standings_csv(standings: Sequence[Standing]) -> str:
    """The standings as CSV, one line per entrant, with a header.

    >>> print(standings_csv([Standing(1, 4, "Anna / Bruno", 33, 610, 2, 1, 2, 0, 0)]), end="")
    rank,entrant,name,vp,mp,played,byes,wins,draws,losses
    1,4,Anna / Bruno,33,610,2,1,2,0,0
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(STANDINGS_COLUMNS)
    for s in standings:
        data = s.to_dict()
        writer.writerow([spreadsheet_cell(data[column]) for column in STANDINGS_COLUMNS])
    return buffer.getvalue()


def spreadsheet_cell(value: object) -> object:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula: text that
    begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
    ``'`` (OWASP's advice on CSV injection). Numbers stay numbers.

    >>> spreadsheet_cell("=HYPERLINK(1)"), spreadsheet_cell("-2+3"), spreadsheet_cell(-300)
    ("'=HYPERLINK(1)", "'-2+3", -300)
    >>> spreadsheet_cell("Anna / Bruno")
    'Anna / Bruno'
    """
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def standings_html(t: Tournament, standings: Sequence[Standing] | None = None) -> str:
    """The standings as a printable, self-contained HTML page."""
    rows = standings if standings is not None else t.standings()
    s = t.settings
    played = sum(1 for r in t.rounds if r.closed)
    title = f"{s.name}: standings"
    where = "final" if t.phase is Phase.FINISHED else f"after round {played}"
    detail = f"{s.format}, {s.kind}, {s.deals} deals a round, {where}; a bye is worth {s.bye}"
    head = "".join(
        f"<th>{c}</th>"
        for c in ("Rank", "Line", "Name", "VP", "MP", "Played", "Byes", "W", "D", "L")
    )
    body = "\n".join(
        "<tr>"
        f'<td class="n">{x.rank}</td><td class="n">{x.entrant}</td><td>{escape(x.name)}</td>'
        f'<td class="n">{x.vp}</td><td class="n">{x.mp:+d}</td><td class="n">{x.played}</td>'
        f'<td class="n">{x.byes}</td><td class="n">{x.wins}</td><td class="n">{x.draws}</td>'
        f'<td class="n">{x.losses}</td>'
        "</tr>"
        for x in rows
    )
    content = (
        f"<h1>{escape(title)}</h1>\n<p>{escape(detail)}</p>\n"
        f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"
    )
    return _page(title, content)


def _page(title: str, content: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{PAGE_STYLE}</style>\n</head>\n"
        f"<body>\n{content}\n</body>\n</html>\n"
    )
