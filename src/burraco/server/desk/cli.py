"""``burraco desk``: the director's desk of a running room, from the terminal.

The same operations as the desk's web page, over the room's HTTP API::

    burraco desk create --name "Club night" --format danish --rounds 5
    burraco desk register u-abc --token T Anna Aldo
    burraco desk pad u-abc --token T --size 16
    burraco desk start u-abc --token T [--physical]
    burraco desk result u-abc --token T --table 3 900 400 [--correct]
    burraco desk close u-abc --token T
    burraco desk standings u-abc [--csv FILE]

The director's token may also come from the environment (BURRACO_DIRECTOR_TOKEN).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

__all__ = ["desk_app"]

desk_app = typer.Typer(
    help="The director's desk of a running room (burraco serve).", no_args_is_help=True
)
console = Console(highlight=False)

Url = Annotated[str, typer.Option("--url", help="The room's address.")]
Token = Annotated[
    str,
    typer.Option(envvar="BURRACO_DIRECTOR_TOKEN", help="The director's token (given by create)."),
]
DEFAULT_URL = "http://127.0.0.1:8000"


def _call(url: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    try:
        answer = httpx.request(method, f"{url}{path}", json=body, timeout=60)
    except httpx.HTTPError as error:
        console.print(f"[red]the room at {url} does not answer: {error}[/]")
        raise typer.Exit(2) from None
    if answer.status_code >= 400:
        try:
            detail = answer.json().get("detail", answer.text)
        except ValueError:
            detail = answer.text
        console.print(f"[red]{detail}[/]")
        raise typer.Exit(1)
    return answer.json() if "json" in answer.headers.get("content-type", "") else answer.text


def _standings(info: dict[str, Any]) -> Table:
    table = Table(title=f"{info['settings']['name']} ({info['phase']})")
    for column in ("rank", "line", "VP", "MP", "played"):
        table.add_column(column, justify="left" if column == "line" else "right")
    for s in info["standings"]:
        table.add_row(str(s["rank"]), s["name"], str(s["vp"]), f"{s['mp']:+d}", str(s["played"]))
    return table


def _round(info: dict[str, Any]) -> None:
    if not info["rounds"]:
        return
    r = info["rounds"][-1]
    where = "online" if r["online"] else "at physical tables"
    console.print(f"Round {r['number']}, {where}:")
    for t in r["tables"]:
        seats = ", ".join(f"{k} {v}" for k, v in t["seats"].items())
        result = t["result"]
        done = f" = {result['mp_first']} : {result['mp_second']}" if result else ""
        link = f" /table/{t['room']}" if t["room"] else ""
        console.print(f"  table {t['table']}: {seats}{done}{link}")


@desk_app.command()
def create(
    name: Annotated[str, typer.Option(help="The tournament's name.")] = "Burraco tournament",
    format: Annotated[
        str, typer.Option(help="danish, mitchell, round-robin, knockout.")
    ] = "danish",
    kind: Annotated[str, typer.Option(help="pairs or individual.")] = "pairs",
    rounds: Annotated[int | None, typer.Option(help="Rounds (default: the movement's).")] = None,
    deals: Annotated[int, typer.Option(help="Deals a round (3 or 4).")] = 3,
    deal_minutes: Annotated[int, typer.Option(help="Minutes a deal.")] = 15,
    move_seconds: Annotated[
        int, typer.Option(help="Seconds a move at the room's tables (0: no move clock).")
    ] = 40,
    grace_seconds: Annotated[
        int,
        typer.Option(
            help="Seconds a player not at the table when a round starts has before the move "
            "clock runs on their first turn."
        ),
    ] = 180,
    spectators: Annotated[
        bool, typer.Option(help="Anyone may watch the room's tables (public cards only).")
    ] = True,
    chat: Annotated[bool, typer.Option(help="The players may chat at the room's tables.")] = True,
    url: Url = DEFAULT_URL,
) -> None:
    """Create a tournament; prints its id and the director's token."""
    body = {
        "name": name,
        "format": format,
        "kind": kind,
        "rounds": rounds,
        "deals": deals,
        "deal_minutes": deal_minutes,
        "move_seconds": move_seconds,
        "grace_seconds": grace_seconds,
        "spectators": spectators,
        "chat": chat,
    }
    made = _call(url, "POST", "/api/tournaments", body)
    console.print(f"Tournament [bold]{made['tournament']}[/]: desk at {url}{made['url']}")
    console.print(f"Director's token (keep it secret): [bold]{made['token']}[/]")


