"""Quick play: the matcher (similar ratings, a widening window, bots after the wait, rated
and guests apart, partners across), the service's tickets, and the HTTP flow on a real
room (two guests at one table, one alone with bots, a registered pair at a rated table)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from roomserver import RoomServer

from burraco.server.door.capacity import Capacity
from burraco.server.quick.play import (
    Entry,
    Group,
    QuickPlay,
    QuickQueue,
    QuickRules,
    quick_setups,
)
from burraco.server.room import LobbyQuery, lobby_page
from burraco.variants import variant


def entry(
    ticket: str,
    rating: float = 25.0,
    *,
    players: int = 2,
    registered: bool = False,
    bots: bool = True,
    game: str = "italian",
    user_id: int | None = None,
) -> Entry:
    return Entry(ticket, game, players, rating, registered, bots, ticket.title(), user_id)


def tickets(group: Group) -> list[str]:
    return [e.ticket if e else "bot" for e in group.seats]


def tables(groups: list[Group]) -> list[set[str]]:
    return [{e.ticket for e in g.people} for g in groups]


# --- the matcher ------------------------------------------------------------------------


def test_similar_ratings_sit_together() -> None:
    queue = QuickQueue()
    for ticket, rating in (("a", 25), ("b", 40), ("c", 25.5), ("d", 40.8)):
        queue.join(entry(ticket, rating), now=0)
    assert tables(queue.match(now=0.5)) == [{"a", "c"}, {"b", "d"}]
    assert len(queue) == 0


def test_the_window_widens_with_the_wait() -> None:
    rules = QuickRules(gap=1.0, widen=0.3, most=10.0)
    queue = QuickQueue(rules)
    queue.join(entry("a", 25.0, bots=False), now=0)
    queue.join(entry("b", 30.0, bots=False), now=0)
    # Windows of ±(1 + 0.3 t) meet when 2 (1 + 0.3 t) >= 5: at t = 5.
    assert queue.match(now=4.9) == []
    assert tables(queue.match(now=5.0)) == [{"a", "b"}]
    # The window stops widening: the best and the newest never meet.
    queue.join(entry("c", 10.0, bots=False), now=0)
    queue.join(entry("d", 35.0, bots=False), now=0)
    assert queue.match(now=3600) == []


def test_the_oldest_is_served_first() -> None:
    queue = QuickQueue()
    queue.join(entry("old", 30.0), now=0)
    queue.join(entry("y", 27.0), now=9)
    queue.join(entry("z", 27.1), now=9)
    # At 10 s the oldest's window (±4) reaches both; it takes the nearer, z.
    assert tables(queue.match(now=10)) == [{"old", "z"}]
    assert "y" in queue


def test_every_window_shares_a_rating() -> None:
    queue = QuickQueue(QuickRules(gap=2.0, widen=0.0))
    # 23 and 27 each reach 25, but 21 and 29 share nothing with both of them.
    for ticket, rating in (("a", 25), ("b", 23), ("c", 27), ("d", 21), ("e", 29)):
        queue.join(entry(ticket, rating, players=4, bots=False), now=0)
    assert queue.match(now=1) == []
    queue.join(entry("f", 24, players=4, bots=False), now=1)
    assert tables(queue.match(now=1)) == [{"a", "b", "c", "f"}]


def test_bots_only_after_the_wait_and_only_if_allowed() -> None:
    queue = QuickQueue(QuickRules(wait_seconds=20))
    queue.join(entry("alone", 25.0), now=0)
    queue.join(entry("purist", 60.0, bots=False), now=0)
    assert queue.match(now=19.9) == []
    [group] = queue.match(now=20)
    assert tickets(group) == ["alone", "bot"] and group.bots == 1
    assert queue.match(now=600) == [] and "purist" in queue


def test_a_bot_table_takes_the_others_who_allow_bots() -> None:
    queue = QuickQueue(QuickRules(wait_seconds=20))
    queue.join(entry("a", 25.0, players=4), now=0)
    queue.join(entry("b", 25.5, players=4), now=5)
    queue.join(entry("c", 25.2, players=4, bots=False), now=6)
    [group] = queue.match(now=20)
    assert {e.ticket for e in group.people} == {"a", "b"} and group.bots == 2
    assert "c" in queue


def test_bots_now_ends_the_wait_for_bots_and_takes_the_others_who_allow_them() -> None:
    """Issue 31: "Play bots now" seats a waiter with bots at once, even one who first
    refused them (the press is consent); the others who allow bots sit with them."""
    queue = QuickQueue(QuickRules(wait_seconds=20))
    queue.join(entry("anna", 25.0, players=4, bots=False), now=0)
    queue.join(entry("bruno", 25.1, players=4), now=1)
    queue.join(entry("carla", 25.2, players=4, bots=False), now=1)
    assert queue.match(now=2) == [] and not queue.hurry("nobody")
    assert queue.hurry("anna")
    [group] = queue.match(now=2)
    assert {e.ticket for e in group.people} == {"anna", "bruno"} and group.bots == 2
    assert "carla" in queue and queue.hurried == set()


def test_registered_players_and_guests_queue_apart() -> None:
    queue = QuickQueue()
    queue.join(entry("guest", 25.0), now=0)
    queue.join(entry("anna", 25.0, registered=True), now=0)
    assert queue.match(now=1) == []
    queue.join(entry("bruno", 25.0, registered=True), now=1)
    queue.join(entry("carla", 25.0), now=1)
    groups = {frozenset(e.ticket for e in g.people): g.rated for g in queue.match(now=2)}
    assert groups == {frozenset({"anna", "bruno"}): True, frozenset({"guest", "carla"}): False}


def test_games_and_sizes_queue_apart() -> None:
    queue = QuickQueue()
    queue.join(entry("a"), now=0)
    queue.join(entry("b", players=4), now=0)
    queue.join(entry("c", game="buraco"), now=0)
    assert queue.match(now=1) == []
    assert queue.sizes() == {"italian-2": 1, "italian-4": 1, "buraco-2": 1}


def test_partners_sit_across_with_balanced_lines() -> None:
    queue = QuickQueue()
    for ticket, rating in (("a", 30), ("b", 28), ("c", 22), ("d", 20)):
        queue.join(entry(ticket, rating, players=4), now=0)
    queue.rules = QuickRules(gap=6)
    [group] = queue.match(now=0)
    line_of = variant("italian", players=4).line_of
    assert line_of == (0, 1, 0, 1)
    sums = [0.0, 0.0]
    for seat, e in enumerate(group.seats):
        assert e is not None
        sums[line_of[seat]] += e.rating
    assert sums == [50.0, 50.0]
    assert tickets(group)[0] == "a"  # the oldest has the first seat


def test_two_people_and_two_bots_are_opponents() -> None:
    queue = QuickQueue(QuickRules(wait_seconds=1))
    queue.join(entry("a", players=4), now=0)
    queue.join(entry("b", players=4), now=0)
    [group] = queue.match(now=1)
    # Seats 0 and 2 are one line, 1 and 3 the other: each person has a bot partner.
    assert tickets(group) == ["a", "b", "bot", "bot"]


def test_the_bot_nearest_the_players_rating() -> None:
    ratings = {"italian-2": {"random": 15.0, "greedy": 25.0, "expert": 34.0}}
    queue = QuickQueue(QuickRules(wait_seconds=1), bot_ratings=ratings)
    queue.join(entry("strong", 33.0), now=0)
    queue.join(entry("weak", 12.0, registered=True), now=0)
    queue.join(entry("other", 33.0, game="buraco"), now=0)
    levels = {g.people[0].ticket: g.bot for g in queue.match(now=1)}
    # No bot rating known for buraco: greedy.
    assert levels == {"strong": "expert", "weak": "random", "other": "greedy"}


def test_leave() -> None:
    queue = QuickQueue()
    queue.join(entry("a"), now=0)
    assert queue.leave("a") and not queue.leave("a")
    queue.join(entry("b"), now=0)
    assert queue.match(now=60) != [] and len(queue) == 0


def test_every_size_of_every_game_makes_a_table() -> None:
    for name, sizes in quick_setups().items():
        for players in sizes:
            queue = QuickQueue(QuickRules(wait_seconds=0))
            queue.join(entry("a", game=name, players=players), now=0)
            [group] = queue.match(now=0)
            v = variant(name, players=players)
            assert (group.players, group.lines, len(group.seats)) == (players, v.lines, players)


# --- the service ------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def service(fail: bool = False) -> tuple[QuickPlay, Clock, list[dict[str, Any]]]:
    clock = Clock()
    made: list[dict[str, Any]] = []

    async def seat_table(
        kind: str, options: dict[str, Any], seats: list[tuple[str, str]], **more: Any
    ) -> tuple[str, dict[int, str]]:
        if fail:
            raise RuntimeError("the database is gone")
        made.append({"kind": kind, "options": options, "seats": seats} | more)
        return f"t-{len(made)}", {i: f"token-{i}" for i, s in enumerate(seats) if s[1] == "human"}

    def bots(game: str) -> dict[str, tuple[int, float]]:
        return {"greedy": (2, 25.0), "expert": (3, 30.0)}

    quick = QuickPlay(seat_table, rules=QuickRules(wait_seconds=5), clock=clock, bot_accounts=bots)
    return quick, clock, made


def test_the_service_seats_and_tells_each_ticket() -> None:
    quick, clock, made = service()
    first = quick.join(entry("anna-ticket", 29.0, user_id=7, registered=True))
    assert first["status"] == "waiting" and first["bots_at"] == 1_005_000
    assert (first["position"], first["queue"]) == (1, 1)
    clock.now += 4
    quick.status("anna-ticket")  # the page asks every second
    clock.now += 2
    asyncio.run(quick.tick())
    seated = quick.status("anna-ticket")
    assert seated == {
        "status": "seated",
        "table": "t-1",
        "seat": 0,
        "token": "token-0",
        "url": "/table/t-1",
    }
    [table] = made
    assert table["seats"] == [("Anna-Ticket", "human"), ("expert bot 1", "bot")]
    assert table["users"] == {0: 7, 1: 3} and table["rated"] and table["bot"] == "expert"


def test_the_service_seats_bots_now_at_once() -> None:
    quick, clock, made = service()
    quick.join(entry("anna-ticket", 25.0))
    clock.now += 1
    seated = asyncio.run(quick.bots_now("anna-ticket"))
    assert seated is not None and seated["status"] == "seated" and seated["seat"] == 0
    [table] = made
    assert [kind for _, kind in table["seats"]] == ["human", "bot"]
    # Seated already: told where, no second table; an unknown ticket is None.
    assert asyncio.run(quick.bots_now("anna-ticket")) == seated and len(made) == 1
    assert asyncio.run(quick.bots_now("nobody")) is None


def test_a_ticket_whose_page_stopped_asking_is_not_seated() -> None:
    """Tickets a script pressed and left (never asked about) wait unseated, and so does a
    ticket whose page stopped asking: a person is seated with people whose page is
    waiting, or with bots, never with ghosts."""
    quick, clock, made = service()
    for i in range(3):
        quick.join(entry(f"ghost-{i}", players=4))
    quick.join(entry("gone", players=4))
    quick.status("gone")  # its page asked once, then was closed
    clock.now += 6  # past the 5 s a page may go without asking
    quick.join(entry("anna", players=4))
    for _ in range(7):
        clock.now += 1
        assert quick.status("anna") is not None  # her page asks every second
        asyncio.run(quick.tick())
    [table] = made
    assert table["seats"][0] == ("Anna", "human")
    assert [kind for _, kind in table["seats"][1:]] == ["bot"] * 3
    for ticket in ("ghost-0", "ghost-1", "ghost-2", "gone"):
        assert quick.status(ticket, asked=False)["status"] == "waiting"  # type: ignore[index]
    # A ticket whose page asks again is a waiter again: it is seated (here with bots).
    quick.status("gone")
    asyncio.run(quick.tick())
    assert quick.status("gone")["status"] == "seated"  # type: ignore[index]


def test_one_ticket_per_account() -> None:
    quick, _, _ = service()
    quick.join(entry("first", user_id=7, registered=True))
    quick.join(entry("second", user_id=7, registered=True))
    assert quick.status("first") is None and quick.status("second") is not None


def test_tickets_expire_unless_polled() -> None:
    quick, clock, _ = service()
    quick.join(entry("kept", bots=False))
    quick.join(entry("lost", bots=False, game="buraco"))
    for _ in range(4):
        clock.now += 20
        assert quick.status("kept") is not None
        asyncio.run(quick.tick())
    assert quick.status("lost") is None and len(quick.queue) == 1


def test_a_table_that_cannot_be_made_leaves_its_players_waiting() -> None:
    quick, _, _ = service(fail=True)
    quick.join(entry("a"))
    quick.join(entry("b"))
    quick.status("a"), quick.status("b")  # their pages ask
    asyncio.run(quick.tick())
    assert quick.status("a")["status"] == "waiting"  # type: ignore[index]
    assert len(quick.queue) == 2


def test_the_lobby_filters_rated_tables() -> None:
    seat = {"kind": "empty"}
    listed = [
        {"variant": "italian", "players": 2, "rated": True, "seats": [seat]},
        {"variant": "italian", "players": 2, "rated": False, "seats": [seat]},
        {"variant": "italian", "players": 4, "rated": False, "seats": [{"kind": "human"}]},
    ]
    pick = lambda **q: lobby_page(listed, Capacity(), LobbyQuery(**q))["total"]  # noqa: E731
    assert (pick(), pick(rated=True), pick(rated=False), pick(rated=False, free=True)) == (
        3,
        1,
        2,
        1,
    )


# --- over HTTP --------------------------------------------------------------------------


def wait_seated(http: httpx.Client, ticket: str, seconds: float = 15) -> dict[str, Any]:
    return wait_all_seated(http, [ticket], seconds)[0]


def wait_all_seated(
    http: httpx.Client, tickets: list[str], seconds: float = 15
) -> list[dict[str, Any]]:
    """Ask about every ticket in turn, as each one's page does, until all are seated."""
    deadline = time.time() + seconds
    seated: dict[str, dict[str, Any]] = {}
    while time.time() < deadline:
        for ticket in tickets:
            if ticket in seated:
                continue
            answer = http.get(f"/api/quick/{ticket}")
            assert answer.status_code == 200, answer.text
            if answer.json()["status"] == "seated":
                seated[ticket] = dict(answer.json())
        if len(seated) == len(tickets):
            return [seated[t] for t in tickets]
        time.sleep(0.1)
    raise AssertionError("never seated")


