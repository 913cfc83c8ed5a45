# simkit — two commands on a fresh clone:
#   make report   set up .venv and write the bundled reports under reports/
#   make test     set up .venv and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.simkit-installed

.PHONY: setup test report bench clean

setup: $(STAMP)

# Re-installs only when pyproject.toml changes; the package is installed
# editable, so code changes need no reinstall.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

test: setup
	$(BIN)/pytest -q

report: setup
	$(BIN)/simkit report --bundled --out reports
	@echo "reports written under reports/ (open reports/odds/*.md)"

bench: setup
	$(BIN)/simkit bench

clean:
	rm -rf $(VENV) runs .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
