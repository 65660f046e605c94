"""Several server processes behind one address, with Redis (docs/cluster.md): table
ownership, calls between processes and relayed sockets (``processes``), and the
operations a route asks of a table's owner, run here or forwarded to its process
(``forwarded``). It may import the room, ``watching``, ``process.background`` and
``table.errors``; the desk and the routers name it for types, and it never reaches back
into ``app``.
"""
