"""Accounts: sign up, log in, log out, change the password; sessions and CSRF.

A player may stay a guest (a name at a table, as always) or register a name and a
password; no e-mail is asked, so a club's room works offline. Passwords are hashed with
Argon2 (``pwdlib``). A session is a random secret in an HTTP-only, SameSite=Lax cookie;
the database keeps only its sha256, with the session's CSRF token, which every
state-changing request made with the cookie must echo in the ``X-CSRF-Token`` header
(a page of another site can send the cookie, never read the token).

>>> from burraco.server.limits import Limits
>>> accounts = Accounts(Store("sqlite://"), Rates(Limits()))
>>> anna = accounts.sign_up("Anna", "cuori e picche", "it")
>>> anna.name, anna.language, anna.password_hash.startswith("$argon2id$")
('Anna', 'it', True)
>>> accounts.check_password("anna", "cuori e picche").id == anna.id
True
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from burraco.server.limits import Rates
from burraco.server.room import RoomError
from burraco.storage import NameTaken, SessionRow, Store, UserRow

__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "LANGUAGES",
    "RESERVED_NAMES",
    "Accounts",
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


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def check_name(name: str) -> str:
    """An account's name as given, or a :class:`RoomError` naming the rule it breaks.

    >>> check_name("Giulia_R")
    'Giulia_R'
    >>> check_name("greedy")
    Traceback (most recent call last):
    ...
    burraco.server.room.RoomError: the name 'greedy' is kept for the room's own players
    """
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
    """The room's password hasher: Argon2 with pwdlib's parameters."""
    return PasswordHash((Argon2Hasher(),))


@dataclass(frozen=True, slots=True)
class Opened:
    """A session just opened: the cookie's secret (given once), and its row."""

    secret: str
    session: SessionRow
    user: UserRow


class Accounts:
    """The room's accounts over its store; login attempts are counted in ``rates``."""

    def __init__(self, store: Store, rates: Rates) -> None:
        self.store = store
        self.rates = rates
        self.hasher = hasher()
        # Verified when a name has no account, so that a wrong name costs as long as a
        # wrong password and the time of an answer does not tell which names exist.
        self._decoy = self.hasher.hash(secrets.token_urlsafe(16))

    def sign_up(self, name: str, password: str, language: str = "en") -> UserRow:
        """A new account; a :class:`RoomError` if the name or password breaks a rule or the
        name is taken."""
        check_name(name)
        check_password(password)
        if language not in LANGUAGES:
            language = "en"
        try:
            return self.store.create_user(name, self.hasher.hash(password), "person", language)
        except NameTaken as error:
            raise RoomError(
                "name_taken", f"the name {name!r} is taken: choose another", 409
            ) from error

    def check_password(self, name: str, password: str) -> UserRow:
        """The person whose name and password these are, or a 401 :class:`RoomError` that
        does not say which of the two was wrong."""
        user = self.store.user_by_name(name) if len(name) <= 64 else None
        if user is None or user.kind != "person" or not user.password_hash:
            self.hasher.verify(password[:PASSWORD_MAX], self._decoy)
            raise _bad_login()
        valid, updated = self.hasher.verify_and_update(password[:PASSWORD_MAX], user.password_hash)
        if not valid:
            raise _bad_login()
        if updated is not None:
            # Stronger parameters since the hash was made: keep the new hash.
            self.store.update_user(user.id, password_hash=updated)
        return user

    def log_in(self, name: str, password: str, address: str) -> Opened:
        """Check a login (counted per address and per name) and open a session."""
        counted(self.rates, "log_in", address, " from your address")
        counted(self.rates, "log_in_name", name.casefold()[:64], " for this name")
        return self.open_session(self.check_password(name, password))

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

    def log_out(self, session: SessionRow) -> None:
        self.store.delete_session(session.id_hash)

    def change_password(
        self, user: UserRow, session: SessionRow, old: str, new: str, address: str
    ) -> None:
        """A new password, once the old one is given; every other session of the account
        ends (a stolen cookie stops working with the old password)."""
        counted(self.rates, "log_in_name", user.name_key, " for this name")
        self.check_password(user.name, old)
        check_password(new)
        self.store.update_user(user.id, password_hash=self.hasher.hash(new))
        self.store.delete_sessions(user.id, keep=session.id_hash)

    def set_language(self, user: UserRow, language: str) -> None:
        if language not in LANGUAGES:
            raise RoomError(
                "bad_message", f"the languages are {', '.join(LANGUAGES)}, not {language[:8]!r}"
            )
        self.store.update_user(user.id, language=language)


def counted(rates: Rates, kind: str, key: str, whose: str = "") -> None:
    """Count one request of ``kind`` for ``key`` (an address, a name); past its rate, a
    429 :class:`RoomError` that says how long to wait."""
    wait = rates.hit(kind, key)
    if wait is not None:
        raise RoomError(
            "too_many",
            f"too many {rates.what(kind)}{whose}: try again in {wait:.0f} s",
            429,
            retry_after=wait,
            params={"seconds": round(wait)},
        )


def _bad_login() -> RoomError:
    return RoomError("bad_login", "wrong name or password", 401)


def user_of(conn: HTTPConnection) -> UserRow | None:
    """The logged-in account of a request or a WebSocket (None: a guest)."""
    user = conn.scope.get("state", {}).get("user")
    return user if isinstance(user, UserRow) else None


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
    CSRF token (403, code ``csrf``). Pages and static files are not looked up."""

    def __init__(self, app: ASGIApp, accounts: Accounts) -> None:
        self.app = app
        self.accounts = accounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith(
            ("/api/", "/ws/")
        ):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        state = scope.setdefault("state", {})
        state["user"] = state["session"] = None
        secret = conn.cookies.get(COOKIE, "")
        found = self.accounts.session_of(secret) if secret else None
        if found is not None:
            state["user"], state["session"] = found
            if scope["type"] == "http" and scope["method"] in _UNSAFE:
                given = conn.headers.get(CSRF_HEADER, "")
                if not secrets.compare_digest(given.encode(), found[1].csrf.encode()):
                    await _refuse_csrf(send)
                    return
        await self.app(scope, receive, send)


async def _refuse_csrf(send: Send) -> None:
    body = (
        b'{"detail":"this request needs the page\'s CSRF token (the X-CSRF-Token header): '
        b'reload the page","code":"csrf"}'
    )
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def same_origin(conn: HTTPConnection) -> bool:
    """Whether a WebSocket comes from a page of this room (its Origin is this host): a
    socket that acts by its session alone must, or any site could open it with the cookie."""
    origin = conn.headers.get("origin", "")
    host = conn.headers.get("host", "")
    return bool(host) and origin.split("://", 1)[-1] == host
