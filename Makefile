# The commands people type. `make run` and `make test` install whatever is missing first.
PY := .venv/bin/python
export PYTHONUNBUFFERED := 1

.PHONY: run test lint bench setup redis lock

setup:
	@scripts/setup.sh

redis:
	@scripts/ensure_redis.sh

run: setup redis
	$(PY) manage.py migrate --no-input
	$(PY) manage.py ensure_moderator
	$(PY) manage.py print_urls
	.venv/bin/supervisord --configuration supervisord.conf --pidfile var/supervisord.pid

# Every set's lock, every transitive version, from its .in file (torch is left to requirements.txt).
LOCK := .venv/bin/pip-compile --quiet --strip-extras --no-emit-find-links --no-emit-index-url --unsafe-package torch
lock: setup
	$(LOCK) --output-file requirements/runtime.txt requirements/runtime.in
	$(LOCK) --output-file requirements/dev.txt requirements/dev.in
	$(LOCK) --output-file requirements/gpu.txt requirements/gpu.in

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy .

test: setup redis lint
	.venv/bin/pytest

bench: setup redis
	$(PY) -m yolive.voting.bench
	$(PY) -m generation.bench
	$(PY) -m streaming.bench
