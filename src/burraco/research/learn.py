"""A baseline that learns Italian Burraco for two from self-play: Deep Monte-Carlo.

The method is DouZero's (Zha et al., 2021) on a small scale. A network values a pair
(state, legal engine action): the seat's compact state and the action's features of
:mod:`burraco.bots.learned`. The agent plays the action of highest value, a random one
with probability epsilon. When a deal ends, every decision of a learning seat gets that
seat's return of the deal (:func:`burraco.encoding.returns`, over 1000) as its target,
and the network is fitted to those targets by mean squared error. No bootstrapping,
no critic: a Monte-Carlo estimate of each action's value under the current play,
which suits a game whose rewards all come at the end of a deal and whose legal actions
vary in number (an engine action is valued directly; no id space to mask).

Why this and not PPO: a policy-gradient agent needs a fixed action set (the 2020 ids
of :mod:`burraco.encoding`, a meld laid card by card) and many more samples to settle;
DMC scores the few engine actions of a state (nine on average) in one batch, and one
hour of a CPU plays some tens of thousands of deals, enough for it.

The deals are of three kinds: self-play (the agent in both seats, both learning),
against the greedy bot, and against the random bot; the agent learns only from its own
seats. Acting uses the numpy inference of :class:`~burraco.bots.learned.Policy` (the very
code the shipped bot runs), fitting uses torch on one thread.

The learned level's shipped weights now come from :mod:`burraco.research.iterate`
(imitation, then this method, keeping the best evaluated checkpoint). Run this one (the
``learn`` extra)::

    python -m burraco.research.learn --minutes 60 --out learned.npz \\
        --log docs/learning_curve.csv --plot docs/learning_curve.png

``--minutes`` bounds the learning (acting and fitting) in CPU time, so a busy machine
does not shorten it; the evaluations of the learning curve (every ``--eval-every``
minutes of learning, against the random and the greedy bot on the same duplicate deals
each time) run outside it and are timed apart. :func:`evaluate` needs no torch.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from burraco.actions import Action
from burraco.bots import Bot
from burraco.bots.arena import interval95, make_bot
from burraco.bots.learned import (
    ACTION_SIZE,
    STATE_SIZE,
    LearnedBot,
    Policy,
    action_features,
    state_features,
)
from burraco.deal import Deal
from burraco.encoding import returns
from burraco.variants import Variant, variant
from burraco.view import DealView

if TYPE_CHECKING:
    import torch

__all__ = [
    "CURVE_FIELDS",
    "Evaluation",
    "TrainConfig",
    "Training",
    "evaluate",
    "main",
    "plot_curve",
    "train",
]

#: A deal's return over this is the target: most returns fall within ±2.
RETURN_SCALE: Final = 1000.0
#: The columns of the learning curve's CSV.
CURVE_FIELDS: Final = (
    "minutes",
    "deals",
    "samples",
    "steps",
    "loss",
    "opponent",
    "boards",
    "mean",
    "mean_low",
    "mean_high",
    "win_rate",
    "win_low",
    "win_high",
)
#: Evaluation boards are dealt from seeds above this, training deals from seeds below.
EVAL_SEEDS: Final = 1 << 40


def italian2() -> Variant:
    """The trained table: Italian Burraco, two players."""
    return variant("italian", players=2)


# --- evaluation (numpy only) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The agent against one bot on duplicate deals: each board (a deck order) is played
    twice, the agent in either seat, so the luck of the cards cancels out."""

    opponent: str
    boards: int
    #: Mean, per deal, of the agent's points less the opponent's.
    mean: float
    #: 95% interval of that mean (normal, over boards).
    interval: tuple[float, float]
    #: Deals won (a level deal counts a half).
    win_rate: float
    win_interval: tuple[float, float]


def play_deal(
    v: Variant, seed: int, bots: Sequence[Bot], dealer: int = 0
) -> tuple[list[float], str]:
    """Play one deal with a bot per seat: the seats' returns (points) and how it ended."""
    deal = Deal.new(v, seed=seed, dealer=dealer)
    while not deal.is_over:
        seat = deal.turn
        deal.apply(bots[seat].choose(deal.view(seat), deal.legal_actions()))
    return returns(deal), deal.end_reason or ""


