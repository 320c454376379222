"""Django settings for Voyage. Everything that varies comes from the environment (voyage.env)."""
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from voyage.env import database_from_url, env_bool, env_int, env_str, redis_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VOYAGE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = env_str("SECRET_KEY", "voyage-dev-only-not-secret")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_str("ALLOWED_HOSTS", "localhost,127.0.0.1").split(",")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_q",
    "world",
    "memories",
    "voyage",
    "voyage.studies",
    "voyage.instruments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "voyage.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "voyage.wsgi.application"
ASGI_APPLICATION = "voyage.asgi.application"

DATABASES = {"default": database_from_url(env_str("DATABASE_URL"), VAR_DIR / "voyage.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = redis_url()
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The worker (voyage.runs.tasks): a run advances as a chain of chunks of ticks on the default queue;
# compaction and dream jobs go to their own "memory" queue (`qcluster --name memory`), so a burst
# of them never delays a tick. A chunk stops starting ticks after VOYAGE_CHUNK_SECONDS, well inside
# the task timeout, which is itself well inside `retry` (a task redelivered while it still runs
# would be harmless, but wasteful). A claim whose heartbeat is older than VOYAGE_STALE_SECONDS
# belongs to a vanished worker and is taken over.
VOYAGE_TASK_TIMEOUT = env_int("VOYAGE_TASK_TIMEOUT", 300)
VOYAGE_CHUNK_TICKS = env_int("VOYAGE_CHUNK_TICKS", 480)
VOYAGE_CHUNK_SECONDS = env_int("VOYAGE_CHUNK_SECONDS", 20)
VOYAGE_STALE_SECONDS = env_int("VOYAGE_STALE_SECONDS", VOYAGE_TASK_TIMEOUT + 60)
# A world drafted from a paragraph (voyage/drafting/jobs.py) is one task on the default queue with
# a timeout of its own: a real model drafts for minutes. A task redelivered while its draft still
# runs (after `retry`) finds the job claimed and does nothing.
VOYAGE_DRAFT_TIMEOUT = env_int("VOYAGE_DRAFT_TIMEOUT", 3600)
if not 0 < VOYAGE_CHUNK_SECONDS < VOYAGE_TASK_TIMEOUT or VOYAGE_CHUNK_TICKS < 1:
    raise ImproperlyConfigured("VOYAGE_CHUNK_TICKS must be >= 1 and 0 < VOYAGE_CHUNK_SECONDS < VOYAGE_TASK_TIMEOUT.")

Q_CLUSTER = {
    "name": env_str("VOYAGE_Q_NAME", "voyage"),
    "workers": env_int("VOYAGE_WORKERS", 1),
    "timeout": VOYAGE_TASK_TIMEOUT,
    "retry": 3 * VOYAGE_TASK_TIMEOUT,
    "max_attempts": 0,
    "ack_failures": True,
    "poll": 0.2,
    "catch_up": False,
    "save_limit": 200,
    "sync": env_bool("VOYAGE_Q_SYNC", False),
    "ALT_CLUSTERS": {"memory": {"timeout": 600, "retry": 900}},
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

AUTH_PASSWORD_VALIDATORS = []
LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(name)s %(levelname)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "voyage": {"handlers": ["console"], "level": env_str("VOYAGE_LOG_LEVEL", "WARNING")},
        "voyage.digest": {"handlers": ["console"], "level": env_str("VOYAGE_DIGEST_LEVEL", "WARNING"), "propagate": False},
        # A page that fails (500) says why in the server's log, with its traceback: Django's own
        # default only prints it with DEBUG on, and mails it to ADMINS otherwise (none here).
        "django.request": {"handlers": ["console"], "level": "ERROR"},
    },
}

# The dashboards (voyage/web): staff log in at /accounts/login/.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "web:runs"
LOGOUT_REDIRECT_URL = "login"
VOYAGE_FEED_POLL_MS = env_int("VOYAGE_FEED_POLL_MS", 200)  # how often a web process looks for new events
if VOYAGE_FEED_POLL_MS < 1:
    raise ImproperlyConfigured("VOYAGE_FEED_POLL_MS must be at least 1 (milliseconds).")

# Run fixtures (voyage/export): JSON Lines whose loading looks each natural key up once per file.
SERIALIZATION_MODULES = {"jsonl": "voyage.export.jsonl"}

# The API docs (/api/docs) serve Swagger UI from django-ninja's own static files, never a CDN.
INSTALLED_APPS += ["ninja"]
