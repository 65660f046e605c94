#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run every test, the type check
# of the package and the linter. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

# Browser tests drive Debian's Chromium; the cluster test runs a Redis server; the
# PostgreSQL test starts a throwaway PostgreSQL server.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# The learner's training smoke run needs torch, whose CPU build is installed only where a
# wheel of it is at hand (PyPI's default build pulls gigabytes of CUDA libraries);
# elsewhere that one test is skipped.
extras=dev,research
if ls "${PIP_FIND_LINKS:-/nonexistent}"/torch-2.13.0+cpu-*.whl >/dev/null 2>&1; then
  extras=dev,research,learn
fi
.venv/bin/python -m pip install --quiet -e ".[$extras]"
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
.venv/bin/mypy
.venv/bin/pytest "$@"
