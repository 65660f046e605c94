"""What the cyclic garbage collector walks in a long-running room (bench/collector.py
measures the pauses): the engine's kept tables and a table's history hold no object the
collector must track, and what start-up built is frozen."""

from __future__ import annotations

import asyncio
import gc
import random
import time
import weakref

from burraco import Deal, variant
from burraco.actions import Action, discard, draw, extend, meld, take
from burraco.cards import parse_card, parse_cards
from burraco.melds import tables_for
from burraco.server.process.collector import FullCollections, freeze_startup


def _collect_fully() -> None:
    # A tuple is untracked in a collection once its items are: nested ones take a pass
    # for each level.
    for _ in range(4):
        gc.collect()


def test_stored_meld_candidates_are_not_tracked_by_the_collector() -> None:
    v = variant("italian", players=4)
    rng = random.Random(5)
    for seed in range(20):
        deal = Deal.new(v, seed=seed)
        while deal.phase != "over":
            deal.apply(rng.choice(deal.legal_actions()))
    _collect_fully()
    tables = tables_for(v)
    parts = [
        part for table in (*tables._suits, *tables._ranks, tables._wilds) for part in table.values()
    ]
    assert len(parts) > 1000
    tracked = [part for part in parts if gc.is_tracked(part)]
    # Each part is plain ints only: none stays under the collector's watch.
    assert len(tracked) <= len(parts) // 100
    # The melds read are kept under their cards as plain ints too.
    keys = list(tables._readings)
    assert len(keys) > 100
    assert not any(gc.is_tracked(key) for key in keys)


def test_the_legal_melds_are_the_actions_the_tables_name() -> None:
    v = variant("italian", players=2)
    deal = Deal.new(v, seed=3)
    deal.apply(draw())
    for action in deal.legal_actions():
        if action.kind == "meld":
            assert action == meld(action.cards)
            assert [str(c) for c in action.cards] == str(action).split()[1:]


def test_an_action_read_from_text_is_the_one_object_of_that_action() -> None:
    # A table's history holds the actions its players sent as text: one shared object
    # each, not one more Action and tuple of Cards per move.
    for text in ("draw", "take", "redraw", "pass", "discard 9C", "extend 2 8H", "meld 7H 5H 6H"):
        assert Action.parse(text) is Action.parse(text.upper()), text
    assert Action.parse("meld 7H 5H 6H") is meld(parse_cards("5H 6H 7H"))
    assert Action.parse("discard 9c") is discard(parse_card("9C"))
    assert Action.parse("extend 2 8h") is extend(2, parse_card("8H"))
    assert Action.parse("take 7H 7S") is take(parse_cards("7S 7H"))
    assert Action.parse("draw") is draw()
    # The same values as ever, and a meld number past any line's melds still reads.
    assert Action.parse("meld 7H 5H 6H") == Action("meld", tuple(parse_cards("5H 6H 7H")))
    far = Action.parse("extend 100000 8H")
    assert far == Action("extend", (parse_card("8H"),), 100000)


def test_freezing_at_start_up_keeps_the_living_and_frees_the_garbage() -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self

    garbage = Node()
    living = Node()
    del garbage
    try:
        frozen = freeze_startup()
        assert frozen == gc.get_freeze_count() > 0
        assert not any(type(o) is Node for o in gc.get_objects())  # out of every walk
    finally:
        gc.unfreeze()
    nodes = [o for o in gc.get_objects() if type(o) is Node]
    assert nodes == [living]


def test_the_room_walks_the_whole_heap_on_its_schedule_not_the_interpreters() -> None:
    asyncio.run(_two_rooms_share_the_collector())


async def _two_rooms_share_the_collector() -> None:
    saved = gc.get_threshold()
    first, second = FullCollections(every=3600), FullCollections(every=3600)
    first.start()
    second.start()
    try:
        assert gc.get_threshold()[:2] == saved[:2]
        assert gc.get_threshold()[2] > 10**6
        full: list[int] = []

        def note(phase: str, info: dict[str, int]) -> None:
            if phase == "stop" and info["generation"] == 2:
                full.append(1)

        gc.callbacks.append(note)
        try:
            # Far more promoted objects than a quarter of the heap: the interpreter alone
            # would have walked it several times.
            kept = [[i] for i in range(300_000)]
            assert not full
            took = first.walk()
            assert full and first.pauses == [took]
        finally:
            gc.callbacks.remove(note)
        del kept
        await first.stop()
        # The other room still runs: the oldest generation stays the rooms'.
        assert gc.get_threshold()[2] > 10**6
    finally:
        await second.stop()
    assert gc.get_threshold() == saved
    # What the walks froze is the interpreter's again once no room runs.
    assert gc.get_freeze_count() == 0


def test_a_walk_is_due_after_its_seconds_or_when_memory_has_grown() -> None:
    collections = FullCollections(every=600, growth=0.25)
    assert not collections.due(since=0.0, base=1000, now=599.0, size=1200)
    assert collections.due(since=0.0, base=1000, now=600.0, size=1000)
    assert collections.due(since=0.0, base=1000, now=10.0, size=1251)
    # Where the memory cannot be read, the seconds alone.
    assert not collections.due(since=0.0, base=None, now=10.0, size=None)


def test_garbage_cycles_are_freed_by_the_scheduled_walk() -> None:
    asyncio.run(_a_cycle_freed())


async def _a_cycle_freed() -> None:
    class Node:
        other: Node | None = None

    collections = FullCollections(every=0.05, check=0.01)
    collections.start()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        deadline = time.monotonic() + 30
        while gone() is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert gone() is None
        assert collections.pauses
    finally:
        await collections.stop()


def test_a_growth_walk_walks_what_came_since_and_the_scheduled_walk_the_whole_heap() -> None:
    class Node:
        other: Node | None = None

    collections = FullCollections(every=3600)
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        collections.walk(whole=False)
        # The living pair is frozen with the rest: out of the next growth walk's way.
        assert gc.get_freeze_count() > 0
        assert not any(type(o) is Node for o in gc.get_objects())
        del a, b
        newer = Node()
        newer.other = newer
        newer_gone = weakref.ref(newer)
        del newer
        collections.walk(whole=False)
        # The new cycle is freed; the one frozen while alive waits for the whole walk.
        assert newer_gone() is None and gone() is not None
        collections.walk(whole=True)
        assert gone() is None
        assert len(collections.pauses) == 3
    finally:
        gc.unfreeze()
