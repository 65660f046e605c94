"""The learned level's trainer: expert iteration, then Deep Monte-Carlo, for two or four.

Deep Monte-Carlo from nothing (DouZero's method, small; ``--imitate 0``, the first
learner) stops improving after some ten CPU-minutes, level with the greedy bot. This
learner starts from a teacher instead, and keeps the best network it has measured:

1. **Imitation, DAgger style** (the first ``imitate`` share of the budget). The learner
   plays (with the teacher's move instead, at a rate falling from one half to none), and
   at each of its decisions the teacher names its choice: the greedy level (its tuned
   weights, ``make_bot("greedy")``; the default) or the expert's search at a fixed number
   of sampled deals (``--teacher expert --worlds 8``, reproducible however busy the
   machine). The expert at 8 worlds plays level with the greedy level (+11.7 MP a deal
   [-54.5, +77.8], 60 boards of Italian for two) at some fifty times the cost of a
   choice, so on one shared CPU the greedy level teaches more in the same time. The network's values of the legal actions, read as logits
   (over ``temperature``), are fitted to the teacher's choice by cross-entropy, and the
   value of the action played to the seat's return of the deal by mean squared error.
   So the states learned are those the learner itself reaches, and each round of play
   uses the policy the last round taught: learn, play, be corrected, learn again.
2. **Deep Monte-Carlo** (the rest): the teacher is no longer asked; the learner plays
   epsilon-greedily against itself and the greedy players, and only the returns teach
   (the labelled decisions still in the replay buffer keep their cross-entropy until
   newer ones push them out; with ``--anchor`` the teacher keeps labelling, so its
   cross-entropy stays beside the returns).

The learning rate decays exponentially over the budget, from the first value of
``learning_rate`` to the second. Every ``eval_every`` CPU-minutes the network plays
the same duplicate boards (seeds no training deal uses) against the hand-set greedy
player and the greedy level (tuned weights); the mean of the two is its score, and the
best network so far is kept (``best.npz``). A run lives in one directory, saved at every
evaluation (the network, the optimiser, the replay buffer, the random states, the
curve), so the same command started again resumes it; a larger ``--minutes`` extends it.
A new run may start from saved weights (``--start best.npz``, same hidden sizes) instead
of random ones, to go on from a run whose directory is gone.

Run it (the ``learn`` extra)::

    nice -n 10 python -m burraco.research.iterate --players 2 --minutes 12 \\
        --eval-every 1.5 --run artifacts/learn/italian2
    # RUN/best.npz is the weights; RUN/curve.csv and RUN/curve.png the learning curve.

Four players are two lines of partners: both seats of the learner's line play the
network (each its own view), and the features read the partner's known cards and hand
size (:func:`burraco.bots.learned.state_features`).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
import numpy.typing as npt

from burraco.actions import Action
from burraco.bots import Bot
from burraco.bots.arena import interval95, make_bot
from burraco.bots.expert import ExpertBot
from burraco.bots.greedy import GreedyBot
from burraco.bots.learned import (
    ACTION_SIZE,
    STATE_SIZE,
    TRAINED_TABLES,
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
    "OPPONENTS",
    "IterateConfig",
    "Run",
    "duplicate",
    "main",
    "opponent_bot",
    "plot_curve",
    "train",
]

#: A deal's return over this is the value target (most returns fall within ±2).
RETURN_SCALE: Final = 1000.0
#: Evaluation boards are dealt from seeds at and above this, training deals below.
EVAL_SEEDS: Final = 1 << 40
#: The yardsticks: the hand-set greedy player (``GreedyBot()``) and the greedy level as
#: the room plays it (its tuned weights at the table).
OPPONENTS: Final = ("greedy-hand", "greedy")
CURVE_FIELDS: Final = (
    "minutes",
    "phase",
    "deals",
    "decisions",
    "steps",
    "learning_rate",
    "loss_value",
    "loss_imitation",
    "agreement",
    "opponent",
    "boards",
    "mean",
    "mean_low",
    "mean_high",
    "score",
    "best",
)


def table(players: int) -> Variant:
    """The trained table: Italian Burraco for two, or four in pairs."""
    if players not in TRAINED_TABLES:
        raise ValueError(f"the learned level plays Italian Burraco for 2 or 4, not {players}")
    return variant("italian", players=players)


def opponent_bot(name: str, seed: int) -> Bot:
    """A bot by name: ``greedy-hand`` is ``GreedyBot()`` (the hand-set weights), the rest
    as the arena makes them (``greedy`` is the level: tuned weights at the table)."""
    if name == "greedy-hand":
        return GreedyBot(seed)
    return make_bot(name, seed=seed)


def play(v: Variant, seed: int, bots: Sequence[Bot], dealer: int = 0) -> list[float]:
    """Play one deal with a bot per seat; each seat's return (points)."""
    deal = Deal.new(v, seed=seed, dealer=dealer)
    while not deal.is_over:
        seat = deal.turn
        deal.apply(bots[seat].choose(deal.view(seat), deal.legal_actions()))
    return returns(deal)


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A player against a bot on duplicate boards (each played twice, the lines swapped)."""

    opponent: str
    boards: int
    #: Mean MP a deal of the player's line less the other's, and its 95% interval.
    mean: float
    interval: tuple[float, float]


def duplicate(
    policy: Policy | None,
    opponent: str,
    players: int = 2,
    boards: int = 100,
    seed: int = 0,
) -> Duplicate:
    """The learned bot (``policy``; None: the shipped weights) against ``opponent`` on
    ``boards`` duplicate boards of Italian Burraco for ``players``: its line's MP a deal
    less the other line's, by board, with a 95% interval."""
    if boards < 1:
        raise ValueError(f"an evaluation needs at least one board, not {boards}")
    v = table(players)
    per_board: list[float] = []
    for b in range(boards):
        board = EVAL_SEEDS + seed * 100_003 + b
        diffs: list[float] = []
        for line in (0, 1):
            bots: list[Bot] = [
                LearnedBot(policy, seed=board)
                if v.line_of[s] == line
                else opponent_bot(opponent, board + s)
                for s in range(players)
            ]
            result = play(v, board, bots)
            seat = v.line_of.index(line)
            # Two lines: a seat's return is its line's points less the other line's.
            diffs.append(result[seat])
        per_board.append(statistics.fmean(diffs))
    mean, low, high = interval95(per_board)
    return Duplicate(opponent, boards, mean, (low, high))


