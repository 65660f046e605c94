"""Our determinized search (:func:`burraco.bots.search.pimc`) playing OpenSpiel's gin rummy.

An outside check of the search: the same ``pimc`` that drives :class:`ExpertBot` in
Burraco plays ``gin_rummy`` through ``pyspiel`` against OpenSpiel's own
``SimpleGinRummyBot`` (the C++ bot, made by ``pyspiel.make_simple_gin_rummy_bot``); see
``bench/gin_check.py``. ``pyspiel`` is optional (the ``anchor`` extra): it is imported
only inside functions, so this module imports without it.

The pieces, as in Burraco:

* **Worlds** (:func:`determinize`): the opponent's cards the searcher has not seen are
  dealt again, the stock is shuffled, and the game is *replayed* from its start along the
  real action history with those chance outcomes, so a world is a genuine OpenSpiel state
  with a legal history, and the searcher's information state string is checked equal to
  the original's (it raises otherwise). The cards the opponent took from the discard pile
  stay in its hand; each card it discarded unseen is dealt to it before it threw it.
  Once a player has knocked, the hands are laid down and the world is the state itself
  (as OpenSpiel's own ``resample_from_infostate`` does).
* **Which deals** (:func:`posterior`): uniform deals (``model="uniform"``) make the
  opponent's hand much worse than it is (it kept its melds and low cards for many turns).
  With ``model="simple"`` (the default) the deals are drawn from the posterior given the
  opponent's decisions, under the opponent's own rules: a particle filter deals its
  unseen cards slot by slot (the ten dealt, then each card drawn from the stock) and
  keeps the deals under which the simple bot would have taken, declined and discarded as
  it did (its rules, :class:`_Rules`, agree with the C++ bot on every decision checked),
  then a Markov chain (:func:`_rejuvenate`) spreads the survivors, which resampling
  leaves as copies of few early hands.
* **Rollouts** (:class:`SimplePolicy`): the candidate is played in a copy of the world and
  the game is finished by ``SimpleGinRummyBot`` for both players, drawing the stock in
  the world's order (so every candidate meets the same stock); the value is the
  searcher's points at the end of the game (``objective="points"``), or a win (1, a draw
  0.5, a loss 0), or a win plus a hundredth of the points. With ``keen``, our seat's
  turns in the playouts are played better than by the simple bot (it lays off and feeds
  the world's opponent no meld it can help, as the search itself would not).
* **Candidates** (:meth:`GinSearchBot.candidates`): every legal action when taking the
  first upcard or drawing, at the wall, when laying off; at the discard, every card (or
  the ``discards`` that leave the least deadwood, the simple bot's own discard always
  among them) and the knock if legal. Laying down melds after a knock follows the
  simple bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from burraco.bots.search import Budget, pimc

__all__ = [
    "GinSearchBot",
    "SimplePolicy",
    "World",
    "determinize",
    "keen_discard",
    "lay_off",
    "load_game",
    "play_game",
    "posterior",
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
MODELS = ("simple", "uniform")


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


# The simple bot's order of throwing: the highest rank, then the highest card id (a rank
# times 52 plus the id orders as the pair; a table lookup instead of a key function, as
# the filter asks this of each guess at each discard).
_THROW_ORDER = tuple((c % 13) * NUM_CARDS + c for c in range(NUM_CARDS))


class _Rules:
    """The simple bot's draw and discard rules on a bare hand (checked equal to OpenSpiel's
    bot on every decision of 500 games before any knock)."""

    def __init__(self, knock_card: int) -> None:
        self.utils = _spiel().gin_rummy.GinRummyUtils(13, 4, HAND_SIZE)
        self.knock_card = knock_card
        self._seen: dict[tuple[int, int, frozenset[int]], bool] = {}

    def explains(self, hand: Sequence[int], kind: int, card: int) -> bool:
        """Whether the bot holding ``hand`` would have taken (``TAKE``), declined or
        discarded ``card``. Remembered: a filter asks the same question many times."""
        key = (kind, card, frozenset(hand))
        known = self._seen.get(key)
        if known is None:
            if kind == DISCARD:
                known = self.discard(hand) == card
            else:
                known = self.takes(hand, card) == (kind == TAKE)
            if len(self._seen) > 200_000:
                self._seen.clear()
            self._seen[key] = known
        return known

    def takes(self, hand: Sequence[int], upcard: int) -> bool:
        """It draws the upcard if that lets it knock or the upcard joins a best meld."""
        ordered = sorted(hand)
        if self.utils.min_deadwood(ordered, upcard) <= self.knock_card:
            return True
        return any(upcard in meld for meld in self.utils.best_meld_group([*ordered, upcard]))

    def discard(self, hand: Sequence[int]) -> int:
        """It knocks if it may, else throws its highest-ranked card outside its best melds."""
        ordered = sorted(hand)
        if self.utils.min_deadwood(ordered) <= self.knock_card:
            return KNOCK
        melded = set().union(*self.utils.best_meld_group(ordered))
        return max((c for c in ordered if c not in melded), key=_THROW_ORDER.__getitem__)


# What the searcher saw the opponent do, in order (see _Public).
SLOT, TAKE, DECLINE, DISCARD = range(4)


class _Public:
    """The opponent's side of the game as the searcher saw it, before any knock.

    ``events`` lists, in order, each card the opponent got from the deck unseen (a slot:
    the ten dealt, then one per draw from the stock), each upcard it took or declined,
    and each card it discarded. ``slots`` are the positions in the state's history of
    those unseen cards; ``deadline[c]`` is the event at which a card that came to it
    unseen was discarded (it must have come before); ``unseen`` the cards the searcher
    has not seen (the opponent's hidden cards and the stock).
    """

    def __init__(self, state: Any, player: int) -> None:
        opponent = 1 - player
        self.events: list[tuple[int, int]] = []
        self.slots: list[int] = []
        self.deadline: dict[int, int] = {}
        taken: set[int] = set()  # upcards the opponent holds
        upcard: int | None = None
        drawer = -1
        chance = 0
        passes = 0
        first_round = True  # no one has drawn yet: the first upcard is offered
        for index, step in enumerate(state.full_history()):
            who, action = step.player, step.action
            if who < 0:
                chance += 1
                if chance == 2 * HAND_SIZE + 1:
                    upcard = action
                    continue
                receiver = (chance - 1) // HAND_SIZE if chance <= 2 * HAND_SIZE else drawer
                if receiver == opponent:
                    self.events.append((SLOT, -1))
                    self.slots.append(index)
                continue
            if action == KNOCK:
                raise ValueError("the hands are open after a knock")
            if action == PASS:
                if first_round and who == opponent and upcard is not None:
                    self.events.append((DECLINE, upcard))
                passes += 1
            elif action == DRAW_UPCARD:
                if who == opponent and upcard is not None:
                    self.events.append((TAKE, upcard))
                    taken.add(upcard)
                upcard = None
                first_round = False
            elif action == DRAW_STOCK:
                # After both passed on the first upcard the draw is forced: it tells nothing.
                forced = first_round and passes >= 2
                if who == opponent and upcard is not None and not forced:
                    self.events.append((DECLINE, upcard))
                drawer = who
                upcard = None
                first_round = False
            elif action < NUM_CARDS:
                if who == opponent:
                    self.events.append((DISCARD, action))
                    if action in taken:
                        taken.discard(action)
                    else:
                        self.deadline[action] = len(self.events) - 1
                upcard = action
        seen = set(state.hands()[player]) | set(state.discard_pile()) | taken
        if state.upcard() is not None:
            seen.add(state.upcard())
        self.unseen = [c for c in range(NUM_CARDS) if c not in seen]
        slots = [e for e, (kind, _) in enumerate(self.events) if kind == SLOT]
        self.ahead = {e: [f for f in slots if f >= e] for e in slots}
        hidden = len(state.hands()[opponent]) - len(taken)
        if len(self.slots) != len(self.deadline) + hidden or (
            len(self.unseen) != hidden + state.stock_size()
        ):
            raise RuntimeError("the opponent's cards do not add up")


# A guess of the opponent's unseen cards, followed along the game: its hand, the card of
# each slot so far, and the cards it discarded later that are not placed yet.
_Particle = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _deal(p: _Particle, first: int, stop: int, public: _Public, rng: random.Random) -> _Particle:
    """Deal the slots of events ``first`` to ``stop`` (no decision between them) from the
    prior given the public history.

    Each card the opponent discarded unseen must sit in a slot before its discard; all
    placements that allow are equally likely, and the other slots hold unseen cards at
    random. A uniform valid placement of the pending cards over the slots from here on
    (in order of deadline, each among the free slots before its own) says which of them
    sit here.
    """
    hand, placed, pending = p
    here: dict[int, int] = {}
    left: tuple[int, ...] = pending
    if pending:
        ahead = public.ahead[first]
        used: set[int] = set()
        kept: list[int] = []
        for card in sorted(pending, key=public.deadline.__getitem__):
            deadline = public.deadline[card]
            options = [e for e in ahead if e < deadline and e not in used]
            where = rng.choice(options)
            used.add(where)
            if where < stop:
                here[where] = card
            else:
                kept.append(card)
        left = tuple(kept)
    taken = set(placed)
    unseen = public.unseen
    cards = []
    for event in range(first, stop):
        card = here.get(event, -1)
        while card < 0 or (event not in here and card in taken):
            card = unseen[rng.randrange(len(unseen))]
        taken.add(card)
        cards.append(card)
    return (*hand, *cards), (*placed, *cards), left


def _posterior(
    public: _Public, rules: _Rules | None, particles: int, rng: random.Random
) -> tuple[list[tuple[int, ...]], int]:
    """Guesses of the opponent's unseen cards (one card per slot), and how many of its
    decisions no guess could explain (then that decision is not used).

    With ``rules`` (the opponent's policy), a particle filter: guesses are dealt slot by
    slot from the prior, those under which the opponent would not have done what it did
    are dropped, and the rest are resampled. Without, guesses from the prior alone.
    """
    swarm: list[_Particle] = [((), (), tuple(public.deadline))] * particles
    events = public.events
    unexplained = 0
    event = 0
    while event < len(events):
        kind, card = events[event]
        if kind == SLOT:
            stop = event
            while stop < len(events) and events[stop][0] == SLOT:
                stop += 1
            swarm = [_deal(p, event, stop, public, rng) for p in swarm]
            event = stop
            continue
        if rules is not None:
            alive = [p for p in swarm if rules.explains(p[0], kind, card)]
            if not alive:
                alive = _repair(public, rules, swarm, event, rng)
            if not alive:
                unexplained += 1
            elif len(alive) < len(swarm):
                swarm = [alive[rng.randrange(len(alive))] for _ in range(particles)]
        if kind == TAKE:
            swarm = [((*h, card), s, q) for h, s, q in swarm]
        elif kind == DISCARD:
            swarm = [(tuple(c for c in h if c != card), s, q) for h, s, q in swarm]
        event += 1
    return [p[1] for p in swarm], unexplained


def posterior(
    state: Any,
    player: int,
    rng: random.Random,
    particles: int = 512,
    chains: int = 64,
    moves: int = 100,
) -> list[tuple[int, ...]]:
    """Guesses of the opponent's unseen cards in ``state`` (before any knock), each fit for
    ``determinize(guesses=...)``: the particle filter on the simple bot's rules, then
    ``chains`` of its guesses moved ``moves`` steps each (none if ``moves`` is 0)."""
    rules = _Rules(int(state.get_game().get_parameters()["knock_card"]))
    public = _Public(state, player)
    guesses = _posterior(public, rules, particles, rng)[0]
    if not moves:
        return guesses
    starts = [guesses[rng.randrange(len(guesses))] for _ in range(chains)]
    return _rejuvenate(public, rules, starts, moves, rng)


def _misfits_and_hand(
    events: Sequence[tuple[int, int]],
    rules: _Rules,
    placed: Sequence[int],
    limit: int | None = None,
) -> tuple[int, list[int]]:
    """How many of the opponent's decisions among ``events`` (from the deal's first) the
    guess ``placed`` fails to explain, and the opponent's hand after them.

    With ``limit``, the count stops as soon as it passes ``limit`` (the hand is then the
    one at that decision): a Markov step only asks whether a guess explains at least as
    many decisions as the current one, so a proposal that fails need not be followed
    through the rest of the game."""
    hand: list[int] = []
    slot = wrong = 0
    for kind, card in events:
        if kind == SLOT:
            hand.append(placed[slot])
            slot += 1
            continue
        wrong += not rules.explains(hand, kind, card)
        if limit is not None and wrong > limit:
            break
        if kind == TAKE:
            hand.append(card)
        elif kind == DISCARD:
            hand.remove(card)
    return wrong, hand


def _follow(
    public: _Public, rules: _Rules, placed: Sequence[int], upto: int, limit: int | None = None
) -> tuple[int, tuple[int, ...]]:
    """How many of the opponent's decisions up to event ``upto`` (included) the guess
    ``placed`` fails to explain, and the opponent's hand just before that event (with
    ``limit``: only exact while the count does not pass it, as in :func:`_misfits_and_hand`)."""
    wrong, hand = _misfits_and_hand(public.events[:upto], rules, placed, limit)
    if limit is not None and wrong > limit:
        return wrong, tuple(hand)
    kind, card = public.events[upto]
    return wrong + (not rules.explains(hand, kind, card)), tuple(hand)


def _repair(
    public: _Public,
    rules: _Rules,
    swarm: Sequence[_Particle],
    event: int,
    rng: random.Random,
    moves: int = 4000,
    enough: int = 64,
) -> list[_Particle]:
    """Guesses that explain every decision up to ``event``, found when none of the swarm
    does: a local search from the swarm that swaps one unseen card the opponent still
    holds for another, keeping a swap unless it explains fewer decisions."""
    chains = [(p, _follow(public, rules, p[1], event)[0]) for p in dict.fromkeys(swarm)]
    found: dict[_Particle, None] = {}
    for _ in range(moves):
        i = rng.randrange(len(chains))
        (_, placed, pending), wrong = chains[i]
        hidden = [k for k, c in enumerate(placed) if c not in public.deadline]
        other = public.unseen[rng.randrange(len(public.unseen))]
        if not hidden or other in placed:
            continue
        k = hidden[rng.randrange(len(hidden))]
        new = (*placed[:k], other, *placed[k + 1 :])
        worse, hand = _follow(public, rules, new, event, limit=wrong)
        if worse <= wrong:
            chains[i] = ((hand, new, pending), worse)
            if not worse:
                found[chains[i][0]] = None
                if len(found) >= enough:
                    break
    return list(found)


def _misfits(
    public: _Public, rules: _Rules, placed: Sequence[int], limit: int | None = None
) -> int:
    """How many of the opponent's decisions the guess ``placed`` fails to explain (with
    ``limit``: some number above ``limit`` once it passes it)."""
    return _misfits_and_hand(public.events, rules, placed, limit)[0]


def _rejuvenate(
    public: _Public,
    rules: _Rules,
    guesses: Sequence[tuple[int, ...]],
    moves: int,
    rng: random.Random,
) -> list[tuple[int, ...]]:
    """Each guess moved ``moves`` steps along a Markov chain whose stationary law is the
    posterior (the prior, uniform over the deals the public history allows, restricted to
    the deals that explain the opponent's decisions).

    The filter's resampling leaves many copies of few early hands (the ten cards dealt
    first are never dealt again), which makes its guesses too sure; the chain spreads
    them. A step either swaps a card the opponent holds unseen for an unseen card, or
    exchanges a card it discarded with one it holds, in a slot before the discard (it
    came earlier or later); both proposals are symmetric, so a step is kept whenever the
    guess still explains as many decisions.
    """
    slot_event = [e for e, (kind, _) in enumerate(public.events) if kind == SLOT]
    unseen = public.unseen
    deadline = public.deadline
    moved = []
    for guess in guesses:
        current = tuple(guess)
        wrong = _misfits(public, rules, current)
        for _ in range(moves):
            hidden = [k for k, c in enumerate(current) if c not in deadline]
            if not hidden:
                break
            if len(hidden) == len(current) or rng.random() < 0.5:
                other = unseen[rng.randrange(len(unseen))]
                if other in current:
                    continue
                k = hidden[rng.randrange(len(hidden))]
                proposal = (*current[:k], other, *current[k + 1 :])
            else:
                dealt = [k for k, c in enumerate(current) if c in deadline]
                i = dealt[rng.randrange(len(dealt))]
                before = [j for j in hidden if slot_event[j] < deadline[current[i]]]
                if not before:
                    continue
                j = before[rng.randrange(len(before))]
                swapped = list(current)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                proposal = tuple(swapped)
            misfit = _misfits(public, rules, proposal, limit=wrong)
            if misfit <= wrong:
                current, wrong = proposal, misfit
        moved.append(current)
    return moved


def _replay(
    state: Any,
    player: int,
    public: _Public,
    placed: Sequence[int],
    rng: random.Random,
    initial: Any,
) -> World:
    """The game replayed with the opponent's unseen cards ``placed``; the stock shuffled."""
    world = initial.clone()
    slots = dict(zip(public.slots, placed, strict=True))
    for index, action in enumerate(state.history()):
        world.apply_action(slots.get(index, action))
    if world.information_state_string(player) != state.information_state_string(player):
        raise RuntimeError("a determinized world changed the searcher's information state")
    return World(world, _stock(public, placed, rng))


