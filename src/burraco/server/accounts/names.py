"""Names that look like another's: the NFKC form, the confusable skeleton, invisible names.

A name is shown to other players, so two names that look the same are the same name to
them: "Giulia" with a Cyrillic ``і`` (U+0456), or in full-width letters, would pass for
Giulia. The room compares names by their *skeletons* (UTS #39): the NFKC form (full-width
and other compatibility letters become plain ones) with the default-ignorable characters
(zero-width spaces and joiners, variation selectors) dropped and each character replaced
by one representative of its class in Unicode's confusables table (``confusables.txt``,
as the ``confusable-homoglyphs`` package ships it). A name has two: that of the name as
typed, where a capital ``I`` still looks like ``l`` and ``1`` (issue 32: "GiuIia" passed
beside Giulia when the case was folded first, ``I`` becoming ``i``), and that of the name
case-folded, since the same name in another case is the same name. Two names look alike
when a skeleton of one is a skeleton of the other. Only single characters are mapped: a
look-alike made of two (``rn`` for ``m``) is not caught.

>>> skeleton("Giulia") == skeleton("G\\u0456ulia") == skeleton("Ｇｉｕｌｉａ")
True
>>> skeleton("Giulia") == skeleton("Giuliana")
False
>>> [alike("GiuIia", "Giulia"), alike("0wner1", "Owner1"), alike("OwnerI", "Owner1")]
[True, True, True]
>>> alike("giulia", "Giulia"), alike("Giuliana", "Giulia")
(True, False)
>>> invisible("\\u200b"), invisible("\\u3164"), invisible("Anna")
(True, True, False)
"""

from __future__ import annotations

import json
import threading
import unicodedata
from functools import cache
from importlib import resources
from typing import Final

from burraco.storage import Store

__all__ = ["NameIndex", "alike", "invisible", "normal", "skeleton", "skeletons"]

#: Characters drawn blank though Unicode calls them letters or symbols (Hangul fillers,
#: the blank Braille pattern) or marks that show nothing alone (the Mongolian vowel
#: separator, the combining grapheme joiner).
_BLANK: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5")
#: Unicode categories that draw nothing by themselves: format characters (zero-width
#: space, joiners, bidi marks), separators, controls, combining marks, unassigned.
_UNSEEN_CATEGORIES: Final = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})


def normal(name: str) -> str:
    """The form a name is kept and shown in: NFKC (full-width ``Ａ`` is ``A``, the
    ligature ``ﬁ`` is ``fi``, a composed ``é`` is one character)."""
    return unicodedata.normalize("NFKC", name)


def _unseen(c: str) -> bool:
    return c in _BLANK or unicodedata.category(c) in _UNSEEN_CATEGORIES


def _ignorable(c: str) -> bool:
    """Drawn as nothing between other letters (UTS #39 leaves these out of a skeleton)."""
    return c in _BLANK or unicodedata.category(c) == "Cf" or 0xFE00 <= ord(c) <= 0xFE0F


def invisible(name: str) -> bool:
    """Whether a name shows nothing: no character of it is drawn alone."""
    return all(_unseen(c) for c in normal(name))


@cache
def _classes() -> dict[str, str]:
    """Each confusable character's representative: the smallest character of its class,
    the classes being the connected groups of Unicode's single-character confusables."""
    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    table: dict[str, list[dict[str, str]]] = json.loads(data)
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    for char, homoglyphs in table.items():
        if len(char) != 1:
            continue
        for glyph in homoglyphs:
            other = glyph["c"]
            if len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in parent} | {c: root(c) for c in table if len(c) == 1}


def _as_typed(name: str) -> str:
    """The UTS #39 skeleton of the name as typed (its case kept): each character's class."""
    classes = _classes()
    return "".join(classes.get(c, c) for c in normal(name) if not _ignorable(c))


def skeleton(name: str) -> str:
    """What a name looks like in any case: the skeleton of the case-folded name."""
    mapped = _as_typed(normal(name).casefold())
    # A class's representative may be a capital (``O`` for ``0``): fold once more so that
    # the capital and the small letter a reader takes it for meet.
    return _as_typed(normal(mapped).casefold())


def skeletons(name: str) -> frozenset[str]:
    """Every skeleton of a name: as typed, and case-folded (see the module)."""
    return frozenset({_as_typed(name), skeleton(name)})


def alike(name: str, other: str) -> bool:
    """Whether a reader may take one name for the other."""
    return not skeletons(name).isdisjoint(skeletons(other))


class NameIndex:
    """The registered people's names by skeleton, read from the store as they are added
    (only the new rows each time, so every process of a cluster sees the others')."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._last_id = 0
        self._names: dict[str, str] = {}
        self._lock = threading.Lock()
        # The confusables table is read now (~10 ms), not at the first sign-up on the loop.
        _classes()

    def refresh(self) -> None:
        with self._lock:
            for user_id, name, kind in self.store.user_names(after=self._last_id):
                self._last_id = max(self._last_id, user_id)
                if kind == "person":
                    for key in skeletons(name):
                        self._names.setdefault(key, name)

    def look_alike(self, name: str) -> str | None:
        """The registered name that ``name`` may be taken for (itself in any case or
        width included), or None."""
        self.refresh()
        # The folded skeleton first: the same name in another case is named as itself.
        for key in (skeleton(name), _as_typed(name)):
            if key in self._names:
                return self._names[key]
        return None
