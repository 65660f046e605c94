"""What a finished match leaves: its results and the ratings they move (``record``, the
recorder the room hands its finisher; ``ratings``, OpenSkill over a match's sides), the
bots' shipped ratings (``bot_ratings.json``, made by ``ladder``'s matches), the
leaderboards and player pages (``players``), fair play (``fairplay``) and moderation
(``moderation``, its routes ``moderation_api`` and the console's ``moderation_cli``). It
may import the room (for types), ``absence``, the accounts, ``table.errors`` and, in its
routers, ``routes.shells``; the room's parts import only ``fairplay`` of it.
"""
