"""The web room: a FastAPI server that referees tables of people and bots."""
