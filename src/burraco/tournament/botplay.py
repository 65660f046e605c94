"""Bot tournaments: every table of a round played by bots on the engine, in parallel.

Each line of the field is played by its bot level (:func:`burraco.bots.arena.make_bot`);
a table is a :class:`~burraco.match.Match` of the round's deals: in a pairs
tournament the tournament's game (``Settings.game``, Italian Burraco by default) at 4
players with each pair as a line, in an individual one a 2-player table. The deal clock is simulated by a number of
decisions: after that many in a deal the director's time-out is called
(:meth:`~burraco.match.Match.call_time_out`), or never, by default. Tables are
seeded from the tournament's seed, the round and the table, so a tournament
plays the same however many processes share the work.

>>> from burraco.tournament.tournament import Tournament
>>> from burraco.variants import VP_TABLE_3
>>> t = Tournament(format="round-robin", kind="individual", deals=1, vp_table=VP_TABLE_3)
>>> _ = t.pad_with_bots(2, "random")
>>> _ = t.start_round()
>>> played = play_round(t, workers=1)
>>> t.phase.value, len(played), played[0].deals
('finished', 1, 1)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from burraco.bots.arena import make_bot
from burraco.match import Match
from burraco.tournament.errors import TournamentError
from burraco.tournament.tables import BOT_LEVELS
from burraco.tournament.tournament import Phase, Tournament
from burraco.variants import variant

__all__ = [
    "BotOptions",
    "BotTable",
    "BotTableResult",
    "bot_levels",
    "play_bot_table",
    "play_round",
    "play_tournament",
]

#: The expert's budget in a bot tournament: two sampled deals a decision, enough to beat greedy.
EXPERT_WORLDS: Final = 2


@dataclass(frozen=True, slots=True)
class BotOptions:
    """How the bots play: the deal clock in decisions (None: no clock) and the expert's
    budget (seconds per decision, or sampled deals per decision if ``worlds`` is set)."""

    clock: int | None = None
    seconds: float = 0.05
    worlds: int | None = EXPERT_WORLDS

    def __post_init__(self) -> None:
        if self.clock is not None and self.clock < 1:
            raise TournamentError("deal_clock_too_short", clock=self.clock)


@dataclass(frozen=True, slots=True)
class BotTable:
    """One table to play: everything a worker process needs."""

    round: int
    table: int
    players: int
    deals: int
    bots: tuple[str, str]
    seed: int
    knockout: bool
    options: BotOptions = BotOptions()
    #: The tournament's game (a preset's name).
    game: str = "italian"


@dataclass(frozen=True, slots=True)
class BotTableResult:
    """A table played by bots: the lines' totals, which line moved last, and how it went."""

    round: int
    table: int
    totals: tuple[int, int]
    last_mover_line: int
    deals: int
    decisions: int
    time_outs: int
    seconds: float


def play_bot_table(job: BotTable) -> BotTableResult:
    """Play one table's match with its bots, calling the time-out by the decision clock."""
    start = time.perf_counter()
    v = variant(job.game, players=job.players, lines=2, deals=job.deals)
    match = Match(v, seed=job.seed, knockout=job.knockout)
    options = job.options
    bots = [
        make_bot(job.bots[v.line_of[seat]], job.seed * 7 + seat, options.seconds, options.worlds)
        for seat in range(v.players)
    ]
    decisions = in_deal = time_outs = 0
    last_seat = 0
    while not match.is_over:
        deal = match.deal
        if options.clock is not None and in_deal >= options.clock and deal.timeout_turns < 0:
            match.call_time_out()
            time_outs += 1
        seat = deal.turn
        match.apply(bots[seat].choose(deal.view(seat), deal.legal_actions()))
        last_seat = seat
        decisions += 1
        in_deal += 1
        if match.deal is not deal:
            in_deal = 0
    totals = match.score()
    return BotTableResult(
        job.round,
        job.table,
        (totals[0], totals[1]),
        v.line_of[last_seat],
        len(match.deals),
        decisions,
        time_outs,
        time.perf_counter() - start,
    )


