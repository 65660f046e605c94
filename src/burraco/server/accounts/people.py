"""Accounts: sign up, log in, log out, change the password; sessions and CSRF.

A player may stay a guest (a name at a table, as always) or register a name and a
password; no e-mail is asked, so a club's room works offline. Passwords are hashed with
Argon2 (``pwdlib``). A session is a random secret in an HTTP-only, SameSite=Lax cookie;
the database keeps only its sha256, with the session's CSRF token, which every
state-changing request made with the cookie must echo in the ``X-CSRF-Token`` header
(a page of another site can send the cookie, never read the token).

A hash takes tens of milliseconds of a core, so it runs in a small thread pool
(:class:`Hashing`; argon2-cffi lets go of the GIL) and never on the event loop that
serves every table; a storm of logins waits in its bounded queue, and past it is told
"busy". Wrong passwords lock one (address, name) pair at a time (limits.Lockout).

>>> import asyncio
>>> from burraco.server.door.limits import Limits
>>> accounts = Accounts(Store("sqlite://"), Rates(Limits()))
>>> anna = asyncio.run(accounts.sign_up("Anna", "cuori e picche", "it"))
>>> anna.name, anna.language, anna.password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
('Anna', 'it', True)
>>> asyncio.run(accounts.check_password("anna", "cuori e picche")).id == anna.id
True
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from burraco.server.accounts.names import NameIndex, invisible, normal
from burraco.server.door.capacity import Capacity
from burraco.server.door.guard import refuse
from burraco.server.door.limits import Lockout, Rates
from burraco.server.room import RoomError
from burraco.storage import NameTaken, SessionRow, Store, UserRow
from burraco.storage.store import name_key

__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "LANGUAGES",
    "RESERVED_NAMES",
    "Accounts",
    "Hashing",
    "Sessions",
    "user_of",
]

#: The session cookie's name, and the header that carries the CSRF token.
COOKIE = "burraco_session"
CSRF_HEADER = "x-csrf-token"
#: How long a session lasts without logging in again.
SESSION_DAYS = 30
LANGUAGES = ("en", "it", "pt")
#: The bot levels' own accounts (their ratings): no person may take these names.
RESERVED_NAMES = frozenset({"random", "greedy", "expert", "learned", "bot", "spectator", "admin"})
#: A name in an address (/player/Anna): letters and digits of any script, and . _ - inside.
_NAME = re.compile(r"^[^\W_](?:[\w.\-]{0,22}[^\W_])?$")
PASSWORD_MIN, PASSWORD_MAX = 8, 128
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Argon2id as OWASP's Password Storage Cheat Sheet recommends it (19 MiB, 2 passes, one
#: lane): about 40 ms of one core a hash (bench/hashing.py, docs/operating.md), where
#: pwdlib's defaults (64 MiB, 3 passes, 4 lanes) took 140-330 ms of all cores. Hashes made
#: with those still verify, and are made again with these at the next login.
MEMORY_KIB, PASSES, LANES = 19456, 2, 1

T = TypeVar("T")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_name(name: str) -> str:
    """An account's name in the form it is kept (NFKC: full-width letters made plain), or
    a :class:`RoomError` naming the rule it breaks.

    >>> check_name("Giulia_R"), check_name("Ｇｉｕｌｉａ")
    ('Giulia_R', 'Giulia')
    >>> check_name("greedy")
    Traceback (most recent call last):
    ...
    burraco.server.table.errors.RoomError: the name 'greedy' is kept for the room's own players
    """
    name = normal(name)
    if invisible(name):
        raise RoomError("blank_name", "a name needs at least one visible letter")
    if not 2 <= len(name) <= 24 or not _NAME.match(name):
        raise RoomError(
            "bad_name",
            "an account's name has 2 to 24 letters or digits (with . _ - inside), no spaces",
        )
    if name.casefold() in RESERVED_NAMES:
        raise RoomError(
            "bad_name", f"the name {name!r} is kept for the room's own players", params={}
        )
    return name


def check_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise RoomError(
            "bad_password",
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            params={"min": PASSWORD_MIN, "max": PASSWORD_MAX},
        )
    return password


def hasher() -> PasswordHash:
    """The room's password hasher: Argon2id with OWASP's parameters; an older Argon2
    hash verifies and is flagged for rehashing."""
    return PasswordHash(
        (Argon2Hasher(time_cost=PASSES, memory_cost=MEMORY_KIB, parallelism=LANES),)
    )


#: How much nicer than the room a hashing thread runs (as the search workers do).
HASH_NICENESS = 10


def _lower_priority() -> None:
    """Make this thread (Linux lets each thread have its own niceness) give way to the
    event loop when both want one core: a login may wait, the tables may not."""
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        os.setpriority(
            os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + HASH_NICENESS
        )


def look_alike_error(name: str, registered: str) -> RoomError:
    return RoomError(
        "name_look_alike",
        f"the name {name!r} looks like {registered!r}, a registered player's: choose another",
        409,
        params={"name": registered},
    )


class Hashing:
    """Password hashes off the event loop: ``threads`` run at once, ``queue`` more may
    wait; past that a :class:`RoomError` 503 ``busy`` with a Retry-After, at once (a login
    storm is told to come back, it does not slow the tables)."""

    def __init__(self, threads: int, queue: int) -> None:
        self.threads = max(1, threads)
        self.queue = max(0, queue)
        self._pool = ThreadPoolExecutor(
            self.threads, thread_name_prefix="argon2", initializer=_lower_priority
        )
        #: Hashes running or waiting; touched from the event loop only.
        self.pending = 0
        #: Seconds the latest hashes took in their thread, not counting their wait (a
        #: moving mean), for Retry-After.
        self.seconds = 0.05

    def admit(self) -> None:
        """Nothing, or the 503 ``busy`` that :meth:`run` would raise now."""
        if self.pending >= self.threads + self.queue:
            wait = max(1, math.ceil(self.pending * self.seconds / self.threads))
            raise RoomError(
                "busy",
                f"the room is checking many passwords: try again in {wait} s",
                503,
                retry_after=wait,
                params={"seconds": wait},
            )

    async def run(self, work: Callable[[], T]) -> T:
        self.admit()
        loop = asyncio.get_running_loop()
        self.pending += 1
        took = [self.seconds]

        def timed() -> T:
            started = time.perf_counter()
            try:
                return work()
            finally:
                took[0] = time.perf_counter() - started

        def done(_: object) -> None:
            # When the hash ends, not when its request goes (a client that hangs up does
            # not free a place its hash still holds).
            self.pending -= 1
            self.seconds = 0.8 * self.seconds + 0.2 * took[0]

        future = loop.run_in_executor(self._pool, timed)
        future.add_done_callback(done)
        return await asyncio.shield(future)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True, slots=True)
class Opened:
    """A session just opened: the cookie's secret (given once), and its row."""

    secret: str
    session: SessionRow
    user: UserRow


