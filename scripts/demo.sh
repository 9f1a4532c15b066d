#!/usr/bin/env bash
# Index a real code base nobody here wrote (click 8.1.7's source release from PyPI, pinned) and
# search it a few ways. The index goes to .cache/demo-index, never into the sample itself.
set -euo pipefail
cd "$(dirname "$0")/.."
SAMPLE=.cache/samples/click-8.1.7
if [ ! -d "$SAMPLE" ]; then
  mkdir -p .cache/samples
  .venv/bin/pip download --quiet --no-deps --no-binary :all: -d .cache/samples click==8.1.7
  tar -xzf .cache/samples/click-8.1.7.tar.gz -C .cache/samples
fi
export KEBAB_INDEX_DIR="$PWD/.cache/demo-index"
KEBAB=.venv/bin/kebab
run() { echo; echo "\$ kebab $*"; "$KEBAB" "$@"; }
run index "$SAMPLE"
run index "$SAMPLE" --json
run status "$SAMPLE"
run search "parse command line options" "$SAMPLE" -k 5
run search "BadParameter" "$SAMPLE" -k 5 --kind class
run search "get param decl" "$SAMPLE" -k 5 --lang python
run search '"def echo("' "$SAMPLE" -k 5
run search "progress bar" "$SAMPLE" -k 5 --path-glob 'docs/**'
