"""The process's life and its worker pools: the background tasks and how each ends
(``background``), the garbage collector's schedule (``collector``), the stop within its
bound on SIGTERM (``stopping``), the thinking processes where expert bots and hints search
(``thinking``) and the reviews' pool (``reviews``). It imports nothing of the server but
``table.errors`` (and ``door.capacity`` for types): the room, the door, the cluster and
quick play build on it.
"""
