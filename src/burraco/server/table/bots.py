"""The bots' turns: which bot plays a seat, its pace, its move, when it may take a seat over.

The expert searches in the thinking pool; while the pool is busy the greedy bot plays.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from burraco.actions import Action
from burraco.bots import Bot
from burraco.bots.arena import make_bot
from burraco.server.door.capacity import Capacity
from burraco.server.process.thinking import Busy, Thinking
from burraco.server.table.live import LiveTable, bots_alone, nobody_sees

__all__ = ["UNSEEN_PACE", "Bots"]

log = logging.getLogger("burraco.room")

#: How many times slower than ``bot_delay`` bots play at a table of bots alone that
#: nobody has open (no seat's socket, no spectator): nobody follows its moves, and each
#: such table (a tournament's bot lines, a table its people left) would otherwise cost
#: the room's one loop as much as a table of people.
UNSEEN_PACE = 5.0


class Bots:
    """Chooses the bot's move at each table where a bot is on turn (the step plays it)."""

    def __init__(
        self,
        tables: dict[str, LiveTable],
        capacity: Capacity,
        thinking: Thinking,
        *,
        delay: float = 0.6,
        expert_seconds: float = 1.0,
    ) -> None:
        #: The room's tables (a bot takes over only while few tables are bots' alone).
        self.tables = tables
        self.capacity = capacity
        self.thinking = thinking
        #: Seconds a bot waits before its move (its pace, for people who follow it).
        self.delay = delay
        self.expert_seconds = expert_seconds

    def bot_tables(self) -> int:
        """Tables in play where bots alone play: a seat a bot took over counts as a bot's
        (its person is not playing), so a table its people left counts as one."""
        return sum(1 for t in self.tables.values() if t.status == "playing" and bots_alone(t))

    def may_take_over(self, table: LiveTable, seat: int) -> bool:
        """Whether a bot may take over ``seat`` when its clock runs out: yes while a person
        still plays another seat, else only while the room plays fewer than
        ``max_bot_tables`` tables of bots alone (each costs the loop as much as a table of
        people, and nobody may be watching it)."""
        if any(not s.bot_plays for i, s in enumerate(table.seats) if i != seat):
            return True
        return self.bot_tables() < self.capacity.max_bot_tables

    def pace(self, table: LiveTable) -> float:
        """Seconds the bot on turn waits before it moves."""
        return self.delay * (UNSEEN_PACE if nobody_sees(table) else 1.0)

    async def turn(self, table: LiveTable, version: int) -> tuple[int, str] | None:
        """The bot on turn at ``version`` waits its pace and chooses: its seat and move, or
        None when the step should look again (the table moved meanwhile, a person took
        the seat back, the match ended)."""
        if self.delay:
            await asyncio.sleep(self.pace(table))
        match = table.match
        if match is None or match.is_over or table.version != version:
            return None
        seat = match.deal.turn
        bot = self.bot(table, seat)
        view, legal = match.view(seat), match.legal_actions()
        if isinstance(bot, _Slow):
            action = await self._expert(table, view, legal, seat)
        else:
            action = bot.choose(view, legal)
        if table.version != version or not table.seats[seat].bot_plays:
            return None
        return seat, str(action)

    async def _expert(self, table: LiveTable, view: Any, legal: Any, seat: int) -> Action:
        """The expert's move, searched in a thinking process; when they are all busy, the
        greedy bot's move, so that the table never waits for a place."""
        try:
            action: Action = await self.thinking.think(
                table.id, _expert_choice, view, legal, self.expert_seconds, seat
            )
        except Busy as error:
            log.info("table %s: the greedy bot plays for the expert (%s)", table.id, error)
        except Exception:
            log.exception("table %s: the expert's search failed; the greedy bot plays", table.id)
        else:
            return action
        return make_bot("greedy", seed=table.row.seed % 100000 + seat).choose(view, legal)

    def bot(self, table: LiveTable, seat: int) -> Bot:
        """The bot of ``seat`` (the table's level, seeded by the table and the seat)."""
        bot = table.bots.get(seat)
        if bot is None:
            level = table.row.bot
            made = make_bot(level, seed=table.row.seed % 100000 + seat, seconds=self.expert_seconds)
            bot = _Slow(made) if level == "expert" else made
            table.bots[seat] = bot
        return bot


def _expert_choice(view: Any, legal: Any, seconds: float, seed: int) -> Action:
    from burraco.bots.expert import ExpertBot

    return ExpertBot(seconds=seconds, seed=seed).choose(view, legal)


class _Slow:
    """A bot that thinks long enough to run in a worker thread."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, view: Any, legal: Any) -> Action:
        return self.bot.choose(view, legal)
