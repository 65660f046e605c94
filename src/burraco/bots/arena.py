"""The arena: bots play duplicate matches, and the luck of the cards cancels out.

Every match (a board) is played once for each seating of the bots: with two
lines, each deck order is played twice, the bots swapping seats; with more
lines, once for each rotation of the bots round the lines. A bot's result on a
deal is its line's points minus the mean of the other lines', averaged over the
seatings of that board, so what is left is the difference in play.

>>> from burraco import variant
>>> report = run_arena(variant("italian", deals=1), ["greedy", "random"], boards=2, workers=1)
>>> [r.bot for r in report.results]
['greedy', 'random']
>>> report.results[0].deals
4
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from burraco.actions import Action
from burraco.bots import Bot, RandomBot
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.learned import LearnedBot
from burraco.match import Match
from burraco.variants import Variant
from burraco.view import DealView
from burraco.vp import victory_points

__all__ = [
    "ArenaReport",
    "BotResult",
    "bot_names",
    "check_bots",
    "make_bot",
    "play_board",
    "run_arena",
]

BOT_NAMES = ("random", "greedy", "expert", "learned")


def _no_bot(name: str) -> ValueError:
    return ValueError(f"no bot {name!r} ({', '.join(BOT_NAMES)})")


def check_bots(names: Iterable[str]) -> None:
    """Raise a ValueError naming the first of ``names`` that is no bot's."""
    for name in names:
        if name not in BOT_NAMES:
            raise _no_bot(name)


def bot_names(text: str) -> list[str]:
    """The bots ``text`` names, comma separated, each checked (:func:`check_bots`).

    >>> bot_names("greedy, random,")
    ['greedy', 'random']
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    check_bots(names)
    return names


def make_bot(name: str, seed: int = 0, seconds: float = 1.0, worlds: int | None = None) -> Bot:
    """A bot by name: ``random``, ``greedy`` (the level's weights for the table: tuned
    where they were measured to win), ``expert`` (with its budget) or ``learned``."""
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed, weights=None)  # the level's weights for the table
    if name == "expert":
        return ExpertBot(seconds=seconds, worlds=worlds, seed=seed)
    if name == "learned":
        return LearnedBot(seed=seed)
    raise _no_bot(name)


class _Timed:
    """Wraps a bot to count its decisions and the time they take."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.decisions = 0
        self.seconds = 0.0

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        start = time.perf_counter()
        action = self.bot.choose(view, legal)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


@dataclass(frozen=True, slots=True)
class Seating:
    """One play of a board: which bot sits in each line, and how it went."""

    bots: tuple[int, ...]
    #: Per deal, the points of each line.
    deals: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    winner: int | None
    decisions: tuple[int, ...]
    seconds: tuple[float, ...]
    record: str = ""


@dataclass(frozen=True, slots=True)
class Board:
    seed: int
    seatings: tuple[Seating, ...]


def play_board(
    v: Variant,
    names: Sequence[str],
    seed: int,
    seconds: float = 1.0,
    worlds: int | None = None,
    keep_record: bool = False,
) -> Board:
    """Play one match seed once per seating of the bots round the lines."""
    lines = v.lines
    seatings = []
    rotations = lines if len(names) > 1 else 1
    for r in range(rotations):
        by_line = tuple((line + r) % len(names) for line in range(lines))
        timed = [
            _Timed(make_bot(names[b], seed * 131 + line, seconds, worlds))
            for line, b in enumerate(by_line)
        ]
        match = Match(v, seed=seed)
        while not match.is_over:
            deal = match.deal
            seat = deal.turn
            bot = timed[v.line_of[seat]]
            match.apply(bot.choose(deal.view(seat), deal.legal_actions()))
        record = ""
        if keep_record:
            from burraco.record import write_record

            names_by_seat = [names[by_line[v.line_of[s]]] for s in range(v.players)]
            record = write_record(match, names=names_by_seat, event="arena")
        seatings.append(
            Seating(
                bots=by_line,
                deals=tuple(score.points for score in match.scores),
                totals=tuple(match.totals),
                winner=match.winner(),
                decisions=tuple(t.decisions for t in timed),
                seconds=tuple(t.seconds for t in timed),
                record=record,
            )
        )
    return Board(seed, tuple(seatings))


@dataclass(frozen=True, slots=True)
class BotResult:
    """One bot's figures over the arena."""

    bot: str
    deals: int
    #: Mean, per deal, of its line's points minus the mean of the other lines'.
    mean_difference: float
    #: The 95% confidence interval of that mean (over boards, duplicate-paired).
    interval: tuple[float, float]
    matches: int
    wins: int
    draws: int
    victory_points: float
    mean_decision_ms: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


@dataclass(frozen=True, slots=True)
class ArenaReport:
    variant: str
    players: int
    boards: int
    deals: int
    results: tuple[BotResult, ...]
    records: tuple[str, ...] = field(default=())


