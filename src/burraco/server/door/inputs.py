"""What the room accepts from outside: names and numbers, checked once, here.

A name is shown to other players, printed on table cards and written to CSV, so it may
hold letters, digits, punctuation and spaces of any script, but nothing that changes how
the text around it is shown or read: no control characters (NUL among them), no bidi
overrides or isolates, no lone surrogates. It is kept in NFKC form (full-width letters
made plain, server/accounts/names.py), and must show something: a name of zero-width spaces or
Hangul fillers alone is no name.

>>> clean_name("  Anna   Maria "), clean_name("Ａｎｎａ")
('Anna Maria', 'Anna')
>>> clean_name("\u200b")
Traceback (most recent call last):
...
ValueError: a name needs at least one visible character
>>> clean_name("Anna\\u202e")
Traceback (most recent call last):
...
ValueError: a name may not hold control characters, bidi controls or unpaired surrogates
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from burraco.server.accounts.names import invisible, normal

__all__ = ["MP_LIMIT", "EntrantName", "PlayerName", "Preset", "TournamentName", "clean_name"]

#: Match points a table can score in a round, in either direction, with room to spare.
MP_LIMIT = 100_000

#: Every preset a table may play, Brazil's too: a new table's, a challenge's, quick play's.
Preset = Literal[
    "italian", "online", "buraco", "canasta", "buraco-aberto", "buraco-fechado", "stbl"
]

#: Characters that reorder or hide text: bidi embeddings, overrides, isolates and marks.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_name(value: str, *, what: str = "a name", longest: int = 40) -> str:
    """``value`` with its runs of white space made one space; ValueError naming the rule
    if it is empty, too long, or holds a character that a name may not hold."""
    if any(_forbidden(c) for c in value):
        raise ValueError(
            f"{what} may not hold control characters, bidi controls or unpaired surrogates"
        )
    name = " ".join(normal(value).split())
    if not name or invisible(name):
        raise ValueError(f"{what} needs at least one visible character")
    if len(name) > longest:
        raise ValueError(f"{what} has at most {longest} characters")
    return name


def _forbidden(c: str) -> bool:
    category = unicodedata.category(c)
    # Cc: controls (NUL, escapes; tab and newline fold to a space first); Cs: surrogates.
    return c in _BIDI or category == "Cs" or (category == "Cc" and c not in "\t\n\r")


def _player(value: str) -> str:
    return clean_name(value, what="a player's name", longest=40)


def _tournament(value: str) -> str:
    return clean_name(value, what="a tournament's name", longest=120)


def _entrant(value: str) -> str:
    return clean_name(value, what="an entrant's name", longest=40)


#: Names as the API's models take them (the length bound first, before any work).
PlayerName = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_player)]
TournamentName = Annotated[str, Field(min_length=1, max_length=400), AfterValidator(_tournament)]
EntrantName = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_entrant)]
