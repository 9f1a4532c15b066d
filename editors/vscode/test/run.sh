#!/usr/bin/env bash
# The VS Code end-to-end test: install what it needs (idempotent, cached in
# editors/vscode/.cache/), build and package the extension, then drive a real VS Code
# (code-server) with headless Chromium. Run from anywhere; needs the repo's .venv
# (`make venv`). Ends with "N passed, M failed"; exits non-zero on failure.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
# The repo's venv packages the server into the VSIX (pip) and runs the old-server check.
if [[ ! -x "$REPO/.venv/bin/python" ]]; then
    echo "run.sh: $REPO/.venv/bin/python is missing: run 'make venv' first" >&2
    exit 1
fi
t0=$SECONDS
bash "$HERE/setup.sh"
echo "[run] setup took $((SECONDS - t0))s"
# e2e.mjs prints its own timing; its "N passed, M failed" must stay the last line.
exec "$HERE/../.cache/node24/package/bin/node" "$HERE/e2e.mjs"