def interval95(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal, mean +- 1.96 sd / sqrt(n)).

    >>> [round(x, 3) for x in interval95([1.0, 3.0])]
    [2.0, 0.04, 3.96]
    >>> interval95([5.0])
    (5.0, 5.0, 5.0)
    """
    mean = statistics.fmean(values) if values else 0.0
    if len(values) < 2:
        return mean, mean, mean
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def summarize(v: Variant, names: Sequence[str], boards: Sequence[Board]) -> ArenaReport:
    """The per-bot figures of some played boards."""
    results = []
    distinct = list(dict.fromkeys(names))
    total_deals = sum(len(s.deals) for b in boards for s in b.seatings)
    for name in distinct:
        indexes = {i for i, n in enumerate(names) if n == name}
        per_board: list[float] = []
        per_deal_count = 0
        matches = wins = draws = 0
        vp_total = 0.0
        decisions = 0
        seconds = 0.0
        for board in boards:
            diffs: list[float] = []
            for seating in board.seatings:
                lines = [line for line, b in enumerate(seating.bots) if b in indexes]
                for line in lines:
                    for points in seating.deals:
                        others = [p for i, p in enumerate(points) if i != line]
                        diffs.append(points[line] - statistics.fmean(others))
                        per_deal_count += 1
                    matches += 1
                    if seating.winner == line:
                        wins += 1
                    elif seating.winner is None:
                        draws += 1
                    if len(seating.totals) == 2:
                        mp = seating.totals[line] - seating.totals[1 - line]
                        vp_total += victory_points(mp, table=v.vp_table)[0]
                    decisions += seating.decisions[line]
                    seconds += seating.seconds[line]
            if diffs:
                per_board.append(statistics.fmean(diffs))
        results.append(
            BotResult(
                bot=name,
                deals=per_deal_count,
                mean_difference=statistics.fmean(per_board) if per_board else 0.0,
                interval=interval95(per_board)[1:],
                matches=matches,
                wins=wins,
                draws=draws,
                victory_points=vp_total / matches if matches else 0.0,
                mean_decision_ms=1000 * seconds / decisions if decisions else 0.0,
            )
        )
    records = tuple(s.record for b in boards for s in b.seatings if s.record)
    return ArenaReport(v.name, v.players, len(boards), total_deals, tuple(results), records)


def run_arena(
    v: Variant,
    names: Sequence[str],
    *,
    boards: int | None = None,
    deals: int | None = None,
    seed: int = 0,
    seconds: float = 1.0,
    worlds: int | None = None,
    workers: int = 2,
    save: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaReport:
    """Play duplicate boards until ``boards`` boards or about ``deals`` deals are played."""
    for name in names:
        make_bot(name)
    if boards is None and deals is None:
        boards = 10
    played: list[Board] = []
    seeds = iter(range(seed * 1_000_003, seed * 1_000_003 + 10**6))
    keep = save is not None

    def total() -> int:
        deals_played = sum(len(s.deals) for b in played for s in b.seatings)
        return boards_to_play(v, boards, deals, len(played), deals_played)

    if workers <= 1:
        while len(played) < total():
            played.append(play_board(v, names, next(seeds), seconds, worlds, keep))
            if progress:
                progress(len(played), total())
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            while len(played) < total():
                # The boards asked for at once; for some deals, a board a worker, and no
                # more than the estimate still asks for.
                left = total() - len(played)
                batch = left if boards is not None else min(workers, left)
                futures = [
                    pool.submit(play_board, v, names, next(seeds), seconds, worlds, keep)
                    for _ in range(batch)
                ]
                for future in futures:
                    played.append(future.result())
                    if progress:
                        progress(len(played), total())
    report = summarize(v, names, played)
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        for i, text in enumerate(report.records):
            (save / f"board-{i:04d}.txt").write_text(text)
    return report


def boards_to_play(
    v: Variant, boards: int | None, deals: int | None, boards_played: int, deals_played: int
) -> int:
    """How many boards a run plays in all, as known so far: ``boards`` when given; else
    enough for about ``deals`` deals, estimated from the deals a board has played so far
    (matches to a target vary in length), and exactly the boards played once the deals
    are reached. Never fewer than the boards played: a progress bar never passes its end.

    >>> from burraco import variant
    >>> v = variant("italian", target=2005)  # a board: 2 seatings of a match to 2005
    >>> boards_to_play(v, 6, None, 2, 4), boards_to_play(v, None, 37, 0, 0)
    (6, 5)
    >>> boards_to_play(v, None, 37, 10, 30), boards_to_play(v, None, 37, 12, 40)
    (13, 12)
    """
    if boards is not None:
        return max(boards, boards_played)
    wanted = deals or 0
    if deals_played >= wanted:
        return boards_played
    if not boards_played or not deals_played:
        return boards_played + max(1, -(-(wanted - deals_played) // _deals_per_board(v)))
    per_board = deals_played / boards_played
    return boards_played + max(1, math.ceil((wanted - deals_played) / per_board))


def _deals_per_board(v: Variant) -> int:
    per_match = v.deals if v.deals is not None else 4
    return per_match * v.lines
