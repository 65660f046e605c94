"""OpenSpiel's interface: a deal of Burraco as the Python game ``python_burraco``.

Importing this module registers the game with ``pyspiel``, so OpenSpiel's algorithms
and tools load it by name. Its parameters: ``variant`` (``italian``, ``online``,
``buraco``, ``canasta``), ``players``, ``lines`` (0: the variant's table for that many
players), ``dealer``, ``stall_rounds`` (0: the variant's) and ``open_hands``.

One game is one deal. It starts with chance nodes that shuffle the deck card by card:
each outcome is a card kind still in the deck (53 kinds), with the probability of its
copies left; once the deck is whole it is dealt (:meth:`Deal.from_deck`). The players
then choose among the ids of :func:`~burraco.encoding.action_space` and play through
:class:`~burraco.encoding.Decisions` (a new meld is picked card by card, then
committed). The returns are :func:`~burraco.encoding.returns`: a seat's line's points
less the mean of the other lines' (zero-sum).

What a seat knows:

* its observation (string and tensor) is what it sees now: its position
  (:meth:`Deal.position` for its seat) and the cards it has picked, or the tensor of
  :func:`~burraco.encoding.observe`;
* its information state adds its recall: the public history of the deal (every engine
  action, a draw without its card), its own picks, and what it alone saw (the hand
  dealt to it, the cards each action brought to its hand). The tensor adds a summary
  of the history of a fixed size: the cards each seat discarded and took from the pile,
  the seat's dealt hand and the cards it received since.

Another seat's picks are not seen until the meld is committed.

OpenSpiel's factored observations are offered too (``make_observation`` with an
``IIGObservationType``):

* the public observation (``public_info=True, private_info=NONE``): what every seat
  sees, the same for all of them (:func:`public_layout`): the melds, the face-up pile,
  each hand's size and the cards all know are in it (taken from the pile), the stock's,
  the pile's and the pozzetti's sizes, each line's pozzetto, opening and minimum, the
  phase, whose turn it is. Its string is the position a seat's view writes with every
  hand a count (``public`` in place of the version tag). With ``perfect_recall`` the
  string adds the public history and the tensor the cards each seat discarded and took;
* the private observation (``public_info=False, private_info=SINGLE_PLAYER``): what a
  seat alone sees (:func:`private_layout`): its hand, its picks and the card it drew,
  and an open-handed partner's hand.

>>> import pyspiel
>>> game = pyspiel.load_game("python_burraco(variant=italian,players=2)")
>>> game.num_distinct_actions(), game.max_chance_outcomes(), game.num_players()
(2020, 53, 2)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(min(state.legal_actions()))
>>> [state.action_to_string(a) for a in state.legal_actions()]
['draw', 'take']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]

from burraco.actions import DISCARD, TAKE
from burraco.cards import KINDS, cards_from_counts, counts_of, deck, format_cards
from burraco.deal import Deal
from burraco.encoding import (
    EXTEND_BASE,
    MELD_FEATURES,
    PICK_BASE,
    ActionSpace,
    Decisions,
    ObservationLayout,
    action_space,
    observation_layout,
    observe,
    returns,
)
from burraco.errors import SetupError
from burraco.variants import Variant, variant
from burraco.view import DealView

__all__ = [
    "GAME_TYPE",
    "BurracoGame",
    "BurracoObserver",
    "BurracoState",
    "info_state_layout",
    "max_game_length",
    "private_layout",
    "public_layout",
    "state_from_view",
    "utility_bound",
    "variant_of",
]

SHORT_NAME: Final = "python_burraco"
_KINDS: Final = range(KINDS)

#: The parameters and their defaults. ``lines`` 0 and ``stall_rounds`` 0 take the
#: variant's own.
PARAMETERS: Final[dict[str, Any]] = {
    "variant": "italian",
    "players": 2,
    "lines": 0,
    "dealer": 0,
    "stall_rounds": 0,
    "open_hands": False,
}

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Burraco (one deal)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def variant_of(params: Mapping[str, Any]) -> Variant:
    """The variant a game's parameters name; a :class:`SetupError` naming what is wrong.

    >>> v = variant_of({"variant": "buraco", "players": 4, "lines": 2})
    >>> v.name, v.players, v.lines
    ('buraco', 4, 2)
    >>> variant_of({"variant": "italian", "stall_rounds": -1})
    Traceback (most recent call last):
    ...
    burraco.errors.SetupError: stall_rounds must be 1 or more (0: the variant's own), not -1
    """
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise SetupError(f"no parameter {', '.join(map(repr, unknown))} in {SHORT_NAME}")
    p = {**PARAMETERS, **params}
    options: dict[str, Any] = {"players": int(p["players"])}
    if int(p["lines"]):
        options["lines"] = int(p["lines"])
    stall = int(p["stall_rounds"])
    if stall < 0:
        raise SetupError(f"stall_rounds must be 1 or more (0: the variant's own), not {stall}")
    if stall:
        options["stall_rounds"] = stall
    if p["open_hands"]:
        options["open_hands"] = True
    v = variant(str(p["variant"]), **options)
    if v.stall_rounds < 1:
        # Without the stall rule a deal of buraco may go round forever (take, discard).
        raise SetupError(f"{v.name} without the stall rule has no bound on its length")
    return v


def utility_bound(v: Variant) -> int:
    """A bound on the size of a seat's return in a deal of ``v``.

    A return is the line's points less the mean of the other lines'. Each card of the
    deck counts once, melded (plus its value) or in a hand (minus it, twice for a canasta
    player who never melded): so the own melded cards and the others' hands together are
    worth at most ``d * V``, V the deck's values and d that factor; the same holds for
    the own hand and the others' melds. On top a line scores at most its bonuses: a
    burraco (canasta) each ``burraco_length`` cards of the deck, of the largest plain bonus,
    and, for those made of wildcards only, of the largest wild bonus; the closing bonus,
    the relancinhos (a whole hand melded at once), the red 3s; and the other lines lose at
    most the pozzetto penalty. So a return lies in ``[-bound, bound]``.

    >>> from burraco import variant
    >>> utility_bound(variant("italian")), utility_bound(variant("canasta"))
    (5280, 26000)
    """
    cards = deck(v.decks, v.jokers)
    doubled = 2 if v.double_unmelded_hand else 1
    worth = doubled * sum(v.value(c) for c in cards)
    plain = max(v.clean_bonus, v.semi_clean_bonus, v.dirty_bonus)
    if v.set_bonus_1000:
        plain = max(plain, 1000)
    if v.canastra_real:
        plain = max(plain, v.real_clean_bonus, v.real_dirty_bonus)
    wilds = 4 * v.decks + v.jokers  # the 2s and the jokers
    wild = max(plain, v.twos_bonus, v.jokers_bonus, v.wild_mix_bonus)
    bonuses = (len(cards) // v.burraco_length) * plain + (wilds // v.burraco_length) * wild
    bonuses += v.closing_bonus + (len(cards) // v.hand_size) * v.relancinho_bonus
    if v.red_threes:
        bonuses += 2 * v.decks * v.red_three_bonus
    penalty = v.no_pozzetto_penalty if v.pozzetti else 0
    return worth + bonuses + penalty


def max_game_length(v: Variant) -> int:
    """A bound on the number of actions of a deal of ``v``, its chance nodes included.

    A turn is quiet unless it draws from the stock or lays cards on the table, and the
    stall rule ends the deal after ``stall_rounds * players`` quiet turns in a row. The
    stock never grows and cards on the table never go back to a hand (a game sets no
    buraco vulnerability, and canasta refuses a short opening rather than returning it),
    so at most ``2 * deck`` turns are not quiet (each takes a card from the stock or puts
    one on the table), and a deal has at most ``(2 * deck + 1) * stall_rounds * players``
    turns. A turn takes one draw (take, pass) and one discard; every card laid costs at
    most two ids (its pick and a commit, or an extension), once in the deal; the dealer's
    redraw happens once. Add one chance node per card of the deck. (OpenSpiel's
    ``max_history_length`` adds the chance nodes once more: a bound all the same.)

    >>> from burraco import variant
    >>> max_game_length(variant("italian")), max_game_length(variant("canasta"))
    (2929, 4387)
    """
    size = v.deck_size
    turns = (2 * size + 1) * v.stall_rounds * v.players
    return size + 2 * turns + 2 * size + 1


@dataclass(frozen=True, slots=True)
class _Rules:
    """What every state of one game shares."""

    v: Variant
    dealer: int
    space: ActionSpace
    layout: ObservationLayout
    info: ObservationLayout
    #: The copies of each card kind in the deck.
    copies: tuple[int, ...]


def info_state_layout(v: Variant) -> ObservationLayout:
    """The parts of the information-state tensor: the observation's, then the history's
    summary (seats counted from the observing seat, its own first).

    >>> from burraco import variant
    >>> info_state_layout(variant("italian")).size - observation_layout(variant("italian")).size
    318
    """
    return observation_layout(v).extended(
        [
            ("discarded", (v.players, KINDS)),  # the cards each seat discarded
            ("taken", (v.players, KINDS)),  # the face-up pile cards each seat took
            ("dealt", (KINDS,)),  # the seat's hand when dealt
            ("received", (KINDS,)),  # the cards that came to its hand since
        ]
    )


def public_layout(v: Variant, *, perfect_recall: bool = False) -> ObservationLayout:
    """The parts of the public observation: what every seat sees, in the table's own
    order (seat 0 and line 0 first), so it is the same whoever observes it.

    >>> from burraco import variant
    >>> v = variant("italian")
    >>> public_layout(v).size, public_layout(v, perfect_recall=True).size
    (4767, 4979)
    """
    m = action_space(v).max_melds
    layout = ObservationLayout((), 0).extended(
        [
            ("pile", (KINDS,)),  # the face-up pile, a count per kind
            ("pile_top", (KINDS,)),  # its top card, one-hot
            ("known", (v.players, KINDS)),  # the cards all know are in each hand
            ("melds", (v.lines, m, KINDS)),
            ("meld_info", (v.lines, m, MELD_FEATURES)),
            ("hand_sizes", (v.players,)),
            ("stock_size", (1,)),
            ("pile_size", (1,)),  # the whole pile, buried cards included
            ("pozzetti_left", (1,)),
            ("has_pozzetto", (v.lines,)),
            ("opened", (v.lines,)),
            ("minimum", (v.lines,)),
            ("red_threes", (v.lines,)),
            ("phase", (3,)),  # draw, play, over
            ("turn", (v.players,)),  # the seat on turn, one-hot (none once over)
            ("final_turn", (1,)),
        ]
    )
    if perfect_recall:
        layout = layout.extended([("discarded", (v.players, KINDS)), ("taken", (v.players, KINDS))])
    return layout


#: The parts of the seat's observation the public one copies (seat 0's, whose seats and
#: lines are the table's own order); the hand, the picks and the card drawn are private.
_PUBLIC_PARTS: Final = (
    "pile", "pile_top", "melds", "meld_info", "hand_sizes", "stock_size", "pile_size",
    "pozzetti_left", "has_pozzetto", "opened", "minimum", "red_threes", "phase", "final_turn",
)  # fmt: skip


def private_layout(v: Variant) -> ObservationLayout:
    """The parts of a seat's private observation: what it alone sees.

    >>> from burraco import variant
    >>> private_layout(variant("italian", players=4)).size
    318
    """
    return ObservationLayout((), 0).extended(
        [
            ("hand", (KINDS,)),
            ("picked", (KINDS,)),  # the cards picked for a meld not yet committed
            ("drawn", (KINDS,)),  # the card drawn this turn, one-hot
            # The other seats from the observer on: a partner's hand it sees (open hands).
            ("seen_hands", (v.players - 1, KINDS)),
        ]
    )


class _Play:
    """The contents of a state: the deck shuffled so far, then the deal played by ids,
    with what each seat has seen. Copied for OpenSpiel's clone with the engine's own
    clone, not a generic deep copy."""

    __slots__ = (
        "dealt",
        "decisions",
        "discarded",
        "left",
        "order",
        "picks",
        "public",
        "received",
        "records",
        "rules",
        "taken",
    )

    def __init__(self, rules: _Rules) -> None:
        players = rules.v.players
        self.rules = rules
        self.order: list[int] = []
        self.left = list(rules.copies)
        self.decisions: Decisions | None = None
        #: The ids of the picks of the meld in the making, in order.
        self.picks: list[int] = []
        #: Every engine action as everyone saw it ("1:draw").
        self.public: list[str] = []
        #: Per seat, its recall: the public actions with what it alone saw, its picks.
        self.records: list[list[str]] = [[] for _ in range(players)]
        self.discarded = [[0] * KINDS for _ in range(players)]
        self.taken = [[0] * KINDS for _ in range(players)]
        self.dealt = [[0] * KINDS for _ in range(players)]
        self.received = [[0] * KINDS for _ in range(players)]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        other = _Play.__new__(_Play)
        other.rules = self.rules
        other.order = self.order[:]
        other.left = self.left[:]
        other.decisions = None if self.decisions is None else self.decisions.copy()
        other.picks = self.picks[:]
        other.public = self.public[:]
        other.records = [r[:] for r in self.records]
        other.discarded = [c[:] for c in self.discarded]
        other.taken = [c[:] for c in self.taken]
        other.dealt = [c[:] for c in self.dealt]
        other.received = [c[:] for c in self.received]
        return other

    @property
    def deal(self) -> Deal | None:
        return None if self.decisions is None else self.decisions.deal

    def shuffle(self, kind: int) -> None:
        if not 0 <= kind < KINDS or not self.left[kind]:
            raise ValueError(f"no card of kind {kind} is left in the deck to shuffle")
        self.order.append(kind)
        self.left[kind] -= 1
        if sum(self.left) == 0:
            self._deal()

    def _deal(self) -> None:
        rules = self.rules
        deal = Deal.from_deck(rules.v, self.order, dealer=rules.dealer)
        self.decisions = Decisions(deal, rules.space)
        for seat in range(rules.v.players):
            self.dealt[seat] = deal.hands[seat][:]
            for watcher in _watchers(deal, seat):
                self.records[watcher].append(
                    f"{seat}:dealt {format_cards(cards_from_counts(deal.hands[seat]))}"
                )

    def play(self, action_id: int) -> None:
        decisions = self.decisions
        assert decisions is not None
        deal = decisions.deal
        seat = deal.turn
        if PICK_BASE <= action_id < EXTEND_BASE:
            decisions.apply(action_id)
            self.picks.append(action_id)
            self.records[seat].append(f"{seat}:{self.rules.space.describe(action_id)}")
            return
        hands = [h[:] for h in deal.hands]
        sizes = deal.sizes[:]
        face_up = deal.pile[deal.face_down_in_pile :]
        action = decisions.apply(action_id)
        assert action is not None
        self.picks = []
        token = f"{seat}:{action}"
        self.public.append(token)
        if action.kind == DISCARD:
            self.discarded[seat][action.cards[0]] += 1
        elif action.kind == TAKE:
            for c in face_up:
                self.taken[seat][c] += 1
        seen = [token] * len(self.records)
        for s, hand in enumerate(deal.hands):
            if s != seat and deal.sizes[s] == sizes[s]:
                continue
            before = hands[s]
            came = [c for c, n, b in zip(_KINDS, hand, before, strict=True) if n > b]
            if not came:
                continue
            received = self.received[s]
            cards = []
            for c in came:
                received[c] += hand[c] - before[c]
                cards += [c] * (hand[c] - before[c])
            text = f" {s}+{format_cards(cards)}"
            for watcher in _watchers(deal, s):
                seen[watcher] += text
        for record, text in zip(self.records, seen, strict=True):
            record.append(text)


def _watchers(deal: Deal, seat: int) -> list[int]:
    """The seats that see ``seat``'s hand: itself, and its partners with open hands."""
    return [seat, *deal.partners(seat)] if deal.v.open_hands else [seat]


class BurracoGame(pyspiel.Game):  # type: ignore[misc]
    """One deal of a variant as an OpenSpiel game (see the module's docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        v = variant_of(params)
        dealer = int(params.get("dealer", 0))
        if not 0 <= dealer < v.players:
            raise SetupError(f"no seat {dealer} to deal at a table of {v.players}")
        space = action_space(v)
        info = pyspiel.GameInfo(
            num_distinct_actions=space.size,
            max_chance_outcomes=KINDS,
            num_players=v.players,
            min_utility=-float(utility_bound(v)),
            max_utility=float(utility_bound(v)),
            utility_sum=0.0,
            max_game_length=max_game_length(v),
        )
        super().__init__(GAME_TYPE, info, {**PARAMETERS, **params})
        counts = counts_of(deck(v.decks, v.jokers))
        self.rules = _Rules(
            v, dealer, space, observation_layout(v), info_state_layout(v), tuple(counts)
        )

    def new_initial_state(self) -> BurracoState:
        """A state before the shuffle."""
        return BurracoState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self.rules.v.deck_size

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> BurracoObserver | PublicObserver | PrivateObserver:
        """The observer of a seat's observation (default) or information state (perfect
        recall), of the public information alone (private info NONE, with or without
        perfect recall) or of a seat's private information alone."""
        if params:
            raise ValueError(f"the observer takes no parameters, not {dict(params)}")
        if iig_obs_type is None:
            return BurracoObserver(self.rules, False)
        private = iig_obs_type.private_info
        public = bool(iig_obs_type.public_info)
        recall = bool(iig_obs_type.perfect_recall)
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and public:
            return BurracoObserver(self.rules, recall)
        if private == pyspiel.PrivateInfoType.NONE and public:
            return PublicObserver(self.rules, recall)
        if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and not recall:
            return PrivateObserver(self.rules)
        raise ValueError(
            "python_burraco observes a seat's own and the public information, the public "
            "information alone, or a seat's own alone (without perfect recall); "
            f"not {iig_obs_type}"
        )