class Accounts:
    """The room's accounts over its store; login attempts are counted in ``rates`` and
    wrong passwords in a :class:`~burraco.server.door.limits.Lockout`; hashes run in a
    :class:`Hashing` pool sized by ``capacity``."""

    def __init__(self, store: Store, rates: Rates, capacity: Capacity | None = None) -> None:
        capacity = capacity or Capacity()
        self.store = store
        self.rates = rates
        self.hasher = hasher()
        self.hashing = Hashing(capacity.hash_threads, capacity.hash_queue)
        self.lockout = Lockout(rates.limits)
        self.names = NameIndex(store)
        # Read every registered name now, before the room listens, not at the first
        # sign-up while tables wait.
        self.names.refresh()
        # Verified when a name has no account, so that a wrong name costs as long as a
        # wrong password and the time of an answer does not tell which names exist.
        self._decoy = self.hasher.hash(secrets.token_urlsafe(16))

    def check_new_name(self, name: str) -> str:
        """A new account's name in its kept form, or why it may not be one: a rule broken,
        or a look-alike of a registered name (the same name in another case, width or
        script: 409)."""
        name = check_name(name)
        registered = self.names.look_alike(name)
        if registered is not None:
            if registered.casefold() == name.casefold():
                raise _taken(name)
            raise look_alike_error(name, registered)
        return name

    def check_guest_name(self, name: str) -> None:
        """A guest may not sit under a registered person's name or a look-alike of it."""
        registered = self.names.look_alike(name)
        if registered is not None:
            raise look_alike_error(name, registered)

    async def sign_up(self, name: str, password: str, language: str = "en") -> UserRow:
        """A new account; a :class:`RoomError` if the name or password breaks a rule or the
        name (or a look-alike of it) is taken."""
        name = self.check_new_name(name)
        check_password(password)
        if language not in LANGUAGES:
            language = "en"
        hashed = await self.hashing.run(lambda: self.hasher.hash(password))
        # Again: another sign-up may have taken a look-alike while this one hashed (no
        # await from here to the insert, so none can slip in between in this process).
        name = self.check_new_name(name)
        try:
            user = self.store.create_user(name, hashed, "person", language)
        except NameTaken as error:
            raise _taken(name) from error
        self.names.refresh()
        return user

    async def check_password(self, name: str, password: str) -> UserRow:
        """The person whose name and password these are, or a 401 :class:`RoomError` that
        does not say which of the two was wrong."""
        name = normal(name)
        password = password[:PASSWORD_MAX]
        user = self.store.user_by_name(name) if len(name) <= 64 else None
        if user is None or user.kind != "person" or not user.password_hash:
            await self.hashing.run(lambda: self.hasher.verify(password, self._decoy))
            raise _bad_login()
        stored = user.password_hash
        valid, updated = await self.hashing.run(
            lambda: self.hasher.verify_and_update(password, stored)
        )
        if not valid:
            raise _bad_login()
        if user.role == "banned":
            # Said only to the one who knows the password (server/results/moderation.py).
            raise RoomError("banned", "this account is banned by the room's moderators", 403)
        if updated is not None:
            # Stronger parameters since the hash was made: keep the new hash.
            self.store.update_user(user.id, password_hash=updated)
        return user

    async def log_in(self, name: str, password: str, address: str) -> Opened:
        """Check a login (counted per address; wrong passwords lock this address for this
        name only) and open a session."""
        # A storm that fills the hash queue is told "busy" before it is counted: the owner
        # who tries again then has not spent a wrong password.
        self.hashing.admit()
        await counted(self.rates, "log_in", address, " from your address")
        # The account's own key (case, width and spaces aside), or a guesser would vary
        # them to start a fresh count.
        key = name_key(normal(name))[:64]
        locked(self.lockout, address, key)
        user = await self.check_password(name, password)
        self.lockout.succeeded(address, key)
        return self.open_session(user)

    def open_session(self, user: UserRow) -> Opened:
        secret = secrets.token_urlsafe(32)
        now = time.time()
        row = SessionRow(
            id_hash=_digest(secret),
            user_id=user.id,
            csrf=secrets.token_urlsafe(24),
            created_at=now,
            expires_at=now + SESSION_DAYS * 86400,
        )
        self.store.create_session(row)
        return Opened(secret, row, user)

    def session_of(self, secret: str) -> tuple[UserRow, SessionRow] | None:
        """The account and session of a cookie's secret, if it is a live session."""
        if not secret or len(secret) > 200:
            return None
        return self.store.session(_digest(secret))

    def bot_of_token(self, token: str) -> UserRow | None:
        """The bot account a live API token opens (docs/bots.md); None if unknown or revoked."""
        if not token or len(token) > 200:
            return None
        bot = self.store.bot_by_token(_digest(token))
        return None if bot is None or bot.role == "banned" else bot

    def log_out(self, session: SessionRow) -> None:
        self.store.delete_session(session.id_hash)

    async def change_password(
        self, user: UserRow, session: SessionRow, old: str, new: str, address: str
    ) -> None:
        """A new password, once the old one is given; every other session of the account
        ends (a stolen cookie stops working with the old password)."""
        self.hashing.admit()
        locked(self.lockout, address, user.name_key)
        await self.check_password(user.name, old)
        self.lockout.succeeded(address, user.name_key)
        check_password(new)
        hashed = await self.hashing.run(lambda: self.hasher.hash(new))
        self.store.update_user(user.id, password_hash=hashed)
        self.store.delete_sessions(user.id, keep=session.id_hash)

    def set_language(self, user: UserRow, language: str) -> None:
        if language not in LANGUAGES:
            raise RoomError(
                "bad_message", f"the languages are {', '.join(LANGUAGES)}, not {language[:8]!r}"
            )
        self.store.update_user(user.id, language=language)


