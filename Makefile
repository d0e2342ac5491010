# The two commands a newcomer needs: `make demo` and `make test`. Each sets itself up.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: demo test lint bench browser

# setup.py and the C source too: pip install -e . builds filter/_speedups.c in place, and a
# change to it needs a new build. The adapters' extras too, as their tests run the libraries
# themselves (about a minute more of installing).
$(BIN)/.installed: pyproject.toml setup.py filter/_speedups.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,bench,mem0,langgraph,mcp,graphiti]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/python manage.py demo

# The browser (and axe-core) is needed only when the browser tests run: not with
# PYTEST_ARGS="-m 'not e2e'".
test: $(BIN)/.installed
	$(if $(findstring not e2e,$(PYTEST_ARGS)),,@$(MAKE) --no-print-directory browser)
	$(BIN)/ruff check .
	$(BIN)/python scripts/import-cycles
	scripts/lint-css
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/import-cycles
	scripts/lint-css

bench: $(BIN)/.installed
	$(BIN)/python -m bench.matcher

# Browser tests drive Debian's chromium (Playwright's own download cannot work offline) and
# check every page with axe-core from the npm registry.
browser:
	@scripts/ensure-chromium
	@scripts/ensure-axe
