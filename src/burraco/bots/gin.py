"""Our determinized search (:func:`burraco.bots.search.pimc`) playing OpenSpiel's gin rummy.

An outside check of the search: the same ``pimc`` that drives :class:`ExpertBot` in
Burraco plays ``gin_rummy`` through ``pyspiel`` against OpenSpiel's own
``SimpleGinRummyBot`` (``pyspiel.make_simple_gin_rummy_bot``), see ``bench/gin_check.py``.
``pyspiel`` is optional (the ``anchor`` extra); it is imported only inside functions, so
this module imports without it.

The pieces, as in Burraco:

* **Worlds** (:func:`determinize`): the opponent's cards the searcher has not seen (all
  of its hand but the upcards it took) and the stock order are dealt again at random
  from the unseen cards, and the game is *replayed* from its start along the public
  action history with the changed chance outcomes, so the world is a genuine OpenSpiel
  state with a legal history; the searcher's information state string is checked equal
  to the original's. Once a player has knocked, the hands are on the table (the
  knocker lays them down), so the world is the state itself (as OpenSpiel's own
  ``resample_from_infostate`` does).
* **Rollouts** (:class:`SimplePolicy`): the candidate is played in a copy of the world and
  the game is finished by ``SimpleGinRummyBot`` for both players, drawing the stock in
  the world's sampled order (so every candidate meets the same stock); the value is the
  searcher's outcome: a win (1), a draw (0.5) or a loss (0), or its points.
* **Candidates** (:meth:`GinSearchBot.candidates`): every legal action when drawing, at the
  wall and when laying off; at the discard, the ``discards`` cards that leave the least
  deadwood (the simple bot's own discard always among them) and the knock if legal. Laying
  down melds after a knock follows the simple bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from burraco.bots.search import Budget, pimc

__all__ = [
    "GinSearchBot",
    "SimplePolicy",
    "World",
    "determinize",
    "load_game",
    "play_game",
    "shuffled_deck",
]

NUM_CARDS = 52
HAND_SIZE = 10
DRAW_UPCARD = 52
DRAW_STOCK = 53
PASS = 54
KNOCK = 55
MELD_BASE = 56

OBJECTIVES = ("win", "points", "mixed")


def _spiel() -> Any:
    """``pyspiel``, imported on first use; a clear error if the extra is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "gin rummy needs OpenSpiel: pip install -e '.[anchor]' (import pyspiel)"
        ) from exc
    gr = pyspiel.gin_rummy
    constants = (
        gr.DRAW_UPCARD_ACTION,
        gr.DRAW_STOCK_ACTION,
        gr.PASS_ACTION,
        gr.KNOCK_ACTION,
        gr.MELD_ACTION_BASE,
    )
    if constants != (DRAW_UPCARD, DRAW_STOCK, PASS, KNOCK, MELD_BASE):
        raise RuntimeError(f"unexpected gin_rummy action ids {constants}")
    return pyspiel


def load_game() -> Any:
    """OpenSpiel's ``gin_rummy`` with its default (standard) parameters."""
    return _spiel().load_game("gin_rummy")


def shuffled_deck(rng: random.Random) -> list[int]:
    """A random order of the 52 cards: the chance outcomes of a game, dealt in turn."""
    deck = list(range(NUM_CARDS))
    rng.shuffle(deck)
    return deck


@dataclass(frozen=True, slots=True)
class World:
    """A full gin rummy state and the order the stock will be drawn in."""

    state: Any
    stock: tuple[int, ...]


def _stock(state: Any) -> list[int]:
    """The cards still in the stock (before any knock: not in a hand, the upcard or the pile)."""
    seen = set(state.hands()[0]) | set(state.hands()[1]) | set(state.discard_pile())
    upcard = state.upcard()
    if upcard is not None:
        seen.add(upcard)
    stock = [c for c in range(NUM_CARDS) if c not in seen]
    if len(stock) != state.stock_size():
        raise RuntimeError("stock does not add up")
    return stock


