"""Scale-out is configuration: DATABASE_URL=postgres://… and REDIS_URL=redis://… switch the
database, the django-q2 broker, the cache and the channel layer, checked against the real servers."""
from __future__ import annotations

import json

from tests.services import require
from voyage.bench.fleet import POSTGRES_URL, REDIS_TEST_URL, ScratchDB, manage, postgres_available, redis_available

PROBE = """
import json
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django_q.brokers import get_broker
layer = get_channel_layer()
channel = async_to_sync(layer.new_channel)()
async_to_sync(layer.group_add)("voyage-probe", channel)
async_to_sync(layer.group_send)("voyage-probe", {"type": "probe.event", "tick": 7})
received = async_to_sync(layer.receive)(channel)
print(json.dumps({"db": connection.vendor, "broker": type(get_broker()).__name__,
                  "layer": type(layer).__name__, "received": received,
                  "cache": settings.CACHES["default"]["BACKEND"]}))
"""


def probe(env) -> dict:
    return json.loads(manage(env, "shell", "-c", PROBE).strip().splitlines()[-1])


def test_postgres_and_redis_switch_database_broker_cache_and_channel_layer():
    require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    require("Redis at 127.0.0.1:6379", redis_available())
    with ScratchDB("postgres", redis=REDIS_TEST_URL, server_url=POSTGRES_URL) as db:
        assert probe(db.env()) == {"db": "postgresql", "broker": "Redis", "layer": "RedisChannelLayer",
                                   "received": {"type": "probe.event", "tick": 7},
                                   "cache": "django.core.cache.backends.redis.RedisCache"}


def test_the_embedded_defaults_need_no_server():
    with ScratchDB("sqlite") as db:
        figures = probe(db.env())
    assert (figures["db"], figures["broker"], figures["layer"]) == ("sqlite", "ORM", "InMemoryChannelLayer")
