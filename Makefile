# Every target installs what it needs into .venv first, so a fresh clone works.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: help install bytecode build validate test lint typecheck check golden docs schemas bench hardening fuzz clean dist

help:  ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

install: $(VENV)/.installed  ## create .venv with kgen and the dev tools

# editable_mode=compat: the project folder goes on sys.path through a plain .pth line.
# setuptools' default for this layout is an import hook that every Python process in
# the venv loads at start-up (pathlib, re, urllib and the hook: 11 ms, half of a bare
# `python -c pass` here); kgen's own start-up is a benchmark target.
$(VENV)/.installed: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $@

# Byte-compile kgen: an editable install leaves that to the first import, and where
# PYTHONDONTWRITEBYTECODE is set (CI images often set it) every run would compile
# kgen's sources again (0.3 s a process). Cheap when nothing changed.
bytecode: install
	@$(BIN)/python -m compileall -q kgen

build: bytecode  ## render jobs/ x environments into the committed output tree
	$(BIN)/kgen build

validate: bytecode  ## check every job and environment, write nothing
	$(BIN)/kgen validate

test: bytecode  ## run the test suite
	$(BIN)/pytest

lint: install  ## ruff and mypy --strict
	$(BIN)/ruff check kgen tests benchmarks
	$(BIN)/ruff format --check kgen tests benchmarks
	$(BIN)/mypy

typecheck: install
	$(BIN)/mypy

check: lint test  ## everything CI runs

golden: install  ## regenerate every generated file (cases, manifests/, argocd/, flux/, schemas/, docs); review the diff
	$(BIN)/pytest tests/test_cases.py tests/hostile --update-golden -q
	$(BIN)/kgen build
	$(BIN)/kgen argocd
	$(BIN)/kgen flux
	$(BIN)/kgen schema --out schemas
	$(BIN)/python -m kgen.reference

dist: install  ## build the wheel and sdist, check them, smoke-test the wheel in a fresh venv
	BIN=$(BIN) bash .ci/dist

clean:
	rm -rf dist $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info

schemas: install  ## regenerate schemas/ (editor schemas and job envelopes)
	$(BIN)/kgen schema --out schemas

docs: install  ## regenerate docs/spec-reference.md and docs/rules.md from the code
	$(BIN)/python -m kgen.reference

bench: bytecode  ## kgen against floors measured in the same run, and kustomize on the same work; BENCH_JOBS, BENCH_RUNS, BENCH_SCALE (see benchmarks/run.py)
	$(BIN)/python benchmarks/run.py

hardening: bytecode  ## hostile corpus within 1 s and 200 MB each, 50 kills, 150 property examples
	$(BIN)/python tests/hostile/bounds.py
	KGEN_TEST_KILLS=50 $(BIN)/pytest -q tests/test_atomic.py
	HYPOTHESIS_PROFILE=hardening $(BIN)/pytest -q -p no:cacheprovider tests/test_properties.py

FUZZ_SECONDS ?= 60
fuzz: install  ## fuzz the loader with atheris for FUZZ_SECONDS (not part of CI)
	$(BIN)/pip install --quiet -e '.[fuzz]'
	mkdir -p .fuzz-corpus && cp jobs/*.yaml .fuzz-corpus/
	$(BIN)/python tests/fuzz/fuzz_loader.py .fuzz-corpus -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024
