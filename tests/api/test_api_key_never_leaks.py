"""The key check: after a run on a model profile whose key variable is set (the key really used,
against a real HTTP server on 127.0.0.1), neither the run's fixture, its tidy tables, nor any API
response contains the key. The fixture names the variable, never its value."""
from __future__ import annotations

import gzip
import re

import pytest
from django.test import Client

from tests.api_helpers import staff_with_token
from voyage.api.site import api
from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.engine.runner import advance, create_run
from voyage.export.fixture import export_run
from voyage.export.tables import TABLES, write_tables
from voyage.models import ModelProfile, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db
KEY_ENV = "VOYAGE_TEST_API_KEY"
KEY = "sk-voyage-apicheck-7d21c9e0aa"


@pytest.fixture
def keyed_run(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAI(seed=3) as server:
        profile = ModelProfile.objects.create(name="fake", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                              model="fake-model", api_key_env=KEY_ENV, timeout_s=5, concurrency=33)
        run = create_run(Scenario.objects.get(slug="1912"), seed=5, schedule=Run.SIMULTANEOUS, target_ticks=6,
                         profile=profile)
        advance(run, 6)
        Run.objects.filter(pk=run.pk).update(state=Run.FINISHED)
        run.refresh_from_db()
        assert {r["authorization"] for r in server.records} == {f"Bearer {KEY}"}  # the key was used
    return run


def every_get_path(run) -> list[str]:
    agent = run.agents.select_related("persona").first().persona.key
    room = run.scenario.rooms.first().key
    values = {"run_id": run.pk, "key": agent, "room": room}
    paths = []
    for path, methods in api.get_openapi_schema()["paths"].items():
        if "get" not in methods:
            continue
        names = re.findall(r"{(\w+)}", path)
        if "study_id" in names or "survey_id" in names:
            continue  # a study's pages carry measures, not a run's rows or its profile; the run has no survey
        for table in (TABLES if "name" in names else [None]):
            paths.append(path.format(**values, **({"name": table} if table else {})))
    return paths


def test_no_fixture_table_or_api_response_contains_the_key(keyed_run, tmp_path):
    fixture = tmp_path / "run.jsonl.gz"
    export_run(keyed_run, str(fixture))
    text = gzip.decompress(fixture.read_bytes()).decode()
    assert KEY_ENV in text and KEY not in text

    for path in write_tables(keyed_run, tmp_path / "tables"):
        assert KEY not in path.read_text()

    _, token = staff_with_token()
    client = Client(headers={"X-API-Key": token})
    paths = every_get_path(keyed_run)
    # every GET operation (studies, interviews, interventions, surveys, judging, validity), each table
    assert len(paths) == 19 + len(TABLES)
    for path in paths:
        response = client.get(path, {"q": "good day"} if path.endswith("/search") else {})
        assert response.status_code == 200, path
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert KEY.encode() not in body, path
    for verb in ("clone", "replay", "pause", "resume", "stop"):
        response = client.post(f"/api/runs/{keyed_run.pk}/{verb}", {}, content_type="application/json")
        assert response.status_code in (200, 201, 409) and KEY.encode() not in response.content, verb
