"""The parts of a live table, one small module each; server/room.py wires them.

- ``live``: the state of one table in play (LiveTable, SeatState) and what the parts share;
- ``errors``: what the room refuses (RoomError) and the protocol's error message;
- ``seats``: seats and tokens: creating a table, joining, starting, a tournament's tables;
- ``sockets``: a seat's sockets: connecting, disconnecting, the messages a seat sends;
- ``turns``: the turn: an action, taking a seat back, abandoning, a hint;
- ``clocks``: the move clock, the deal clock, and waking what comes next after a change;
- ``pause``: the pause between two deals and the absence wait of a deal's first turn;
- ``bots``: which seat a bot plays, its pace, the expert in the thinking pool;
- ``log``: the event log and its storage: storing an event, rebuilding a table from its log;
- ``views``: what each seat and each spectator receives, and the broadcast of it;
- ``spectators``: the watchers: admitting them, their delayed frames, their messages;
- ``chat``: a table's chat: checking, rating and storing a message, a channel's history;
- ``finish``: the end of a match: its record and status, telling the players and listeners;
- ``lobby``: the lobby's list of tables, its filters and pages;
- ``records``: a finished match's record, its finished deals, its replay;
- ``door``: reaping, the shares of ``max_tables`` new tables come in by, their pace;
- ``deserted``: a table in play nobody is at ends after a while, unrated.

Each part holds the few collaborators it calls (given by the room), never the room.
Runtime imports go one way (a part imports the helpers of the parts below it); parts that
call each other back reach one another through the references the room wires in.
"""
