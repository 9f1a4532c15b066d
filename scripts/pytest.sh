#!/usr/bin/env bash
# Runs the whole suite; pytest's exit code 5 ("no tests collected") is a failure here.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/pytest -q -p no:cacheprovider "$@"
code=$?
if [ "$code" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$code"
