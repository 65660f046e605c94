"""The bots' weights as data: the default weights play as the hand-set ones did, a weight
set round-trips through its file, and the tuner runs a generation."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from burraco import Deal, variant
from burraco.bots import RandomBot
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot

GOLDEN = Path(__file__).parent / "golden" / "greedy_choices.json"
#: The setups the golden choices were taken from, and the deals of each.
GOLDEN_SETUPS = (("italian", 2), ("italian", 4), ("buraco", 2), ("canasta", 2))
GOLDEN_DEALS = 3


def _positions() -> Iterator[tuple[str, Deal]]:
    """Positions of real play: deals where the greedy player plays two moves in three and a
    random player the third (so that its choices meet more kinds of position)."""
    for name, players in GOLDEN_SETUPS:
        v = variant(name, players=players)
        for seed in range(GOLDEN_DEALS):
            deal = Deal.new(v, seed, dealer=seed % players)
            chooser = random.Random(seed)
            wild = RandomBot(seed)
            while not deal.is_over:
                key = f"{name}{players} {seed} {deal.turns} {len(deal.view(deal.turn).history)}"
                yield key, deal
                view, legal = deal.view(deal.turn), deal.legal_actions()
                bot = wild if chooser.random() < 1 / 3 else GreedyBot()
                deal.apply(bot.choose(view, legal))


def _choices(bot: GreedyBot, expert: ExpertBot) -> dict[str, list[str]]:
    """Per position: the greedy choice and, in the play phase, a digest of its ranking of
    the actions (the expert's candidates); at every 40th position, the expert's choice on
    a budget of worlds (its playouts are the greedy player's)."""
    out: dict[str, list[str]] = {}
    for i, (key, deal) in enumerate(_positions()):
        view, legal = deal.view(deal.turn), deal.legal_actions()
        row = [str(bot.choose(view, legal))]
        if deal.phase == "play":
            ranked = " ".join(str(a) for a in bot.ranked(view, legal))
            row.append(hashlib.sha256(ranked.encode()).hexdigest()[:16])
        if i % 40 == 0:
            row.append(f"expert {expert.choose(view, legal)}")
        out[key] = row
    return out


def _expert() -> ExpertBot:
    return ExpertBot(worlds=6, seed=5)


def write_golden() -> None:
    """Write the golden choices (run by hand, once, on the code the weights came from)."""
    choices = _choices(GreedyBot(), _expert())
    GOLDEN.write_text(json.dumps(choices, indent=0, sort_keys=True) + "\n")


def test_the_default_weights_choose_as_the_hand_set_greedy_did() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert len(golden) >= 300
    choices = _choices(GreedyBot(), _expert())
    assert choices.keys() == golden.keys()
    changed = [key for key in golden if choices[key] != golden[key]]
    assert not changed, changed[:5]


if __name__ == "__main__":
    write_golden()
