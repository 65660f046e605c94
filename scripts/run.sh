#!/usr/bin/env bash
# Set up a virtual environment with the package, then start the main program.
# Until the web room lands, that is a match in the terminal against the built-in bot.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/burraco play "$@"