def _stock(public: _Public, placed: Sequence[int], rng: random.Random) -> tuple[int, ...]:
    """The stock of a world whose opponent got ``placed`` unseen: the other unseen cards,
    shuffled."""
    used = set(placed)
    stock = [c for c in public.unseen if c not in used]
    rng.shuffle(stock)
    return tuple(stock)


def determinize(
    state: Any,
    player: int,
    rng: random.Random,
    initial: Any = None,
    guesses: Sequence[Sequence[int]] | None = None,
) -> World:
    """A world consistent with what ``player`` knows in ``state``.

    The opponent's unseen cards are one of ``guesses`` (from :func:`_posterior`), or
    dealt at random from the cards the player has not seen, keeping the upcards the
    opponent took and the cards it discarded (each dealt to it before it threw it); the
    stock is shuffled; the game is replayed from ``initial`` (a fresh initial state,
    cached by callers since OpenSpiel builds one slowly) with those chance outcomes.
    Raises if the player's information state changed.
    """
    if any(state.knocked()):
        # The knocker lays its hand down: nothing is hidden that matters any more.
        return World(state.clone(), ())
    if state.is_chance_node() or state.current_player() != player:
        raise ValueError("determinize the searcher's own decision")
    public = _Public(state, player)
    placed = rng.choice(guesses) if guesses else _posterior(public, None, 1, rng)[0][0]
    start = initial if initial is not None else state.get_game().new_initial_state()
    return _replay(state, player, public, placed, rng, start)


