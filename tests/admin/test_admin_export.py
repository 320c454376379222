"""The run admin's export action downloads the run's fixture; its fork action forks one run at the
tick given beside it."""
from __future__ import annotations

import gzip
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from voyage.engine.runner import advance, create_run
from voyage.models import Run
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client():
    client = Client()
    client.force_login(User.objects.create_superuser("boss", password="pw"))
    return client


@pytest.fixture
def run():
    made = advance(create_run(Scenario.objects.get(slug="1912"), seed=8, target_ticks=20), 20)
    Run.objects.filter(pk=made.pk).update(state=Run.FINISHED)
    made.refresh_from_db()
    return made


def test_export_action_downloads_the_fixture(admin_client, run):
    response = admin_client.post("/admin/voyage/run/", {"action": "export_run_action", "_selected_action": [run.pk]})
    assert response.status_code == 200 and response["Content-Disposition"].endswith(f'run-{run.pk}.jsonl.gz"')
    rows = [json.loads(line) for line in gzip.decompress(b"".join(response.streaming_content)).splitlines()]
    runs = [r for r in rows if r["model"] == "voyage.run"]
    assert [r["fields"]["uuid"] for r in runs] == [str(run.uuid)]
    assert sum(r["model"] == "voyage.event" for r in rows) == run.events.count()
    assert all("pk" not in r for r in rows)


def test_a_running_run_is_not_exported(admin_client, run):
    Run.objects.filter(pk=run.pk).update(state=Run.RUNNING)
    page = admin_client.post("/admin/voyage/run/", {"action": "export_run_action", "_selected_action": [run.pk]},
                             follow=True)
    assert any("pause it first" in str(m) for m in page.context["messages"])


def test_fork_action_forks_at_the_tick_given(admin_client, run):
    page = admin_client.post("/admin/voyage/run/", {"action": "fork_run_action", "_selected_action": [run.pk],
                                                    "at_tick": "12", "seed": "99"}, follow=True)
    made = Run.objects.get(forked_from=run)
    assert (made.fork_tick, made.tick, made.seed, made.state) == (12, 12, 99, Run.PAUSED)
    assert any("Fork of run" in str(m) for m in page.context["messages"])
    refused = admin_client.post("/admin/voyage/run/", {"action": "fork_run_action", "_selected_action": [run.pk],
                                                       "at_tick": "500"}, follow=True)
    assert any("from 1 to 20" in str(m) for m in refused.context["messages"])
