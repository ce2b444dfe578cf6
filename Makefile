# The commands people type. `make run` and `make test` install whatever is missing first.
PY := .venv/bin/python
export PYTHONUNBUFFERED := 1

.PHONY: run test lint bench setup redis lock model

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
	.venv/bin/lint-imports

# The suite runs on a Redis database of its own (tests/settings.py), never REDIS_URL's: it empties it.
test: setup lint
	@scripts/ensure_redis.sh "$${YOLIVE_TEST_REDIS_URL:-redis://127.0.0.1:6379/$${YOLIVE_TEST_REDIS_DB:-15}}"
	.venv/bin/pytest

# The default model from nothing (about 4.5 hours on 2 CPU cores; minutes on a GPU): each stage resumes from
# var/training/ and writes its part into generation/model/ only where it beats the part there, judged on
# both in the same run. The transformer stage stops with an error while the VAE's reconstructions name the
# subject in under 70 % of held-out prompts: run the VAE stage again (it goes on where it stopped).
# lab/ holds how it is made; docs/model.md has the figures.
model: setup
	$(PY) -m lab.training vae --steps 20000 --minutes 110
	$(PY) -m lab.training transformer --steps 5000 --minutes 90
	$(PY) -m lab.training decoder --steps 1500 --minutes 30
	$(PY) -m lab.evaluation

bench: setup redis
	$(PY) -m benchmarks.voting
	$(PY) -m benchmarks.generation
	$(PY) -m benchmarks.block_causal
	$(PY) -m benchmarks.block_stream
	$(PY) -m benchmarks.streaming
	$(PY) -m benchmarks.crowd
