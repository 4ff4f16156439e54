# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
REVIEW ?= review
SEEDS  ?= seeds
EMBEDDER ?= minilm

.PHONY: run test test-fast test-long lab install bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# The CPU build of torch first: any other torch spec pulls a multi-GB CUDA build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## run: install, build the review of seeds/, print its topics, execute the notebooks into $(REVIEW)/notebooks
run: install
	HF_HUB_OFFLINE=1 $(VENV)/bin/workbench build $(SEEDS) --review $(REVIEW) --embedder $(EMBEDDER) --quiet
	$(VENV)/bin/workbench topics --review $(REVIEW)
	HF_HUB_OFFLINE=1 $(VENV)/bin/workbench notebooks --review $(REVIEW) --embedder $(EMBEDDER)
	@echo "open $(REVIEW)/map.html in a browser for the interactive map; 'make lab' for the notebooks"

## test: install, run the whole test suite: the default tests on $(TEST_JOBS) processes (pytest-xdist,
## a test file per process), then the long ones (browser, soak, real models, clusters) one at a time,
## as their timing needs, all but the 'extended' long tests that others cover (make test-long)
TEST_JOBS ?= 2
test: install
	HF_HUB_OFFLINE=1 $(PY) -m pytest -m "not long" -n $(TEST_JOBS) --dist loadfile
	HF_HUB_OFFLINE=1 $(PY) -m pytest -m "long and not extended"

## test-fast: the default run without the real models (what a change needs first)
test-fast: install
	HF_HUB_OFFLINE=1 $(PY) -m pytest -m "not slow and not browser and not long" -n $(TEST_JOBS) --dist loadfile

## test-long: the long tests alone, the extended ones included
test-long: install
	HF_HUB_OFFLINE=1 $(PY) -m pytest -m "long or extended"

## lab: open JupyterLab on the notebooks (127.0.0.1 only)
lab: install
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --ServerApp.root_dir=. $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/01_explore.ipynb

## bench: the build benchmark (raw BERTopic vs workbench cold and warm)
bench: install
	HF_HUB_OFFLINE=1 $(PY) benchmarks/bench_build.py

clean:
	rm -rf $(REVIEW) .pytest_cache