def _jobs(t: Tournament, options: BotOptions) -> list[BotTable]:
    current = t.current_round
    if current is None or t.phase not in (Phase.SEATING, Phase.PLAYING):
        raise TournamentError("seat_a_round_first", action="bot play")
    s = t.settings
    jobs = []
    for a in current.tables:
        if a.table in current.results:
            continue
        levels = (t.entrant(a.first).bot, t.entrant(a.second).bot)
        if levels[0] is None or levels[1] is None:
            human = a.first if levels[0] is None else a.second
            raise TournamentError(
                "human_at_bot_table", action="bot play", line=human, name=t.entrant(human).name
            )
        jobs.append(
            BotTable(
                round=current.number,
                table=a.table,
                players=s.players_per_table,
                deals=s.deals,
                bots=(levels[0], levels[1]),
                seed=(s.seed * 1_000_003 + current.number * 1_009 + a.table) % 2**63,
                knockout=s.format == "knockout",
                options=options,
                game=s.game,
            )
        )
    return jobs


def _enter(t: Tournament, played: BotTableResult) -> None:
    current = t.current_round
    assert current is not None
    a = current.assignment(played.table)
    assert a is not None
    # Only a knock-out tie needs the last mover (002): the line that moved last loses.
    tie = played.totals[0] == played.totals[1] and t.settings.format == "knockout"
    t.enter_result(
        played.table,
        played.totals[0],
        played.totals[1],
        last_mover=a.lines[played.last_mover_line] if tie else None,
    )


def play_round(
    t: Tournament,
    *,
    options: BotOptions | None = None,
    workers: int = 2,
    pool: Executor | None = None,
    on_table: Callable[[BotTableResult], None] | None = None,
) -> list[BotTableResult]:
    """Play the seated round's tables with bots, enter their results in table order and
    close the round. ``on_table`` hears of each table as it ends (in any order)."""
    jobs = _jobs(t, options or BotOptions())
    results: list[BotTableResult] = []
    with _executor(workers, pool) as executor:
        if executor is None:
            for job in jobs:
                results.append(play_bot_table(job))
                if on_table:
                    on_table(results[-1])
        else:
            futures = [executor.submit(play_bot_table, job) for job in jobs]
            for future in as_completed(futures):
                results.append(future.result())
                if on_table:
                    on_table(results[-1])
    results.sort(key=lambda r: r.table)
    for played in results:
        _enter(t, played)
    t.close_round()
    return results


@contextmanager
def _executor(workers: int, pool: Executor | None) -> Iterator[Executor | None]:
    if pool is not None:
        yield pool
    elif workers <= 1:
        yield None
    else:
        with ProcessPoolExecutor(max_workers=workers) as executor:
            yield executor


def play_tournament(
    t: Tournament,
    *,
    options: BotOptions | None = None,
    workers: int = 2,
    on_round: Callable[[int, int], None] | None = None,
    on_table: Callable[[BotTableResult], None] | None = None,
) -> list[BotTableResult]:
    """Play every remaining round of a bot tournament, one process pool for all of them.

    ``on_round(number, tables)`` hears of each round as it is seated.
    """
    if t.settings.format == "danish" and t.planned_rounds is None:
        raise TournamentError("danish_needs_rounds", action="bot play")
    for entrant in t.entrants:
        if entrant.bot not in BOT_LEVELS:
            raise TournamentError(
                "line_not_a_bot", action="bot play", line=entrant.id, name=entrant.name
            )
    played: list[BotTableResult] = []
    with _executor(workers, None) as executor:
        while t.phase is not Phase.FINISHED:
            if t.phase in (Phase.REGISTRATION, Phase.CLOSED):
                tables = t.start_round()
                if on_round:
                    on_round(t.round_number, len(tables))
            played.extend(
                play_round(t, options=options, workers=1, pool=executor, on_table=on_table)
            )
    return played


def bot_levels(text: str | Sequence[str]) -> list[str]:
    """Bot levels from ``greedy,random`` (checked)."""
    levels = [b.strip() for b in text.split(",")] if isinstance(text, str) else list(text)
    levels = [b for b in levels if b]
    for level in levels:
        if level not in BOT_LEVELS:
            raise TournamentError("no_bot_level", level=repr(level), levels=", ".join(BOT_LEVELS))
    if not levels:
        raise TournamentError("no_bot_levels")
    return levels