# --- the configuration and the replay buffer ------------------------------------------------


@dataclass(frozen=True, slots=True)
class IterateConfig:
    """The knobs of a run (the defaults are those of the shipped weights)."""

    players: int = 2
    #: CPU minutes of learning in all (acting, labelling, fitting; evaluations apart),
    #: across resumes.
    minutes: float = 12.0
    seed: int = 0
    hidden: tuple[int, ...] = (256, 128)
    #: ``greedy`` (the greedy level) or ``expert`` (the search at ``worlds`` sampled deals).
    teacher: str = "greedy"
    worlds: int = 8
    #: The share of the budget spent imitating the teacher; Deep Monte-Carlo after.
    imitate: float = 0.6
    #: From the first to the second, exponentially over the budget.
    learning_rate: tuple[float, float] = (1e-3, 3e-5)
    #: The values' scale as the logits of the imitation (a return of 1000 points is 1.0).
    temperature: float = 0.05
    #: The cross-entropy's weight against the value's squared error.
    imitation_weight: float = 0.3
    #: The teacher keeps naming its choice in the Monte-Carlo phase, so its cross-entropy
    #: anchors the returns' fitting instead of ageing out of the buffer.
    anchor: bool = False
    batch: int = 128
    #: How many times, on average, a decision is fitted on.
    reuse: float = 3.0
    #: The replay buffer, in decisions (the latest).
    buffer: int = 30_000
    #: The legal actions kept of a decision (the teacher's and the played one always).
    candidates: int = 16
    #: Exploration in the Monte-Carlo phase: from the first to the second.
    epsilon: tuple[float, float] = (0.05, 0.01)
    #: Shares of the deals: self-play, against the greedy level, against hand-set greedy.
    mix: tuple[float, float, float] = (0.4, 0.4, 0.2)
    deals_per_round: int = 4
    #: CPU minutes of learning between evaluations.
    eval_every: float = 1.5
    eval_boards: int = 100
    #: Weights (``Policy.save``) a new run starts from instead of random ones, so a run
    #: goes on from shipped or best weights whose run directory is gone ("": none).
    start: str = ""

    def __post_init__(self) -> None:
        table(self.players)
        if self.minutes <= 0:
            raise ValueError(f"minutes must be positive, not {self.minutes}")
        if self.teacher not in ("expert", "greedy"):
            raise ValueError(f"the teacher is expert or greedy, not {self.teacher!r}")
        if self.worlds < 1:
            raise ValueError(f"the expert needs at least one world, not {self.worlds}")
        if not 0.0 <= self.imitate <= 1.0:
            raise ValueError(f"imitate is a share of the budget, not {self.imitate}")
        if len(self.learning_rate) != 2 or min(self.learning_rate) <= 0:
            raise ValueError(f"learning rates must be positive, not {self.learning_rate}")
        if len(self.mix) != 3 or min(self.mix) < 0 or sum(self.mix) <= 0:
            raise ValueError(f"mix must be three shares (self, greedy, hand-set), not {self.mix}")
        if self.batch < 1 or self.buffer < self.batch:
            raise ValueError(f"the buffer ({self.buffer}) must hold a batch ({self.batch})")
        if self.candidates < 2:
            raise ValueError(f"keep at least two candidates, not {self.candidates}")
        if self.eval_every <= 0 or self.eval_boards < 1:
            raise ValueError("evaluations need a positive interval and at least one board")


