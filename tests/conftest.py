import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def one_day_run(django_db_setup, django_db_blocker):
    """A whole offline day of the 1912 scenario (sequential, seed 1912), run once per session, its
    memory jobs (compaction, dreams) run inline, finished as the batch runner leaves a run."""
    from tests.memory_helpers import jobs_inline
    from voyage.engine.runner import advance, create_run
    from voyage.models import Run
    from world.models import Scenario

    with django_db_blocker.unblock(), jobs_inline():
        run = create_run(Scenario.objects.get(slug="1912"), seed=1912, target_ticks=480)
        advance(run, 480)
        Run.objects.filter(pk=run.pk).update(state=Run.FINISHED)
        run.refresh_from_db()
    return run


@pytest.fixture
def queued(monkeypatch):
    """Run chunks queued by the code under test, collected instead of going to the broker."""
    from voyage.runs import tasks

    calls = []
    monkeypatch.setattr(tasks, "queue_chunk", lambda run_id, tick: calls.append((run_id, tick)))
    return calls


@pytest.fixture
def staff(client, db):
    """The test client, logged in as a staff user ("staff", password "pw"), not a superuser."""
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("staff", password="pw", is_staff=True))
    return client


@pytest.fixture
def superuser(client, db):
    """The test client, logged in as a superuser ("staff", password "pw"): what the admin's pages need."""
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("staff", password="pw", is_staff=True, is_superuser=True))
    return client


def manage(*args, env=None, **kwargs):
    """argv for `python manage.py ...` in a subprocess."""
    return [sys.executable, str(ROOT / "manage.py"), *args]



def _shipped_scenarios_back(sender, **kwargs):
    """A transactional test ends with a flush of every table, the scenarios the migrations installed
    too; the flush then sends post_migrate, and the shipped scenarios are installed again, for the
    tests that follow (module fixtures read 1912 straight from the database)."""
    if getattr(sender, "label", None) != "world":
        return
    from world.models import Scenario
    from world.scenarios.files import import_yaml, shipped_file

    for slug in ("1912", "edelweiss"):
        if not Scenario.objects.filter(slug=slug).exists():
            import_yaml(shipped_file(slug).read_text(encoding="utf-8"))


def pytest_configure(config):
    from django.db.models.signals import post_migrate

    post_migrate.connect(_shipped_scenarios_back, dispatch_uid="tests-shipped-scenarios-back")
