"""Several server processes behind one address, with Redis (docs/cluster.md), one module
per job, lowest first: ``wire`` (the Redis client, the keys and channels the processes
share), ``nodes`` (which processes live), ``leases`` (which process owns a table: claims,
renewals, a cluster-wide lock), ``forwarded`` (the operations a route asks of a table's
owner, run here or forwarded to its process), ``owners`` (a table's living owner and the
takeover of a dead process's tables), ``calls`` (an operation run on another process),
``relays`` (a socket here relayed to its table's owner), ``relayed`` (the owner's side of
such a socket) and ``processes`` (``Cluster``, which builds them and reads every channel
through one subscription). Each imports only those before it; the cluster may import the
room, ``messages``, ``watching``, ``process.background`` and ``table.errors``; the desk and
the routers name it for types, and it never reaches back into ``app``.
"""