@dataclass(slots=True)
class _Replay:
    """The latest decisions: the state, up to ``candidates`` legal actions' rows, the
    teacher's choice among them (-1: none asked), the one played, and the return."""

    states: npt.NDArray[np.float32]
    rows: npt.NDArray[np.float16]
    counts: npt.NDArray[np.int16]
    labels: npt.NDArray[np.int16]
    played: npt.NDArray[np.int16]
    targets: npt.NDArray[np.float32]
    size: int = 0
    at: int = 0

    @classmethod
    def empty(cls, capacity: int, candidates: int) -> _Replay:
        return cls(
            np.zeros((capacity, STATE_SIZE), dtype=np.float32),
            np.zeros((capacity, candidates, ACTION_SIZE), dtype=np.float16),
            np.zeros(capacity, dtype=np.int16),
            np.full(capacity, -1, dtype=np.int16),
            np.zeros(capacity, dtype=np.int16),
            np.zeros(capacity, dtype=np.float32),
        )

    def add(self, decision: _Decision, target: float) -> None:
        i = self.at
        self.states[i] = decision.state
        n = len(decision.rows)
        self.rows[i, :n] = decision.rows
        self.rows[i, n:] = 0.0
        self.counts[i] = n
        self.labels[i] = decision.label
        self.played[i] = decision.played
        self.targets[i] = target
        self.at = (i + 1) % len(self.targets)
        self.size = min(self.size + 1, len(self.targets))

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {
            "states": self.states,
            "rows": self.rows,
            "counts": self.counts,
            "labels": self.labels,
            "played": self.played,
            "targets": self.targets,
            "position": np.array([self.size, self.at]),
        }

    @classmethod
    def from_arrays(cls, data: Any) -> _Replay:
        size, at = (int(x) for x in data["position"])
        return cls(
            data["states"],
            data["rows"],
            data["counts"],
            data["labels"],
            data["played"],
            data["targets"],
            size,
            at,
        )


@dataclass(frozen=True, slots=True)
class _Decision:
    state: npt.NDArray[np.float32]
    rows: npt.NDArray[np.float32]
    label: int
    played: int


def _keep(
    rows: npt.NDArray[np.float32], must: Sequence[int], limit: int, rng: random.Random
) -> tuple[npt.NDArray[np.float32], list[int]]:
    """At most ``limit`` rows: the ``must`` ones first, then others at random; and the
    new places of the ``must`` ones (so a decision of 40 legal lay-downs stays small)."""
    n = len(rows)
    if n <= limit:
        return rows, list(must)
    first = list(dict.fromkeys(must))
    rest = [i for i in range(n) if i not in first]
    chosen = first + rng.sample(rest, limit - len(first))
    return rows[chosen], [chosen.index(i) for i in must]