@pytest.fixture
def server(db: str) -> Any:
    with RoomServer(db, quick_wait_seconds=1.0) as running:
        yield running


def test_two_guests_pressing_play_sit_at_one_table(server: RoomServer) -> None:
    with server.http() as http:
        anna = http.post("/api/quick", json={"variant": "italian", "players": 2, "name": "Anna"})
        bruno = http.post(
            "/api/quick", json={"variant": "italian", "players": 2, "name": "Bruno", "bots": False}
        )
        assert anna.status_code == bruno.status_code == 200, anna.text
        assert anna.json()["wait_seconds"] == 1.0
        a, b = wait_all_seated(http, [anna.json()["ticket"], bruno.json()["ticket"]])
        assert a["table"] == b["table"] and {a["seat"], b["seat"]} == {0, 1}
        info = http.get(f"/api/tables/{a['table']}").json()
        assert info["quick"] and info["watchable"] and not info["rated"]
        assert [s["kind"] for s in info["seats"]] == ["human", "human"]
        assert info["status"] == "playing" and info["move_seconds"] == 40
        table = server.room.table(a["table"])
        assert server.room.seat_of(table, a["token"]) == a["seat"]
        # The lobby lists it, and its filters find it.
        assert http.get("/api/tables?rated=false&players=2").json()["total"] == 1
        assert http.get("/api/tables?rated=true").json()["total"] == 0