class SimplePolicy:
    """``SimpleGinRummyBot`` for one seat, able to take over a game at any point.

    The OpenSpiel bot keeps two things between calls: whether it knocked, and the melds
    it planned to lay down. A rollout (or our searcher) may hand it a game just after
    someone else chose to knock for its seat, or in the middle of laying off; so this
    wrapper primes the bot when a knock it did not choose is under way, and lays off as
    the bot does (never; then its best melds) itself. Everywhere else the bot chooses.

    With ``lays_off``, the seat lays off as our searcher does instead (:func:`lay_off`):
    a rollout that plays our seat like the simple bot would give up every card the
    searcher lays off for real, and so value too low the games the opponent knocks.

    With ``keen`` (our seat in the playouts), it also lays off, and discards as
    :func:`keen_discard` does when it cannot knock, looking at the opponent's hand *of
    the sampled world*: a playout models our later turns, where the search, sampling
    that hand from a posterior the deterministic opponent makes sharp, does not feed it
    either; with the simple bot's discards the playouts feed it freely and so undervalue
    every option that keeps the game going.
    """

    def __init__(self, game: Any, player: int, lays_off: bool = False, keen: bool = False) -> None:
        pyspiel = _spiel()
        self.player = player
        self.lays_off = lays_off or keen
        self.keen = keen
        self.bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
        self.utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, HAND_SIZE)
        self.rules = _Rules(int(game.get_parameters()["knock_card"]))
        phase = pyspiel.gin_rummy.Phase
        self._knock_phase = phase.KNOCK
        self._layoff_phase = phase.LAYOFF
        self._discard_phase = phase.DISCARD
        self._knocking = False

    def restart(self) -> None:
        self.bot.restart()
        self._knocking = False

    def act(self, state: Any) -> int:
        phase = state.current_phase()
        if phase == self._layoff_phase:
            return self._lay(state)
        if self.keen and phase == self._discard_phase and not self._knocking:
            hand = state.hands()[self.player]
            if self.utils.min_deadwood(hand) > self.rules.knock_card:
                # It cannot knock (else the bot knocks, as soon as it may: waiting loses).
                opponent = state.hands()[1 - self.player]
                return keen_discard(self.utils, self.rules, hand, opponent, state.legal_actions())
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
        """The defender's turn after a knock: no lay-off (or with ``lays_off``, those of
        :func:`lay_off`), then the best melds, then pass."""
        if not state.finished_layoffs():
            if not self.lays_off:
                return PASS
            return lay_off(self.utils, state.hands()[self.player], state.legal_actions())
        melds = self.utils.best_meld_group(state.hands()[self.player])
        if not melds:
            return PASS
        return MELD_BASE + int(self.utils.meld_to_int(melds[0]))