class _Learner:
    """The learner at a seat: plays by the current network (the teacher's move at rate
    ``follow``; a random one at ``epsilon``), asks the teacher's choice when there is one,
    and keeps each decision that was a choice."""

    def __init__(
        self,
        policy: Policy,
        teacher: Bot | None,
        follow: float,
        epsilon: float,
        limit: int,
        rng: random.Random,
    ) -> None:
        self.policy = policy
        self.teacher = teacher
        self.follow = follow
        self.epsilon = epsilon
        self.limit = limit
        self.rng = rng
        self.decisions: list[_Decision] = []

    def choose(self, view: DealView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]  # a forced move teaches nothing about choosing
        state = state_features(view)
        rows = action_features(view, legal)
        mine = int(np.argmax(self.policy.values(state, rows)))
        label = -1
        if self.teacher is not None:
            label = legal.index(self.teacher.choose(view, legal))
            played = label if self.rng.random() < self.follow else mine
            if self.epsilon and self.rng.random() < self.epsilon:
                played = self.rng.randrange(len(legal))
        elif self.rng.random() < self.epsilon:
            played = self.rng.randrange(len(legal))
        else:
            played = mine
        must = [played] if label < 0 else [label, played]
        kept, places = _keep(rows, must, self.limit, self.rng)
        self.decisions.append(_Decision(state, kept, places[0] if label >= 0 else -1, places[-1]))
        return legal[played]


# --- the network (torch) ----------------------------------------------------------------------


def _network(hidden: Sequence[int]) -> torch.nn.Module:
    import torch

    class ValueNet(torch.nn.Module):
        """The value of (state, action) pairs; the first layer split as the numpy
        inference computes it (the state's part once for all the candidates)."""

        def __init__(self) -> None:
            super().__init__()
            self.state = torch.nn.Linear(STATE_SIZE, hidden[0])
            self.action = torch.nn.Linear(ACTION_SIZE, hidden[0], bias=False)
            sizes = [*hidden, 1]
            self.rest = torch.nn.ModuleList(
                torch.nn.Linear(a, b) for a, b in itertools.pairwise(sizes)
            )

        def forward(self, states: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
            # states (B, S), rows (B, K, A) -> values (B, K)
            h = self.action(rows) + self.state(states).unsqueeze(1)
            for layer in self.rest:
                h = layer(torch.relu(h))
            return cast("torch.Tensor", h.squeeze(-1))

    return ValueNet()


def _load_policy(net: torch.nn.Module, policy: Policy, hidden: Sequence[int]) -> None:
    """Set the network's weights to ``policy``'s (the inverse of :func:`_policy_of`)."""
    import torch

    sizes = tuple(w.shape[1] for w, _ in policy.layers[:-1])
    if sizes != tuple(hidden):
        raise ValueError(f"the start weights have hidden layers {sizes}, the run {tuple(hidden)}")
    state = cast("torch.nn.Linear", net.state)
    action = cast("torch.nn.Linear", net.action)
    rest = cast("list[torch.nn.Linear]", list(cast("torch.nn.ModuleList", net.rest)))
    (w0, b0), *others = policy.layers
    with torch.no_grad():
        state.weight.copy_(torch.from_numpy(w0[:STATE_SIZE].T.copy()))
        action.weight.copy_(torch.from_numpy(w0[STATE_SIZE:].T.copy()))
        state.bias.copy_(torch.from_numpy(b0))
        for layer, (w, b) in zip(rest, others, strict=True):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))


def _policy_of(net: torch.nn.Module, players: int) -> Policy:
    import torch

    state = cast("torch.nn.Linear", net.state)
    action = cast("torch.nn.Linear", net.action)
    rest = cast("torch.nn.ModuleList", net.rest)
    with torch.no_grad():
        w0 = torch.cat([state.weight, action.weight], dim=1).T
        layers = [(w0.numpy().astype(np.float32), state.bias.numpy().astype(np.float32))]
        for layer in cast("list[torch.nn.Linear]", list(rest)):
            layers.append(
                (
                    np.ascontiguousarray(layer.weight.numpy().T, dtype=np.float32),
                    layer.bias.numpy().astype(np.float32, copy=True),
                )
            )
    return Policy(tuple((np.ascontiguousarray(w), b) for w, b in layers), players)