@desk_app.command()
def register(
    tournament: str,
    players: Annotated[list[str] | None, typer.Argument(help="One name, or a pair's two.")] = None,
    token: Token = "",
    bot: Annotated[str | None, typer.Option(help="A bot line of this level instead.")] = None,
    url: Url = DEFAULT_URL,
) -> None:
    """Register a player, a pair or a bot line; prints each player's personal link."""
    body = {"token": token, "players": players or [], "bot": bot}
    made = _call(url, "POST", f"/api/tournaments/{tournament}/entrants", body)
    console.print(f"Line {made['entrant']}: {', '.join(made['players'])}")
    for name, secret in zip(made["players"], made["tokens"], strict=False):
        console.print(f"  {name}: {url}/tournament/{tournament}?player={secret}")


@desk_app.command()
def pad(
    tournament: str,
    size: Annotated[int, typer.Option(help="Fill the field with bots up to this size.")],
    token: Token = "",
    level: Annotated[str, typer.Option(help="random, greedy, expert or learned.")] = "greedy",
    url: Url = DEFAULT_URL,
) -> None:
    """Pad the field with bot lines."""
    body = {"token": token, "size": size, "level": level}
    made = _call(url, "POST", f"/api/tournaments/{tournament}/pad", body)
    console.print(f"{len(made['added'])} bot lines added")


@desk_app.command()
def start(
    tournament: str,
    token: Token = "",
    physical: Annotated[bool, typer.Option(help="Physical tables instead of the room.")] = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Seat the next round: in the room, or at physical tables (then print the cards)."""
    body = {"token": token, "online": not physical}
    info = _call(url, "POST", f"/api/tournaments/{tournament}/rounds", body)
    _round(info)
    if physical:
        number = info["rounds"][-1]["number"]
        console.print(f"Table cards: {url}/api/tournaments/{tournament}/cards.html?round={number}")


@desk_app.command()
def result(
    tournament: str,
    mp_first: int,
    mp_second: int,
    table: Annotated[int, typer.Option(help="The table's number.")],
    token: Token = "",
    correct: Annotated[bool, typer.Option(help="Correct a result already entered.")] = False,
    round: Annotated[int | None, typer.Option(help="With --correct: an earlier round.")] = None,
    abandoned_by: Annotated[int | None, typer.Option(help="The line that abandoned.")] = None,
    url: Url = DEFAULT_URL,
) -> None:
    """Enter (or correct) a physical table's MP from its score sheet."""
    body = {
        "token": token,
        "table": table,
        "mp_first": mp_first,
        "mp_second": mp_second,
        "correct": correct,
        "round": round,
        "abandoned_by": abandoned_by,
    }
    info = _call(url, "POST", f"/api/tournaments/{tournament}/results", body)
    console.print(_standings(info))


@desk_app.command()
def close(tournament: str, token: Token = "", url: Url = DEFAULT_URL) -> None:
    """Close the round in play (every table has its result)."""
    info = _call(url, "POST", f"/api/tournaments/{tournament}/close", {"token": token})
    console.print(_standings(info))


@desk_app.command()
def finish(tournament: str, token: Token = "", url: Url = DEFAULT_URL) -> None:
    """End the tournament."""
    info = _call(url, "POST", f"/api/tournaments/{tournament}/finish", {"token": token})
    console.print(_standings(info))


@desk_app.command()
def standings(
    tournament: str,
    csv: Annotated[Path | None, typer.Option(help="Also write the standings as CSV.")] = None,
    url: Url = DEFAULT_URL,
) -> None:
    """Show the standings and the round in play."""
    info = _call(url, "GET", f"/api/tournaments/{tournament}")
    console.print(_standings(info))
    _round(info)
    if csv is not None:
        csv.write_text(_call(url, "GET", f"/api/tournaments/{tournament}/standings.csv"))
        console.print(f"CSV written to {csv}")
