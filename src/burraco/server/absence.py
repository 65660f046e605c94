"""Who played a seat: its person, or a bot that took it over.

A person's seat is played by a bot after its move clock runs out (the table's
``takeover``), until the person acts again. A person is rated only on what they
played: one whose seat a bot played for most of the match (more than half of the
seat's turns, counting the turns of every deal; a person who never played a turn
among them) counts as having abandoned it, a loss (results/record.py, results/ratings.py).

A turn is one seat's run of moves within a deal; it is the bot's if the bot made
any of its moves (a person who draws and lets the clock run out on the rest did
not play that turn). The room counts turns as actions are applied, live and when a
table is rebuilt from its log (each stored action says whether a bot made it), so
the count survives a restart.

>>> tally = Tally().add(0, 0, False).add(0, 0, True).add(0, 1, False).add(1, 1, True)
>>> tally.seats
(SeatTurns(turns=1, bot=1), SeatTurns(turns=2, bot=1))
>>> [s.absent for s in tally.seats]
[True, False]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SeatTurns", "Tally", "absent_json", "absent_seats"]


@dataclass(frozen=True, slots=True)
class SeatTurns:
    """A seat's turns in a match, and how many of them a bot played."""

    turns: int = 0
    bot: int = 0

    @property
    def absent(self) -> bool:
        """A bot played most of the turns: more than half (all of one turn, say).

        >>> SeatTurns(40, 20).absent, SeatTurns(40, 21).absent, SeatTurns(0, 0).absent
        (False, True, False)
        """
        return 2 * self.bot > self.turns


@dataclass(frozen=True, slots=True)
class Tally:
    """Each seat's turns so far; ``turn`` is the turn in play, (deal, seat), and
    ``turn_bot`` whether a bot made one of its moves."""

    seats: tuple[SeatTurns, ...] = ()
    turn: tuple[int, int] | None = None
    turn_bot: bool = False

    def add(self, deal: int, seat: int, by_bot: bool) -> Tally:
        """The tally after a move of ``seat`` in deal ``deal`` (0 the first), made by a bot
        or by the seat's person."""
        seats = list(self.seats) + [SeatTurns()] * (seat + 1 - len(self.seats))
        now = seats[seat]
        if self.turn == (deal, seat):
            if not by_bot or self.turn_bot:
                return self
            # The bot finishes a turn its person began: the turn is the bot's.
            seats[seat] = dataclasses.replace(now, bot=now.bot + 1)
            return Tally(tuple(seats), self.turn, True)
        seats[seat] = SeatTurns(now.turns + 1, now.bot + by_bot)
        return Tally(tuple(seats), (deal, seat), by_bot)

    def of(self, seat: int) -> SeatTurns:
        return self.seats[seat] if seat < len(self.seats) else SeatTurns()


def absent_seats(kinds: Sequence[str], tally: Tally) -> frozenset[int]:
    """The people's seats ("human") a bot played for most of the match. A bot's own seat
    is the bot playing, never absent."""
    return frozenset(
        seat for seat, kind in enumerate(kinds) if kind == "human" and tally.of(seat).absent
    )


def absent_json(kinds: Sequence[str], tally: Tally) -> list[dict[str, Any]]:
    """The ``absent`` list of a ``match_over`` message (docs/protocol.md): each absent
    seat with its turns and those a bot played."""
    return [
        {"seat": seat, "turns": tally.of(seat).turns, "bot_turns": tally.of(seat).bot}
        for seat in sorted(absent_seats(kinds, tally))
    ]