async def counted(rates: Rates, kind: str, key: str, whose: str = "") -> None:
    """Count one request of ``kind`` for ``key`` (an address, a name), across the cluster
    when there is one; past its rate, a 429 :class:`RoomError` that says how long to wait."""
    wait = await rates.hit_anywhere(kind, key)
    if wait is not None:
        raise RoomError(
            "too_many",
            f"too many {rates.what(kind)}{whose}: try again in {wait:.0f} s",
            429,
            retry_after=wait,
            params={"seconds": round(wait)},
        )


def locked(lockout: Lockout, address: str, name: str) -> None:
    """Count one password attempt for ``name`` from ``address``; a 429 :class:`RoomError`
    while that pair must wait after too many wrong ones."""
    wait = lockout.attempt(address, name)
    if wait is not None:
        raise RoomError(
            "login_wait",
            f"too many wrong passwords for this name from your address: try again in {wait:.0f} s",
            429,
            retry_after=wait,
            params={"seconds": math.ceil(wait)},
        )


def _taken(name: str) -> RoomError:
    return RoomError("name_taken", f"the name {name!r} is taken: choose another", 409)


def _bad_login() -> RoomError:
    return RoomError("bad_login", "wrong name or password", 401)


def user_of(conn: HTTPConnection) -> UserRow | None:
    """The logged-in account of a request or a WebSocket (None: a guest)."""
    user = conn.scope.get("state", {}).get("user")
    return user if isinstance(user, UserRow) else None