def determinize(state: Any, player: int, rng: random.Random, initial: Any = None) -> World:
    """A world consistent with what ``player`` knows in ``state``.

    The opponent's unseen cards and the stock order are dealt again from the cards the
    player has not seen, keeping the upcards the opponent took; the game is replayed
    from ``initial`` (a fresh initial state, cached by callers since OpenSpiel builds one
    slowly) with the new chance outcomes. Raises if the player's information state
    changed.
    """
    if any(state.knocked()):
        # The knocker lays its hand down: nothing is hidden that matters any more.
        return World(state.clone(), ())
    if state.is_chance_node():
        raise ValueError("determinize a player's decision, not a chance node")
    opponent = 1 - player
    known = set(state.known_cards()[opponent])
    unseen = [c for c in state.hands()[opponent] if c not in known]
    pool = unseen + _stock(state)
    rng.shuffle(pool)
    swap = dict(zip(unseen, pool, strict=False))
    world = (initial if initial is not None else state.get_game().new_initial_state()).clone()
    for action in state.history():
        if world.is_chance_node():
            action = swap.get(action, action)
        world.apply_action(action)
    if world.information_state_string(player) != state.information_state_string(player):
        raise RuntimeError("a determinized world changed the searcher's information state")
    return World(world, tuple(pool[len(unseen) :]))


class SimplePolicy:
    """``SimpleGinRummyBot`` for one seat, able to take over a game at any point.

    The OpenSpiel bot keeps two things between calls: whether it knocked, and the melds
    it planned to lay down. A rollout (or our searcher) may hand it a game just after
    someone else chose to knock for its seat, or in the middle of laying off; so this
    wrapper primes the bot when a knock it did not choose is under way, and lays off as
    the bot does (never; then its best melds) itself. Everywhere else the bot chooses.
    """

    def __init__(self, game: Any, player: int) -> None:
        pyspiel = _spiel()
        self.player = player
        self.bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
        self.utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, HAND_SIZE)
        phase = pyspiel.gin_rummy.Phase
        self._knock_phase = phase.KNOCK
        self._layoff_phase = phase.LAYOFF
        self._knocking = False

    def restart(self) -> None:
        self.bot.restart()
        self._knocking = False

    def act(self, state: Any) -> int:
        phase = state.current_phase()
        if phase == self._layoff_phase:
            return self._lay(state)
        if phase == self._knock_phase and not self._knocking:
            # A knock chosen for this seat by someone else: let the bot knock (its answer
            # is the knock, already applied) so that it then discards and lays down.
            self.bot.restart()
            if self.bot.step(state) != KNOCK:
                raise RuntimeError("the simple bot would not knock this hand")
            self._knocking = True
        action: int = self.bot.step(state)
        if action == KNOCK:
            self._knocking = True
        return action

    def _lay(self, state: Any) -> int:
        """The defender's turn after a knock: no lay-off, then the best melds, then pass."""
        if not state.finished_layoffs():
            return PASS
        melds = self.utils.best_meld_group(state.hands()[self.player])
        if not melds:
            return PASS
        return MELD_BASE + int(self.utils.meld_to_int(melds[0]))


def _finish(state: Any, stock: Sequence[int], policies: Sequence[SimplePolicy]) -> None:
    """Play ``state`` to the end in place: the policies choose, the stock comes in order."""
    for policy in policies:
        policy.restart()
    drawn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(stock[drawn])
            drawn += 1
        else:
            state.apply_action(policies[state.current_player()].act(state))


