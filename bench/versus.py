"""The new expert against the present one, on duplicate boards.

Run from the repository root::

    python bench/versus.py --players 2 [--boards 60] [--seconds 0.2] [--deals-per-board 1]
        [--seed 0] [--workers 1] [--variant italian]

Each board is a deck order (a seed) and a dealer, played twice with the bots swapping
lines (seats 0 and 2 are one line at four, pairs): the luck of the cards cancels, what is
left is the difference in play. A board of ``--deals-per-board`` deals plays that many
single deals (seeds and dealers following from the board's), each scored alone.

The new expert (this checkout's code) plays in this process. The present expert (the
code at the base commit, ``bench/base_commit.py``) lives in a subprocess on
``PYTHONPATH=/tmp/burraco-base/src``: for each deal the driver sends it the setup
(variant, players, seed, dealer), then before each of its decisions the actions played
since (as text); the subprocess replays them on its own ``Deal`` with its own engine,
checks that its position is the driver's (the hand on turn and the sizes), and answers
with its expert's action as text (``str(action)``, read back with ``Action.parse``) and
the time the decision took. Both experts have ``--seconds`` a decision.

It prints a line per board as it goes (running totals), then per table: boards, deals,
the new expert's mean MP a deal (its line's deal points minus the other line's) with a
95% interval over boards (mean +- 1.96 sd / sqrt(boards); a board's value is the mean of
its two seatings), how often it won the board, and each bot's mean time per decision
(over all its decisions, and over those that searched).

``--new-src`` runs the new expert from a copy of the code (so that edits to the checkout
during a long run change nothing), ``--against-src`` another checkout's code as the
opponent, and ``--new-options`` /
``--against-options`` (``key=value,...``: ``race=none``, ``horizon=6``...) set the
experts' options, for comparisons within the new code (the present expert takes none);
``weights=NAME`` (a weight set shipped in the package, or a ``.json`` file; ``level``: the
greedy level's for the table) gives the greedy player of an expert's playouts those weights
(``bench/tune.py``), ``ranking=NAME`` the greedy player that chooses its candidates.
``--against-level greedy`` sets the new expert against a bot level of this checkout, made
as the arena and the room make it (``make_bot``), instead of another checkout's expert.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from subprocess import Popen
from typing import Any

HERE = Path(__file__).resolve().parent


def options_of(text: str) -> dict[str, Any]:
    """``race=none,horizon=6`` -> {"race": None, "horizon": 6}."""
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, raw = item.partition("=")
        value: Any
        if raw.lower() == "none":
            value = None
        else:
            try:
                value = int(raw)
            except ValueError:
                try:
                    value = float(raw)
                except ValueError:
                    value = raw  # a name: weights=tuned-italian2
        out[key.strip()] = value
    return out


def expert_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options as ExpertBot takes them: ``weights`` names a weight set shipped in the
    package, or a JSON file (``.json``), for the greedy player of its playouts (``level``:
    the greedy level's for the table); ``ranking`` likewise, for choosing its candidates."""
    out = dict(options)
    for key in ("weights", "ranking"):
        name = options.get(key)
        if name is None:
            continue
        from burraco.bots.weights import GreedyWeights  # (an old checkout may have none)

        text = str(name)
        if text == "level":
            out[key] = None
        elif text.endswith(".json"):
            out[key] = GreedyWeights.load(Path(text))
        else:
            out[key] = GreedyWeights.named(text)
    return out


# --- the opponent's side: a subprocess on its own code ------------------------------------


def serve(options: dict[str, Any]) -> None:
    """Worker mode: play the expert of the code on ``PYTHONPATH`` for the driver."""
    import burraco
    from burraco import Action, Deal, variant
    from burraco.bots.expert import ExpertBot

    print(json.dumps({"code": str(Path(burraco.__file__).parent.parent)}), flush=True)
    deal: Any = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "deal":
            v = variant(msg["variant"], players=msg["players"], lines=msg["lines"])
            deal = Deal.new(v, msg["seed"], dealer=msg["dealer"])
            print(json.dumps({"ok": True}), flush=True)
            continue
        for text in msg["actions"]:
            deal.apply(Action.parse(text))
        seat = deal.turn
        view = deal.view(seat)
        legal = deal.legal_actions()
        bot = ExpertBot(seconds=msg["seconds"], seed=msg["seed"], **expert_options(options))
        start = time.perf_counter()
        action = bot.choose(view, legal)
        took = time.perf_counter() - start
        state = [sorted(int(c) for c in view.hand), list(deal.sizes), len(deal.stock)]
        print(json.dumps({"action": str(action), "seconds": took, "state": state}), flush=True)


