#!/usr/bin/env bash
# Set up a virtual environment with the package, then start the web room with bots on its
# embedded SQLite database, at http://127.0.0.1:8000/ (arguments go to `burraco serve`).
#
# The package is installed (editable) only when the environment is new or pyproject.toml
# changed since the last install: a stamp in .venv holds the file's hash. A restart, a typo
# or `--help` then costs the room's start alone, not a pip run (31 s before).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.burraco-run-stamp
wanted=$(.venv/bin/python -c \
  'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' \
  pyproject.toml)
if [ ! -x .venv/bin/burraco ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e .
  # Written only once the install succeeded: a failed one is retried at the next start.
  echo "$wanted" >"$stamp"
  fresh=1
fi
# The rules engine compiled (mypyc) from a source edited since: build it again, or the
# pure engine would run (burraco._engine refuses a stale build, with a warning).
if ! .venv/bin/python -W ignore -c 'import sys, burraco._engine as e; sys.exit("rebuild" in e.REASON)'; then
  .venv/bin/python -m pip install --quiet -e .
  fresh=1
fi
# Once an install: which engine it gave (compiled, or pure without a C compiler), on
# stderr beside pip's own messages.
if [ -n "${fresh:-}" ]; then
  .venv/bin/burraco --version >&2
fi
exec .venv/bin/burraco serve "$@"
