"""Settings come from the environment; a bad value fails loudly at start."""
import os
import subprocess

import pytest
from django.contrib import admin
from django.apps import apps

from tests.conftest import manage


@pytest.mark.parametrize("name, value, message", [
    ("DATABASE_URL", "mysql://localhost/voyage", "unsupported scheme"),
    ("DATABASE_URL", "sqlite://", "names no SQLite file"),
    ("DATABASE_URL", "postgres://127.0.0.1:5432", "names no database"),
    ("DATABASE_URL", "postgres://h:abc/db", "cannot be parsed"),
    ("REDIS_URL", "http://localhost:6379", "is not a redis:// URL"),
    ("DEBUG", "maybe", "is not a boolean"),
    ("VOYAGE_WORKERS", "two", "is not an integer"),
])
def test_a_bad_setting_fails_loudly(name, value, message):
    result = subprocess.run(manage("check"), env={**os.environ, name: value}, capture_output=True, text=True)
    assert result.returncode != 0
    assert message in result.stderr


def test_default_database_is_sqlite_with_wal_and_immediate_transactions():
    from voyage.env import database_from_url

    config = database_from_url("", "/tmp/x.sqlite3")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]


def test_postgres_url_is_understood():
    from voyage.env import database_from_url

    config = database_from_url("postgres://voyage@127.0.0.1:5432/voyage", "/unused")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["NAME"] == "voyage"


def test_every_model_is_in_the_admin():
    """Registered, or edited inline on a registered parent's page (exits live on their scenario's)."""
    inline = {i.model for model_admin in admin.site._registry.values() for i in model_admin.inlines}
    for label in ("world", "memories", "voyage"):
        for model in apps.get_app_config(label).get_models():
            assert admin.site.is_registered(model) or model in inline, model


urlpatterns = []  # this module is also the URL conf of the test below: one view, which fails


def _failing_view(request):
    raise ZeroDivisionError("a bug in a page")


def test_a_page_that_fails_prints_its_traceback_in_the_server_log(client, settings):
    """DEBUG off, as served: Django alone would only mail the traceback to ADMINS (none here)."""
    import io
    import logging

    from django.urls import path

    urlpatterns[:] = [path("fails/", _failing_view)]
    settings.ROOT_URLCONF, settings.DEBUG = __name__, False
    [console] = [h for h in logging.getLogger("django.request").handlers if isinstance(h, logging.StreamHandler)]
    said = io.StringIO()
    stream = console.setStream(said)
    try:
        client.raise_request_exception = False
        assert client.get("/fails/").status_code == 500
    finally:
        console.setStream(stream)
    assert "Internal Server Error: /fails/" in said.getvalue()
    assert "ZeroDivisionError: a bug in a page" in said.getvalue()  # the traceback, not just the line