def evaluate(policy: Policy | None, opponent: str, boards: int = 50, seed: int = 0) -> Evaluation:
    """The agent (``policy``; None: the shipped weights) against a bot by name, on
    ``boards`` duplicate boards of Italian Burraco for two.

    >>> e = evaluate(Policy.random(), "random", boards=2)
    >>> e.opponent, e.boards, -2000 < e.mean < 2000, 0.0 <= e.win_rate <= 1.0
    ('random', 2, True, True)
    """
    if boards < 1:
        raise ValueError(f"an evaluation needs at least one board, not {boards}")
    v = italian2()
    per_board: list[float] = []
    wins: list[float] = []
    for b in range(boards):
        board = EVAL_SEEDS + seed * 100_003 + b
        diffs: list[float] = []
        won: list[float] = []
        for agent_seat in (0, 1):
            agent = LearnedBot(policy, seed=board)
            other = make_bot(opponent, seed=board)
            bots = [agent, other] if agent_seat == 0 else [other, agent]
            result, _ = play_deal(v, board, bots)
            # Two lines: a seat's return is its line's points less the other line's.
            diff = result[agent_seat]
            diffs.append(diff)
            won.append(1.0 if diff > 0 else 0.5 if diff == 0 else 0.0)
        per_board.append(statistics.fmean(diffs))
        wins.append(statistics.fmean(won))
    mean, low, high = interval95(per_board)
    rate, rate_low, rate_high = interval95(wins)
    return Evaluation(
        opponent,
        boards,
        mean,
        (low, high),
        rate,
        (max(0.0, rate_low), min(1.0, rate_high)),
    )


# --- self-play -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """The knobs of a training run (the defaults are those of the shipped weights)."""

    #: CPU time for learning, acting and fitting (evaluations excluded).
    minutes: float = 60.0
    seed: int = 0
    hidden: tuple[int, ...] = (256, 128)
    learning_rate: float = 3e-4
    batch: int = 256
    #: How many times, on average, a sample is fitted on.
    reuse: float = 4.0
    #: The replay buffer's size, in decisions (the latest ones).
    buffer: int = 60_000
    #: Exploration: from the first to the second, linearly over the first half of the run.
    epsilon: tuple[float, float] = (0.1, 0.02)
    #: Shares of the deals: self-play, against greedy, against random.
    mix: tuple[float, float, float] = (0.5, 0.4, 0.1)
    #: Deals played between two rounds of fitting.
    deals_per_round: int = 4
    #: Minutes of learning between evaluations (0: only at the start and the end).
    eval_every: float = 5.0
    eval_boards: int = 50

    def __post_init__(self) -> None:
        if self.minutes <= 0:
            raise ValueError(f"minutes must be positive, not {self.minutes}")
        if len(self.mix) != 3 or min(self.mix) < 0 or sum(self.mix) <= 0:
            raise ValueError(f"mix must be three shares (self, greedy, random), not {self.mix}")
        if self.batch < 1 or self.buffer < self.batch:
            raise ValueError(f"the buffer ({self.buffer}) must hold a batch ({self.batch})")
        if self.eval_boards < 1:
            raise ValueError(f"eval_boards must be at least 1, not {self.eval_boards}")


@dataclass(slots=True)
class _Replay:
    """The latest decisions: state features, chosen action's features, target."""

    states: npt.NDArray[np.float32]
    actions: npt.NDArray[np.float32]
    targets: npt.NDArray[np.float32]
    size: int = 0
    at: int = 0

    @classmethod
    def empty(cls, capacity: int) -> _Replay:
        return cls(
            np.zeros((capacity, STATE_SIZE), dtype=np.float32),
            np.zeros((capacity, ACTION_SIZE), dtype=np.float32),
            np.zeros(capacity, dtype=np.float32),
        )

    def add(
        self,
        states: list[npt.NDArray[np.float32]],
        actions: list[npt.NDArray[np.float32]],
        target: float,
    ) -> None:
        capacity = len(self.targets)
        for s, a in zip(states, actions, strict=True):
            self.states[self.at] = s
            self.actions[self.at] = a
            self.targets[self.at] = target
            self.at = (self.at + 1) % capacity
            self.size = min(self.size + 1, capacity)


class _Agent:
    """The learning agent at a seat: plays by the current weights, epsilon-greedy, and
    keeps the features of what it chose."""

    def __init__(self, policy: Policy, epsilon: float, rng: random.Random) -> None:
        self.policy = policy
        self.epsilon = epsilon
        self.rng = rng
        self.states: list[npt.NDArray[np.float32]] = []
        self.actions: list[npt.NDArray[np.float32]] = []

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        state = state_features(view)
        rows = action_features(view, legal)
        if len(legal) > 1 and self.rng.random() < self.epsilon:
            i = self.rng.randrange(len(legal))
        else:
            i = int(np.argmax(self.policy.values(state, rows))) if len(legal) > 1 else 0
        # A forced move teaches nothing about choosing; it is not kept.
        if len(legal) > 1:
            self.states.append(state)
            self.actions.append(rows[i])
        return legal[i]


