"""How the room answers a request it refuses: one JSON body for every route, a 404 page.

Under ``/api`` a refusal is ``{"detail", "code"}`` (with the broken rule's ``rule`` and
``params`` when a rule refused it, a ``Retry-After`` header when it may be asked again
later); a body that does not validate says what is wrong and where, never echoing the
input; a database that does not answer is a 503. A page's address that leads nowhere is
the 404 page in the reader's language (server/routes/pages.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from burraco.server.room import UNAVAILABLE, RoomError
from burraco.server.routes.pages import not_found
from burraco.server.routes.shells import is_page_request
from burraco.storage.store import StorageUnavailable

__all__ = ["answer_errors", "printable"]


def answer_errors(app: FastAPI) -> None:
    """Give ``app`` the room's answers to what it refuses."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if error.status_code == 404 and is_page_request(request.method, request.url.path):
            return not_found(request)
        return await http_exception_handler(request, error)

    @app.exception_handler(RoomError)
    async def room_error(request: Request, error: RoomError) -> Response:
        if error.status == 404 and is_page_request(request.method, request.url.path):
            return not_found(request)
        headers = {"Retry-After": f"{error.retry_after:.0f}"} if error.retry_after else None
        body: dict[str, Any] = {"detail": error.message, "code": error.code}
        # A rule refused (the engine's, a tournament's) comes with its params, even none.
        if error.rule is not None:
            body["rule"] = error.rule
        if error.params or error.rule is not None:
            body["params"] = error.params
        return JSONResponse(body, error.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Any, error: RequestValidationError) -> JSONResponse:
        # Say what is wrong and where, never echo the input: it may not even be
        # encodable (a lone surrogate) or JSON (1e999 read as infinity).
        problems: list[dict[str, Any]] = [
            {"loc": [printable(x) for x in e.get("loc", ())], "msg": printable(e.get("msg"))}
            for e in error.errors()
        ]
        detail = "; ".join(
            f"{'.'.join(str(x) for x in p['loc'][1:]) or 'the body'}: {p['msg']}" for p in problems
        )
        return JSONResponse({"detail": detail, "code": "bad_message", "problems": problems}, 422)

    @app.exception_handler(StorageUnavailable)
    async def storage_unavailable(_: Any, error: StorageUnavailable) -> JSONResponse:
        return JSONResponse({"detail": UNAVAILABLE, "code": "unavailable"}, 503)


def printable(value: object) -> object:
    """``value`` as JSON can carry it: text with unpaired surrogates escaped."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value if isinstance(value, int) else str(value)
