"""What the commands draw on a terminal beyond tables: the progress bar of a long run."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

__all__ = ["progress_bar"]


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
