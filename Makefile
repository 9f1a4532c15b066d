# Every target bootstraps its own environment: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv tools demo test lint bench eval clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# System tools the editor tests drive (Debian packages; needs root, as on CI).
tools:
	@command -v tmux >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; }

demo: venv
	bash scripts/demo.sh

lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint tools
	bash scripts/pytest.sh

bench: venv
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .cache
