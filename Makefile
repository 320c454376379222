# Voyage: the two set-up commands are `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DAYS ?= 1

.PHONY: demo test bench install migrate clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet ".[test]"
	rm -rf build voyage.egg-info
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput -v 0

demo: migrate
	$(PY) manage.py run_voyage --scenario 1912 --days $(DAYS) | tee var/last-run.json
	$(PY) manage.py transcript --run latest --output var/transcript.md
	@echo
	@echo "What happened: var/transcript.md (the voyage, tick by tick); figures: var/last-run.json;"
	@echo "every row (memories, events, exact prompts) is in the SQLite database var/voyage.sqlite3."

test: install
	$(PY) -m pytest -q

bench: migrate
	$(PY) manage.py bench engine --days 1

clean:
	rm -rf var $(VENV)