class GinSearchBot:
    """``pimc`` with simple-bot rollouts, for one seat of OpenSpiel's gin rummy.

    ``worlds`` (or ``seconds``) is the budget of one decision; ``discards`` how many
    discards are searched (``None``: all); ``objective`` what a rollout scores: ``"win"``
    (1, 0.5 for a draw, 0), ``"points"`` (the game's return) or ``"mixed"`` (a win plus a
    hundredth of the points).
    """

    def __init__(
        self,
        game: Any,
        player: int,
        worlds: int | None = 32,
        seconds: float | None = None,
        seed: int = 0,
        discards: int | None = 4,
        objective: str = "win",
        prefer: float = 0.0,
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}")
        pyspiel = _spiel()
        self.game = game
        self.player = player
        self.budget = Budget(seconds=seconds, worlds=worlds)
        self.discards = discards
        self.objective = objective
        self.prefer = prefer
        self.default = -1
        self.rng = random.Random(seed)
        self.initial = game.new_initial_state()
        self.own = SimplePolicy(game, player)
        self.advisor = SimplePolicy(game, player)
        self.rollout = [SimplePolicy(game, p) for p in range(2)]
        phase = pyspiel.gin_rummy.Phase
        self._discard_phase = phase.DISCARD
        self._knock_phase = phase.KNOCK
        self._layoff_phase = phase.LAYOFF
        self.last_values: dict[int, float] = {}
        self.decisions = 0
        self.search_seconds = 0.0

    def restart(self) -> None:
        self.own.restart()

    def candidates(self, state: Any) -> list[int]:
        """The actions worth a search (empty when the simple bot's way is followed)."""
        phase = state.current_phase()
        if phase == self._knock_phase:
            return []
        legal: list[int] = state.legal_actions()
        if phase == self._layoff_phase and state.finished_layoffs():
            return []
        self.advisor.restart()
        simple = self.advisor.act(state)
        self.default = simple
        chosen = [simple]
        cards = [a for a in legal if a < NUM_CARDS and phase == self._discard_phase]
        if self.discards is None or not cards:
            ranked = legal
        else:
            hand = state.hands()[self.player]
            utils = self.advisor.utils
            deadwood = {c: utils.min_deadwood([x for x in hand if x != c]) for c in cards}
            ranked = sorted(cards, key=lambda c: deadwood[c])[: self.discards]
        for action in (*ranked, *([KNOCK] if KNOCK in legal else [])):
            if action not in chosen:
                chosen.append(action)
        return chosen

    def step(self, state: Any) -> int:
        """The action for this seat in ``state`` (which must be this seat's turn)."""
        if state.current_player() != self.player:
            raise ValueError("not this seat's turn")
        options = self.candidates(state)
        if not options:
            return self.own.act(state)
        if len(options) == 1:
            return options[0]
        start = time.perf_counter()
        open_game = not any(state.knocked())
        budget = self.budget if open_game else Budget(worlds=1)  # nothing hidden after a knock
        best, self.last_values = pimc(
            options,
            sample=lambda rng: determinize(state, self.player, rng, self.initial),
            value=self._value,
            rng=self.rng,
            budget=budget,
        )
        self.decisions += 1
        self.search_seconds += time.perf_counter() - start
        return best

    def _value(self, world: World, action: int) -> float:
        state = world.state.clone()
        state.apply_action(action)
        _finish(state, world.stock, self.rollout)
        points = float(state.returns()[self.player])
        bonus = self.prefer if action == self.default else 0.0
        if self.objective == "points":
            return points + bonus
        win = 1.0 if points > 0 else 0.5 if points == 0 else 0.0
        return bonus + (win if self.objective == "win" else win + points / 100.0)


def play_game(game: Any, players: Sequence[Any], deck: Sequence[int]) -> list[float]:
    """Play one game; ``players[p]`` has ``step(state) -> action`` (an OpenSpiel bot or
    a :class:`GinSearchBot`); chance deals ``deck`` in order. Returns the returns."""
    state = game.new_initial_state()
    drawn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(deck[drawn])
            drawn += 1
        else:
            state.apply_action(players[state.current_player()].step(state))
    return [float(r) for r in state.returns()]
