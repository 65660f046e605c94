#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run every test, the type check
# of the package and the linter. Extra arguments go to pytest (after `-n 2`: `-n 0` runs
# the tests in this process alone). Installing Debian's packages needs root or sudo.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

# Browser tests drive Debian's Chromium; the cluster test runs a Redis server; the
# PostgreSQL test starts a throwaway PostgreSQL server; the cluster's bench test puts
# nginx in front of the processes (nginx is in /usr/sbin, off a user's PATH).
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
# On a fresh server unattended upgrades often hold apt's lock: wait for it (up to ten
# minutes) instead of failing at once.
apt_wait=(-o DPkg::Lock::Timeout=600)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get "${apt_wait[@]}" update -qq
    apt-get "${apt_wait[@]}" install -y -qq "${need[@]}" >/dev/null
  else
    sudo DEBIAN_FRONTEND=noninteractive apt-get "${apt_wait[@]}" update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get "${apt_wait[@]}" install -y -qq "${need[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The learner's training smoke run needs torch, whose CPU build is installed only where a
# wheel of it is at hand (PyPI's default build pulls gigabytes of CUDA libraries);
# elsewhere that one test is skipped.
extras=dev,research
if ls "${PIP_FIND_LINKS:-/nonexistent}"/torch-2.13.0+cpu-*.whl >/dev/null 2>&1; then
  extras=dev,research,learn
fi
# Installed only when the environment is new or pyproject.toml or the extras changed: a
# stamp in .venv holds their hash (as in scripts/run.sh).
stamp=.venv/.burraco-test-stamp
wanted=$(.venv/bin/python -c \
  'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read() + sys.argv[2].encode()).hexdigest())' \
  pyproject.toml "$extras")
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
  echo "$wanted" >"$stamp"
fi
# The rules engine compiled (mypyc) from a source edited since: build it again, so the
# suite runs on the compiled engine of this source (burraco._engine refuses a stale one).
if ! .venv/bin/python -W ignore -c 'import sys, burraco._engine as e; sys.exit("rebuild" in e.REASON)'; then
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
fi
.venv/bin/burraco --version
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
.venv/bin/mypy
# The tests' scratch files (rooms' databases, Chromium's profiles, the fresh environments
# the install tests make) go to memory where /dev/shm is a tmpfs: on this machine's disk
# the same runs took 10-13% longer, waiting on the kernel's writes (test_browser_match_end
# and test_desk, back to back). Removed when the run ends.
if [ -z "${TMPDIR:-}" ] && [ "$(findmnt -no FSTYPE -T /dev/shm 2>/dev/null | head -n 1)" = tmpfs ] \
  && scratch=$(mktemp -d /dev/shm/burraco-tests.XXXXXX 2>/dev/null); then
  chmod 1777 "$scratch" # as /tmp: the PostgreSQL test's server runs as the postgres user
  export TMPDIR="$scratch"
  trap 'rm -rf "$scratch"' EXIT
fi
# Two workers (pytest-xdist, from the dev extra) share the tests a file at a time, the
# slowest files first (tests/conftest.py's SLOWEST_FIRST, kept in that order rather than
# xdist's by number of tests): no long file is left to the end with the other worker idle,
# and a module's fixtures (a room, a browser) are built once, not on both workers.
.venv/bin/pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"
