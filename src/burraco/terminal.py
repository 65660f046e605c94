"""What the commands draw on a terminal beyond tables: a long run's progress, a refusal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.text import Text

__all__ = ["progress_bar", "progress_of", "refusal"]


def progress_bar(console: Console) -> Progress:
    """The bar of a long run (boards, matches, tables): what it does, how far, how long.

    >>> with progress_bar(Console(file=None, quiet=True)) as bar:
    ...     task = bar.add_task("boards", total=2)
    ...     bar.update(task, completed=2)
    """
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


@contextmanager
def progress_of(
    console: Console, what: str, total: int | None = None
) -> Iterator[Callable[[int, int], None]]:
    """The bar of a run that counts ``what`` (boards, games, matches), as the callback
    ``progress(done, total)`` the run reports to (``total`` None: not known yet).

    >>> with progress_of(Console(file=None, quiet=True), "games", total=2) as progress:
    ...     progress(1, 2)
    """
    with progress_bar(console) as bar:
        task = bar.add_task(what, total=total)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def refusal(console: Console, message: object, status: int = 2) -> typer.Exit:
    """Say in red, on one line however long, why a command cannot go on; returns the exit
    to raise, with ``status`` (2: bad input, as for typer's own usage errors)."""
    console.print(Text(str(message), style="red"), soft_wrap=True)
    return typer.Exit(status)
