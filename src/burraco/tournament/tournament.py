"""The tournament: a state machine from registration to the final standings.

A tournament goes through explicit phases::

    registration -> round 1 seating -> round 1 playing -> round 1 closed
                 -> round 2 seating -> ... -> finished

The director registers the entrants (players or pairs), starts a round (the
movement seats the lines at tables), enters each table's result as it comes
in (the standings follow at once), corrects a result if need be, and closes
the round when every table has one. Every method that changes the tournament
first checks the rules and raises :class:`TournamentError` naming the rule,
leaving the tournament exactly as it was.

>>> t = Tournament(Settings(format="round-robin", kind="pairs", seeding="registration"))
>>> for pair in [("Anna", "Bruno"), ("Carla", "Dario"), ("Elena", "Fabio")]:
...     _ = t.register(pair)
>>> [(a.table, a.first, a.second) for a in t.start_round()], t.current_round.byes
([(1, 2, 3)], [1])
>>> t.phase, t.round_number
(<Phase.SEATING: 'seating'>, 1)
>>> _ = t.enter_result(1, 1320, 1010)
>>> t.close_round()
>>> [(s.name, s.vp, s.mp) for s in t.standings()]
[('Carla / Dario', 13, 310), ('Anna / Bruno', 12, 155), ('Elena / Fabio', 7, -310)]
>>> t.enter_result(1, 900, 900)
Traceback (most recent call last):
...
burraco.tournament.errors.TournamentError: enter_result: no round is in play (round 1 is closed)
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Literal, get_args

from burraco.errors import RuleError
from burraco.tournament.errors import PHASES, TournamentError
from burraco.tournament.movements import (
    Pairing,
    danish,
    knockout_bracket,
    knockout_round,
    knockout_rounds,
    mitchell,
    mitchell_rounds,
    round_robin,
    round_robin_rounds,
)
from burraco.tournament.standings import Standing, standings_of
from burraco.tournament.tables import (
    BOT_LEVELS,
    ByeRule,
    Entrant,
    Kind,
    TableAssignment,
    TableResult,
    score_table,
)
from burraco.variants import SETUPS
from burraco.vp import VPTable, victory_points, vp_table_for

__all__ = [
    "FILE_FORMAT",
    "FORMATS",
    "Format",
    "Phase",
    "Round",
    "Seeding",
    "Settings",
    "Tournament",
]

#: The movements: ``round-robin``, ``danish``, ``mitchell``, ``knockout``.
Format = Literal["round-robin", "danish", "mitchell", "knockout"]
FORMATS: Final[tuple[str, ...]] = get_args(Format)
#: The order of the field: a random draw from the tournament's seed, or the registration order.
Seeding = Literal["draw", "registration"]
#: The name written in a saved tournament.
FILE_FORMAT: Final = "burraco-tournament"
_VERSION: Final = 1


class Phase(StrEnum):
    """Where the tournament stands."""

    REGISTRATION = "registration"
    SEATING = "seating"
    PLAYING = "playing"
    CLOSED = "closed"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Settings:
    """How a tournament is played.

    ``rounds`` defaults to the whole movement (round-robin, Mitchell) or the
    whole bracket (knock-out); a Danish tournament without a number of rounds
    goes on until the director calls :meth:`Tournament.finish`. A round is
    ``deals`` deals, each of at most ``deal_minutes`` minutes, a player having
    ``move_seconds`` for a move at the room's tables (002's move clock: running
    out is abandonment, with its penalty; 0 for none; a player who has not opened
    the table when the round starts has ``grace_seconds`` more before that clock
    runs on their first turn), and its MP
    difference becomes VP by ``vp_table`` (by default the table for that many
    deals: 3 or 4). Anyone may watch the room's tables unless ``spectators`` is
    off, and their players may chat unless ``chat`` is off.

    >>> Settings(deals=4).table[0]
    (100, 10)
    >>> Settings(deals=5)
    Traceback (most recent call last):
    ...
    burraco.tournament.errors.TournamentError: no VP table for a round of 5 deals (3 or 4); give one
    """

    name: str = "Burraco tournament"
    #: The game every table plays: a preset with a table of 2 alone (individual) or of
    #: 4 in pairs (pairs), as variants.py names it.
    game: str = "italian"
    format: Format = "danish"
    kind: Kind = "pairs"
    rounds: int | None = None
    deals: int = 3
    vp_table: VPTable | None = None
    bye: ByeRule = field(default_factory=ByeRule)
    deal_minutes: int = 15
    move_seconds: int = 40
    grace_seconds: int = 180
    seeding: Seeding = "draw"
    seed: int = 0
    spectators: bool = True
    chat: bool = True
    #: The director admits bot accounts (docs/bots.md): a program may play a seat of the
    #: room's tables with its entrant's token.
    bots: bool = False

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise TournamentError(
                "unknown_format", format=repr(self.format), formats=", ".join(FORMATS)
            )
        if self.kind not in get_args(Kind):
            raise TournamentError("unknown_tournament_kind", kind=repr(self.kind))
        if self.seeding not in get_args(Seeding):
            raise TournamentError("unknown_seeding", seeding=repr(self.seeding))
        if self.kind in get_args(Kind) and self.game not in games_for(self.kind):
            raise TournamentError(
                "unknown_game",
                game=repr(self.game),
                kind=self.kind,
                games=", ".join(games_for(self.kind)),
            )
        if self.rounds is not None and self.rounds < 1:
            raise TournamentError("too_few_rounds", rounds=self.rounds)
        if self.deals < 1:
            raise TournamentError("too_few_deals", deals=self.deals)
        if self.deal_minutes < 1:
            raise TournamentError("deal_too_short", minutes=self.deal_minutes)
        if not 0 <= self.move_seconds <= 3600:
            raise TournamentError("move_clock_range", seconds=self.move_seconds)
        if not 0 <= self.grace_seconds <= 3600:
            raise TournamentError("grace_range", seconds=self.grace_seconds)
        if self.vp_table is None:
            try:
                vp_table_for(self.deals)
            except RuleError:
                raise TournamentError("no_vp_table", deals=self.deals) from None
        try:
            victory_points(0, table=self.table)
        except RuleError as error:
            # A table the director gave: burraco.vp says what is wrong with it, in English.
            raise TournamentError("bad_vp_table", problem=str(error)) from None

    @property
    def table(self) -> VPTable:
        """The VP table of the rounds."""
        return self.vp_table if self.vp_table is not None else vp_table_for(self.deals)

    @property
    def round_minutes(self) -> int:
        """The time limit of a round: ``deals`` deals of ``deal_minutes`` each.

        >>> Settings(deals=4).round_minutes
        60
        """
        return self.deals * self.deal_minutes

    @property
    def players_per_table(self) -> int:
        return 4 if self.kind == "pairs" else 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "format": self.format,
            "kind": self.kind,
            "rounds": self.rounds,
            "deals": self.deals,
            "vp_table": [list(band) for band in self.vp_table] if self.vp_table else None,
            "bye": self.bye.to_dict(),
            "deal_minutes": self.deal_minutes,
            "move_seconds": self.move_seconds,
            "grace_seconds": self.grace_seconds,
            "seeding": self.seeding,
            "seed": self.seed,
            "spectators": self.spectators,
            "chat": self.chat,
            "bots": self.bots,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        table = data.get("vp_table")
        return cls(
            name=str(data["name"]),
            # Tournaments saved before the game was a setting played Italian Burraco.
            game=str(data.get("game", "italian")),
            format=data["format"],
            kind=data["kind"],
            rounds=data.get("rounds"),
            deals=int(data["deals"]),
            vp_table=tuple((int(end), int(vp)) for end, vp in table) if table else None,
            bye=ByeRule.from_dict(data["bye"]),
            deal_minutes=int(data["deal_minutes"]),
            # Tournaments saved before the move clock had none.
            move_seconds=int(data.get("move_seconds", 0)),
            # Tournaments saved before the grace had none.
            grace_seconds=int(data.get("grace_seconds", 0)),
            seeding=data["seeding"],
            seed=int(data["seed"]),
            # Tournaments saved before spectators and chat had both.
            spectators=bool(data.get("spectators", True)),
            chat=bool(data.get("chat", True)),
            # Tournaments saved before bot accounts admitted none.
            bots=bool(data.get("bots", False)),
        )


def games_for(kind: str) -> tuple[str, ...]:
    """The games a tournament of ``kind`` may play: the presets with its table (2 players
    alone, or 4 in two pairs).

    >>> games_for("pairs")[:4], "stbl" in games_for("individual")
    (('italian', 'online', 'buraco', 'canasta'), True)
    """
    table = (4, 2) if kind == "pairs" else (2, 2)
    return tuple(name for name, players, lines in SETUPS if (players, lines) == table)


@dataclass(slots=True)
class Round:
    """A round: its tables, its byes and the results entered so far (by table number).

    ``slots`` is, in a knock-out, the bracket at the start of the round;
    ``repeats`` counts the tables whose lines had met before (Danish).
    """

    number: int
    tables: list[TableAssignment]
    byes: list[int]
    results: dict[int, TableResult] = field(default_factory=dict)
    slots: list[int | None] | None = None
    repeats: int = 0
    closed: bool = False

    def assignment(self, table: int) -> TableAssignment | None:
        return next((a for a in self.tables if a.table == table), None)

    def missing(self) -> list[int]:
        """The tables without a result."""
        return [a.table for a in self.tables if a.table not in self.results]

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "tables": [a.to_dict() for a in self.tables],
            "byes": list(self.byes),
            "results": [self.results[t].to_dict() for t in sorted(self.results)],
            "slots": list(self.slots) if self.slots is not None else None,
            "repeats": self.repeats,
            "closed": self.closed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        results = [TableResult.from_dict(r) for r in data["results"]]
        slots = data.get("slots")
        return cls(
            number=int(data["number"]),
            tables=[TableAssignment.from_dict(a) for a in data["tables"]],
            byes=[int(b) for b in data["byes"]],
            results={r.table: r for r in results},
            slots=[None if s is None else int(s) for s in slots] if slots is not None else None,
            repeats=int(data.get("repeats", 0)),
            closed=bool(data["closed"]),
        )


class Tournament:
    """A tournament: its settings, its field, its rounds, and the phase it is in."""

    def __init__(self, settings: Settings | None = None, **options: Any) -> None:
        if settings is not None and options:
            raise TournamentError("settings_or_options")
        self.settings = settings if settings is not None else Settings(**options)
        self.phase = Phase.REGISTRATION
        self.rounds: list[Round] = []
        #: The field in seeding order, fixed when round 1 starts.
        self.draw: list[int] = []
        #: The rounds the tournament will play (None: a Danish run until :meth:`finish`).
        self.planned_rounds: int | None = self.settings.rounds
        self._entrants: dict[int, Entrant] = {}

    # --- the field --------------------------------------------------------------------------

    @property
    def entrants(self) -> list[Entrant]:
        """The entrants in registration order."""
        return list(self._entrants.values())

    def entrant(self, entrant_id: int) -> Entrant:
        try:
            return self._entrants[entrant_id]
        except KeyError:
            raise TournamentError("no_entrant", entrant=entrant_id) from None

    def register(
        self,
        entrant: Entrant | str | Sequence[str],
        *,
        bot: str | None = None,
        team: str | None = None,
    ) -> Entrant:
        """Register a line: an :class:`Entrant`, a player's name (individual) or two
        players' names (pairs). Without an id of its own it gets the next number.

        >>> t = Tournament(kind="pairs")
        >>> t.register(("Anna", "Bruno")).id, t.register(Entrant(9, ("Carla", "Dario"))).id
        (1, 9)
        >>> t.register("Elena")
        Traceback (most recent call last):
        ...
        burraco.tournament.errors.TournamentError: register: a line of a pairs tournament \