def lay_off(utils: Any, hand: Sequence[int], legal: Sequence[int]) -> int:
    """The defender's next lay-off: the card whose lay-off leaves the least deadwood, if
    that is less than the hand has now (a card in one of its own melds may be worth
    more there); else ``PASS``. One card at a time, since a lay-off can open another
    (a run grown by one takes the next card)."""
    cards = [a for a in legal if a < NUM_CARDS]
    if not cards:
        return PASS
    left = {c: int(utils.min_deadwood([x for x in hand if x != c])) for c in cards}
    best = min(cards, key=lambda c: (left[c], c))
    return best if left[best] < int(utils.min_deadwood(list(hand))) else PASS


def _near(a: int, b: int) -> bool:
    """Whether cards ``a`` and ``b`` could sit in one meld: the same rank, or the same
    suit at most two ranks apart (a run of three holds both)."""
    rank_a, rank_b = a % 13, b % 13
    return rank_a == rank_b or (a // 13 == b // 13 and abs(rank_a - rank_b) <= 2)


# Points of deadwood a discard is charged per other deadwood card it is near (half a
# meld given up). Set on 2000 games of the policy alone against the simple bot (without
# the check on feeding): 0, 1, 2 and 3 are within a point of each other.
NEAR_WEIGHT = 2


def keen_discard(
    utils: Any, rules: _Rules, hand: Sequence[int], opponent: Sequence[int], legal: Sequence[int]
) -> int:
    """The discard from ``hand`` (11 cards) that leaves the least deadwood, less
    ``NEAR_WEIGHT`` for each other deadwood card it is near (:func:`_near`), ties as the
    simple bot throws (the highest rank, then the highest id); but never a card the
    simple bot holding ``opponent`` would take (it melds or lets it knock) while
    another legal card is left (none is looked for if ``opponent`` is empty)."""
    ordered = sorted(hand)
    cards = [c for c in legal if c < NUM_CARDS]
    if not cards:
        raise ValueError("no card of the hand may be discarded")
    melded = set().union(*utils.best_meld_group(ordered))
    deadwood = [c for c in ordered if c not in melded]

    def worth(card: int) -> tuple[int, int]:
        left = int(utils.min_deadwood([c for c in ordered if c != card]))
        near = sum(1 for other in deadwood if other != card and _near(card, other))
        return -left - NEAR_WEIGHT * near, _THROW_ORDER[card]

    ranked = sorted(cards, key=worth, reverse=True)
    if not opponent:  # no hand to feed (the searcher does not see it)
        return ranked[0]
    return next((c for c in ranked if not rules.takes(opponent, c)), ranked[0])


def _play_out(state: Any, cards: Sequence[int], choose: Callable[[Any], int]) -> None:
    """Play ``state`` to the end in place: ``choose(state)`` plays each decision, chance
    deals ``cards`` in order."""
    drawn = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(cards[drawn])
            drawn += 1
        else:
            state.apply_action(choose(state))


def _finish(state: Any, stock: Sequence[int], policies: Sequence[SimplePolicy]) -> None:
    """Play ``state`` to the end in place: the policies choose, the stock comes in order."""
    for policy in policies:
        policy.restart()
    _play_out(state, stock, lambda s: policies[s.current_player()].act(s))


class GinSearchBot:
    """``pimc`` with simple-bot rollouts, for one seat of OpenSpiel's gin rummy.

    ``worlds`` (or ``seconds``, or both: first reached) is the budget of one decision;
    ``discards`` how many discards are searched (``None``: all); ``objective`` what a
    rollout scores: ``"points"`` (the game's return), ``"win"`` (1, 0.5 for a draw, 0) or
    ``"mixed"`` (a win plus a hundredth of the points); ``prefer`` a bonus added to the
    simple bot's own choice (0: none). ``model`` is how the opponent's hidden cards are
    dealt (``"simple"``: the posterior of :func:`posterior`, with ``particles``, ``chains``
    and ``moves``; ``"uniform"``: uniformly among the deals the public history allows).
    ``lays_off``: our seat lays off in the playouts as it does for real
    (:class:`SimplePolicy`). ``shortlist``: with a budget of worlds, the playouts of a
    decision are spent in two rounds, the second on the ``shortlist`` best options
    (:meth:`_search`; 0: one round). ``keen``: our seat plays the playouts as
    :class:`SimplePolicy` with ``keen`` does (the opponent still plays the simple bot).
    ``race``: the options race (``pimc``'s ``race``, in standard errors): one clearly
    behind stops being played, so a budget of worlds costs fewer playouts (``playouts``
    counts them). ``feed``: a discard the opponent would take in more than this share of
    the posterior's guesses of its hand is not an option (:meth:`_unfed`; ``None``: all
    are). ``keen_discards``: discards are not searched: the seat knocks as soon as it may,
    else throws as :func:`keen_discard` does among the options left (the draws, lay-offs
    and everything else are searched as before).
    Choices depend only on the seat's information and ``seed``.
    """

    def __init__(
        self,
        game: Any,
        player: int,
        worlds: int | None = 64,
        seconds: float | None = None,
        seed: int = 0,
        discards: int | None = None,
        objective: str = "points",
        prefer: float = 0.0,
        model: str = "simple",
        particles: int = 512,
        chains: int = 64,
        moves: int = 100,
        lays_off: bool = False,
        shortlist: int = 0,
        keen: bool = False,
        race: float | None = None,
        feed: float | None = None,
        keen_discards: bool = False,
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}")
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}")
        pyspiel = _spiel()
        self.game = game
        self.player = player
        self.budget = Budget(seconds=seconds, worlds=worlds)
        self.discards = discards
        self.objective = objective
        self.prefer = prefer
        self.model = model
        self.shortlist = shortlist
        self.race = race
        self.feed = feed
        self.keen_discards = keen_discards
        self.particles = particles
        self.chains = chains
        self.moves = moves
        self.rules = _Rules(int(game.get_parameters()["knock_card"]))
        self.unexplained = 0
        self._cache: (
            tuple[tuple[tuple[int, int], ...], tuple[int, ...], list[tuple[int, ...]]] | None
        )
        self._cache = None
        self.default = -1
        self.rng = random.Random(seed)
        self.initial = game.new_initial_state()
        self.own = SimplePolicy(game, player)
        self.advisor = SimplePolicy(game, player)
        self.rollout = [
            SimplePolicy(game, p, lays_off=lays_off and p == player, keen=keen and p == player)
            for p in range(2)
        ]
        phase = pyspiel.gin_rummy.Phase
        self._discard_phase = phase.DISCARD
        self._knock_phase = phase.KNOCK
        self._layoff_phase = phase.LAYOFF
        self.last_values: dict[int, float] = {}
        self.decisions = 0
        self.search_seconds = 0.0
        self.playouts = 0

    def restart(self) -> None:
        self.own.restart()
        self._cache = None

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
        if self.feed is not None and cards and not any(state.knocked()):
            chosen = self._unfed(state, chosen)
        return chosen

    def _unfed(self, state: Any, options: list[int]) -> list[int]:
        """``options`` less the discards the opponent would take (it melds or knocks with
        them, by its rules) in more than ``feed`` of the posterior's guesses of its hand;
        the least taken card stays if every card would be. The posterior is the search's
        own (cached), so this costs no playout."""
        public = _Public(state, self.player)
        hands = [_misfits_and_hand(public.events, self.rules, g)[1] for g in self._guesses(public)]
        cards = [a for a in options if a < NUM_CARDS]
        fed = {c: sum(self.rules.takes(h, c) for h in hands) / len(hands) for c in cards}
        kept = [a for a in options if a >= NUM_CARDS or fed[a] <= (self.feed or 0.0)]
        if not any(a < NUM_CARDS for a in kept):
            kept.append(min(cards, key=lambda c: (fed[c], cards.index(c))))
        return kept

    def step(self, state: Any) -> int:
        """The action for this seat in ``state`` (which must be this seat's turn)."""
        if state.current_player() != self.player:
            raise ValueError("not this seat's turn")
        options = self.candidates(state)
        if not options:
            return self.own.act(state)
        if len(options) == 1:
            return options[0]
        if self.keen_discards and KNOCK in options:
            return KNOCK  # as soon as it may, as the simple bot does (waiting loses)
        cards = [a for a in options if a < NUM_CARDS]
        if self.keen_discards and cards and state.current_phase() == self._discard_phase:
            hand = state.hands()[self.player]
            return keen_discard(self.advisor.utils, self.rules, hand, (), cards)
        start = time.perf_counter()
        budget = self.budget if not any(state.knocked()) else Budget(worlds=1)
        best, self.last_values = self._search(options, self._sampler(state), budget)
        self.decisions += 1
        self.search_seconds += time.perf_counter() - start
        return best

    def _search(
        self, options: list[int], sample: Callable[[random.Random], World], budget: Budget
    ) -> tuple[int, dict[int, float]]:
        """``pimc`` over ``options``; with a ``shortlist`` and a budget of worlds only, in
        two rounds of the same number of playouts as one: half the worlds for every
        option, then the playouts left for the ``shortlist`` best, each mean over both
        rounds. Most discards are clearly worse after a few worlds; the close ones are
        where more worlds change the choice. Ties go to the earlier option, as in pimc."""
        keep, worlds = self.shortlist, budget.worlds
        if not keep or budget.seconds is not None or worlds is None or worlds < 2:
            return pimc(
                options,
                sample=sample,
                value=self._value,
                rng=self.rng,
                budget=budget,
                race=self.race,
            )
        if len(options) <= keep:
            return pimc(options, sample=sample, value=self._value, rng=self.rng, budget=budget)
        first = worlds // 2
        _, means = pimc(
            options, sample=sample, value=self._value, rng=self.rng, budget=Budget(worlds=first)
        )
        ranked = sorted(options, key=lambda a: -means[a])[:keep]  # stable: ties keep order
        more = (worlds - first) * len(options) // keep
        _, again = pimc(
            ranked, sample=sample, value=self._value, rng=self.rng, budget=Budget(worlds=more)
        )
        values = dict(means)
        for action in ranked:
            values[action] = (means[action] * first + again[action] * more) / (first + more)
        order = {a: k for k, a in enumerate(options)}
        return max(ranked, key=lambda a: (values[a], -order[a])), values

    def _sampler(self, state: Any) -> Callable[[random.Random], World]:
        """How worlds are drawn for this decision: the state itself once the hands are
        open (after a knock); else the game replayed with the opponent's unseen cards
        from the posterior of the simple-bot model, or from the prior (``"uniform"``)."""
        if any(state.knocked()):
            return lambda rng: World(state.clone(), ())
        public = _Public(state, self.player)
        player, initial = self.player, self.initial
        if self.model == "uniform":
            return lambda rng: _replay(
                state, player, public, _posterior(public, None, 1, rng)[0][0], rng, initial
            )
        guesses = self._guesses(public)
        replayed: dict[tuple[int, ...], Any] = {}

        def sample(rng: random.Random) -> World:
            # The posterior repeats guesses, and a guess's replay does not depend on the
            # stock: each guess is replayed once, and its worlds share the state (a rollout
            # plays a clone of it). The same random numbers are drawn as by _replay.
            guess = rng.choice(guesses)
            known = replayed.get(guess)
            if known is None:
                world = _replay(state, player, public, guess, rng, initial)
                replayed[guess] = world.state
                return world
            return World(known, _stock(public, guess, rng))

        return sample

    def _guesses(self, public: _Public) -> list[tuple[int, ...]]:
        """The posterior's guesses; kept while the opponent has not acted, minus those that
        gave it a card the searcher has seen since (drawn from the stock)."""
        events = tuple(public.events)
        if self._cache is not None and self._cache[0] == events:
            seen = set(self._cache[1]) - set(public.unseen)
            guesses = [g for g in self._cache[2] if seen.isdisjoint(g)]
            if guesses:
                return guesses
        guesses, unexplained = _posterior(public, self.rules, self.particles, self.rng)
        self.unexplained += unexplained
        if self.moves:
            starts = [guesses[self.rng.randrange(len(guesses))] for _ in range(self.chains)]
            guesses = _rejuvenate(public, self.rules, starts, self.moves, self.rng)
        self._cache = (events, tuple(public.unseen), guesses)
        return guesses

    def _value(self, world: World, action: int) -> float:
        self.playouts += 1
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
    _play_out(state, deck, lambda s: players[s.current_player()].step(s))
    return [float(r) for r in state.returns()]
