# Two commands on a fresh machine (Python >= 3.11 and the package index):
#   make report   — verification report in reports/ (creates .venv, installs, runs)
#   make test     — the test suite (creates .venv, installs, runs pytest)
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test report test-slow bench lint clean readme-examples

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m fedbounds.app.warmup
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

report: $(STAMP)
	$(BIN)/fedbounds report --profile quick --backend process --out reports/

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check fedbounds problems verify tests benchmarks tools docs

clean:
	rm -rf $(VENV) build *.egg-info

readme-examples: $(STAMP)
	$(BIN)/python tools/readme_examples.py
