"""Tournaments: movements, tables, VP standings and the director's desk.

A :class:`Tournament` is a state machine (registration, then each round seated,
played and closed, then finished) over a field of :class:`Entrant` lines,
individual players or pairs. Its movement seats each round: a round-robin, the
Danish movement, the Mitchell movement or a knock-out bracket. Table results
in MP become VP by the table for the round's deals; the standings rank by VP,
MP difference and head-to-head. A tournament saves to and loads from JSON.

>>> from burraco.tournament import Tournament
>>> t = Tournament(format="danish", kind="individual", rounds=2, seeding="registration")
>>> for name in ["Anna", "Bruno", "Carla", "Dario"]:
...     _ = t.register(name)
>>> [(a.first, a.second) for a in t.start_round()]
[(1, 2), (3, 4)]
>>> _ = t.enter_result(1, 1500, 700), t.enter_result(2, 950, 1000)
>>> t.close_round()
>>> [(a.first, a.second) for a in t.start_round()]
[(1, 4), (3, 2)]
"""

from burraco.tournament.errors import TournamentError
from burraco.tournament.movements import Pairing, danish, knockout_bracket, mitchell, round_robin
from burraco.tournament.standings import Standing, standings_of
from burraco.tournament.tables import (
    BOT_LEVELS,
    DEFAULT_BYE_VP,
    ByeRule,
    Entrant,
    Kind,
    TableAssignment,
    TableResult,
    score_table,
)
from burraco.tournament.tournament import FORMATS, Format, Phase, Round, Settings, Tournament

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BYE_VP",
    "FORMATS",
    "ByeRule",
    "Entrant",
    "Format",
    "Kind",
    "Pairing",
    "Phase",
    "Round",
    "Settings",
    "Standing",
    "TableAssignment",
    "TableResult",
    "Tournament",
    "TournamentError",
    "danish",
    "knockout_bracket",
    "mitchell",
    "round_robin",
    "score_table",
    "standings_of",
]