def by_token(conn: HTTPConnection) -> bool:
    """Whether a request or WebSocket came with a bot's API token (``Authorization:
    Bearer``): its account is a bot's, and no cookie is involved (no CSRF, any origin)."""
    return bool(conn.scope.get("state", {}).get("bearer"))


def session_of(conn: HTTPConnection) -> SessionRow | None:
    """The session of a logged-in request or WebSocket."""
    session = conn.scope.get("state", {}).get("session")
    return session if isinstance(session, SessionRow) else None


def public_user(user: UserRow | None) -> dict[str, Any] | None:
    """What a page may know of an account."""
    if user is None:
        return None
    return {"name": user.name, "kind": user.kind, "language": user.language}


class Sessions:
    """ASGI middleware: finds the account of each API request and WebSocket from its
    cookie, and refuses a state-changing request made with the cookie but without its
    CSRF token (403, code ``csrf``). Pages and static files are not looked up. A bot's
    ``Authorization: Bearer <token>`` opens its account instead of a cookie (no CSRF: a
    browser never sends the header by itself); an unknown or revoked token is refused
    (401 ``bad_token``; a WebSocket hears the error and is closed with 4401)."""

    def __init__(self, app: ASGIApp, accounts: Accounts) -> None:
        self.app = app
        self.accounts = accounts

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing on the next layer's awaitable: a WebSocket's whole life
        # keeps no frame of this layer (what the collector walks, per socket).
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith(
            ("/api/", "/ws/")
        ):
            return self.app(scope, receive, send)
        conn = HTTPConnection(scope)
        state = scope.setdefault("state", {})
        state["user"] = state["session"] = None
        state["bearer"] = False
        authorization = conn.headers.get("authorization", "")
        if authorization[:7].lower() == "bearer ":
            bot = self.accounts.bot_of_token(authorization[7:].strip())
            if bot is None:
                return _refuse_token(scope, receive, send)
            state["user"], state["bearer"] = bot, True
            return self.app(scope, receive, send)
        secret = conn.cookies.get(COOKIE, "")
        found = self.accounts.session_of(secret) if secret else None
        if found is not None:
            state["user"], state["session"] = found
            if scope["type"] == "http" and scope["method"] in _UNSAFE:
                given = conn.headers.get(CSRF_HEADER, "")
                if not secrets.compare_digest(given.encode(), found[1].csrf.encode()):
                    return _refuse_csrf(send)
        return self.app(scope, receive, send)


#: What a request with an unknown or revoked bot token hears.
BAD_TOKEN = "this bot token is unknown or revoked: its person makes a new one on /account"


async def _refuse_token(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        # Accepted, told why, and closed: a program reads the reason, not a bare 403.
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        text = json.dumps({"type": "error", "code": "bad_token", "message": BAD_TOKEN})
        await send({"type": "websocket.send", "text": text})
        await send({"type": "websocket.close", "code": 4401, "reason": "bad token"})
        return
    await refuse(send, 401, "bad_token", BAD_TOKEN, [(b"www-authenticate", b"Bearer")])


async def _refuse_csrf(send: Send) -> None:
    detail = "this request needs the page's CSRF token (the X-CSRF-Token header): reload the page"
    await refuse(send, 403, "csrf", detail)


def same_origin(conn: HTTPConnection) -> bool:
    """Whether a WebSocket comes from a page of this room (its Origin is this host): a
    socket that acts by its session alone must, or any site could open it with the cookie."""
    origin = conn.headers.get("origin", "")
    host = conn.headers.get("host", "")
    return bool(host) and origin.split("://", 1)[-1] == host