def test_one_alone_gets_bots_after_the_wait(server: RoomServer) -> None:
    with server.http() as http:
        started = time.time()
        answer = http.post("/api/quick", json={"variant": "buraco", "players": 4, "name": "Anna"})
        ticket = answer.json()["ticket"]
        waiting = http.get(f"/api/quick/{ticket}").json()
        assert waiting["status"] == "waiting" and (waiting["position"], waiting["queue"]) == (1, 1)
        assert abs(waiting["bots_at"] / 1000 - (started + 1.0)) < 1.0
        seated = wait_seated(http, ticket)
        assert time.time() - started >= 1.0
        info = http.get(f"/api/tables/{seated['table']}").json()
        assert [s["kind"] for s in info["seats"]].count("bot") == 3
        assert info["seats"][seated["seat"]]["name"] == "Anna"


def test_quick_play_seats_a_brazilian_game(server: RoomServer) -> None:
    """Issue 24: quick play offers the Brazilian rooms' games, each in a queue of its own."""
    with server.http() as http:
        answer = http.post("/api/quick", json={"variant": "stbl", "players": 2, "name": "Ana"})
        assert answer.status_code == 200, answer.text
        seated = wait_seated(http, answer.json()["ticket"])
        assert server.room.table(seated["table"]).match.v.name == "stbl"
        info = http.get(f"/api/tables/{seated['table']}").json()
        assert info["variant"] == "stbl"


