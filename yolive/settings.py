"""YoLive settings: everything comes from environment variables (a `.env` file beside manage.py is read too).

The defaults run the whole channel on one machine with nothing but what `make run` installs. A bad value
stops start-up with one line naming the variable (see yolive/env.py and manage.py).
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from yolive.env import env_bool, env_choice, env_float, env_int, env_list, env_secret, env_str
from yolive.plumbing.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
ENV_FILE = BASE_DIR / ".env"
load_dotenv(ENV_FILE, override=False)

VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = env_secret("SECRET_KEY", ENV_FILE)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
WEB_HOST = env_str("WEB_HOST", "127.0.0.1")
WEB_PORT = env_int("WEB_PORT", 8000, minimum=1, maximum=65535)
# uvicorn processes behind WEB_PORT (python -m yolive.serve), each with its own viewer sockets and fan-out;
# 0 = one per core. docs/benchmarks.md measures what one holds and two.
WEB_PROCESSES = env_int("WEB_PROCESSES", 0, minimum=0, maximum=256)
# The proxy addresses whose X-Forwarded-For is believed (e.g. 127.0.0.1 behind nginx); empty = no proxy.
WEB_FORWARDED_ALLOW_IPS = env_str("WEB_FORWARDED_ALLOW_IPS", "")
# Where viewers reach us; used for the URLs `make run` prints.
PUBLIC_URL = env_str("PUBLIC_URL", f"http://{WEB_HOST}:{WEB_PORT}").rstrip("/")

INSTALLED_APPS = [
    "yolive.moderation.desk.apps.AuditedAdminConfig",  # django.contrib.admin, every change audited
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "yolive.voting",
    "yolive.clips",
    "yolive.moderation",
    "generation",
    "streaming",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "yolive.urls"
ASGI_APPLICATION = "yolive.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database: SQLite by default, PostgreSQL (or anything dj-database-url knows) by DATABASE_URL ---------
DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "yolive.sqlite3"),
            # Four processes write to one file: WAL lets readers run beside the writer, IMMEDIATE takes the
            # write lock up front so concurrent transactions wait (timeout) instead of failing to upgrade.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Tests start real worker and broadcaster processes, so the test database must be a file.
            "TEST": {"NAME": str(VAR_DIR / "test-db.sqlite3")},
            # Kept open, as for PostgreSQL: opening one (and its PRAGMAs) for every query of a socket's
            # connect was a third of the web process's time while a crowd arrived (docs/benchmarks.md).
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: votes, tallies, leases, rate limits, the channel layer and the Celery broker ----------------
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# Pub/sub ignores Redis database numbers, so the prefix is what keeps two installations on one Redis apart.
CHANNEL_PREFIX = env_str("CHANNEL_PREFIX", "yolive")
CHANNEL_LAYERS = {
    "default": {
        # One PUBLISH per group_send whatever the audience size, fanned out locally by each web process
        # (see docs/operations.md for why this beats RedisChannelLayer for one big viewer group).
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX},
    }
}

# --- Celery: renders on queue `gpu`, everything else on `default` ---------------------------------------
# A render that is not acknowledged within this many seconds is handed to another worker; every place
# that must agree on it reads this one value.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 300, minimum=30)
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "health_check_interval": 10,
    # The broker's queues are a channel's own too: two channels on one Redis never take each other's renders.
    "global_keyprefix": f"{CHANNEL_PREFIX}:",
}
CELERY_RESULT_BACKEND = None  # clip state lives in the database, never in AsyncResult
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_VISIBILITY_TIMEOUT}
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"generation.tasks.render_clip": {"queue": "gpu"}}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A hung render is killed (prefork only) before the broker would redeliver it anyway.
CELERY_TASK_TIME_LIMIT = CELERY_VISIBILITY_TIMEOUT - 10
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- The channel ----------------------------------------------------------------------------------------
# `world`, the model trained here, by default: it draws the prompt's setting and motion where the random
# stand-in draws colour fields (docs/model.md); `tiny` stays for the tests' model-free path.
MODEL_PRESET = env_choice("MODEL_PRESET", "world", ("world", "tiny", "ltx"))
MODEL_PATH = env_str("YOLIVE_MODEL_PATH", "")
# Generation caches (docs/benchmarks.md "Generation" has the measurements behind each default).
GENERATION_EMBEDDING_CACHE_SIZE = env_int("GENERATION_EMBEDDING_CACHE_SIZE", 256, minimum=0)  # 0 = off
GENERATION_TEXT_KV_CACHE = env_bool("GENERATION_TEXT_KV_CACHE", True)
GENERATION_STEP_CACHE = env_choice("GENERATION_STEP_CACHE", "fbc", ("none", "fbc", "pab", "taylorseer"))
# FirstBlockCache threshold; 0 = the preset's default (tiny 0.1, ltx 0.05, world 0.05: docs/model.md "Speed").
GENERATION_FBC_THRESHOLD = env_float("GENERATION_FBC_THRESHOLD", 0.0, minimum=0.0, maximum=1.0)
# Condition each clip on the last frames of the previous round's clip (8k+1 frames: 1 = its last frame).
GENERATION_CONTINUITY = env_bool("GENERATION_CONTINUITY", True)
GENERATION_CONTINUITY_FRAMES = env_int("GENERATION_CONTINUITY_FRAMES", 9, minimum=1, maximum=33)
if (GENERATION_CONTINUITY_FRAMES - 1) % 8:
    raise ImproperlyConfigured(
        f"GENERATION_CONTINUITY_FRAMES={GENERATION_CONTINUITY_FRAMES} is not 8k+1 (1, 9, 17, 25 or 33)"
    )
# The next clip's lead frames encoded once a clip is made, not as the next render starts: its first
# frames come a VAE encode sooner (generation/lead_cache.py; exact).
GENERATION_LEAD_AHEAD = env_bool("GENERATION_LEAD_AHEAD", True)
# Block-causal generation (generation/block_renderer.py): clips made a latent frame at a time against a
# rolling KV cache of SINK + WINDOW frames kept from clip to clip. Off: its model does not yet draw as well as
# the bidirectional one (lab/ledger.md, diffusion forcing). The world model's grid only.
GENERATION_BLOCKS = env_bool("GENERATION_BLOCKS", False)
GENERATION_CACHE_SINK = env_int("GENERATION_CACHE_SINK", 1, minimum=0, maximum=64)
GENERATION_CACHE_WINDOW = env_int("GENERATION_CACHE_WINDOW", 6, minimum=1, maximum=256)
GENERATION_CACHE_INT8 = env_bool("GENERATION_CACHE_INT8", False)
GENERATION_RECACHE = env_bool("GENERATION_RECACHE", True)  # the window re-cached with each clip's prompt
if GENERATION_BLOCKS and MODEL_PRESET != "world":
    raise ImproperlyConfigured(f"GENERATION_BLOCKS needs MODEL_PRESET=world, not {MODEL_PRESET}")
# One CPU thread for torch by default: beside the broadcaster's ffmpeg and the web process on a small machine,
# two OpenMP threads spin against them and a tiny render swung from 0.4 s to 9 s (docs/benchmarks.md).
GENERATION_TORCH_THREADS = env_int("GENERATION_TORCH_THREADS", 1, minimum=0)  # 0 = torch's default
# Every clip boundary is a segment boundary: a clip lasts whole segments. Short segments keep the crowd's
# wait short: a segment is listed once complete, and players stay three target durations behind.
HLS_SEGMENT_SECONDS = 1
CLIP_SECONDS = env_int("CLIP_SECONDS", 10, minimum=HLS_SEGMENT_SECONDS, maximum=60)
ROUND_SECONDS = env_int("ROUND_SECONDS", CLIP_SECONDS, minimum=3, maximum=3600)
_NATIVE_SIZE = {"world": (512, 288), "tiny": (512, 288), "ltx": (768, 512)}[MODEL_PRESET]
VIDEO_WIDTH = env_int("VIDEO_WIDTH", _NATIVE_SIZE[0], minimum=64, maximum=3840)
VIDEO_HEIGHT = env_int("VIDEO_HEIGHT", _NATIVE_SIZE[1], minimum=64, maximum=2160)
VIDEO_FPS = env_int("VIDEO_FPS", 24, minimum=1, maximum=60)
VIDEO_ENCODER = env_choice("VIDEO_ENCODER", "libx264", ("libx264", "h264_nvenc"))
MEDIA_DIR = Path(env_str("MEDIA_DIR", str(VAR_DIR / "media")))
CLIPS_DIR = MEDIA_DIR / "clips"  # rendered frames, written by the worker, read by the broadcaster
HLS_DIR = Path(env_str("HLS_DIR", str(VAR_DIR / "hls")))
ARCHIVE_RETENTION_HOURS = env_int("ARCHIVE_RETENTION_HOURS", 72, minimum=0)
SHOW_CAPTIONS = env_bool("SHOW_CAPTIONS", True)
# A clip may go on air while its later seconds still render (yolive.clips.frames.AIR_AHEAD_S); off, only once
# it is whole. The crowd sees its winner a render's remaining seconds sooner (docs/benchmarks.md).
AIR_WHILE_RENDERING = env_bool("AIR_WHILE_RENDERING", True)
# The prompt leading a round starts rendering a render's time before the round closes, and airs sooner if it
# wins (yolive.voting.head_start); a render lost to a late swing of the vote is thrown away.
HEAD_START = env_bool("HEAD_START", True)
TALLY_HZ = env_float("TALLY_HZ", 4.0, minimum=0.5, maximum=30.0)
PROMPT_MAX_CHARS = env_int("PROMPT_MAX_CHARS", 200, minimum=10, maximum=2000)
# Rate limits, per fixed window of RATE_WINDOW_SECONDS. Per-IP limits are looser: many viewers share an IP.
RATE_WINDOW_SECONDS = env_int("RATE_WINDOW_SECONDS", 10, minimum=1, maximum=3600)
VOTES_PER_WINDOW = env_int("VOTES_PER_WINDOW", 20, minimum=1)
VOTES_PER_WINDOW_PER_IP = env_int("VOTES_PER_WINDOW_PER_IP", 400, minimum=1)
SUBMITS_PER_WINDOW = env_int("SUBMITS_PER_WINDOW", 2, minimum=1)
SUBMITS_PER_WINDOW_PER_IP = env_int("SUBMITS_PER_WINDOW_PER_IP", 20, minimum=1)
# "tick" coalesces tallies (the conductor publishes at most TALLY_HZ a second); "per_vote" publishes one
# tally per accepted vote and exists only so the benchmark can measure what coalescing saves.
TALLY_BROADCAST = env_choice("TALLY_BROADCAST", "tick", ("tick", "per_vote"))
MODERATOR_USERNAME = env_str("MODERATOR_USERNAME", "moderator")
# /metrics answers staff, and a scraper that sends `Authorization: Bearer <this>`; empty = staff only.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
# Classifier probability from which it alone counts as borderline profanity (held at profanity level 4).
MODERATION_HOLD_AT = env_float("MODERATION_HOLD_AT", 0.5, minimum=0.0, maximum=1.0)
# The learned reader's probability of harm from which it holds what the rules approve, and from which it
# holds what it reads as children's harm: the thresholds `python -m yolive.moderation.policy.learned.crossval`
# chose (at most 1 % more benign prompts held, both together). MODERATION_LEARNED_HOLD_AT above 1 switches the
# reader off.
MODERATION_LEARNED_HOLD_AT = env_float("MODERATION_LEARNED_HOLD_AT", 0.876, minimum=0.0, maximum=2.0)
MODERATION_LEARNED_HOLD_MINORS_AT = env_float(
    "MODERATION_LEARNED_HOLD_MINORS_AT", 0.76, minimum=0.0, maximum=1.0
)
# A timeout or ban also covers the viewer's network (IPv4 address, IPv6 /64) for as long as it lasts.
MODERATION_BAN_ADDRESS = env_bool("MODERATION_BAN_ADDRESS", True)

# --- Auth, static files, the rest -----------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/admin/login/"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # a viewer keeps one identity (and its rate limits) for a year
SESSION_COOKIE_SAMESITE = "Lax"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every start when it is missing
# hls.js is installed from npm at setup; its dist folder is served as static files under vendor/hls/.
STATICFILES_DIRS = [("vendor/hls", BASE_DIR / "node_modules" / "hls.js" / "dist")]
WHITENOISE_USE_FINDERS = True  # serve straight from the app folders: no collectstatic step on one machine

# plain: one line of text per record; json: one JSON object a line with process, round_id and clip_id.
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))
LOGGING = logging_config(LOG_FORMAT, env_str("LOG_LEVEL", "INFO"))
