"""The HTTP and WebSocket routers and the pages: the tables (``tables``), the sockets' seat
and spectator loops (``sockets``), the pages (``pages``, their files and the 404 page in
``shells``), the reviews (``reviews``) and the one answer to a refused request
(``errors``). Each router has its ``routes(...)`` and ``app`` wires them; the routers of the
other folders (``accounts.api``, ``quick.api``, ``results.players``, ``desk.api``, ...)
stand on the same floor. It may import anything of the server but ``app``; below it only
the other routers import it (tests/test_server_floors.py).
"""
