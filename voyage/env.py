"""Typed settings from the environment: each helper fails loudly on a bad value."""
from __future__ import annotations

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true/false, 1/0, yes/no).")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def database_from_url(url: str, sqlite_default_path) -> dict:
    """Django DATABASES['default'] for DATABASE_URL; SQLite gets WAL and IMMEDIATE transactions."""
    import dj_database_url

    if not url:
        url = f"sqlite:///{sqlite_default_path}"
    scheme = urlparse(url).scheme
    if scheme not in ("sqlite", "postgres", "postgresql", "pgsql"):
        raise ImproperlyConfigured(
            f"DATABASE_URL={url!r}: unsupported scheme {scheme!r} (use sqlite:///path or postgres://user@host/db)."
        )
    try:
        config = dj_database_url.parse(url, conn_max_age=0)
    except Exception as exc:  # dj_database_url raises several types
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} cannot be parsed: {exc}") from exc
    if config["ENGINE"] == "django.db.backends.sqlite3":
        if not config.get("NAME") or config["NAME"] == ":memory:":
            raise ImproperlyConfigured(
                f"DATABASE_URL={url!r} names no SQLite file (an in-memory database cannot be shared with the worker)."
            )
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
            # A 64 MB page cache (SQLite's default is 2 MB): past a few hundred agents the indexes a
            # tick writes into outgrow the default, and every insert reads its pages back again.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;",
        }
        config["TEST"] = {"NAME": str(config["NAME"]) + ".test"}
    elif not config.get("NAME"):
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no database.")
    return config


def redis_url(name: str = "REDIS_URL") -> str:
    raw = os.environ.get(name, "")
    if raw and urlparse(raw).scheme not in ("redis", "rediss", "unix"):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a redis:// URL.")
    return raw
