# Two commands set everything up on a fresh machine with Python 3.11, pip and make:
#   make reproduce   creates .venv from the pinned requirements, then runs the default pipeline on all cores
#   make test        same environment, whole test suite
# SMK_ARGS passes extra Snakemake options, e.g. make reproduce SMK_ARGS="--configfile my.yaml"
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

PROFILE := --workflow-profile workflow/profiles/default

reproduce: $(STAMP)
	$(BIN)/snakemake $(PROFILE) --cores $(CORES) $(SMK_ARGS)

paper-scale: $(STAMP)
	$(BIN)/snakemake $(PROFILE) --cores $(CORES) --configfile config/paper-scale.yaml $(SMK_ARGS)

test: $(STAMP)
	$(BIN)/pytest

test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow and not slurm"

benchmark: $(STAMP)
	$(BIN)/python benchmarks/engines.py --output results/benchmarks/engines.csv

report: $(STAMP)
	$(BIN)/snakemake $(PROFILE) --cores $(CORES) --report results/report.html $(SMK_ARGS)

clean:
	rm -rf results/tables results/figures results/claims results/records results/logs results/REPRODUCTION.md
