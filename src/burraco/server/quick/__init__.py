"""Quick play: one button, a table of players of similar rating, bots after a wait. ``play``
holds the matcher and one process's queue, ``redis_queue`` the same queue in Redis for a
cluster (docs/cluster.md), ``api`` the routes and the wiring to the room. It may import
the room, the accounts, ``results.ratings``, the door's checked inputs,
``process.background`` and ``table.errors``; only ``app`` imports it.
"""
