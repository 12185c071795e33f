# Two commands set everything up on a fresh machine with Python 3.11, pip and make:
#   make reproduce   creates .venv from the pinned requirements, then runs the default pipeline on all cores
#   make test        same environment, whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORES ?= all

.PHONY: venv reproduce paper-scale test test-fast benchmark report clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)

paper-scale: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) --configfile config/paper-scale.yaml

test: $(STAMP)
	$(BIN)/pytest

test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow and not slurm"

benchmark: $(STAMP)
	$(BIN)/python benchmarks/engines.py --output results/benchmarks/engines.csv

report: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) --report results/report.html

clean:
	rm -rf results/tables results/figures results/claims results/records results/logs results/REPRODUCTION.md
