"""Burraco, Buraco and Italian Canasta: a faithful, fast rules engine.

>>> from burraco import variant, Deal, parse_cards, check_meld
>>> check_meld(parse_cards("KH AH 2H"), variant("italian")).kind
'sequence'
"""

# First: it picks the compiled or the pure engine before any rule module loads.
from burraco._engine import ENGINE
from burraco.actions import Action
from burraco.cards import Card, card_of, deck, format_cards, parse_card, parse_cards
from burraco.deal import Deal
from burraco.errors import IllegalMove, RuleError, SetupError
from burraco.match import Match
from burraco.melds import Meld, MeldInfo, check_meld, extend_meld, read_meld
from burraco.position import PositionError, compose
from burraco.scoring import DealScore, LineScore, card_points
from burraco.variants import PRESETS, Variant, variant
from burraco.view import DealView
from burraco.vp import victory_points

__all__ = [
    "ENGINE",
    "PRESETS",
    "Action",
    "Card",
    "Deal",
    "DealScore",
    "DealView",
    "IllegalMove",
    "LineScore",
    "Match",
    "Meld",
    "MeldInfo",
    "PositionError",
    "RuleError",
    "SetupError",
    "Variant",
    "card_of",
    "card_points",
    "check_meld",
    "compose",
    "deck",
    "extend_meld",
    "format_cards",
    "parse_card",
    "parse_cards",
    "read_meld",
    "variant",
    "victory_points",
]

__version__ = "0.1.0"
