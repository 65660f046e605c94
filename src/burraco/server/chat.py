"""Table chat: what a message may hold, the quick messages, and the messages' JSON.

A chat message is plain text: control characters, bidi controls and lone surrogates are
dropped, runs of white space become one space, and it holds at most
:data:`LONGEST` characters. It is never HTML: the pages show it as text. A quick message
is a code from :data:`QUICK`, which every page says in its reader's language.

>>> clean_chat("  Ciao\\u202e   a tutti!\\n ")
'Ciao a tutti!'
>>> clean_chat("<b>hi</b>")
'<b>hi</b>'
>>> clean_chat("\\x00 \\t")
Traceback (most recent call last):
...
burraco.server.chat.ChatEmpty: a chat message needs at least one visible character
"""

from __future__ import annotations

import unicodedata
from typing import Any

from burraco.storage.store import ChatRow

__all__ = [
    "CHANNELS",
    "HISTORY",
    "LONGEST",
    "QUICK",
    "ChatEmpty",
    "ChatTooLong",
    "chat_json",
    "clean_chat",
]

#: The players' channel (seat sockets) and the spectators' (watch sockets): never mixed.
CHANNELS = ("players", "watchers")
#: Characters a chat message holds at most, once cleaned.
LONGEST = 200
#: Messages a socket hears of its channel when it connects.
HISTORY = 50
#: The quick messages, by code: each page says them in its reader's language.
QUICK = (
    "ciao",
    "buona_fortuna",
    "grazie",
    "brava",
    "bel_gioco",
    "scusa",
    "un_attimo",
    "arrivederci",
)

#: Characters that reorder or hide text: bidi embeddings, overrides, isolates and marks.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class ChatEmpty(ValueError):
    """A message with nothing visible left once cleaned."""


class ChatTooLong(ValueError):
    """A message longer than :data:`LONGEST` characters once cleaned."""


def clean_chat(text: str, longest: int = LONGEST) -> str:
    """``text`` as the table shows it: without control characters, bidi controls and lone
    surrogates, its runs of white space one space. :class:`ChatEmpty` if nothing is left,
    :class:`ChatTooLong` past ``longest`` characters."""
    kept = "".join(" " if c in "\t\n\r" else c for c in text if not _dropped(c))
    message = " ".join(kept.split())
    if not message:
        raise ChatEmpty("a chat message needs at least one visible character")
    if len(message) > longest:
        raise ChatTooLong(f"a chat message has at most {longest} characters, not {len(message)}")
    return message


def _dropped(c: str) -> bool:
    category = unicodedata.category(c)
    # Cc: controls (tab and newline become a space); Cs: lone surrogates.
    return c in _BIDI or category == "Cs" or (category == "Cc" and c not in "\t\n\r")


def chat_json(row: ChatRow) -> dict[str, Any]:
    """One message as the sockets carry it (docs/protocol.md, chat): ``text`` or
    ``quick``, the other None; ``at`` in milliseconds since the epoch."""
    return {
        "type": "chat",
        "channel": row.channel,
        "seat": row.seat,
        "name": row.name,
        "text": None if row.quick else row.text,
        "quick": row.quick,
        "at": int(row.created_at * 1000),
    }
