# Every target bootstraps its own environment: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv tools demo test test-python test-vscode lint bench eval clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# System tools the editor tests drive, and the PostgreSQL server the team-index tests start
# in a temporary directory (Debian packages; needs root, as on CI).
tools:
	@command -v tmux >/dev/null 2>&1 && command -v strace >/dev/null 2>&1 || { \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux strace >/dev/null; }
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

demo: venv
	bash scripts/demo.sh

lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint test-python test-vscode

test-python: venv tools
	bash scripts/pytest.sh

# A real VS Code (code-server) driven by headless Chromium; installs its own tools into
# editors/vscode/.cache on first run (about 4 minutes).
test-vscode: venv
	bash editors/vscode/test/run.sh

bench: venv
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .cache dist editors/vscode/.cache editors/vscode/node_modules editors/vscode/out \
		editors/vscode/dist editors/vscode/server