class Opponent:
    """The driver's end of the opponent's subprocess."""

    def __init__(self, src: Path, options: str) -> None:
        sys.path.insert(0, str(HERE))
        from base_commit import worker

        args = ["--serve"] + (["--against-options", options] if options else [])
        self.proc: Popen[str] = worker(Path(__file__), src, *args)
        hello = self._read()
        if Path(hello["code"]).resolve() != src.resolve():
            raise SystemExit(f"the opponent runs {hello['code']}, not {src}")
        self.sent = 0

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("the opponent's subprocess died")
        result: dict[str, Any] = json.loads(line)
        return result

    def _send(self, msg: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def new_deal(self, setup: dict[str, Any]) -> None:
        self._send({"cmd": "deal", **setup})
        self.sent = 0

    def choose(self, history: list[str], seconds: float, seed: int) -> tuple[str, float, Any]:
        msg = {"cmd": "choose", "actions": history[self.sent :], "seconds": seconds, "seed": seed}
        self.sent = len(history)
        answer = self._send(msg)
        return answer["action"], answer["seconds"], answer["state"]


# --- the driver ---------------------------------------------------------------------------


@dataclass
class Board:
    board: int
    #: Per deal, the new expert's line's points minus the other line's, per seating.
    margins: list[list[int]]
    new_times: list[float]
    old_times: list[float]

    @property
    def value(self) -> float:
        """The board's MP a deal: the mean over its deals and its two seatings."""
        return statistics.fmean(m for seating in self.margins for m in seating)


_OPPONENT: Opponent | None = None


def play_board(board: int, args: argparse.Namespace) -> Board:
    """Play one board: its deals, once with the new expert in each line."""
    global _OPPONENT
    from burraco import Action, Deal, variant
    from burraco.bots.arena import make_bot
    from burraco.bots.expert import ExpertBot

    if _OPPONENT is None and not args.against_level:
        _OPPONENT = Opponent(Path(args.against_src), args.against_options)
    opponent = _OPPONENT
    new_options = expert_options(options_of(args.new_options))
    v = variant(args.variant, players=args.players)
    margins: list[list[int]] = []
    new_times: list[float] = []
    old_times: list[float] = []
    for new_line in (0, 1):
        per_seating: list[int] = []
        for d in range(args.deals_per_board):
            seed = (args.seed * 1_000_003 + board) * 101 + d
            dealer = (board + d) % args.players
            setup = {
                "variant": args.variant,
                "players": args.players,
                "lines": v.lines,
                "seed": seed,
                "dealer": dealer,
            }
            deal = Deal.new(v, seed, dealer=dealer)
            if opponent is not None:
                opponent.new_deal(setup)
            history: list[str] = []
            while not deal.is_over:
                seat = deal.turn
                line = deal.line_of[seat]
                legal = deal.legal_actions()
                bot_seed = seed * 131 + line
                if line == new_line:
                    bot = ExpertBot(seconds=args.seconds, seed=bot_seed, **new_options)
                    start = time.perf_counter()
                    action = bot.choose(deal.view(seat), legal)
                    new_times.append(time.perf_counter() - start)
                elif opponent is None:
                    # A bot level of this checkout, as the arena and the room make it.
                    level = make_bot(args.against_level, seed=bot_seed, seconds=args.seconds)
                    start = time.perf_counter()
                    action = level.choose(deal.view(seat), legal)
                    old_times.append(time.perf_counter() - start)
                else:
                    text, took, state = opponent.choose(history, args.seconds, bot_seed)
                    mine = [sorted(int(c) for c in deal.hand(seat)), list(deal.sizes)]
                    if state[:2] != mine or state[2] != len(deal.stock):
                        raise SystemExit(f"board {board}: the opponent's deal differs: {state}")
                    action = Action.parse(text)
                    old_times.append(took)
                if action not in legal:
                    raise SystemExit(f"board {board}: {action} is not legal")
                deal.apply(action)
                history.append(str(action))
            points = deal.score().points
            per_seating.append(points[new_line] - points[1 - new_line])
        margins.append(per_seating)
    return Board(board, margins, new_times, old_times)


def times(values: list[float]) -> str:
    if not values:
        return "-"
    searched = [t for t in values if t > 0.01]
    text = f"{1000 * statistics.fmean(values):.0f} ms"
    if searched:
        text += f" ({1000 * statistics.fmean(searched):.0f} ms over {len(searched)} searched"
        text += f", max {1000 * max(values):.0f} ms)"
    return text


def report(args: argparse.Namespace, boards: list[Board], final: bool) -> None:
    from burraco.bots.arena import interval95  # the driver imports burraco lazily: see main

    values = [b.value for b in boards]
    mean, low, high = interval95(values)
    deals = sum(len(s) for b in boards for s in b.margins)
    wins = sum(1 for x in values if x > 0)
    losses = sum(1 for x in values if x < 0)
    head = "result" if final else f"board {boards[-1].board:3d} ({boards[-1].value:+.1f}) done"
    print(
        f"{head}: {args.variant} {args.players}p, {len(boards)} boards, {deals} deals: "
        f"new expert {mean:+.1f} MP a deal, 95% [{low:+.1f}, {high:+.1f}]; boards won "
        f"{wins}, lost {losses}",
        flush=True,
    )
    if final:
        new_times = [t for b in boards for t in b.new_times]
        old_times = [t for b in boards for t in b.old_times]
        print(f"  new expert:     {len(new_times)} decisions, mean {times(new_times)}")
        other = f"{args.against_level} level" if args.against_level else "present expert"
        print(f"  {other + ':':15} {len(old_times)} decisions, mean {times(old_times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--variant", default="italian")
    parser.add_argument("--boards", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--deals-per-board", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, choices=(1, 2))
    parser.add_argument("--new-src", default=None, help="the new expert's src (this checkout)")
    parser.add_argument("--against-src", default=None, help="the opponent's src (base commit)")
    parser.add_argument("--against-options", default="", help="the opponent expert's options")
    parser.add_argument(
        "--against-level",
        default=None,
        choices=("random", "greedy", "learned"),
        help="play this checkout's bot level instead of another checkout's expert",
    )
    parser.add_argument("--new-options", default="", help="the new expert's options")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(options_of(args.against_options))
        return
    sys.path.insert(0, str(HERE))
    from base_commit import BASE_COMMIT, NEW_SRC, ensure_base

    against = "other"
    if args.against_level:
        against = "level"
        args.against_src = f"the {args.against_level} level"
    elif args.against_src is None:
        # Only then the base commit's worktree is made: another opponent needs none.
        args.against_src = str(ensure_base())
        against = BASE_COMMIT
    new_src = Path(args.new_src) if args.new_src else NEW_SRC
    sys.path.insert(0, str(new_src))
    print(
        f"{args.variant} {args.players}p: {args.boards} boards x 2 seatings x "
        f"{args.deals_per_board} deal(s), {args.seconds} s a decision; new = {new_src} "
        f"{args.new_options or ''}, against = {args.against_src} "
        f"({against}) "
        f"{args.against_options or ''}",
        flush=True,
    )
    import burraco

    if Path(burraco.__file__).resolve().parent.parent != new_src.resolve():
        raise SystemExit(f"the new expert would run {burraco.__file__}, not {new_src}")
    boards: list[Board] = []
    if args.workers == 1:
        for b in range(args.boards):
            boards.append(play_board(b, args))
            report(args, boards, final=False)
    else:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            futures = [pool.submit(play_board, b, args) for b in range(args.boards)]
            for future in futures:
                boards.append(future.result())
                report(args, boards, final=False)
    report(args, boards, final=True)


if __name__ == "__main__":
    main()
