"""``burraco moderator`` and ``burraco moderation``: moderation from the server's console,
on the room's database (server/results/moderation.py), each decision in the audit log as made by
"console"::

    burraco moderator grant NAME       # NAME moderates at /moderation
    burraco moderator revoke NAME
    burraco moderation list            # the flagged accounts, and the audit log
    burraco moderation clear NAME      # the flag lifted, the rating moves again
    burraco moderation reset NAME      # the ratings back to a newcomer's
    burraco moderation ban NAME        # no login, off the leaderboards
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from burraco.server.results.moderation import ModerationError, decide, grant, listing

if TYPE_CHECKING:
    from burraco.storage import Store

__all__ = ["moderation_app", "moderator_app"]

moderator_app = typer.Typer(help="Give or take the moderator role.", no_args_is_help=True)
moderation_app = typer.Typer(
    help="The accounts the farm detector flagged, and a moderator's decisions.",
    no_args_is_help=True,
)

Name = Annotated[str, typer.Argument(help="The account's name (any case).")]
Database = Annotated[str, typer.Option("--database-url", "--database", help="The room's database.")]
Note = Annotated[str, typer.Option(help="Why, for the audit log.")]
DEFAULT_DB = "sqlite:///burraco.db"


def _store(url: str) -> Store:
    from burraco.storage import Store

    return Store(url)


def _fail(error: ModerationError) -> typer.Exit:
    Console(stderr=True).print(Text(str(error), style="red"))
    return typer.Exit(2)


@moderator_app.command("grant")
def grant_command(name: Name, database_url: Database = DEFAULT_DB) -> None:
    """Make a person a moderator (the page /moderation opens for their session)."""
    try:
        user = grant(_store(database_url), name)
    except ModerationError as error:
        raise _fail(error) from None
    Console().print(f"{user.name} is a moderator.")


@moderator_app.command("revoke")
def revoke_command(name: Name, database_url: Database = DEFAULT_DB) -> None:
    """Take the moderator role back."""
    try:
        user = grant(_store(database_url), name, revoke=True)
    except ModerationError as error:
        raise _fail(error) from None
    Console().print(f"{user.name} is no longer a moderator.")


@moderation_app.command("list")
def list_command(database_url: Database = DEFAULT_DB) -> None:
    """The flagged accounts (ratings frozen, awaiting a decision) and the audit log."""
    found = listing(_store(database_url))
    console = Console(highlight=False)
    flagged = Table("account", "flagged", "ratings", "why", title="Flagged for review")
    for row in found["flagged"]:
        ratings = ", ".join(f"{game} {r}" for game, r in row["ratings"].items())
        flagged.add_row(row["name"], _when(row["flagged_at"]), ratings, row["reason"])
    console.print(flagged if found["flagged"] else "No account is flagged.")
    log = Table("when", "by", "action", "account", "note", title="Audit log")
    for line in found["log"]:
        log.add_row(
            _when(line["at"]), line["moderator"], line["action"], line["name"], line["note"]
        )
    if found["log"]:
        console.print(log)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(at))


def _decide(action: str, done: str) -> Callable[..., None]:
    def command(name: Name, note: Note = "", database_url: Database = DEFAULT_DB) -> None:
        try:
            user = decide(_store(database_url), name, action, "console", note)
        except ModerationError as error:
            raise _fail(error) from None
        Console().print(f"{user.name}: {done}")

    return command


moderation_app.command("clear", help="Lift the flag: the account's rating moves again.")(
    _decide("clear", "cleared; its rating moves again.")
)
moderation_app.command("reset", help="The account's ratings back to a newcomer's, flag lifted.")(
    _decide("reset", "ratings reset to a newcomer's; the flag is lifted.")
)
moderation_app.command("ban", help="No login, off the leaderboards, never rated again.")(
    _decide("ban", "banned: its sessions ended, it is off the leaderboards.")
)
