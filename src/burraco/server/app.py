"""The HTTP and WebSocket face of the room (docs/protocol.md).

>>> app = create_app("sqlite://", bot_delay=0)
>>> sorted(r.path for r in app.routes if r.path.startswith("/api"))[:3]
['/api/tables', '/api/tables', '/api/tables/{table_id}']
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from burraco.server.cluster import Cluster
from burraco.server.room import Room, RoomError, presets
from burraco.storage import Store

__all__ = ["create_app"]

WEB = Path(__file__).resolve().parent.parent / "web"


class CreateTable(BaseModel):
    variant: Literal["italian", "online", "buraco", "canasta"] = "italian"
    players: int = Field(2, ge=2, le=6)
    lines: int | None = Field(None, ge=2, le=6)
    deals: int | None = Field(None, ge=1, le=50)
    target: int | None = Field(None, ge=100, le=100000)
    move_seconds: int = Field(40, ge=0, le=3600)
    bot: Literal["random", "greedy", "expert"] = "greedy"
    open_hands: bool = False
    takeover: bool = True
    name: str = Field(..., min_length=1, max_length=40)


class JoinTable(BaseModel):
    name: str = Field(..., min_length=1, max_length=40)
    seat: int | None = Field(None, ge=0, le=5)


class StartTable(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)


def _seat_answer(table_id: str, seat: int, token: str) -> dict[str, Any]:
    return {"table": table_id, "seat": seat, "token": token, "url": f"/table/{table_id}"}


def create_app(
    database_url: str = "sqlite:///burraco.db",
    *,
    bot_delay: float = 0.6,
    hint_seconds: float = 0.5,
    expert_seconds: float = 1.0,
    redis_url: str | None = None,
    node: str | None = None,
) -> FastAPI:
    """The web room's application over one database; with ``redis_url``, one process of
    a cluster (docs/cluster.md)."""
    store = Store(database_url)
    room = Room(
        store, bot_delay=bot_delay, hint_seconds=hint_seconds, expert_seconds=expert_seconds
    )
    cluster = Cluster(room, redis_url, node) if redis_url else None

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if cluster is None:
            await room.startup()
        else:
            await cluster.start()
        yield
        if cluster is not None:
            await cluster.stop()
        await room.shutdown()

    async def on_owner(table_id: str, op: str, body: dict[str, Any]) -> Any:
        if cluster is None:
            return await _local(room, op, table_id, body)
        return await cluster.call(table_id, op, body)

    app = FastAPI(title="Burraco", lifespan=lifespan)
    app.state.room = room

    @app.exception_handler(RoomError)
    async def room_error(_: Any, error: RoomError) -> JSONResponse:
        return JSONResponse({"detail": error.message, "code": error.code}, error.status)

    @app.post("/api/tables")
    async def create(body: CreateTable) -> dict[str, Any]:
        request = body.model_dump()
        if request["lines"] is None:
            request.pop("lines")
        table, seat, token = room.create(request)
        if cluster is not None:
            await cluster.claim(table.id)
        return _seat_answer(table.id, seat, token)

    @app.get("/api/tables")
    async def tables() -> dict[str, Any]:
        if cluster is None:
            return {"tables": room.open_tables()}
        listed = []
        for row in store.tables():
            if row.id in cluster.owned:
                listed.append(room.table(row.id).info())
            elif (info := room.light_info(row.id)) is not None:
                listed.append(info)
        return {"tables": listed}

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return presets()

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "info", {}))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: JoinTable) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "join", body.model_dump()))

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, body: StartTable) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "start", {"token": body.token}))

    @app.get("/api/tables/{table_id}/record", response_class=PlainTextResponse)
    async def record(table_id: str) -> PlainTextResponse:
        _exists(table_id)
        text = str(await on_owner(table_id, "record", {}))
        headers = {"Content-Disposition": f'attachment; filename="burraco-{table_id}.txt"'}
        return PlainTextResponse(text, headers=headers)

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str) -> dict[str, Any]:
        _exists(table_id)
        return dict(await on_owner(table_id, "replay", {}))

    def _exists(table_id: str) -> None:
        if table_id not in room.tables and store.table(table_id) is None:
            raise RoomError("not_found", f"no table {table_id!r}", 404)

    @app.websocket("/ws/{table_id}")
    async def play(socket: WebSocket, table_id: str) -> None:
        await socket.accept()
        token = socket.query_params.get("token", "")
        known = cluster is not None and store.table(table_id) is not None
        if cluster is not None and known and await cluster.owner(table_id) != cluster.node:
            # Another process holds the table: carry this socket there and back.
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await cluster.relay(table_id, token, socket.send_json, socket.receive_text)
            return
        try:
            table = room.table(table_id)
            seat = room.seat_of(table, token)
        except RoomError as error:
            await socket.send_json({"type": "error", "code": "forbidden", "message": error.message})
            await socket.close(code=4403)
            return

        async def send(message: dict[str, Any]) -> None:
            await socket.send_text(json.dumps(message))

        await room.connect(table, seat, send)
        try:
            while True:
                raw = await socket.receive_text()
                await room.message(table, seat, send, raw)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the player closed the page or lost the connection
        finally:
            await room.disconnect(table, seat, send)

    if WEB.is_dir():
        app.mount("/static", StaticFiles(directory=WEB), name="static")

    def page(name: str) -> FileResponse:
        path = WEB / name
        if not path.is_file():
            raise HTTPException(404, f"no page {name}")
        return FileResponse(path)

    @app.get("/", include_in_schema=False)
    async def lobby() -> FileResponse:
        return page("index.html")

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        room.table(table_id)
        return page("table.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        room.table(table_id)
        return page("replay.html")

    return app


async def _local(room: Room, op: str, table_id: str, body: dict[str, Any]) -> Any:
    if op == "info":
        return room.table(table_id).info()
    if op == "join":
        table, seat, token = await room.join(table_id, body)
        return _seat_answer(table.id, seat, token)
    if op == "start":
        return (await room.start(table_id, body["token"])).info()
    if op == "record":
        return room.record(table_id)
    if op == "replay":
        return room.replay(table_id)
    raise RoomError("bad_message", f"unknown operation {op!r}")
