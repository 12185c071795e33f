# Two commands set everything up on a fresh machine with Python 3.11, pip and make:
#   make reproduce   creates .venv from the pinned requirements, then runs the default pipeline on all cores
#   make test        same environment, whole test suite
# CONFIG=my.yaml runs with your config file on top of config.yaml (checked first: one line names any error);
# SMK_ARGS passes extra Snakemake options, e.g. make reproduce SMK_ARGS="--dry-run"
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORES ?= all

.PHONY: venv reproduce paper-scale lint test test-fast benchmark report docs gallery clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

SHELL := /bin/bash
PROFILE := --workflow-profile workflow/profiles/default
CONFIG ?=
CONFIG_QUOTED := $(if $(CONFIG),"$(CONFIG)")
CONFIG_ARGS := $(if $(CONFIG),--configfile "$(CONFIG)")

# QUIET: the console shows the cost estimate, one line per finished job ("done <job>: ... (CPU-s)") and any error
# ("FAILED <job>: ..." plus Snakemake's own); `make reproduce QUIET=` gives Snakemake's full view (every job's rule,
# inputs and outputs). Snakemake's scheduler chatter ("Select jobs to execute...") is filtered out either way.
QUIET ?= --quiet rules host reason progress
CHATTER := ^(Select jobs to execute\.\.\.|Execute [0-9]+ jobs\.\.\.)$$

RESULTS_LINE := Results: results/report.html (every output's figure, table and claims), results/REPRODUCTION.md (the claims registry).

reproduce: $(STAMP)
	$(BIN)/python -m adaptive_repro.pipeline.validation --files-only $(CONFIG_QUOTED)
	set -o pipefail; $(BIN)/snakemake $(PROFILE) --cores $(CORES) $(QUIET) $(SMK_ARGS) $(CONFIG_ARGS) 2>&1 \
		| grep --line-buffered -v -E '$(CHATTER)'
	@if [ -z "$(SMK_ARGS)" ] && [ -f results/report.html ]; then echo "$(RESULTS_LINE)"; fi

paper-scale: $(STAMP)
	$(MAKE) reproduce CONFIG=config/paper-scale.yaml

# ruff (pyflakes, pycodestyle, import order; configured in pyproject.toml) and Snakemake's own linter of the rules
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint --quiet all

# every test: the rest on every core (idle workers take tests queued on busy ones), then, alone, the timing-sensitive
# ones (signals sent mid-job) and those that edit a file of the package every run
# imports (marker 'serial'); each phase ends with its 25 slowest tests, the measurement a faster suite starts from
test: lint
	$(BIN)/pytest -n auto --dist worksteal -m "not serial" --durations=25
	$(BIN)/pytest -m serial --durations=25

# the quick subset while editing: no end-to-end runs, no test marked slow; tests/conftest.py lists an unmarked test
# whose call spends more than FAST_TEST_CPU_SECONDS of CPU, so the subset stays quick
test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow and not slurm" -n auto

benchmark: $(STAMP)
	$(BIN)/python benchmarks/engines.py --output results/benchmarks/engines.csv
	$(BIN)/python benchmarks/sign_engine.py --output results/benchmarks/sign_engine.csv
	$(BIN)/python benchmarks/correlation_engines.py --output results/benchmarks/correlation_engines.csv
	$(BIN)/python benchmarks/estimates.py $(CONFIG) --output results/benchmarks/estimates.csv
	$(BIN)/python benchmarks/startup.py $(CONFIG) --output results/benchmarks/startup.csv
	$(BIN)/python benchmarks/packing.py $(if $(CONFIG),--configfile $(CONFIG))
	$(BIN)/python benchmarks/pipeline.py --cores 2 $(if $(CONFIG),--configfile $(CONFIG))

# The HTML report of the last run (results/report.html; `make reproduce` writes it too), for the config that run
# recorded (results/run-config.yaml): rebuilds only what is missing or out of date. --configfile comes last: it
# takes several values and would read a target after it as a config file.
report: $(STAMP)
	@test -f results/run-config.yaml || { echo "No run to report on yet: run 'make reproduce' first."; exit 1; }
	$(BIN)/snakemake results/report.html $(PROFILE) --cores $(CORES) $(SMK_ARGS) --configfile results/run-config.yaml

# The library's API reference from the docstrings (pdoc), in docs/api/ (not tracked).
docs: $(STAMP)
	$(BIN)/pdoc adaptive_repro.bounds adaptive_repro.privacy adaptive_repro.groundtruth \
		adaptive_repro.simulation.data_models adaptive_repro.simulation.engines adaptive_repro.simulation.sign_engine \
		-o docs/api

# The README's figure gallery (docs/gallery/): compressed copies of key figures of the last run.
GALLERY := dwork-null dwork-signal zhao-fig2 zhao-fig3 zhao-frontier zhao-correlation zhao-correlation-frontier he-composition-eps he-generalization lecture-monitor
gallery: $(STAMP)
	$(BIN)/python -m adaptive_repro.report.report_html results/figures docs/gallery $(GALLERY)

clean:
	rm -rf results/tables results/figures results/claims results/records results/logs results/REPRODUCTION.md results/run-config.yaml results/report.html