class BurracoState(pyspiel.State):  # type: ignore[misc]
    """A state of the deal: shuffling, a seat to play (maybe picking a meld), or over."""

    def __init__(self, game: BurracoGame) -> None:
        super().__init__(game)
        self._play = _Play(game.rules)

    @property
    def deal(self) -> Deal | None:
        """The engine's deal, once the deck is whole (None while it is shuffled)."""
        return self._play.deal

    @property
    def decisions(self) -> Decisions | None:
        """The deal played by ids, with the cards picked so far (None while shuffling)."""
        return self._play.decisions

    def current_player(self) -> int:
        deal = self._play.deal
        if deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        if deal.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return deal.turn

    def _legal_actions(self, player: int) -> list[int]:
        decisions = self._play.decisions
        assert decisions is not None and player == decisions.deal.turn
        return decisions.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The card kinds left in the deck, each with its share of the cards left."""
        left = self._play.left
        total = sum(left)
        return [(kind, n / total) for kind, n in enumerate(left) if n]

    def _apply_action(self, action: int) -> None:
        play = self._play
        if play.decisions is None:
            play.shuffle(int(action))
        else:
            play.play(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"shuffle {format_cards([action])}"
        return str(self._play.rules.space.describe(action))

    def is_terminal(self) -> bool:
        deal = self._play.deal
        return deal is not None and deal.is_over

    def returns(self) -> list[float]:
        deal = self._play.deal
        if deal is None:
            return [0.0] * self._play.rules.v.players
        return returns(deal)

    def __str__(self) -> str:
        play = self._play
        deal = play.deal
        if deal is None:
            return f"shuffled {len(play.order)}: {format_cards(play.order)}"
        picked = _picked_text(play)
        return deal.position() + (f" picked {picked}" if picked else "")

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> BurracoState:
        """A state of ``player_id``'s information set, dealt at random: the cards it cannot
        see are dealt again (:meth:`Deal.resample`), what it has seen is kept.

        The seed of the re-deal is drawn from ``probability_sampler`` (a callable giving a
        number in [0, 1), as OpenSpiel's samplers). While the deck is shuffled nobody
        has seen a card, so a shuffle of as many cards is drawn anew. Once dealt, the state
        is at the same decision with the same picks when ``player_id`` is picking; another
        seat's picks it cannot see, so that seat starts its meld anew. The deal's past is
        not rebuilt: the new state's OpenSpiel history is empty, and the other seats'
        recall holds the public actions only (their past private cards are not sampled).
        """
        play = self._play
        rules = play.rules
        rng = random.Random(int(probability_sampler() * (1 << 53)))
        game = self.get_game()
        other = BurracoState(game)
        deal = play.deal
        if deal is None:
            pool = cards_from_counts(rules.copies)
            rng.shuffle(pool)
            for kind in pool[: len(play.order)]:
                other.apply_action(kind)
            return other
        if not 0 <= player_id < rules.v.players:
            raise ValueError(f"no seat {player_id} at a table of {rules.v.players}")
        world = Deal.resample(deal.view(player_id), rng)
        _seat_state(other._play, world, play, player_id)
        return other


def _seat_state(into: _Play, world: Deal, play: _Play, seat: int) -> None:
    """Fill ``into`` with the deal ``world`` seen by ``seat`` as ``play`` holds it."""
    into.order = []
    into.left = [0] * KINDS
    into.decisions = Decisions(world, into.rules.space)
    into.public = play.public[:]
    into.records = [play.public[:] for _ in play.records]
    into.records[seat] = play.records[seat][:]
    into.discarded = [c[:] for c in play.discarded]
    into.taken = [c[:] for c in play.taken]
    into.dealt[seat] = play.dealt[seat][:]
    into.received[seat] = play.received[seat][:]
    if world.turn == seat:
        for pick in play.picks:
            into.decisions.apply(pick)
        into.picks = play.picks[:]


def state_from_view(game: BurracoGame, view: DealView, rng: random.Random) -> BurracoState:
    """A state of ``game`` at the decision of ``view``, its hidden cards dealt at random
    (:meth:`Deal.resample`): how a bot that sees only its view searches with OpenSpiel.

    The seat's recall is the view's public history; the cards it saw in the past are
    not in the view, so its present hand stands for them.
    """
    v = game.rules.v
    if view.rules != v:
        raise ValueError(f"the view is of {view.variant}, the game of {v.name}")
    world = Deal.resample(view, rng)
    recalled = _Play(game.rules)
    recalled.public = [str(a) for a in view.history]
    recalled.records = [recalled.public[:] for _ in range(v.players)]
    state = BurracoState(game)
    _seat_state(state._play, world, recalled, view.seat)
    return state


def _picked_text(play: _Play) -> str:
    decisions = play.decisions
    if decisions is None or not decisions.picking:
        return ""
    return format_cards(cards_from_counts(decisions.picked))


class BurracoObserver:
    """A seat's observation or information state, as a string and a tensor (OpenSpiel's
    observer protocol: ``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, rules: _Rules, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        layout = rules.info if perfect_recall else rules.layout
        self.tensor: npt.NDArray[np.float32] = np.zeros(layout.size, dtype=np.float32)
        self.dict = layout.unflatten(self.tensor)
        self._size = rules.layout.size

    def set_from(self, state: BurracoState, player: int) -> None:
        play = state._play
        deal = play.deal
        if deal is None:
            self.tensor.fill(0.0)
            return
        picked = play.decisions.picked if play.decisions is not None else None
        self.tensor[: self._size] = observe(deal, player, picked=picked)
        if not self.perfect_recall:
            return
        players = self.rules.v.players
        order = [(player + i) % players for i in range(players)]
        self.dict["discarded"][:] = [play.discarded[s] for s in order]
        self.dict["taken"][:] = [play.taken[s] for s in order]
        self.dict["dealt"][:] = play.dealt[player]
        self.dict["received"][:] = play.received[player]

    def string_from(self, state: BurracoState, player: int) -> str:
        play = state._play
        deal = play.deal
        if deal is None:
            return f"shuffled {len(play.order)} of {self.rules.v.deck_size}"
        text = deal.position(seat=player)
        if deal.turn == player:
            picked = _picked_text(play)
            if picked:
                text += f" picked {picked}"
        if self.perfect_recall:
            text += "\n" + "\n".join(play.records[player])
        return text


class PublicObserver:
    """What every seat sees, as a string and a tensor (:func:`public_layout`): the same
    for every ``player`` an observation is asked for."""

    def __init__(self, rules: _Rules, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        layout = public_layout(rules.v, perfect_recall=perfect_recall)
        self.tensor: npt.NDArray[np.float32] = np.zeros(layout.size, dtype=np.float32)
        self.dict = layout.unflatten(self.tensor)
        self._seat = rules.layout

    def set_from(self, state: BurracoState, player: int) -> None:
        play = state._play
        deal = play.deal
        self.tensor.fill(0.0)
        if deal is None:
            return
        seen = self._seat.unflatten(observe(deal, 0))
        for name in _PUBLIC_PARTS:
            self.dict[name][...] = seen[name]
        self.dict["known"][:] = deal.known
        if not deal.is_over:
            self.dict["turn"][deal.turn] = 1.0
        if self.perfect_recall:
            self.dict["discarded"][:] = play.discarded
            self.dict["taken"][:] = play.taken

    def string_from(self, state: BurracoState, player: int) -> str:
        play = state._play
        text = public_text(play)
        if self.perfect_recall:
            text += "\n" + "\n".join(play.public)
        return text


def public_text(play: _Play) -> str:
    """The public observation as text: the position of a seat's view that is not on turn
    (so no card drawn or taken this turn is named), every hand as its count."""
    deal = play.deal
    if deal is None:
        return f"shuffled {len(play.order)} of {play.rules.v.deck_size}"
    fields = deal.position(seat=(deal.turn + 1) % deal.v.players).split(" ")
    fields[0] = "public"
    fields[3] = "/".join(f"#{size}" for size in deal.sizes)
    return " ".join(fields)


class PrivateObserver:
    """What a seat alone sees (:func:`private_layout`): its hand, its picks and the card
    it drew, an open-handed partner's hand."""

    def __init__(self, rules: _Rules) -> None:
        self.rules = rules
        layout = private_layout(rules.v)
        self.tensor: npt.NDArray[np.float32] = np.zeros(layout.size, dtype=np.float32)
        self.dict = layout.unflatten(self.tensor)

    def set_from(self, state: BurracoState, player: int) -> None:
        play = state._play
        deal = play.deal
        self.tensor.fill(0.0)
        if deal is None:
            return
        self.dict["hand"][:] = deal.hands[player]
        on_turn = deal.turn == player and not deal.is_over
        if on_turn and play.decisions is not None and play.decisions.picking:
            self.dict["picked"][:] = play.decisions.picked
        if on_turn and deal.drawn >= 0:
            self.dict["drawn"][deal.drawn] = 1.0
        players = deal.v.players
        for i in range(1, players):
            other = (player + i) % players
            if other in _watchers(deal, player) and other != player:
                self.dict["seen_hands"][i - 1] = deal.hands[other]

    def string_from(self, state: BurracoState, player: int) -> str:
        play = state._play
        deal = play.deal
        if deal is None:
            return ""
        words = [f"seat {player} hand {format_cards(cards_from_counts(deal.hands[player]))}"]
        if deal.turn == player and not deal.is_over:
            picked = _picked_text(play)
            if picked:
                words.append(f"picked {picked}")
            if deal.drawn >= 0:
                words.append(f"drew {format_cards([deal.drawn])}")
        for other in _watchers(deal, player):
            if other != player:
                words.append(
                    f"seat {other} hand {format_cards(cards_from_counts(deal.hands[other]))}"
                )
        return "; ".join(words)


pyspiel.register_game(GAME_TYPE, BurracoGame)
