# Every target installs what it needs into .venv first, so a fresh clone works.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: help install build validate test lint typecheck check golden docs schemas bench clean

help:  ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

install: $(VENV)/.installed  ## create .venv with kgen and the dev tools

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

build: install  ## render jobs/ x environments into the committed output tree
	$(BIN)/kgen build

validate: install  ## check every job and environment, write nothing
	$(BIN)/kgen validate

test: install  ## run the test suite
	$(BIN)/pytest

lint: install  ## ruff and mypy --strict
	$(BIN)/ruff check kgen tests benchmarks
	$(BIN)/ruff format --check kgen tests benchmarks
	$(BIN)/mypy

typecheck: install
	$(BIN)/mypy

check: lint test  ## everything CI runs

golden: install  ## regenerate every generated file (cases, manifests/, argocd/, schemas/, README); review the diff
	$(BIN)/pytest tests/test_cases.py tests/hostile --update-golden -q
	$(BIN)/kgen build
	$(BIN)/kgen argocd
	$(BIN)/kgen schema --out schemas
	$(BIN)/python -m kgen.reference README.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info

schemas: install  ## regenerate schemas/ (editor schemas and job envelopes)
	$(BIN)/kgen schema --out schemas

docs: install  ## regenerate the spec reference in README.md from the models
	$(BIN)/python -m kgen.reference README.md

bench: install  ## time kgen (and kustomize) on a synthetic project; BENCH_JOBS, BENCH_RUNS
	$(BIN)/python benchmarks/run.py
