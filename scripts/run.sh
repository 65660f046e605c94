#!/usr/bin/env bash
# Set up a virtual environment with the package, then start the web room with bots on its
# embedded SQLite database, at http://127.0.0.1:8000/ (arguments go to `burraco serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/burraco serve "$@"