def test_leave_bad_requests_and_the_overview(server: RoomServer) -> None:
    with server.http() as http:
        answer = http.post("/api/quick", json={"variant": "italian", "name": "Anna", "bots": False})
        ticket = answer.json()["ticket"]
        assert http.get("/api/quick").json()["waiting"] == {"italian-2": 1}
        assert http.delete(f"/api/quick/{ticket}").json() == {"left": True}
        gone = http.get(f"/api/quick/{ticket}")
        assert gone.status_code == 404 and gone.json()["code"] == "quick_gone"
        nameless = http.post("/api/quick", json={"variant": "italian"})
        assert nameless.status_code == 400 and "name" in nameless.json()["detail"]
        odd = http.post("/api/quick", json={"variant": "online", "players": 3, "name": "A"})
        assert odd.status_code == 400 and "2, 4 players" in odd.json()["detail"]


def test_bots_now_seats_a_guest_alone_at_once(db: str) -> None:
    """Issue 31: in an empty room, "Play bots now" seats the guest against bots of the
    chosen game at once, not after the room's wait (a long one here)."""
    with RoomServer(db, quick_wait_seconds=600.0) as server, server.http() as http:
        body = {"variant": "buraco-fechado", "players": 4, "name": "Ana", "bots": False}
        ticket = http.post("/api/quick", json=body).json()["ticket"]
        assert http.get(f"/api/quick/{ticket}").json()["status"] == "waiting"
        seated = http.post(f"/api/quick/{ticket}/bots")
        assert seated.status_code == 200, seated.text
        assert seated.json()["status"] == "seated"
        info = http.get(f"/api/tables/{seated.json()['table']}").json()
        assert info["variant"] == "buraco-fechado" and info["status"] == "playing"
        assert [s["kind"] for s in info["seats"]].count("bot") == 3
        assert info["seats"][seated.json()["seat"]]["name"] == "Ana"
        gone = http.post("/api/quick/no-such-ticket/bots")
        assert gone.status_code == 404 and gone.json()["code"] == "quick_gone"