is 2 players, not 1 (Elena)
        """
        self._require("register", Phase.REGISTRATION, "entries_closed")
        if isinstance(entrant, Entrant):
            new = entrant
            if bot is not None or team is not None:
                raise TournamentError("entrant_carries_bot", action="register")
        else:
            players = (entrant,) if isinstance(entrant, str) else tuple(entrant)
            next_id = max(self._entrants, default=0) + 1
            new = Entrant(next_id, tuple(p.strip() for p in players), bot=bot, team=team)
        self._check_entrant(new)
        self._entrants[new.id] = new
        return new

    def _check_entrant(self, entrant: Entrant) -> None:
        size = self.settings.players_per_table // 2
        names = ", ".join(entrant.players)
        if len(entrant.players) != size:
            raise TournamentError(
                "line_of_two" if size == 2 else "line_of_one",
                action="register",
                count=len(entrant.players),
                names=names,
            )
        if isinstance(entrant.id, bool) or not isinstance(entrant.id, int) or entrant.id < 1:
            # A param is text or a number: an id of another type is sent as its text.
            shown = entrant.id if type(entrant.id) is int else str(entrant.id)
            raise TournamentError("bad_entrant_id", action="register", id=shown)
        if entrant.id in self._entrants:
            raise TournamentError(
                "entrant_id_taken",
                action="register",
                id=entrant.id,
                name=self._entrants[entrant.id].name,
            )
        if any(not isinstance(p, str) or not p.strip() for p in entrant.players):
            raise TournamentError("player_needs_name", action="register")
        taken = {p for e in self._entrants.values() for p in e.players}
        for player in entrant.players:
            if player in taken or entrant.players.count(player) > 1:
                raise TournamentError("player_already_plays", action="register", player=player)
        if entrant.bot is not None and entrant.bot not in BOT_LEVELS:
            raise TournamentError(
                "no_bot_level",
                action="register",
                level=repr(entrant.bot),
                levels=", ".join(BOT_LEVELS),
            )

    def withdraw(self, entrant_id: int) -> Entrant:
        """Take a line out of the field before round 1 starts."""
        self._require("withdraw", Phase.REGISTRATION, "field_fixed")
        entrant = self.entrant(entrant_id)
        del self._entrants[entrant_id]
        return entrant

    def pad_with_bots(self, size: int, levels: str | Sequence[str] = "greedy") -> list[Entrant]:
        """Fill the field up to ``size`` lines with bots, the ``levels`` taken in turn.

        >>> t = Tournament(kind="individual")
        >>> _ = t.register("Anna")
        >>> [(e.id, e.name, e.bot) for e in t.pad_with_bots(3, ["greedy", "random"])]
        [(2, 'Greedy 2', 'greedy'), (3, 'Random 3', 'random')]
        """
        self._require("pad_with_bots", Phase.REGISTRATION, "field_fixed")
        chosen = [levels] if isinstance(levels, str) else list(levels)
        for level in chosen:
            if level not in BOT_LEVELS:
                raise TournamentError(
                    "no_bot_level",
                    action="pad_with_bots",
                    level=repr(level),
                    levels=", ".join(BOT_LEVELS),
                )
        if not chosen:
            raise TournamentError("no_bot_levels", action="pad_with_bots")
        if size < len(self._entrants):
            raise TournamentError(
                "field_too_large", action="pad_with_bots", lines=len(self._entrants), size=size
            )
        taken = {p for e in self._entrants.values() for p in e.players}
        pairs = self.settings.kind == "pairs"
        added: list[Entrant] = []
        next_id = max(self._entrants, default=0) + 1
        for i in range(size - len(self._entrants)):
            level = chosen[i % len(chosen)]
            number = next_id + i
            team = f"{level.capitalize()} {number}"
            players = (f"{team}a", f"{team}b") if pairs else (team,)
            if any(p in taken for p in players):
                raise TournamentError("bot_name_taken", action="pad_with_bots", name=team)
            added.append(Entrant(number, players, bot=level, team=team if pairs else None))
        for entrant in added:
            self._entrants[entrant.id] = entrant
        return added

    # --- rounds ----------------------------------------------------------------------------

    @property
    def round_number(self) -> int:
        """The number of the last round started (0 before the first)."""
        return len(self.rounds)

    @property
    def current_round(self) -> Round | None:
        """The last round started, None before the first."""
        return self.rounds[-1] if self.rounds else None

    def start_round(self) -> list[TableAssignment]:
        """Seat the next round by the movement; returns its tables (its byes are in
        :attr:`current_round`)."""
        number = len(self.rounds) + 1
        if self.phase in (Phase.SEATING, Phase.PLAYING):
            # Every table may have its result and the round still be open: "none".
            missing = ", ".join(map(str, self.rounds[-1].missing())) or "none"
            raise TournamentError(
                "round_not_closed", action="start_round", round=number - 1, missing=missing
            )
        if self.phase is Phase.FINISHED:
            raise TournamentError("tournament_finished", action="start_round")
        if self.phase is Phase.REGISTRATION:
            draw = self._make_draw()
            planned = self._plan(len(draw))
        else:
            draw, planned = self.draw, self.planned_rounds
        pairing, slots = self._pair(number, draw)
        tables = [TableAssignment(number, t, a, b) for t, a, b in pairing.tables]
        new = Round(number, tables, list(pairing.byes), slots=slots, repeats=pairing.repeats)
        self.draw, self.planned_rounds = draw, planned
        self.rounds.append(new)
        self.phase = Phase.SEATING
        return list(tables)

    def _make_draw(self) -> list[int]:
        if len(self._entrants) < 2:
            raise TournamentError("too_few_lines", action="start_round", lines=len(self._entrants))
        draw = list(self._entrants)
        if self.settings.seeding == "draw":
            random.Random(self.settings.seed).shuffle(draw)
        return draw

    def _plan(self, lines: int) -> int | None:
        s = self.settings
        if s.format == "knockout":
            whole = knockout_rounds(lines)
            if s.rounds is not None and s.rounds != whole:
                raise TournamentError(
                    "knockout_rounds",
                    action="start_round",
                    lines=lines,
                    whole=whole,
                    rounds=s.rounds,
                )
            return whole
        if s.format in ("round-robin", "mitchell"):
            rule = round_robin_rounds if s.format == "round-robin" else mitchell_rounds
            whole = rule(lines)
            if s.rounds is not None and s.rounds > whole:
                raise TournamentError(
                    "movement_rounds",
                    action="start_round",
                    format=s.format,
                    lines=lines,
                    whole=whole,
                    rounds=s.rounds,
                )
            return s.rounds if s.rounds is not None else whole
        return s.rounds

    def _pair(self, number: int, draw: list[int]) -> tuple[Pairing, list[int | None] | None]:
        s = self.settings
        if s.format == "round-robin":
            return round_robin(draw, number), None
        if s.format == "mitchell":
            return mitchell(draw, number), None
        if s.format == "knockout":
            slots = knockout_bracket(draw) if number == 1 else self._winners(self.rounds[-1])
            return knockout_round(slots), slots
        met: dict[int, set[int]] = defaultdict(set)
        byes: dict[int, int] = defaultdict(int)
        for r in self.rounds:
            for a in r.tables:
                met[a.first].add(a.second)
                met[a.second].add(a.first)
            for line in r.byes:
                byes[line] += 1
        order = [st.entrant for st in self.standings()] if self.rounds else draw
        return danish(order, met, byes), None

    def _winners(self, previous: Round) -> list[int | None]:
        assert previous.slots is not None
        winners: list[int | None] = []
        by_line = {
            line: r.winner for r in previous.results.values() for line in (r.first, r.second)
        }
        for a, b in zip(previous.slots[0::2], previous.slots[1::2], strict=True):
            winners.append(by_line[a] if a is not None and b is not None else a if b is None else b)
        return winners

    def start_play(self) -> None:
        """The round's lines are seated: the play (and the deal clock) starts."""
        self._require("start_play", Phase.SEATING, "play_after_seating")
        self.phase = Phase.PLAYING

    def enter_result(
        self,
        table: int,
        mp_first: int,
        mp_second: int,
        *,
        abandoned_by: int | None = None,
        last_mover: int | None = None,
    ) -> TableResult:
        """Enter a table's result in the round in play: the MP of its first and second
        line (after an abandonment, the totals of the completed deals, with
        ``abandoned_by`` the leaving line's id; in a knock-out tie, ``last_mover``
        the id of the line that made the last move of the last deal).

        The first result of a round being seated starts its play.
        """
        if self.phase not in (Phase.SEATING, Phase.PLAYING):
            raise TournamentError("no_round_in_play", action="enter_result", **self._phase())
        current = self.rounds[-1]
        assignment = self._assignment("enter_result", current, table)
        if table in current.results:
            raise TournamentError(
                "result_exists", action="enter_result", table=table, round=current.number
            )
        result = self._score(assignment, mp_first, mp_second, abandoned_by, last_mover)
        current.results[table] = result
        self.phase = Phase.PLAYING
        return result

    def correct_result(
        self,
        table: int,
        mp_first: int,
        mp_second: int,
        *,
        round: int | None = None,
        abandoned_by: int | None = None,
        last_mover: int | None = None,
    ) -> TableResult:
        """Replace a table's result (of the last round by default, or of ``round``).

        The standings follow; the tables of later rounds stay as they were seated.
        In a knock-out only the last round's results can change, since the next
        round is drawn from its winners.
        """
        if not self.rounds:
            raise TournamentError("no_round_played", action="correct_result")
        number = len(self.rounds) if round is None else round
        if not 1 <= number <= len(self.rounds):
            raise TournamentError(
                "no_such_round", action="correct_result", round=number, last=len(self.rounds)
            )
        if self.settings.format == "knockout" and number < len(self.rounds):
            raise TournamentError(
                "knockout_results_stand", action="correct_result", next=number + 1, round=number
            )
        target = self.rounds[number - 1]
        assignment = self._assignment("correct_result", target, table)
        if table not in target.results:
            raise TournamentError(
                "no_result_yet", action="correct_result", table=table, round=number
            )
        result = self._score(assignment, mp_first, mp_second, abandoned_by, last_mover)
        target.results[table] = result
        return result

    def _assignment(self, action: str, target: Round, table: int) -> TableAssignment:
        assignment = target.assignment(table)
        if assignment is None:
            numbers = ", ".join(str(a.table) for a in target.tables)
            raise TournamentError(
                "no_such_table", action=action, round=target.number, table=table, tables=numbers
            )
        return assignment

    def _score(
        self,
        assignment: TableAssignment,
        mp_first: int,
        mp_second: int,
        abandoned_by: int | None,
        last_mover: int | None,
    ) -> TableResult:
        return score_table(
            assignment,
            mp_first,
            mp_second,
            self.settings.table,
            abandoned_by=abandoned_by,
            last_mover=last_mover,
            knockout=self.settings.format == "knockout",
        )

    def close_round(self) -> None:
        """Close the round in play once every table has a result; after the last round,
        the tournament is finished."""
        if self.phase not in (Phase.SEATING, Phase.PLAYING):
            raise TournamentError("no_round_in_play", action="close_round", **self._phase())
        current = self.rounds[-1]
        missing = current.missing()
        if missing:
            raise TournamentError(
                "tables_without_result",
                action="close_round",
                round=current.number,
                missing=", ".join(map(str, missing)),
            )
        current.closed = True
        last = self.planned_rounds is not None and current.number >= self.planned_rounds
        self.phase = Phase.FINISHED if last else Phase.CLOSED

    def finish(self) -> None:
        """End the tournament after a closed round (a Danish run without a set number of
        rounds, or a movement cut short)."""
        self._require("finish", Phase.CLOSED, "finish_after_closed")
        if self.settings.format == "knockout":
            raise TournamentError("knockout_ends_with_final", action="finish")
        self.phase = Phase.FINISHED

    # --- results -----------------------------------------------------------------------------

    def results(self) -> list[TableResult]:
        """Every result entered, round by round, table by table."""
        return [r.results[t] for r in self.rounds for t in sorted(r.results)]

    def standings(self) -> list[Standing]:
        """The standings by the results entered so far: VP, then MP difference, then
        head-to-head (the VP scored between the lines level), then the draw.

        In a knock-out, how far a line came ranks first; its byes carry no VP.
        """
        field = [self._entrants[i] for i in self.draw] if self.draw else self.entrants
        if self.settings.format == "knockout":
            stage: dict[int, int] = defaultdict(int)
            for r in self.rounds:
                for line in r.byes:
                    stage[line] += 1
                for result in r.results.values():
                    if result.winner is not None:
                        stage[result.winner] += 1
            return standings_of(field, self.results(), [], self.settings.table, stage=stage)
        byes = [(r.number, line) for r in self.rounds for line in r.byes]
        return standings_of(field, self.results(), byes, self.settings.table, self.settings.bye)

    def champion(self) -> Entrant | None:
        """The winner of a finished tournament."""
        if self.phase is not Phase.FINISHED:
            return None
        return self._entrants[self.standings()[0].entrant]

    def seats(self, assignment: TableAssignment) -> dict[str, str]:
        """Who sits where: North and South the first line, East and West the second
        (in an individual tournament, North the first player and South the second)."""
        first, second = self.entrant(assignment.first), self.entrant(assignment.second)
        if self.settings.kind == "individual":
            return {"N": first.players[0], "S": second.players[0]}
        return {
            "N": first.players[0],
            "S": first.players[1],
            "E": second.players[0],
            "W": second.players[1],
        }

    def _require(self, action: str, phase: Phase, code: str) -> None:
        """Refuse ``action`` by the rule ``code`` unless the tournament is in ``phase``."""
        if self.phase is not phase:
            raise TournamentError(code, action=action, **self._phase())

    def _phase(self) -> dict[str, str | int]:
        # The params of a rule that says where the tournament stands (errors.PHASES).
        return {"phase": self.phase.value, "round": len(self.rounds)}

    def _where(self) -> str:
        return PHASES[self.phase.value].format_map(self._phase())

    # --- saving -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole tournament as plain data (JSON-ready)."""
        return {
            "format": FILE_FORMAT,
            "version": _VERSION,
            "settings": self.settings.to_dict(),
            "phase": self.phase.value,
            "planned_rounds": self.planned_rounds,
            "entrants": [e.to_dict() for e in self._entrants.values()],
            "draw": list(self.draw),
            "rounds": [r.to_dict() for r in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tournament:
        """A tournament from :meth:`to_dict`'s data."""
        if data.get("format") != FILE_FORMAT:
            raise TournamentError("not_a_saved_tournament", format=repr(data.get("format")))
        if data.get("version") != _VERSION:
            raise TournamentError("saved_version", version=repr(data.get("version")))
        t = cls(Settings.from_dict(data["settings"]))
        t.phase = Phase(data["phase"])
        t.planned_rounds = data.get("planned_rounds")
        t._entrants = {e.id: e for e in map(Entrant.from_dict, data["entrants"])}
        t.draw = [int(i) for i in data["draw"]]
        t.rounds = [Round.from_dict(r) for r in data["rounds"]]
        return t

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Tournament:
        return cls.from_dict(json.loads(text))

    def save(self, path: Path | str) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | str) -> Tournament:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"<Tournament {s.name!r} {s.format} {s.kind}: {len(self._entrants)} lines, "
            f"{self._where()}>"
        )
