"""The web room: a FastAPI server that referees tables of people and bots.

On this top floor stand ``app`` (it wires everything; only the command line imports it),
``room`` (the live tables of one process, whose parts are in ``table/``) and the table's
shared vocabulary, which the parts, the routers and the cluster all speak: ``messages``
(what the server says, as JSON), ``watching`` (a spectator's outbox), ``chat`` (what a
message may hold) and ``absence`` (who played a seat). The rest is grouped by concern,
one folder each, its ``__init__`` saying what lives there and what it may import:
``table/`` (a live table's parts), ``desk/`` (tournaments), ``accounts/`` (who plays),
``quick/`` (quick play), ``results/`` (results, ratings, leaderboards, fair play,
moderation), ``door/`` (what comes in and how much), ``process/`` (the process's life and
its worker pools), ``cluster/`` (several processes behind one address) and ``routes/``
(the HTTP and WebSocket routers and the pages). docs/architecture.md says where to change
what; tests/test_server_floors.py keeps the floors.
"""
