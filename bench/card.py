"""The environment card of docs/research.md: size and shape of each variant's game.

Run from the repository root::

    PYTHONPATH=src python bench/card.py [--deals 20] [--matches 4] [--markdown]

For every table of every variant (``burraco.variants.SETUPS``) it prints:

* ``ids``: the size of the fixed action space (:func:`burraco.encoding.action_space`);
  ``obs``: the length of a seat's observation vector;
* ``opening hands``: log10 of the number of distinct hands a seat may be dealt (cards of
  one kind are alike; counted exactly from the deck's counts): a lower bound on the
  number of information sets, which every later decision multiplies;
* ``unseen orders``: log10 of the distinct orders of the cards a seat does not see at its
  first decision (the other hands, the pozzetti and the stock): the number of deals its
  first information set holds, exact for that deck order;
* ``branching``: the mean number of legal engine actions at a decision, and the mean
  number of allowed ids at an environment step (a meld is picked a card at a time);
* ``decisions``: the mean number of engine actions per deal and per match, and of
  environment steps per deal, with greedy bots in every seat (``--bots random`` too).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import Counter
from dataclasses import dataclass

from burraco import Deal, Match, variant
from burraco.bots.arena import make_bot
from burraco.cards import deck
from burraco.encoding import Decisions, action_space, observation_layout
from burraco.variants import SETUPS, Variant


def opening_hands(v: Variant) -> float:
    """log10 of the distinct multisets of ``hand_size`` cards the deck can deal."""
    # The coefficient of x^hand_size in the product over kinds of (1 + x + ... + x^count).
    ways = [1] + [0] * v.hand_size
    for count in Counter(deck(v.decks, v.jokers)).values():
        ways = [sum(ways[n - j] for j in range(min(count, n) + 1)) for n in range(v.hand_size + 1)]
    return math.log10(ways[v.hand_size])


def unseen_orders(deal: Deal, seat: int) -> float:
    """log10 of the distinct orders of the cards ``seat`` cannot see: n! / prod(c_k!)."""
    seen = Counter(deal.hand(seat))
    seen.update(deal.pile[deal.pile_hidden :])
    unseen = Counter(deck(deal.v.decks, deal.v.jokers))
    unseen.subtract(seen)
    n = sum(unseen.values())
    return (math.lgamma(n + 1) - sum(math.lgamma(c + 1) for c in unseen.values())) / math.log(10)


@dataclass(frozen=True, slots=True)
class Tally:
    """One deal: the legal actions at each decision, the allowed ids at each step (so its
    decisions and steps are their lengths)."""

    legal: list[int]
    ids: list[int]


def play_deal(v: Variant, seed: int, bots: str) -> Tally:
    """One deal with ``bots`` in every seat, played by ids as an agent plays it."""
    deal = Deal.new(v, seed=seed)
    players = [make_bot(bots, seed=seed * 10 + s) for s in range(v.players)]
    decisions = Decisions(deal)
    tally = Tally([], [])
    while not deal.is_over:
        legal = deal.legal_actions()
        tally.legal.append(len(legal))
        action = players[deal.turn].choose(deal.view(deal.turn), legal)
        for action_id in decisions.space.path(action):
            tally.ids.append(len(decisions.legal_ids()))
            decisions.apply(action_id)
    return tally


def match_actions(v: Variant, seed: int, bots: str) -> tuple[int, int]:
    """(engine actions, deals) of one whole match."""
    match = Match(v, seed=seed)
    players = [make_bot(bots, seed=seed * 10 + s) for s in range(v.players)]
    actions = 0
    while not match.is_over:
        seat = match.turn
        match.apply(players[seat].choose(match.view(seat), match.legal_actions()))
        actions += 1
    return actions, len(match.deals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=20, help="deals a table (20)")
    parser.add_argument("--matches", type=int, default=4, help="matches a table (4)")
    parser.add_argument("--bots", default="greedy", help="the bots in every seat (greedy)")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args(argv)
    header = (
        "game | players/lines | ids | obs | opening hands | unseen orders | branching "
        "(actions / ids) | actions a deal | steps a deal | actions a match (deals)"
    )
    print(f"{args.bots} bots, {args.deals} deals and {args.matches} matches a table")
    print(f"| {header} |" if args.markdown else header)
    if args.markdown:
        print("|" + "---|" * (header.count("|") + 1))
    for name, players, lines in SETUPS:
        v = variant(name, players=players, lines=lines)
        tallies = [play_deal(v, seed, args.bots) for seed in range(args.deals)]
        matches = [match_actions(v, seed, args.bots) for seed in range(args.matches)]
        first = Deal.new(v, seed=0)
        cells = [
            name,
            f"{players}/{lines}",
            str(action_space(v).size),
            str(observation_layout(v).size),
            f"10^{opening_hands(v):.1f}",
            f"10^{unseen_orders(first, first.turn):.0f}",
            f"{statistics.mean(x for t in tallies for x in t.legal):.1f} / "
            f"{statistics.mean(x for t in tallies for x in t.ids):.1f}",
            f"{statistics.mean(len(t.legal) for t in tallies):.0f}",
            f"{statistics.mean(len(t.ids) for t in tallies):.0f}",
            f"{statistics.mean(a for a, _ in matches):.0f} "
            f"({statistics.mean(d for _, d in matches):.1f})",
        ]
        print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
