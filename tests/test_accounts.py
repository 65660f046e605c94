"""Accounts: sign up, log in and out, passwords (Argon2), sessions in an HTTP-only cookie,
CSRF on every state-changing request made with it, login floods, and seats that belong
to an account (issue 10, part 1)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from roomserver import RoomServer

from burraco.server.accounts.people import HASH_NICENESS, Hashing
from burraco.server.door.capacity import Capacity
from burraco.server.door.limits import Limits, Lockout
from burraco.storage import Store


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'room.db'}"


def sign_up(server: RoomServer, name: str, password: str = "cuori e picche") -> httpx.Client:
    """A client (its own cookie jar) logged in as a new account ``name``."""
    client = httpx.Client(base_url=server.url)
    answer = client.post("/api/account/signup", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    client.headers["X-CSRF-Token"] = answer.json()["csrf"]
    return client


def new_table(client: httpx.Client, **options: Any) -> dict[str, Any]:
    answer = client.post("/api/tables", json={"name": "x", "players": 2} | options)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def first_message(url: str, **headers: str) -> dict[str, Any]:
    async with websockets.connect(url, additional_headers=headers) as socket:
        return dict(json.loads(await asyncio.wait_for(socket.recv(), 10)))


def cookie_header(client: httpx.Client) -> str:
    return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def test_sign_up_log_out_log_in_and_the_cookie(db: str) -> None:
    with RoomServer(db) as server:
        guest = httpx.Client(base_url=server.url)
        assert guest.get("/api/me").json() == {"user": None, "csrf": None}
        answer = guest.post(
            "/api/account/signup",
            json={"name": "Giulia", "password": "burraco pulito", "language": "it"},
        )
        assert answer.status_code == 200
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
        me = guest.get("/api/me").json()
        assert me["user"] == {"name": "Giulia", "kind": "person", "language": "it"}
        assert me["csrf"] == answer.json()["csrf"]

        # The same name in another case is the same name.
        again = httpx.post(
            f"{server.url}/api/account/signup", json={"name": "GIULIA", "password": "12345678"}
        )
        assert again.status_code == 409 and again.json()["code"] == "name_taken"

        out = guest.post("/api/account/logout", headers={"X-CSRF-Token": me["csrf"]})
        assert out.status_code == 200
        assert guest.get("/api/me").json()["user"] is None

        wrong = guest.post("/api/account/login", json={"name": "giulia", "password": "nope nope"})
        nobody = guest.post("/api/account/login", json={"name": "nessuno", "password": "nope"})
        # Neither answer says whether the name exists.
        assert wrong.status_code == nobody.status_code == 401
        assert wrong.json() == nobody.json()
        right = guest.post(
            "/api/account/login", json={"name": "giulia", "password": "burraco pulito"}
        )
        assert right.status_code == 200 and right.json()["user"]["name"] == "Giulia"


def test_names_and_passwords_that_break_the_rules_are_refused(db: str) -> None:
    with RoomServer(db) as server:
        for name, password, code in [
            ("a", "12345678", "bad_name"),
            ("Anna Maria", "12345678", "bad_name"),
            ("<b>x</b>", "12345678", "bad_name"),
            ("greedy", "12345678", "bad_name"),
            ("Learned", "12345678", "bad_name"),
            ("Anna", "short", "bad_password"),
            ("Anna", "x" * 129, "bad_password"),
        ]:
            answer = httpx.post(
                f"{server.url}/api/account/signup", json={"name": name, "password": password}
            )
            assert answer.status_code == 400, (name, answer.text)
            assert answer.json()["code"] == code
        assert Store(db).user_by_name("Anna") is None


def test_passwords_are_stored_as_argon2_hashes_only(db: str) -> None:
    with RoomServer(db) as server:
        sign_up(server, "Marco", "sette di quadri")
    user = Store(db, migrate=False).user_by_name("marco")
    assert user is not None
    assert user.password_hash.startswith("$argon2id$")
    assert "sette di quadri" not in user.password_hash


def test_a_request_with_the_cookie_but_without_the_csrf_token_is_refused(db: str) -> None:
    with RoomServer(db) as server:
        client = sign_up(server, "Luca")
        token = client.headers.pop("X-CSRF-Token")
        tables_before = len(server.room.tables)
        for path, body in [
            ("/api/tables", {"name": "x"}),
            ("/api/account/logout", None),
            ("/api/account/password", {"old_password": "a", "new_password": "bbbbbbbb"}),
        ]:
            refused = client.post(path, json=body)
            assert refused.status_code == 403, path
            assert refused.json()["code"] == "csrf"
        forged = client.post("/api/tables", json={"name": "x"}, headers={"X-CSRF-Token": "x"})
        assert forged.status_code == 403
        assert len(server.room.tables) == tables_before
        # Reading needs no token; the same request with it goes through.
        assert client.get("/api/me").json()["user"]["name"] == "Luca"
        made = client.post("/api/tables", json={"name": "x"}, headers={"X-CSRF-Token": token})
        assert made.status_code == 200
        # A guest (no cookie) needs no token, as before accounts.
        assert httpx.post(f"{server.url}/api/tables", json={"name": "x"}).status_code == 200


def _from(server: RoomServer, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=30)


def test_wrong_passwords_lock_the_guesser_not_the_owner(db: str) -> None:
    """Issue 19: ten wrong passwords from anywhere locked the owner out for 5 minutes."""
    limits = Limits(log_in="1000/minute", sign_up="100/hour")
    with (
        RoomServer(db, limits=limits) as server,
        _from(server, "127.0.0.2") as guesser,
        _from(server, "127.0.0.3") as owner,
    ):
        sign_up(server, "Sara", "regina di cuori")
        codes = [
            guesser.post(
                "/api/account/login", json={"name": "sara", "password": f"guess{i}"}
            ).status_code
            for i in range(12)
        ]
        assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
        # The guesser waits, even with the right password: the flood must not learn it.
        right = guesser.post(
            "/api/account/login", json={"name": "sara", "password": "regina di cuori"}
        )
        assert right.status_code == 429 and right.json()["code"] == "login_wait"
        assert int(right.headers["Retry-After"]) >= 1
        assert right.json()["params"]["seconds"] >= 1
        # The same name in another case, width or with spaces is the same count.
        for disguised in (" SARA ", "\uff53\uff41\uff52\uff41"):
            again = guesser.post(
                "/api/account/login", json={"name": disguised, "password": "regina di cuori"}
            )
            assert again.status_code == 429, disguised
        # The owner, from another address, gets in at once.
        home = owner.post(
            "/api/account/login", json={"name": "Sara", "password": "regina di cuori"}
        )
        assert home.status_code == 200, home.text
        # Another name from the guesser's address is not locked by Sara's count.
        other = guesser.post("/api/account/login", json={"name": "nessuno", "password": "x"})
        assert other.status_code == 401
    limits = Limits(log_in="3/minute")
    with RoomServer(db, limits=limits) as server:
        codes = [
            httpx.post(
                f"{server.url}/api/account/login", json={"name": f"n{i}", "password": "x"}
            ).status_code
            for i in range(5)
        ]
        assert codes == [401, 401, 401, 429, 429]


def test_the_lockout_waits_double_and_a_right_password_clears_them() -> None:
    now = [100.0]
    lock = Lockout(
        Limits(log_in_free=3, log_in_backoff=2.0, log_in_backoff_max=10.0), clock=lambda: now[0]
    )
    assert [lock.attempt("a", "sara") for _ in range(3)] == [None, None, None]
    waits = []
    for _ in range(4):
        wait = lock.attempt("a", "sara")
        assert wait is not None
        waits.append(wait)
        now[0] += wait
        assert lock.attempt("a", "sara") is None  # once waited, one more try
    assert waits == [2.0, 4.0, 8.0, 10.0]  # doubling, up to the longest
    assert lock.attempt("b", "sara") is None and lock.attempt("a", "luca") is None
    lock.succeeded("a", "sara")
    assert [lock.attempt("a", "sara") for _ in range(3)] == [None, None, None]
    # A pair quiet for twice the longest wait starts afresh.
    now[0] += 21.0
    assert [lock.attempt("a", "sara") for _ in range(3)] == [None, None, None]


def _old_hash(password: str) -> str:
    """A hash as the room made them before issue 19 (pwdlib's defaults: m=65536, t=3, p=4)."""
    return PasswordHash((Argon2Hasher(time_cost=3, memory_cost=65536, parallelism=4),)).hash(
        password
    )


def test_an_old_hash_verifies_and_is_made_again_with_the_new_parameters(db: str) -> None:
    Store(db).create_user("Vecchio", _old_hash("asso di bastoni"))
    with RoomServer(db) as server:
        wrong = httpx.post(
            f"{server.url}/api/account/login", json={"name": "vecchio", "password": "asso di coppe"}
        )
        assert wrong.status_code == 401
        assert (
            "m=65536,t=3,p=4"
            in (Store(db, migrate=False).user_by_name("vecchio") or _no()).password_hash
        )
        right = httpx.post(
            f"{server.url}/api/account/login",
            json={"name": "vecchio", "password": "asso di bastoni"},
        )
        assert right.status_code == 200, right.text
    stored = (Store(db, migrate=False).user_by_name("vecchio") or _no()).password_hash
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    with RoomServer(db) as server:
        again = httpx.post(
            f"{server.url}/api/account/login",
            json={"name": "Vecchio", "password": "asso di bastoni"},
        )
        assert again.status_code == 200


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _no() -> Any:
    raise AssertionError("no such account")


def test_the_room_answers_while_passwords_are_hashed(db: str) -> None:
    """Issue 19: hashes ran on the event loop, and a player's ping went from 9 ms to 656
    ms during three failed logins. Six wrong logins at once against an old, slow hash: the
    room's other answers must not wait for them."""
    Store(db).create_user("Vecchio", _old_hash("asso di bastoni"))
    # How long one such hash takes on this machine at least (it is slower when busy).
    one_hash = min(_timed(lambda: _old_hash("asso di bastoni")) for _ in range(3))

    async def check(server: RoomServer) -> tuple[list[int], list[float]]:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            await client.get("/api/me")  # the connection open before the clock starts
            logins = [
                asyncio.create_task(
                    client.post(
                        "/api/account/login", json={"name": "vecchio", "password": f"no{i}"}
                    )
                )
                for i in range(6)
            ]
            pings: list[float] = []
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as pinger:
                while not all(task.done() for task in logins):
                    sent = time.perf_counter()
                    assert (await pinger.get("/api/me")).status_code == 200
                    pings.append(time.perf_counter() - sent)
            return [task.result().status_code for task in logins], pings

    with RoomServer(db) as server:
        codes, pings = asyncio.run(check(server))
    assert codes == [401] * 6
    # On the loop, each ping waited for a whole hash or more; off it, for none.
    print(f"hash {one_hash * 1000:.0f} ms; pings (ms):", sorted(round(p * 1000) for p in pings))
    assert statistics.median(pings) < one_hash / 4, (pings, one_hash)
    assert len(pings) >= 12


def test_a_login_storm_past_the_hash_queue_is_told_busy_at_once(db: str) -> None:
    Store(db).create_user("Vecchio", _old_hash("asso di bastoni"))
    capacity = Capacity(busy_lag=30.0, hash_threads=1, hash_queue=1)

    async def storm(server: RoomServer) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            return list(
                await asyncio.gather(
                    *(
                        client.post(
                            "/api/account/login", json={"name": "vecchio", "password": f"no{i}"}
                        )
                        for i in range(8)
                    )
                )
            )

    with RoomServer(db, capacity=capacity) as server:
        answers = asyncio.run(storm(server))
        busy = [a for a in answers if a.status_code == 503]
        assert busy and all(a.json()["code"] == "busy" for a in busy)
        assert all(int(a.headers["Retry-After"]) >= 1 for a in busy)
        assert {a.status_code for a in answers} == {401, 503}
        # Once the storm is over, the queue is free again.
        right = httpx.post(
            f"{server.url}/api/account/login",
            json={"name": "vecchio", "password": "asso di bastoni"},
        )
        assert right.status_code == 200


def test_look_alike_and_invisible_names_are_refused(db: str) -> None:
    """Issue 19: "Giulia" with a Cyrillic i, or in full-width letters, sat beside Giulia,
    and a lone zero-width space was a valid name."""
    with RoomServer(db) as server:
        giulia = sign_up(server, "Giulia")
        for name, status, code in [
            (
                "G\u0456ulia",
                409,
                "name_look_alike",
            ),  # CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I
            ("\uff27\uff49\uff55\uff4c\uff49\uff41", 409, "name_taken"),  # full-width: NFKC
            ("G\u0456u\u217c\u0456a", 409, "name_look_alike"),  # and a Roman numeral fifty
            ("Giu\u200blia", 400, "bad_name"),
            ("\u200b", 400, "blank_name"),
            ("\u3164\u3164", 400, "blank_name"),  # Hangul fillers
        ]:
            answer = httpx.post(
                f"{server.url}/api/account/signup", json={"name": name, "password": "12345678"}
            )
            assert (answer.status_code, answer.json()["code"]) == (status, code), name
        # A name in full-width letters is kept in its plain form.
        marco = httpx.post(
            f"{server.url}/api/account/signup",
            json={"name": "\uff2d\uff41\uff52\uff43\uff4f", "password": "12345678"},
        )
        assert marco.status_code == 200 and marco.json()["user"]["name"] == "Marco"
        # ...and logs in by either.
        wide = httpx.post(
            f"{server.url}/api/account/login",
            json={"name": "\uff2d\uff41\uff52\uff43\uff4f", "password": "12345678"},
        )
        assert wide.status_code == 200 and wide.json()["user"]["name"] == "Marco"
        # A guest may not sit under a registered name or a look-alike of it.
        for name in (
            "Giulia",
            "G\u0456ulia",
            "\uff27\uff49\uff55\uff4c\uff49\uff41",
            "Giu\u200blia",
        ):
            made = httpx.post(f"{server.url}/api/tables", json={"name": name})
            assert made.status_code == 409 and made.json()["code"] == "name_look_alike", name
            assert made.json()["params"] == {"name": "Giulia"}
        table = new_table(giulia)
        join = httpx.post(
            f"{server.url}/api/tables/{table['table']}/join", json={"name": "G\u0456ulia"}
        )
        assert join.status_code == 409 and join.json()["code"] == "name_look_alike"
        quick = httpx.post(
            f"{server.url}/api/quick",
            json={"variant": "italian", "players": 2, "name": "G\u0456ulia"},
        )
        assert quick.status_code == 409 and quick.json()["code"] == "name_look_alike"
        # Nor under a name that shows nothing.
        blank = httpx.post(f"{server.url}/api/tables", json={"name": "\u200b"})
        assert blank.status_code == 422
        # Other guests' names are as free as before.
        guest = httpx.post(f"{server.url}/api/tables", json={"name": "Giulia Rossi"})
        assert guest.status_code == 200
        assert giulia.get("/api/me").json()["user"]["name"] == "Giulia"


@pytest.mark.parametrize(
    ("registered", "look_alike"),
    [("Giulia", "GiuIia"), ("Owner1", "0wner1"), ("Owner1", "OwnerI")],
)
def test_a_capital_i_or_a_zero_is_a_look_alike_as_account_bot_and_guest(
    db: str, registered: str, look_alike: str
) -> None:
    """Issue 32: "GiuIia" (capital I), "0wner1" and "OwnerI" passed beside Giulia and
    Owner1, the case folded before the confusables (I became i, and looked like l no
    more): each is refused as an account, a bot account and a guest's name."""
    with RoomServer(db) as server:
        sign_up(server, registered)
        account = httpx.post(
            f"{server.url}/api/account/signup", json={"name": look_alike, "password": "12345678"}
        )
        assert (account.status_code, account.json()["code"]) == (409, "name_look_alike")
        assert account.json()["params"] == {"name": registered}
        maker = sign_up(server, "Tecla")
        bot = maker.post("/api/account/bots", json={"name": look_alike})
        assert (bot.status_code, bot.json()["code"]) == (409, "name_look_alike")
        guest = httpx.post(f"{server.url}/api/tables", json={"name": look_alike})
        assert (guest.status_code, guest.json()["code"]) == (409, "name_look_alike")
        # The name the look-alike copies was what made them look alike: alone, it is free.
        assert maker.post("/api/account/bots", json={"name": look_alike + "x"}).status_code == 200


def test_another_accounts_session_cannot_act_for_a_seat(db: str) -> None:
    with RoomServer(db) as server:
        anna, bruno = sign_up(server, "Anna"), sign_up(server, "Bruno")
        table = new_table(anna, rated=True)
        assert table["seat"] == 0
        seat_url = f"{server.ws_url}/ws/{table['table']}?token={table['token']}"
        bare_url = f"{server.ws_url}/ws/{table['table']}"

        async def check() -> None:
            mine = await first_message(seat_url, Cookie=cookie_header(anna))
            assert mine["type"] == "state" and mine["seat"] == 0
            # Anna's token in Bruno's session, or in no session: refused.
            for headers in ({"Cookie": cookie_header(bruno)}, {}):
                refused = await first_message(seat_url, **headers)
                assert refused["type"] == "error" and refused["code"] == "forbidden"
            # Anna's session alone opens her seat from a page of the room...
            by_session = await first_message(
                bare_url, Cookie=cookie_header(anna), Origin=server.url
            )
            assert by_session["type"] == "state" and by_session["seat"] == 0
            # ...never from another site's page, which the browser would send the cookie from.
            elsewhere = await first_message(
                bare_url, Cookie=cookie_header(anna), Origin="https://evil.example"
            )
            assert elsewhere["type"] == "error"
            # The creator's session starts the match without the token; Bruno's may not.
            not_his = bruno.post(f"/api/tables/{table['table']}/start", json={})
            assert not_his.status_code == 403
            assert (
                httpx.post(
                    f"{server.url}/api/tables/{table['table']}/start",
                    json={"token": table["token"]},
                ).status_code
                == 403
            )  # the token without Anna's session
            # Bruno's session holds no seat there.
            none = await first_message(bare_url, Cookie=cookie_header(bruno), Origin=server.url)
            assert none["type"] == "error"

        asyncio.run(check())
        started = anna.post(f"/api/tables/{table['table']}/start", json={})
        assert started.status_code == 200 and started.json()["status"] == "playing"


def test_rated_tables_are_for_registered_players(db: str) -> None:
    with RoomServer(db) as server:
        guest = httpx.post(f"{server.url}/api/tables", json={"name": "Ospite", "rated": True})
        assert guest.status_code == 403 and guest.json()["code"] == "forbidden"
        anna = sign_up(server, "Anna")
        table = new_table(anna, rated=True, name="whatever")
        info = httpx.get(f"{server.url}/api/tables/{table['table']}").json()
        # A registered player sits under the account's name, whatever the form said.
        assert info["seats"][0]["name"] == "Anna"
        join = httpx.post(f"{server.url}/api/tables/{table['table']}/join", json={"name": "Ospite"})
        assert join.status_code == 403
        twice = anna.post(f"/api/tables/{table['table']}/join", json={"name": "Anna"})
        assert twice.status_code == 409
        bruno = sign_up(server, "Bruno")
        assert (
            bruno.post(f"/api/tables/{table['table']}/join", json={"name": "B"}).status_code == 200
        )
        seats = Store(db, migrate=False).seats(table["table"])
        assert [s.user_id is not None for s in seats] == [True, True]
        mine = bruno.get("/api/me/tables").json()["tables"]
        assert [t["table"] for t in mine] == [table["table"]]


def test_a_new_password_ends_the_other_sessions(db: str) -> None:
    with RoomServer(db) as server:
        here = sign_up(server, "Carla", "primo segreto")
        there = httpx.Client(base_url=server.url)
        there.post("/api/account/login", json={"name": "carla", "password": "primo segreto"})
        assert there.get("/api/me").json()["user"]["name"] == "Carla"
        wrong = here.post(
            "/api/account/password",
            json={"old_password": "sbagliato", "new_password": "secondo segreto"},
        )
        assert wrong.status_code == 401
        changed = here.post(
            "/api/account/password",
            json={"old_password": "primo segreto", "new_password": "secondo segreto"},
        )
        assert changed.status_code == 200
        assert here.get("/api/me").json()["user"]["name"] == "Carla"
        assert there.get("/api/me").json()["user"] is None
        old = httpx.post(
            f"{server.url}/api/account/login", json={"name": "carla", "password": "primo segreto"}
        )
        assert old.status_code == 401
        language = here.post("/api/account/language", json={"language": "pt"})
        assert language.json()["user"]["language"] == "pt"


def test_an_operator_resets_a_forgotten_password(db: str) -> None:
    """No e-mail, so no reset link: ``burraco password NAME`` sets a new one and ends the
    account's sessions."""
    from typer.testing import CliRunner

    from burraco.cli import app

    with RoomServer(db) as server:
        client = sign_up(server, "Dario", "dimenticata")
        runner = CliRunner()
        done = runner.invoke(
            app, ["password", "dario", "--database-url", db], input="nuova bella\n"
        )
        assert done.exit_code == 0, done.output
        assert client.get("/api/me").json()["user"] is None
        login = httpx.post(
            f"{server.url}/api/account/login", json={"name": "Dario", "password": "nuova bella"}
        )
        assert login.status_code == 200
        short = runner.invoke(app, ["password", "dario", "--database-url", db], input="corta\n")
        nobody = runner.invoke(app, ["password", "nessuno", "--database-url", db], input="x\n")
        assert short.exit_code == nobody.exit_code == 2


def test_passwords_are_hashed_at_a_lower_priority_than_the_room() -> None:
    """On a core shared with the event loop, a hash gives way to the tables."""
    hashing = Hashing(threads=1, queue=1)
    try:
        here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        there = asyncio.run(
            hashing.run(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        )
    finally:
        hashing.close()
    assert there == min(19, here + HASH_NICENESS)
