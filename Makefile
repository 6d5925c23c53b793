# Every target that runs code first makes sure the venv exists and holds the
# project with its test extra, so a fresh machine needs nothing but python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint bench demo clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Most tests wait on real processes, so they run on every core (xdist);
# the timing tests then run alone, on a machine no other test loads. The
# status is the first pass's failure, else the second's.
test: $(STAMP)
	@$(BIN)/python -m pytest -q -n auto -m "not timing"; parallel=$$?; \
	$(BIN)/python -m pytest -q -m timing; timing=$$?; \
	if [ $$parallel -ne 0 ]; then exit $$parallel; fi; exit $$timing

lint: $(STAMP)
	$(BIN)/ruff check luxe laura process_group kernel_path hidden_environ program_path private_files tests bench
	$(BIN)/mypy

bench: $(STAMP)
	@for script in bench/[!_]*.py; do \
		echo "== $$script"; \
		$(BIN)/python $$script || exit 1; \
	done

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python examples/demo.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