def _fit(
    net: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    replay: _Replay,
    index: npt.NDArray[np.int64],
    config: IterateConfig,
) -> tuple[float, float, float]:
    """One step on a batch: the value's squared error on the played actions, plus the
    weighted cross-entropy on the teacher's choices; (value loss, imitation loss, the
    share of labelled decisions where the network's best is the teacher's)."""
    import torch

    width = int(replay.counts[index].max())
    states = torch.from_numpy(replay.states[index])
    rows = torch.from_numpy(replay.rows[index, :width].astype(np.float32))
    counts = torch.from_numpy(replay.counts[index].astype(np.int64))
    played = torch.from_numpy(replay.played[index].astype(np.int64))
    labels = torch.from_numpy(replay.labels[index].astype(np.int64))
    targets = torch.from_numpy(replay.targets[index])
    values = net(states, rows)
    chosen = values.gather(1, played.unsqueeze(1)).squeeze(1)
    value_loss = torch.nn.functional.mse_loss(chosen, targets)
    loss = value_loss
    imitation = 0.0
    agreement = float("nan")
    taught = labels >= 0
    if bool(taught.any()):
        absent = torch.arange(width).unsqueeze(0) >= counts.unsqueeze(1)
        logits = (values / config.temperature).masked_fill(absent, -1e9)[taught]
        ce = torch.nn.functional.cross_entropy(logits, labels[taught])
        loss = loss + config.imitation_weight * ce
        imitation = float(ce.item())
        agreement = float((logits.argmax(1) == labels[taught]).float().mean().item())
    optimizer.zero_grad()
    torch.autograd.backward(loss)
    torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
    optimizer.step()
    return float(value_loss.item()), imitation, agreement


# --- the run --------------------------------------------------------------------------------


@dataclass(slots=True)
class Run:
    """A run's counters and curve (what a resume reads back besides the tensors)."""

    learn_seconds: float = 0.0
    learn_wall_seconds: float = 0.0
    eval_seconds: float = 0.0
    deals: int = 0
    decisions: int = 0
    steps: int = 0
    pending: float = 0.0
    next_eval: float = 0.0
    best_score: float = -math.inf
    best_minutes: float = 0.0
    losses: list[tuple[float, float, float]] = field(default_factory=list)
    curve: list[dict[str, float | int | str]] = field(default_factory=list)


def _mixed(config: IterateConfig, rng: random.Random) -> str:
    own, greedy, _ = config.mix
    x = rng.random() * sum(config.mix)
    return "self" if x < own else "greedy" if x < own + greedy else "greedy-hand"


def _save_state(
    directory: Path,
    net: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    replay: _Replay,
    run: Run,
    rng: random.Random,
    config: IterateConfig,
) -> None:
    import torch

    directory.mkdir(parents=True, exist_ok=True)
    # Written aside, then renamed: a run killed while saving resumes from the last save.
    np.savez(directory / "replay.tmp.npz", **replay.arrays())  # type: ignore[arg-type]
    torch.save(
        {
            "net": net.state_dict(),
            "optimizer": optimizer.state_dict(),
            "rng": rng.getstate(),
            "torch_rng": torch.get_rng_state(),
        },
        directory / "state.tmp.pt",
    )
    fields = {k: v for k, v in asdict(run).items() if k not in ("losses", "curve")}
    fields["losses"] = run.losses[-200:]
    fields["config"] = asdict(config)
    (directory / "run.tmp.json").write_text(json.dumps(fields))
    (directory / "replay.tmp.npz").replace(directory / "replay.npz")
    (directory / "state.tmp.pt").replace(directory / "state.pt")
    (directory / "run.tmp.json").replace(directory / "run.json")


