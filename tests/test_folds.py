"""Folding repeated code changes nothing: every preset's options and every view, as before.

``tests/golden/presets.json`` holds every option of every preset at every table, alone and
with the options and keywords that change others (``deals``, ``vp_table``, buraco's
``scoring_500``...); ``tests/golden/views.json`` a digest of every seat's view and the
spectator's view of seeded deals (the view, its protocol JSON and its position), at
several points of each. Both were written by the code before the presets became data
(``variants.Preset``) and before ``view.py``'s twin blocks became one. Rewrite them only
for an intended change: ``python tests/test_folds.py`` (with ``PYTHONPATH=src``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from pathlib import Path
from typing import Any, Final

from burraco.deal import Deal
from burraco.server.messages import public_view_json, view_json
from burraco.variants import PRESETS, SETUPS, Variant, variant
from burraco.view import public_view_of

GOLDEN = Path(__file__).parent / "golden"
#: The games the golden files were written for; the Brazilian rooms' presets came later
#: (their rule tests are tests/test_rules_brazil.py).
GOLDEN_GAMES: Final = ("italian", "online", "buraco", "canasta")
#: Options added after the golden files, at their defaults in the games above (checked).
LATER_OPTIONS: Final = (
    "sets",
    "long_clean_bonus",
    "pile_open",
    "morto_as_stock",
    "go_out_needs_clean",
    "unused_morto_untaken",
)
GOLDEN_SETUPS: Final = tuple(s for s in SETUPS if s[0] in GOLDEN_GAMES)

#: Options that change others or are kept as text, tried at every table of every preset.
OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"target": 3000},
    {"deals": 4},
    {"vp_table": 4},
    {"vp_table": "3"},
    {"semi_clean": False, "deals": 2},
    {"decks": 2, "jokers": 4},
)
#: Buraco's keywords (elsewhere they are refused).
BURACO_OPTIONS: tuple[dict[str, Any], ...] = (
    {"scoring_500": True},
    {"classic_values": True},
    {"scoring_500": True, "target": 2000},
    {"vulnerable_at": 0, "target": 1000},
)
#: Where each deal is looked at: after so many actions (and at its end).
STEPS = (0, 15, 60, 150)


def _fields(v: Variant) -> dict[str, Any]:
    fields = dict(json.loads(json.dumps(dataclasses.asdict(v))))
    return {k: value for k, value in fields.items() if k not in LATER_OPTIONS}


def presets() -> dict[str, Any]:
    """Every option of every preset (in full), and of each at every table, with some options
    given (the fields that differ from the preset's)."""
    found: dict[str, Any] = {f"preset {name}": _fields(PRESETS[name]) for name in GOLDEN_GAMES}

    def differences(v: Variant) -> dict[str, Any]:
        base = found[f"preset {v.name}"]
        return {k: value for k, value in _fields(v).items() if value != base[k]}

    for name, players, lines in GOLDEN_SETUPS:
        tried = OPTIONS + (BURACO_OPTIONS if name == "buraco" else ())
        for options in tried:
            key = f"{name} {players}/{lines} {json.dumps(options, sort_keys=True)}"
            try:
                v = variant(name, players=players, lines=lines, **options)
            except Exception as error:  # a refusal is part of the shape too
                found[key] = f"refused: {error}"
                continue
            found[key] = differences(v)
    for name in ("italian", "online", "buraco", "canasta", "Burraco", "sisal", "brazilian"):
        for players in range(1, 8):
            try:
                found[f"{name} {players}"] = differences(variant(name, players=players))
            except Exception as error:
                found[f"{name} {players}"] = f"refused: {error}"
    return found


def _digest(*parts: object) -> str:
    text = "\n".join(p if isinstance(p, str) else json.dumps(p, sort_keys=True) for p in parts)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def views() -> dict[str, str]:
    """A digest of each seat's view and the spectator's of seeded deals of every table."""
    found: dict[str, str] = {}
    for name, players, lines in GOLDEN_SETUPS:
        v = variant(name, players=players, lines=lines)
        for seed in range(2):
            deal = Deal.new(v, seed, dealer=seed % players)
            rng = random.Random(seed)
            step = 0
            while True:
                over = deal.phase == "over"
                if step in STEPS or over:
                    key = f"{name} {players}/{lines} seed {seed} step {step}"
                    public = public_view_of(deal)
                    found[f"{key} spectator"] = _digest(repr(public), public_view_json(public, 1))
                    for seat in range(players):
                        seen = deal.view(seat)
                        found[f"{key} seat {seat}"] = _digest(
                            repr(seen), view_json(seen, 1), seen.position()
                        )
                if over or step >= STEPS[-1]:
                    break
                deal.apply(rng.choice(deal.legal_actions()))
                step += 1
    return found


def test_presets_are_as_before() -> None:
    before = json.loads((GOLDEN / "presets.json").read_text(encoding="utf-8"))
    now = presets()
    assert now.keys() == before.keys()
    changed = [key for key in before if now[key] != before[key]]
    assert changed == []


def test_the_later_options_keep_the_golden_games_as_they_were() -> None:
    default = Variant(name="x", family="burraco")
    for name in GOLDEN_GAMES:
        for option in LATER_OPTIONS:
            assert getattr(PRESETS[name], option) == getattr(default, option), (name, option)


def test_a_keyword_of_another_game_is_refused() -> None:
    # The presets as data: a bundle keyword belongs to its game (it was ignored elsewhere).
    try:
        variant("italian", classic_values=True)
    except Exception as error:
        assert str(error) == "no option 'classic_values' in italian"
    else:
        raise AssertionError("classic_values is buraco's keyword")


def test_views_are_as_before() -> None:
    before = json.loads((GOLDEN / "views.json").read_text(encoding="utf-8"))
    now = views()
    assert now.keys() == before.keys()
    changed = [key for key in before if now[key] != before[key]]
    assert changed == []


if __name__ == "__main__":
    for file, made in (("presets.json", presets()), ("views.json", views())):
        (GOLDEN / file).write_text(json.dumps(made, indent=1, sort_keys=True) + "\n")
