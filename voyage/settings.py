"""Django settings for Voyage. Everything that varies comes from the environment (voyage.env)."""
from pathlib import Path

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

Q_CLUSTER = {
    "name": "voyage",
    "workers": env_int("VOYAGE_WORKERS", 1),
    "timeout": 120,
    "retry": 300,
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
    },
}
