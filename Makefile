# Two commands on a fresh machine: `make test` and `make html`.  Each creates
# .venv and installs the pinned requirements and the package first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help test test-slow test-nojit bench html clean

help:
	@echo "make test       run the test suite (creates .venv first)"
	@echo "make test-slow  also run the long checks (a million plies against OpenSpiel)"
	@echo "make bench      run the benchmarks: our figures beside OpenSpiel's, as ratios"
	@echo "make html       build the thesis website"
	@echo "make clean      remove .venv, caches and build output"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m "slow or not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

html: $(STAMP)
	@echo "make html: the thesis is not written yet (it comes with the notebooks);"
	@echo "until then there is no site to build."
	@exit 1

clean:
	rm -rf $(VENV) _build .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
