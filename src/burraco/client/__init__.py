"""A bot of your own in the room: write ``choose(view, legal) -> action`` and call
:func:`play` (docs/bots.md).

The client speaks the room's own protocol (docs/protocol.md) with a bot account's API
token in ``Authorization: Bearer``: it plays the tables its bot sits at (again after its
socket drops or the room restarts), accepts the challenges people send it that fit what
it says it plays (:class:`Accepts`: games, move clocks, rated or not), creates or
joins tables, and stops after ``matches`` matches. ``view`` is the state's ``view`` (a
JSON object: the seat's hand, the melds, the pile...; docs/protocol.md) and ``legal`` the
actions the seat may play, as text (``"draw"``, ``"meld 5H 6H 7H"``); ``choose`` returns
one of them.

:func:`house` runs a house bot (``random``, ``greedy``, ``expert``, ``learned``) through
the client, and :func:`research_agent` an agent trained on :mod:`burraco.research`
(observations and action ids, as PettingZoo and Gymnasium give them), unchanged.
"""

from burraco.client.adapters import house, research_agent
from burraco.client.session import Accepts, BotError, Choose, play, run

__all__ = ["Accepts", "BotError", "Choose", "house", "play", "research_agent", "run"]
