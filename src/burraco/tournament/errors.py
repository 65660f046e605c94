"""The error of the tournament desk: each says which rule of the tournament was broken.

A :class:`TournamentError` names the broken rule by a snake_case ``code`` of
:data:`TEXTS` and carries the ``params`` its sentence needs, as the engine's refusals
do (:mod:`burraco.refusals`); ``action`` is the method refused, if any. ``str()`` is
the English sentence, ``"{action}: {text}"``, so a page can say the same error in its
own language from the code and the params alone.

A rule that depends on where the tournament stands (``entries_closed``) has the phase
in ``params.phase``, a key of :data:`PHASES`, and the number of the last round started
in ``params.round``: the phase's sentence, filled from the same params, takes the place
of ``{phase}``.

A rule about one field of a table's result names that field in ``params.field``
(``mp_first``, ``mp_second``, ``abandoned_by``, ``last_mover``: the names the director
gives them), and a round with no table left without a result has ``missing: "none"``.
These values are listed in :data:`WORDS`; a page says each in its own words.

>>> error = TournamentError("result_exists", action="enter_result", table=3, round=2)
>>> error.code, dict(error.params)
('result_exists', {'table': 3, 'round': 2})
>>> print(error)
enter_result: table 3 of round 2 already has a result; use correct_result
>>> print(TournamentError("entries_closed", action="register", phase="playing", round=1))
register: entries close when round 1 starts (round 1 is in play)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from burraco.errors import RuleError

__all__ = ["PHASES", "TEXTS", "WORDS", "TournamentError"]

#: Where the tournament stands, by phase, as the rules that depend on it say it.
PHASES: Final[dict[str, str]] = {
    "registration": "the tournament is taking entries",
    "seating": "round {round} is being seated",
    "playing": "round {round} is in play",
    "closed": "round {round} is closed",
    "finished": "the tournament is finished",
}

#: The params whose values are words, not data, by param: a page says each value in its
#: own words (the English text says it as it is).
WORDS: Final[dict[str, tuple[str, ...]]] = {
    "field": ("mp_first", "mp_second", "abandoned_by", "last_mover"),
    "missing": ("none",),
}

#: Every tournament error's code with its English template. A value that stood in
#: quotes (a name the director typed) comes in its params already quoted.
TEXTS: Final[dict[str, str]] = {
    # --- the settings -----------------------------------------------------------------------
    "unknown_format": "no format {format} ({formats})",
    "unknown_tournament_kind": "a tournament is 'individual' or 'pairs', not {kind}",
    "unknown_seeding": "seeding is 'draw' or 'registration', not {seeding}",
    "unknown_game": "no game {game} at a {kind} tournament's tables (the games: {games})",
    "too_few_rounds": "a tournament has at least one round, not {rounds}",
    "too_few_deals": "a round has at least one deal, not {deals}",
    "deal_too_short": "a deal lasts at least a minute, not {minutes}",
    "move_clock_range": "a move clock has 0 to 3600 seconds, not {seconds}",
    "grace_range": "the grace before the first move has 0 to 3600 seconds, not {seconds}",
    "no_vp_table": "no VP table for a round of {deals} deals (3 or 4); give one",
    "bad_vp_table": "{problem}",
    "bye_vp_range": "a bye is worth 0 to {most} VP, not {vp}",
    "bye_not_vp": "a bye is worth a number of VP or 'average', not {text}",
    "settings_or_options": "give the settings or options, not both",
    # --- the field ------------------------------------------------------------------------
    "no_entrant": "no entrant {entrant} in the field",
    "entries_closed": "entries close when round 1 starts ({phase})",
    "field_fixed": "the field is fixed when round 1 starts ({phase})",
    "entrant_carries_bot": "an Entrant carries its own bot and team",
    "line_of_one": "a line of an individual tournament is 1 player, not {count} ({names})",
    "line_of_two": "a line of a pairs tournament is 2 players, not {count} ({names})",
    "bad_entrant_id": "an entrant's id is a number from 1, not {id}",
    "entrant_id_taken": "id {id} is taken by {name}",
    "player_needs_name": "every player needs a name",
    "player_already_plays": "{player} already plays in a line",
    "no_bot_level": "no bot level {level} ({levels})",
    "no_bot_levels": "give at least one bot level",
    "field_too_large": "the field already has {lines} lines, more than {size}",
    "bot_name_taken": "a player is already called {name}",
    # --- the rounds -----------------------------------------------------------------------
    "round_not_closed": (
        "round {round} is not closed yet (tables without a result: {missing}); close it first"
    ),
    "tournament_finished": "the tournament is finished",
    "too_few_lines": "a tournament needs at least two lines, not {lines}",
    "knockout_rounds": "a knock-out of {lines} lines has {whole} rounds, not {rounds}",
    "movement_rounds": "a {format} of {lines} lines has {whole} rounds, not {rounds}",
    "play_after_seating": "a round is played after it is seated ({phase})",
    "no_round_in_play": "no round is in play ({phase})",
    "no_such_table": "round {round} has no table {table} (tables {tables})",
    "result_exists": "table {table} of round {round} already has a result; use correct_result",
    "no_round_played": "no round has been played",
    "no_such_round": "there is no round {round} (rounds 1 to {last})",
    "knockout_results_stand": (
        "round {next} of the knock-out is drawn from the winners of round {round}, "
        "so its results stand"
    ),
    "no_result_yet": "table {table} of round {round} has no result yet; use enter_result",
    "tables_without_result": "round {round} has tables without a result: {missing}",
    "finish_after_closed": "a tournament ends after a closed round ({phase})",
    "knockout_ends_with_final": "a knock-out ends with its final",
    # --- a table's result -----------------------------------------------------------------
    "mp_not_whole": (
        "table {table} of round {round}: {field} must be a whole number of points, not {value}"
    ),
    "mp_step": (
        "table {table} of round {round}: {field} = {value}: points move in steps of {step} "
        "(every card and premium is a multiple of 5)"
    ),
    "not_at_table": (
        "table {table} of round {round}: {field} {line} does not sit at this table "
        "(lines {first} and {second})"
    ),
    "knockout_tie": (
        "table {table} of round {round}: a knock-out tie ({mp_first} to {mp_second}) is lost "
        "by the line that made the last move of the last deal (002); give last_mover"
    ),
    # --- the movements --------------------------------------------------------------------
    "round_needs_two_lines": "a round needs at least two lines, not {lines}",
    "line_repeated": "a line may sit at one table only: the field repeats a line",
    "movement_has_no_round": "a {format} of this field has rounds 1 to {total}, not {round}",
    "knockout_needs_two_lines": "a knock-out needs at least two lines, not {lines}",
    "bracket_size": "a bracket has a power of two places, not {size}",
    "bracket_round_odd": "a bracket round has an even number of places, not {places}",
    "bracket_empty_meet": "two empty places meet in the bracket",
    # --- table cards, bot play, the command line ------------------------------------------
    "no_round_seated": "no round has been seated",
    "no_round_to_print": "there is no round {round} (1 to {last})",
    "deal_clock_too_short": "the deal clock is at least one decision, not {clock}",
    "seat_a_round_first": "seat a round first (start_round)",
    "human_at_bot_table": "line {line} ({name}) is not a bot; enter its table's result by hand",
    "danish_needs_rounds": "a Danish run needs a number of rounds",
    "line_not_a_bot": "line {line} ({name}) is not a bot",
    "pairs_or_players": "give --pairs or --players, not both",
    # --- saved tournaments ----------------------------------------------------------------
    "not_a_saved_tournament": "not a saved tournament (format {format})",
    "saved_version": "a saved tournament of version {version}",
}


def _text(code: str, params: Mapping[str, str | int]) -> str:
    phase = params.get("phase")
    if isinstance(phase, str) and phase in PHASES:
        params = {**params, "phase": PHASES[phase].format_map(params)}
    return TEXTS[code].format_map(params)


class TournamentError(RuleError):
    """Something a tournament's rules or its phase do not allow: the rule's ``code`` of
    :data:`TEXTS`, the ``params`` its sentence needs and the ``action`` refused (a
    method's name, "bot play", "table cards"; None for none). The message names the rule.

    The tournament is left exactly as it was.
    """

    def __init__(self, code: str, /, *, action: str | None = None, **params: str | int) -> None:
        text = _text(code, params)
        super().__init__(text if action is None else f"{action}: {text}")
        self.code = code
        self.action = action
        self.params: Mapping[str, str | int] = MappingProxyType(params)

    def __reduce__(self) -> tuple[object, tuple[str, str | None, dict[str, str | int]]]:
        # Pickled across processes (bot play's pool) by its code, not its text.
        return _rebuilt, (self.code, self.action, dict(self.params))


def _rebuilt(code: str, action: str | None, params: dict[str, str | int]) -> TournamentError:
    return TournamentError(code, action=action, **params)
