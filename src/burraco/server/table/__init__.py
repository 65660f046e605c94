"""The parts of a live table, one small module each; server/room.py builds them.

- ``errors``: what the room refuses (RoomError) and the protocol's error message;
- ``live``: the state of one table in play (LiveTable, SeatState) and what the parts share;
- ``pause``: the pause between two deals, the absence wait of a deal's first turn, and
  when the move clock runs out (no clock between deals, a person away waited for first);
- ``views``: what each seat and each spectator receives; telling the seats their states;
- ``event``: one stored event applied to a live table, by live play and by the replay;
- ``chat``: a table's chat: checking, rating and storing a message, a channel's history;
- ``spectators``: the watchers: admitting them, their delayed frames, their messages;
- ``log``: the event log and its storage: storing an event, rebuilding a table from its log;
- ``finish``: the end of a match: its record and status, the players told, its results
  and ratings recorded (the room hands the finisher the recorder), the listeners told;
- ``bots``: which bot plays a seat, its pace, its move, the expert in the thinking pool;
- ``clocks``: which timers a table waits on after a change; the move and deal clocks' waits;
- ``turns``: whether an action, an abandonment, a hint may be made now; a seat taken back;
- ``step``: every change of a table: checked, stored, applied, then published once (the
  scores, the match's end, each seat's state, the spectators' frames) and the timers
  started; each timer reports its end (a bot's move, a time-out, an abandonment, the next
  deal) back to the step;
- ``lobby``: the lobby's list of tables, its filters and pages;
- ``seats``: seats and tokens: creating a table, joining, starting, a tournament's tables;
- ``sockets``: a seat's sockets: connecting, disconnecting, the messages a seat sends;
- ``records``: a finished match's record, its finished deals, its replay;
- ``deserted``: a table in play nobody is at ends after a while, unrated;
- ``door``: reaping, the shares of ``max_tables`` new tables come in by, their pace.

Each part is given in its constructor the few collaborators it calls, built before it
(never the room, never a reference set afterwards). The imports go one way, in the
order above: the parts below the step compute and change a table and return what
happened; the step owns each change; seats and sockets ask the step
(tests/test_part_shape.py keeps it so).
"""