@dataclass(slots=True)
class Training:
    """What a run produced: the final weights and the learning curve's rows."""

    policy: Policy
    curve: list[dict[str, float | int | str]] = field(default_factory=list)
    deals: int = 0
    samples: int = 0
    steps: int = 0
    losses: list[float] = field(default_factory=list)
    #: CPU seconds of acting and fitting (the budget), and their wall-clock time.
    learn_seconds: float = 0.0
    learn_wall_seconds: float = 0.0
    #: Wall-clock seconds of the evaluations.
    eval_seconds: float = 0.0


def _network(hidden: Sequence[int]) -> torch.nn.Sequential:
    import torch

    sizes = [STATE_SIZE + ACTION_SIZE, *hidden]
    layers: list[torch.nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(sizes[-1], 1))
    return torch.nn.Sequential(*layers)


def _policy_of(net: torch.nn.Sequential) -> Policy:
    import torch

    layers = []
    with torch.no_grad():
        for module in net:
            if isinstance(module, torch.nn.Linear):
                w = module.weight.detach().numpy().T.astype(np.float32, copy=True)
                b = module.bias.detach().numpy().astype(np.float32, copy=True)
                layers.append((np.ascontiguousarray(w), b))
    return Policy(tuple(layers))


def _opponent(config: TrainConfig, rng: random.Random) -> str:
    own, greedy, _ = config.mix
    total = sum(config.mix)
    x = rng.random() * total
    return "self" if x < own else "greedy" if x < own + greedy else "random"


