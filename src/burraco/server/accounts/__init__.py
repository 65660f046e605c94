"""Who plays: people's accounts (``people``: sign-up, log-in, sessions and CSRF), their names
made plain and checked for look-alikes (``names``), a person's bot accounts (``bots``) and
the HTTP faces of both (``api``, ``bot_api``). It may import the room, the door (limits,
capacity, the guard), ``table.errors`` and, in its routers, ``routes.shells``; quick play,
results, the desk and the routers build on it, never the other way round.
"""