def test_registered_players_sit_at_a_rated_table(server: RoomServer) -> None:
    tickets = []
    clients = [server.http() for _ in range(2)]
    try:
        for http, name in zip(clients, ("Anna", "Bruno"), strict=True):
            account = http.post(
                "/api/account/signup", json={"name": name, "password": "cuori e picche"}
            ).json()
            answer = http.post(
                "/api/quick",
                json={"variant": "italian", "players": 2, "bots": False},
                headers={"X-CSRF-Token": account["csrf"]},
            )
            assert answer.status_code == 200, answer.text
            tickets.append(answer.json()["ticket"])
        seated = wait_all_seated(clients[0], tickets)
        info = clients[0].get(f"/api/tables/{seated[0]['table']}").json()
        assert info["rated"] and {s["name"] for s in info["seats"]} == {"Anna", "Bruno"}
        assert clients[0].get("/api/tables?rated=true").json()["total"] == 1
    finally:
        for http in clients:
            http.close()


def test_joins_are_rate_limited(db: str) -> None:
    from burraco.server.door.limits import Limits

    with RoomServer(db, limits=Limits(quick_play="2/minute")) as server, server.http() as http:
        body = {"variant": "italian", "name": "Anna", "bots": False}
        codes = [http.post("/api/quick", json=body).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