def train(
    config: TrainConfig,
    log: Callable[[str], None] | None = None,
    on_eval: Callable[[dict[str, float | int | str]], None] | None = None,
) -> Training:
    """Learn for ``config.minutes`` of CPU time (acting and fitting, one thread; so a busy
    machine does not shorten the learning); evaluate on the way.

    ``log`` receives progress lines, ``on_eval`` each row of the learning curve as it is
    measured (they are also in the result's ``curve``).
    """
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    v = italian2()
    net = _network(config.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    replay = _Replay.empty(config.buffer)
    run = Training(_policy_of(net))
    budget = config.minutes * 60.0
    next_eval = 0.0
    pending = 0.0  # fitting steps owed to the samples played

    def say(text: str) -> None:
        if log is not None:
            log(text)

    def measure() -> None:
        start = time.perf_counter()
        recent = run.losses[-200:]
        loss = statistics.fmean(recent) if recent else float("nan")
        for name in ("random", "greedy"):
            e = evaluate(run.policy, name, config.eval_boards, seed=config.seed)
            row: dict[str, float | int | str] = {
                "minutes": round(run.learn_seconds / 60, 3),
                "deals": run.deals,
                "samples": run.samples,
                "steps": run.steps,
                "loss": round(loss, 5),
                "opponent": name,
                "boards": e.boards,
                "mean": round(e.mean, 1),
                "mean_low": round(e.interval[0], 1),
                "mean_high": round(e.interval[1], 1),
                "win_rate": round(e.win_rate, 4),
                "win_low": round(e.win_interval[0], 4),
                "win_high": round(e.win_interval[1], 4),
            }
            run.curve.append(row)
            if on_eval is not None:
                on_eval(row)
            say(
                f"{row['minutes']:7.2f} min  {run.deals:6d} deals  loss {loss:.4f}  vs {name:6s} "
                f"{e.mean:+7.1f} [{e.interval[0]:+.1f}, {e.interval[1]:+.1f}]  "
                f"wins {e.win_rate:.3f}"
            )
        run.eval_seconds += time.perf_counter() - start

    while True:
        if run.learn_seconds >= next_eval or run.learn_seconds >= budget:
            measure()
            if run.learn_seconds >= budget:
                break
            next_eval = run.learn_seconds + config.eval_every * 60 if config.eval_every else budget
            next_eval = min(next_eval, budget)
        start, wall = time.process_time(), time.perf_counter()
        progress = min(1.0, run.learn_seconds / (budget / 2))
        epsilon = config.epsilon[0] + (config.epsilon[1] - config.epsilon[0]) * progress
        for _ in range(config.deals_per_round):
            kind = _opponent(config, rng)
            agents = [_Agent(run.policy, epsilon, rng) for _ in range(2)]
            bots: list[Bot] = list(agents)
            learners = [0, 1]
            if kind != "self":
                seat = rng.randrange(2)
                bots[1 - seat] = make_bot(kind, seed=rng.randrange(1 << 30))
                learners = [seat]
            result, _ = play_deal(v, rng.randrange(EVAL_SEEDS), bots, dealer=rng.randrange(2))
            for seat in learners:
                agent = agents[seat]
                replay.add(agent.states, agent.actions, result[seat] / RETURN_SCALE)
                run.samples += len(agent.states)
                pending += len(agent.states) * config.reuse / config.batch
            run.deals += 1
        if replay.size >= config.batch:
            steps = int(pending)
            pending -= steps
            for _ in range(steps):
                index = np.random.default_rng(rng.randrange(1 << 30)).integers(
                    0, replay.size, config.batch
                )
                x = torch.from_numpy(
                    np.concatenate([replay.states[index], replay.actions[index]], axis=1)
                )
                y = torch.from_numpy(replay.targets[index])
                loss = torch.nn.functional.mse_loss(net(x).squeeze(-1), y)
                optimizer.zero_grad()
                torch.autograd.backward(loss)
                torch.nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                optimizer.step()
                run.losses.append(float(loss.item()))
                run.steps += 1
            run.policy = _policy_of(net)
        run.learn_seconds += time.process_time() - start
        run.learn_wall_seconds += time.perf_counter() - wall
    say(
        f"learned {run.learn_seconds / 60:.1f} CPU min ({run.learn_wall_seconds / 60:.1f} min "
        f"wall; {run.deals} deals, {run.samples} decisions, {run.steps} steps); "
        f"evaluations {run.eval_seconds / 60:.1f} min"
    )
    return run


# --- the learning curve ---------------------------------------------------------------------


def read_curve(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def plot_curve(csv_path: Path, png_path: Path) -> None:
    """Draw the learning curve (mean points per deal and deals won, against the random and
    the greedy bot, with their 95% intervals) from a training's CSV; needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_curve(csv_path)
    if not rows:
        raise ValueError(f"{csv_path}: no evaluation rows to plot")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for name, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        mine = [r for r in rows if r["opponent"] == name]
        if not mine:
            continue
        x = [float(r["minutes"]) for r in mine]
        for axis, key in ((top, "mean"), (bottom, "win_rate")):
            low = "mean_low" if key == "mean" else "win_low"
            high = "mean_high" if key == "mean" else "win_high"
            axis.plot(x, [float(r[key]) for r in mine], marker="o", color=colour, label=name)
            axis.fill_between(
                x,
                [float(r[low]) for r in mine],
                [float(r[high]) for r in mine],
                color=colour,
                alpha=0.2,
            )
    top.axhline(0.0, color="grey", linewidth=0.8)
    bottom.axhline(0.5, color="grey", linewidth=0.8)
    top.set_ylabel("points per deal vs bot")
    bottom.set_ylabel("deals won")
    bottom.set_xlabel("CPU minutes of learning (one thread)")
    boards = rows[0]["boards"]
    top.set_title(f"DMC baseline, Italian Burraco for two ({boards} duplicate boards, 95% CI)")
    top.legend()
    fig.tight_layout()
    png_path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m burraco.research.learn",
        description="Train the learned bot (Deep Monte-Carlo, Italian Burraco for two).",
    )
    parser.add_argument("--minutes", type=float, default=60.0, help="CPU minutes of learning")
    parser.add_argument("--out", type=Path, required=True, help="the weights file (.npz)")
    parser.add_argument("--log", type=Path, help="the learning curve's CSV")
    parser.add_argument("--plot", type=Path, help="draw the learning curve to this PNG")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=float, default=5.0, help="minutes")
    parser.add_argument("--eval-boards", type=int, default=50)
    args = parser.parse_args(argv)
    config = TrainConfig(
        minutes=args.minutes,
        seed=args.seed,
        eval_every=args.eval_every,
        eval_boards=args.eval_boards,
    )
    writer: csv.DictWriter[str] | None = None
    handle = None
    if args.log is not None:
        args.log.parent.mkdir(parents=True, exist_ok=True)
        handle = args.log.open("w", newline="")
        writer = csv.DictWriter(handle, fieldnames=CURVE_FIELDS)
        writer.writeheader()

    def on_eval(row: dict[str, float | int | str]) -> None:
        if writer is not None and handle is not None:
            writer.writerow(row)
            handle.flush()

    try:
        run = train(config, log=lambda text: print(text, flush=True), on_eval=on_eval)
    finally:
        if handle is not None:
            handle.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    run.policy.save(args.out)
    print(f"weights: {args.out} ({args.out.stat().st_size // 1024} KiB)")
    if args.plot is not None and args.log is not None:
        plot_curve(args.log, args.plot)
        print(f"learning curve: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