def _write_curve(path: Path, rows: list[dict[str, float | int | str]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CURVE_FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def _read_curve(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def train(
    config: IterateConfig,
    directory: Path,
    log: Callable[[str], None] | None = None,
) -> Run:
    """Learn until ``config.minutes`` of CPU time in all, resuming the run saved in
    ``directory`` if there is one (same table and teacher); evaluate and save on the way.
    ``directory`` ends with ``best.npz`` (the best evaluated weights), ``last.npz``,
    ``curve.csv`` and the state a resume reads."""
    import torch

    torch.set_num_threads(1)
    say = log if log is not None else (lambda text: None)
    v = table(config.players)
    net = _network(config.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate[0])
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    run = Run()
    replay = _Replay.empty(config.buffer, config.candidates)
    if (directory / "state.pt").exists():
        saved = json.loads((directory / "run.json").read_text())
        before = saved.pop("config")
        now = json.loads(json.dumps(asdict(config)))
        for key in ("players", "teacher", "worlds", "hidden", "candidates", "buffer"):
            if before[key] != now[key]:
                raise ValueError(
                    f"{directory} holds a run with {key}={before[key]}, not {now[key]}"
                )
        state = torch.load(directory / "state.pt", weights_only=False)
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        rng.setstate(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        with np.load(directory / "replay.npz") as data:
            replay = _Replay.from_arrays({k: data[k] for k in data.files})
        saved["losses"] = [tuple(x) for x in saved["losses"]]
        run = Run(**saved)
        run.curve = [dict(r) for r in _read_curve(directory / "curve.csv")]
        say(f"resumed {directory} at {run.learn_seconds / 60:.2f} CPU min, {run.deals} deals")
    elif config.start:
        initial = Policy.load(config.start)
        if initial.players != config.players:
            raise ValueError(
                f"{config.start} holds weights for {initial.players} players, not {config.players}"
            )
        _load_policy(net, initial, config.hidden)
        say(f"started from {config.start}")
    policy = _policy_of(net, config.players)
    budget = config.minutes * 60.0

    def measure(phase: str) -> None:
        nonlocal policy
        start = time.perf_counter()
        recent = run.losses[-200:]
        value_loss = statistics.fmean(x[0] for x in recent) if recent else float("nan")
        taught = [x for x in recent if not math.isnan(x[2])]
        imitation = statistics.fmean(x[1] for x in taught) if taught else float("nan")
        agreement = statistics.fmean(x[2] for x in taught) if taught else float("nan")
        results = [
            duplicate(policy, name, config.players, config.eval_boards, seed=config.seed)
            for name in OPPONENTS
        ]
        score = statistics.fmean(r.mean for r in results)
        best = score > run.best_score
        if best:
            run.best_score, run.best_minutes = score, run.learn_seconds / 60
            policy.save(directory / "best.npz")
        policy.save(directory / "last.npz")
        for r in results:
            run.curve.append(
                {
                    "minutes": round(run.learn_seconds / 60, 3),
                    "phase": phase,
                    "deals": run.deals,
                    "decisions": run.decisions,
                    "steps": run.steps,
                    "learning_rate": f"{optimizer.param_groups[0]['lr']:.2e}",
                    "loss_value": round(value_loss, 5),
                    "loss_imitation": round(imitation, 5),
                    "agreement": round(agreement, 4),
                    "opponent": r.opponent,
                    "boards": r.boards,
                    "mean": round(r.mean, 1),
                    "mean_low": round(r.interval[0], 1),
                    "mean_high": round(r.interval[1], 1),
                    "score": round(score, 1),
                    "best": int(best),
                }
            )
        _write_curve(directory / "curve.csv", run.curve)
        run.eval_seconds += time.perf_counter() - start
        say(
            f"{run.learn_seconds / 60:7.2f} min {phase:7s} {run.deals:6d} deals "
            f"loss {value_loss:.4f}/{imitation:.3f} agree {agreement:.3f}  "
            + "  ".join(
                f"vs {r.opponent} {r.mean:+.1f} [{r.interval[0]:+.1f}, {r.interval[1]:+.1f}]"
                for r in results
            )
            + ("  best" if best else "")
        )

    directory.mkdir(parents=True, exist_ok=True)
    while True:
        progress = run.learn_seconds / budget
        phase = "imitate" if progress < config.imitate else "dmc"
        if run.learn_seconds >= run.next_eval or run.learn_seconds >= budget:
            measure(phase)
            run.next_eval = min(run.learn_seconds + config.eval_every * 60, budget)
            _save_state(directory, net, optimizer, replay, run, rng, config)
            if run.learn_seconds >= budget:
                break
        start, wall = time.process_time(), time.perf_counter()
        rate = config.learning_rate[0] * (config.learning_rate[1] / config.learning_rate[0]) ** min(
            1.0, progress
        )
        for group in optimizer.param_groups:
            group["lr"] = rate
        teaching = phase == "imitate"
        # DAgger: the teacher's move is played at a rate falling from one half to none.
        follow = 0.5 * (1.0 - progress / config.imitate) if teaching else 0.0
        dmc_progress = (progress - config.imitate) / (1.0 - config.imitate) if not teaching else 0.0
        epsilon = config.epsilon[0] + (config.epsilon[1] - config.epsilon[0]) * min(
            1.0, dmc_progress
        )
        for _ in range(config.deals_per_round):
            seed = rng.randrange(EVAL_SEEDS)
            kind = _mixed(config, rng)
            line = rng.randrange(2)
            learners: dict[int, _Learner] = {}
            bots: list[Bot] = []
            for s in range(config.players):
                if kind == "self" or v.line_of[s] == line:
                    teacher: Bot | None = None
                    if teaching or config.anchor:
                        teacher = (
                            ExpertBot(worlds=config.worlds, seed=seed + s)
                            if config.teacher == "expert"
                            else make_bot("greedy", seed=seed + s)
                        )
                    # No exploration while imitating: the teacher's moves are the exploring.
                    explore = 0.0 if teaching else epsilon
                    learners[s] = _Learner(policy, teacher, follow, explore, config.candidates, rng)
                    bots.append(learners[s])
                else:
                    bots.append(opponent_bot(kind, seed + s))
            result = play(v, seed, bots, dealer=rng.randrange(config.players))
            for s, learner in learners.items():
                for decision in learner.decisions:
                    replay.add(decision, result[s] / RETURN_SCALE)
                run.decisions += len(learner.decisions)
                run.pending += len(learner.decisions) * config.reuse / config.batch
            run.deals += 1
        if replay.size >= config.batch:
            steps = int(run.pending)
            run.pending -= steps
            gen = np.random.default_rng(rng.randrange(1 << 30))
            for _ in range(steps):
                index = gen.integers(0, replay.size, config.batch)
                run.losses.append(_fit(net, optimizer, replay, index, config))
                run.steps += 1
            del run.losses[:-1000]
            policy = _policy_of(net, config.players)
        run.learn_seconds += time.process_time() - start
        run.learn_wall_seconds += time.perf_counter() - wall
    say(
        f"learned {run.learn_seconds / 60:.1f} CPU min ({run.learn_wall_seconds / 60:.1f} min "
        f"wall; {run.deals} deals, {run.decisions} decisions, {run.steps} steps); "
        f"evaluations {run.eval_seconds / 60:.1f} min; best {run.best_score:+.1f} "
        f"at {run.best_minutes:.2f} min"
    )
    return run


# --- the learning curve ---------------------------------------------------------------------


def plot_curve(csv_path: Path, png_path: Path, players: int = 2) -> None:
    """Draw a run's curve (MP a deal against each yardstick, 95% intervals; the best
    checkpoint marked; where imitation ends) from its CSV; needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _read_curve(csv_path)
    if not rows:
        raise ValueError(f"{csv_path}: no evaluation rows to plot")
    fig, axis = plt.subplots(figsize=(7, 4))
    labels = {"greedy-hand": "vs greedy (hand-set)", "greedy": "vs greedy level (tuned)"}
    for name, colour in (("greedy-hand", "tab:blue"), ("greedy", "tab:red")):
        mine = [r for r in rows if r["opponent"] == name]
        x = [float(r["minutes"]) for r in mine]
        axis.plot(x, [float(r["mean"]) for r in mine], marker="o", color=colour, label=labels[name])
        axis.fill_between(
            x,
            [float(r["mean_low"]) for r in mine],
            [float(r["mean_high"]) for r in mine],
            color=colour,
            alpha=0.2,
        )
        best = [r for r in mine if r["best"] == "1"]
        if best:
            axis.plot([float(best[-1]["minutes"])], [float(best[-1]["mean"])], "k*", markersize=10)
    switch = [float(r["minutes"]) for r in rows if r["phase"] == "dmc"]
    if switch:
        axis.axvline(min(switch), color="grey", linestyle="--", linewidth=0.8)
    axis.axhline(0.0, color="grey", linewidth=0.8)
    axis.set_ylabel("MP a deal (95% CI)")
    axis.set_xlabel("CPU minutes of learning (one thread); dashed: imitation ends; *: best")
    boards = rows[0]["boards"]
    axis.set_title(f"Imitation then DMC, Italian for {players} ({boards} duplicate boards a point)")
    axis.legend()
    fig.tight_layout()
    png_path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png_path, dpi=100)
    plt.close(fig)


def _listed(values: Sequence[float]) -> str:
    """A tuple of the config as the command line writes it.

    >>> _listed((256, 128)), _listed((1e-3, 3e-5))
    ('256,128', '0.001,3e-05')
    """
    return ",".join(f"{v:g}" for v in values)


def parse(argv: Sequence[str] | None = None) -> tuple[IterateConfig, Path]:
    """A run's config and directory from the command line, whose defaults are the
    config's (one place says what a run is)."""
    base = IterateConfig()
    parser = argparse.ArgumentParser(
        prog="python -m burraco.research.iterate",
        description="Train the learned level: imitate a teacher (DAgger), then Deep "
        "Monte-Carlo; keeps the best evaluated weights; resumable.",
    )
    parser.add_argument("--run", type=Path, required=True, help="the run's directory")
    parser.add_argument("--players", type=int, default=base.players, choices=TRAINED_TABLES)
    parser.add_argument("--minutes", type=float, default=base.minutes, help="CPU minutes in all")
    parser.add_argument("--seed", type=int, default=base.seed)
    parser.add_argument("--teacher", default=base.teacher, choices=("greedy", "expert"))
    parser.add_argument(
        "--worlds", type=int, default=base.worlds, help="the expert's sampled deals"
    )
    parser.add_argument("--imitate", type=float, default=base.imitate, help="share of the budget")
    parser.add_argument("--eval-every", type=float, default=base.eval_every, help="CPU minutes")
    parser.add_argument("--eval-boards", type=int, default=base.eval_boards)
    parser.add_argument("--batch", type=int, default=base.batch)
    parser.add_argument(
        "--anchor", action="store_true", help="the teacher keeps teaching in the DMC phase"
    )
    parser.add_argument("--hidden", default=_listed(base.hidden), help="hidden layers' sizes")
    parser.add_argument(
        "--start", type=Path, help="weights a new run starts from (not a resumed one)"
    )
    parser.add_argument(
        "--learning-rate",
        default=_listed(base.learning_rate),
        help="first,last: decays exponentially between them over the budget",
    )
    args = parser.parse_args(argv)
    rates = tuple(float(x) for x in args.learning_rate.split(","))
    if len(rates) != 2:
        parser.error(f"--learning-rate is first,last, not {args.learning_rate!r}")
    config = IterateConfig(
        players=args.players,
        minutes=args.minutes,
        seed=args.seed,
        hidden=tuple(int(x) for x in args.hidden.split(",")),
        teacher=args.teacher,
        worlds=args.worlds,
        imitate=args.imitate,
        eval_every=args.eval_every,
        eval_boards=args.eval_boards,
        batch=args.batch,
        anchor=args.anchor,
        start=str(args.start) if args.start else "",
        learning_rate=(rates[0], rates[1]),
    )
    return config, args.run


def main(argv: Sequence[str] | None = None) -> int:
    config, run = parse(argv)
    train(config, run, log=lambda text: print(text, flush=True))
    try:
        plot_curve(run / "curve.csv", run / "curve.png", config.players)
    except ImportError:
        print("matplotlib is missing: no curve.png (pip install 'burraco[learn]')")
    print(f"best weights: {run / 'best.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
