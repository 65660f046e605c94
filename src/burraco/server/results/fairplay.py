"""Fair play of rated matches: who may be rated against whom, and a farm detector.

Ratings are farmed by playing one's own accounts (a person against his bot, two bots
of one owner), or the same few opponents again and again, who lose on purpose. As
lichess does, the room:

- never rates a match between accounts of one owner (a person and the bot accounts he
  made, or two of them) on opposite lines: the table plays unrated, and says why;
- rates at most :data:`PAIR_CAP` matches a day (a rolling 24 hours) between the same two
  opponents; past it their tables play unrated, and say so;
- looks at each winner's recent rated results after every rated match
  (:func:`farm_signal`): a rating gained mostly from a few opponents who lost fast or
  abandoned, or from accounts made at about the same time as the winner's, marks the
  account for a moderator's review (``/moderation``, ``burraco moderation``); its rating
  stays where it is until a moderator clears it.

The room's own bot levels (accounts of kind "bot" with no owner) play anyone, any number
of times: they do not lose on purpose, and a person who learns from them is welcome to.

>>> owner_key(Account(7, "person", None)), owner_key(Account(9, "bot", 7))
(7, 7)
>>> owner_key(Account(3, "bot", None)) is None
True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DAY",
    "FAST_TURNS",
    "FLAG_GAIN",
    "FLAG_SHARE",
    "FLAG_WINDOW",
    "MADE_TOGETHER",
    "PAIR_CAP",
    "Account",
    "Game",
    "farm_signal",
    "opposed_pairs",
    "owner_key",
    "same_owner",
    "unrated_reason",
]

#: Rated matches a day between the same two opponents (``burraco serve --rated-pair-cap``).
PAIR_CAP: Final = 5
DAY: Final = 24 * 3600.0

#: A loser who played fewer turns than this in the whole match lost fast (an honest match
#: to 2005 has tens of turns a seat; a thrown one is a few discards and out).
FAST_TURNS: Final = 12
#: Accounts made within this many seconds of each other were made together.
MADE_TOGETHER: Final = 3600.0
#: The detector reads the rated results of the last week (or since the last clearing)...
FLAG_WINDOW: Final = 7 * DAY
#: ...and flags a gain of at least this many points (the rating shown)...
FLAG_GAIN: Final = 150.0
#: ...of which at least this share came from suspect games against at most three opponents.
FLAG_SHARE: Final = 0.6
FEW_OPPONENTS: Final = 3


@dataclass(frozen=True, slots=True)
class Account:
    """What fair play reads of a seat's account: its id, kind and owner."""

    id: int
    kind: str
    owner_id: int | None


def owner_key(account: Account) -> int | None:
    """Whose account it is: a person's own id, a person's bot's owner; None for the room's
    own bot levels, which belong to nobody."""
    if account.kind == "bot":
        return account.owner_id
    return account.id


def opposed_pairs(
    accounts: Sequence[Account | None], line_of: Sequence[int]
) -> list[tuple[Account, Account]]:
    """Each pair of accounts seated on different lines (guests and the room's bot levels
    left out: they farm nothing), each pair once, the lower id first.

    >>> a, b, c = Account(1, "person", None), Account(2, "bot", 1), Account(3, "bot", None)
    >>> [(x.id, y.id) for x, y in opposed_pairs([a, b, c, None], [0, 1, 0, 1])]
    [(1, 2)]
    """
    pairs = {}
    for i, x in enumerate(accounts):
        for j, y in enumerate(accounts):
            if x is None or y is None or line_of[i] == line_of[j] or x.id >= y.id:
                continue
            if owner_key(x) is None or owner_key(y) is None:
                continue
            pairs[(x.id, y.id)] = (x, y)
    return [pairs[k] for k in sorted(pairs)]


def same_owner(accounts: Sequence[Account | None], line_of: Sequence[int]) -> bool:
    """Two accounts of one owner sit on opposite lines (a person and his bot, two bots of
    one person).

    >>> same_owner([Account(1, "person", None), Account(2, "bot", 1)], [0, 1])
    True
    >>> same_owner([Account(1, "person", None), Account(2, "bot", 5)], [0, 1])
    False
    """
    return any(owner_key(x) == owner_key(y) for x, y in opposed_pairs(accounts, line_of))


def unrated_reason(
    accounts: Sequence[Account | None],
    line_of: Sequence[int],
    played_today: Mapping[tuple[int, int], int],
    cap: int = PAIR_CAP,
) -> str | None:
    """Why a table made rated plays unrated, or None: "same_owner" (accounts of one owner
    on opposite lines) or "pair_cap" (two opponents played ``cap`` rated matches in the
    last day already; ``played_today`` counts them by pair of ids, the lower first).

    >>> a, b = Account(1, "person", None), Account(2, "person", None)
    >>> unrated_reason([a, b], [0, 1], {(1, 2): 5}), unrated_reason([a, b], [0, 1], {(1, 2): 4})
    ('pair_cap', None)
    """
    if same_owner(accounts, line_of):
        return "same_owner"
    if cap >= 0 and any(
        played_today.get((x.id, y.id), 0) >= cap for x, y in opposed_pairs(accounts, line_of)
    ):
        return "pair_cap"
    return None


@dataclass(frozen=True, slots=True)
class Game:
    """One rated match of the account looked at, as the detector reads it: the shown
    rating it gained (negative: lost), and its opponents with, for each, whether they lost
    fast or abandoned, and whether their account was made together with the player's."""

    table_id: str
    gain: float
    #: The opponents' account ids.
    opponents: tuple[int, ...]
    #: Every opponent lost in fewer than :data:`FAST_TURNS` turns, or abandoned.
    thrown: bool = False
    #: An opponent's account was made within :data:`MADE_TOGETHER` of the player's.
    made_together: bool = False


def farm_signal(
    games: Iterable[Game],
    *,
    min_gain: float = FLAG_GAIN,
    share: float = FLAG_SHARE,
    few: int = FEW_OPPONENTS,
) -> str | None:
    """Why an account's recent rated games look farmed, or None: its net gain is at least
    ``min_gain`` and at least ``share`` of its gains came from suspect games (the
    opponents threw it, or were made together with the account) against at most ``few``
    opponents. Honest players who meet often lose some, and their losers play their
    matches out: their gains are small, or not from suspect games.

    >>> farm = [Game(f"t{i}", 20.0, (8,), thrown=True) for i in range(10)]
    >>> farm_signal(farm)
    'gained 200 of 200 from 1 opponents who lost fast, abandoned or were made together'
    >>> honest = [Game(f"t{i}", 20.0 if i % 2 else -18.0, (8,)) for i in range(20)]
    >>> farm_signal(honest) is None
    True
    """
    games = list(games)
    net = sum(g.gain for g in games)
    gained = sum(g.gain for g in games if g.gain > 0)
    if net < min_gain or gained <= 0:
        return None
    by_opponent: dict[int, float] = defaultdict(float)
    for g in games:
        if g.gain > 0 and (g.thrown or g.made_together):
            for opponent in g.opponents:
                by_opponent[opponent] += g.gain / len(g.opponents)
    top = sorted(by_opponent.values(), reverse=True)[:few]
    suspect = sum(top)
    if suspect < share * gained:
        return None
    return (
        f"gained {round(suspect)} of {round(gained)} from {len(top)} opponents "
        "who lost fast, abandoned or were made together"
    )
