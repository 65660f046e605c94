"""Results of finished matches, and the ratings they move.

Every finished table stores one :class:`ResultRow` per seat, rated or not and
guests too (the player pages' statistics and the history). A table marked rated
(never a tournament's) also moves the rating of every seat with an account,
people and bot levels alike (ratings.py), in the same transaction: a table
finished twice (a restart, or two processes of a cluster) is stored and rated once.
That transaction holds the match's players before it reads their ratings
(store.rate_results): two matches of one player ending at once, on two processes,
apply one after the other, each to the rating the other left.

A person is rated only on what they played: a person whose seat a bot played for
most of the match (absence.py) counts as having abandoned it: the row says
``abandoned`` and a loss, and their line ranks last, as the line that abandons (002);
the lines that played take the win. When no line played (every one abandoned or was
played by a bot for its person), no rating moves: nobody gains from the bots' play.
Every row keeps the seat's turns and those a bot played, for the player page.

Fair play (fairplay.py): a table made rated may play unrated (one owner's accounts, a
pair past its rated matches of the day; seats.py decides when it starts). After each rated
match the farm detector reads each winner's recent rated results and may flag the account
for a moderator's review; a flagged (or banned) account's rating is frozen: its matches
are stored, its opponents rated as usual, its own rating stays.

The bot levels have accounts of kind "bot" named after them. A fresh database
gives them the ratings of ``bot_ratings.json`` (the result of ``burraco ratings
--write-defaults``), so a player reads a bot's rating before the first rated match.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from burraco.match import Match
from burraco.server.absence import SeatTurns, absent_seats
from burraco.server.results.fairplay import (
    FAST_TURNS,
    FLAG_WINDOW,
    MADE_TOGETHER,
    Account,
    Game,
    farm_signal,
    owner_key,
)
from burraco.server.results.ratings import (
    BOT_LEVELS,
    Skill,
    game_key,
    leaving_lines,
    match_ranks,
    rate,
)
from burraco.storage.store import (
    NameTaken,
    RatingRow,
    ResultRow,
    StorageUnavailable,
    Store,
    UserRow,
)

if TYPE_CHECKING:
    from burraco.server.room import LiveTable

__all__ = [
    "DEFAULTS",
    "bot_accounts",
    "default_bot_ratings",
    "farm_games",
    "listener",
    "look_for_farming",
    "match_results",
    "rated_results",
    "save_table_results",
    "seed_bot_ratings",
]

log = logging.getLogger("burraco.results")

#: The bots' ratings shipped with the package (``burraco ratings --write-defaults``).
DEFAULTS: Final = "bot_ratings.json"

#: The first and the longest wait before storing a finished match's results again.
RETRY_FIRST: Final = 0.1
RETRY_MOST: Final = 10.0

#: Where each burraco grade is counted: a burraco is clean, semi-clean or dirty; the
#: special canastas of wildcards count as clean, the mixed one as dirty.
GRADE_COLUMN: Final[Mapping[str, str]] = {
    "clean": "clean",
    "semi-clean": "semi",
    "dirty": "dirty",
    "twos": "clean",
    "jokers": "clean",
    "twos-and-jokers": "dirty",
}


def _outcome(ranks: Sequence[int], line: int, left: Collection[int]) -> str:
    if ranks[line] != 0 or line in left:
        return "loss"
    return "win" if ranks.count(0) == 1 else "draw"


def match_results(
    match: Match,
    *,
    table_id: str,
    names: Sequence[str],
    user_ids: Sequence[int | None],
    finished_at: float,
    turns: Sequence[SeatTurns] = (),
    absent: Collection[int] = (),
) -> list[ResultRow]:
    """One row per seat of a finished match (not rated): its line's outcome and points,
    the deals played, and what its line did in them: burracos by grade, closes,
    pozzetti taken. A pair's partners share their line's figures. ``turns``: each seat's
    turns and those a bot played; an ``absent`` seat (a bot played most of them) counts
    as having abandoned, and its line loses."""
    v = match.v
    ranks = match_ranks(match, absent)
    left = leaving_lines(match, absent)
    game = game_key(v)
    played = len(match.scores)
    rows = []
    for seat in range(v.players):
        line = v.line_of[seat]
        grades = {"clean": 0, "semi": 0, "dirty": 0}
        closes = pozzetti = 0
        for deal, score in zip(match.deals, match.scores, strict=False):
            # Lines may change from deal to deal (the 3- and 5-player games' pairs).
            part = next(ls for ls in score.lines if seat in ls.seats)
            for grade, _ in part.burracos:
                grades[GRADE_COLUMN.get(grade, "dirty")] += 1
            closes += score.closer >= 0 and score.closer in part.seats
            pozzetti += v.pozzetti and deal.has_pozzetto[deal.line_of[seat]]
        rows.append(
            ResultRow(
                table_id=table_id,
                seat=seat,
                user_id=user_ids[seat],
                name=names[seat],
                game=game,
                line=line,
                outcome=_outcome(ranks, line, left),
                points=match.totals[line],
                deals=played,
                burracos_clean=grades["clean"],
                burracos_semi=grades["semi"],
                burracos_dirty=grades["dirty"],
                closes=closes,
                pozzetti=pozzetti,
                abandoned=(match.abandoned is not None and match.abandoned_by == seat)
                or seat in absent,
                rated=False,
                rating_before=None,
                rating_after=None,
                finished_at=finished_at,
                turns=turns[seat].turns if seat < len(turns) else 0,
                bot_turns=turns[seat].bot if seat < len(turns) else 0,
            )
        )
    return rows


def rated_results(
    match: Match,
    rows: Sequence[ResultRow],
    before: Mapping[int, RatingRow],
    now: float,
    absent: Collection[int] = (),
    frozen: Collection[int] = (),
) -> tuple[list[ResultRow], list[RatingRow]]:
    """The rows of a rated match with each account's rating before and after it, and the
    accounts' new ratings. A seat without an account (never at a rated table, but who
    knows) plays as a newcomer whose rating is not kept. The lines of ``absent`` seats
    rank last; when every line left so, nobody is rated (the rows as they were). The
    ``frozen`` accounts (flagged for review: fairplay.py) keep their rating, the others
    move as if they had played them."""
    v = match.v
    if len(leaving_lines(match, absent)) == v.lines:
        return list(rows), []
    game = game_key(v)
    key: list[int | tuple[str, int]] = [
        row.user_id if row.user_id is not None else ("guest", row.seat) for row in rows
    ]
    skills: dict[int | tuple[str, int], Skill] = {
        user_id: Skill(r.mu, r.sigma) for user_id, r in before.items()
    }
    teams = [[key[s] for s in range(v.players) if v.line_of[s] == line] for line in range(v.lines)]
    after = rate(teams, match_ranks(match, absent), skills)
    ratings = [
        RatingRow(
            user_id=k,
            game=game,
            mu=skill.mu,
            sigma=skill.sigma,
            matches=(before[k].matches if k in before else 0) + 1,
            updated_at=now,
        )
        for k, skill in after.items()
        if isinstance(k, int) and k not in frozen
    ]
    for k in frozen:
        if k in after:
            after[k] = skills.get(k, Skill())
    rated = [
        _with_ratings(row, skills.get(key[row.seat], Skill()), after[key[row.seat]])
        if row.user_id is not None
        else row
        for row in rows
    ]
    return rated, ratings


def _with_ratings(row: ResultRow, old: Skill, new: Skill) -> ResultRow:
    fields = {name: getattr(row, name) for name in ResultRow.__slots__}
    fields.update(rated=True, rating_before=float(old.shown), rating_after=float(new.shown))
    return ResultRow(**fields)


def save_table_results(store: Store, table: LiveTable, now: float | None = None) -> bool:
    """Store the results of a table whose match is over, and rate it if it is rated;
    False if they were stored already (nothing changes then)."""
    match = table.match
    if match is None or not match.is_over:
        return False
    now = time.time() if now is None else now
    absent = absent_seats([s.kind for s in table.seats], table.turns)
    rows = match_results(
        match,
        table_id=table.id,
        names=[s.name for s in table.seats],
        user_ids=[s.user_id for s in table.seats],
        finished_at=now,
        turns=[table.turns.of(seat) for seat in range(match.v.players)],
        absent=absent,
    )
    if table.row.tournament is not None or not table.row.rated:
        return store.save_results(rows)
    frozen = store.frozen(sorted({r.user_id for r in rows if r.user_id is not None}))
    # The ratings are read, moved and written in one transaction that holds the players:
    # another process rating one of them meanwhile waits (or is waited for).
    saved = store.rate_results(
        rows,
        game_key(match.v),
        lambda before: rated_results(match, rows, before, now, absent, frozen),
    )
    if saved:
        winners = {r.user_id for r in rows if r.outcome == "win" and r.user_id is not None}
        for user_id in sorted(winners - frozen):
            look_for_farming(store, user_id, now)
    return saved


def farm_games(
    mine: Sequence[ResultRow], others: Sequence[ResultRow], accounts: Mapping[int, UserRow]
) -> list[Game]:
    """An account's rated results as the farm detector reads them (fairplay.Game): each
    match's gain, its opponents (the room's bot levels left out: they never throw a match),
    whether they all lost fast or abandoned, whether one was made with the account."""
    games = []
    for row in mine:
        me = accounts.get(row.user_id or 0)
        against = [
            o
            for o in others
            if o.table_id == row.table_id
            and o.line != row.line
            and o.user_id is not None
            and (u := accounts.get(o.user_id)) is not None
            and owner_key(Account(u.id, u.kind, u.owner_id)) is not None
        ]
        if not against or me is None:
            continue
        thrown = all(o.outcome == "loss" and (o.abandoned or o.turns < FAST_TURNS) for o in against)
        together = any(
            abs(accounts[o.user_id or 0].created_at - me.created_at) < MADE_TOGETHER
            for o in against
        )
        gain = (row.rating_after or 0.0) - (row.rating_before or 0.0)
        opponents = tuple(sorted({o.user_id for o in against if o.user_id is not None}))
        games.append(Game(row.table_id, gain, opponents, thrown, together))
    return games


def look_for_farming(store: Store, user_id: int, now: float) -> str | None:
    """Run the farm detector over an account's rated results of the last week (since a
    moderator's last decision on it), and flag it for review if they look farmed; why,
    or None."""
    flag = store.flag_of(user_id)
    since = now - FLAG_WINDOW
    if flag is not None and flag.decided_at is not None:
        since = max(since, flag.decided_at)
    mine, others, accounts = store.rated_games(user_id, since)
    reason = farm_signal(farm_games(mine, others, accounts))
    user = accounts.get(user_id)
    if reason is None or user is None:
        return None
    if store.flag(user, reason, now):
        log.warning("account %s flagged for review: %s", user.name, reason)
    return reason


def listener(store: Store) -> Callable[[LiveTable], Awaitable[None]]:
    """The room's finish listener that stores each finished table's results."""

    async def finished(table: LiveTable) -> None:
        # The store serializes the rating of each player, across processes too. While the
        # database refuses (or another's hold on a player outlasts store.wait_seconds), try
        # again: storing is idempotent, and a match's result is never dropped.
        backoff = RETRY_FIRST
        while True:
            try:
                save_table_results(store, table)
                return
            except StorageUnavailable as error:
                log.warning("table %s: results not stored (%s); retrying", table.id, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_MOST)

    return finished


# --- the bots' accounts -----------------------------------------------------------------


def bot_accounts(store: Store) -> dict[str, int]:
    """The account of each bot level, created if missing: level → user id. A level
    whose name a person took before it was reserved has no account."""
    found = {}
    for level in BOT_LEVELS:
        user = store.user_by_name(level)
        if user is None:
            try:
                user = store.create_user(level, "", kind="bot")
            except NameTaken:
                user = store.user_by_name(level)  # another process was first
        if user is not None and user.kind == "bot":
            found[level] = user.id
    return found


def default_bot_ratings() -> dict[str, dict[str, dict[str, Any]]]:
    """The shipped ratings: game → level → {mu, sigma, matches}; empty if none shipped."""
    source = resources.files("burraco.server.results").joinpath(DEFAULTS)
    if not source.is_file():
        return {}
    games: dict[str, dict[str, dict[str, Any]]] = json.loads(source.read_text())["games"]
    return games


def seed_bot_ratings(
    store: Store,
    accounts: Mapping[str, int],
    defaults: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
) -> int:
    """Give each bot level without a rating in a game its shipped rating; how many given.
    A rating a match stored meanwhile (another process) stays (store.add_ratings)."""
    defaults = default_bot_ratings() if defaults is None else defaults
    now = time.time()
    given = []
    for game, levels in defaults.items():
        have = store.ratings_for(game, list(accounts.values()))
        for level, figures in levels.items():
            user_id = accounts.get(level)
            if user_id is None or user_id in have:
                continue
            given.append(
                RatingRow(
                    user_id=user_id,
                    game=game,
                    mu=float(figures["mu"]),
                    sigma=float(figures["sigma"]),
                    matches=int(figures["matches"]),
                    updated_at=now,
                )
            )
    return store.add_ratings(given) if given else 0
