"""Surveys through the API (issue 32): a token holder puts a questionnaire to a run's agents, reads the
survey back with one answer per agent × item; a broken questionnaire is a 422 naming its item and key;
nobody without staff rights gets in."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.api_helpers import staff_with_token
from tests.instruments.test_questionnaire import EXAMPLE
from voyage.engine.runner import advance, create_run
from voyage.instruments.models import Survey
from voyage.models import LLMCall
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    return Client(headers={"X-API-Key": staff_with_token()[1]})


@pytest.fixture
def run():
    return advance(create_run(Scenario.objects.get(slug="1912"), seed=3, target_ticks=12), 12)


def test_a_survey_through_the_api_and_back(client, run):
    keys = list(run.agents.order_by("persona__key").values_list("persona__key", flat=True)[:4])
    made = client.post(f"/api/runs/{run.pk}/surveys", {"questionnaire": EXAMPLE, "tick": 6, "agents": keys},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["tick"], body["agents"], body["scripted"], body["title"]) == (6, 4, True, "Life in the house")
    assert [(a["agent"], a["item"]) for a in body["answers"]] == [(k, i) for k in keys
                                                                  for i in ("safe", "leader", "worries", "days", "wish")]
    assert all(a["missing_reason"] == "" and a["answer"] for a in body["answers"])
    assert LLMCall.objects.filter(run=run, purpose="survey", tick=6).count() == 4
    listed = client.get(f"/api/runs/{run.pk}/surveys").json()
    assert [s["id"] for s in listed] == [body["id"]]
    assert client.get(f"/api/runs/{run.pk}/surveys/{body['id']}").json()["answers"] == body["answers"]
    assert client.get(f"/api/runs/{run.pk}/surveys/{body['id'] + 1}").status_code == 404


@pytest.mark.parametrize("payload, says", [
    ({"questionnaire": "title: T\nitems:\n  - {id: a, text: A?, kind: rating}\n"}, "line 3: items[0] (a).kind"),
    ({"questionnaire": EXAMPLE, "tick": 13}, "from 0 to 12"),
    ({"questionnaire": EXAMPLE, "agents": ["nobody"]}, "has no agent nobody"),
])
def test_bad_input_is_a_422_naming_what_is_wrong_and_nothing_is_written(client, run, payload, says):
    response = client.post(f"/api/runs/{run.pk}/surveys", payload, content_type="application/json")
    assert response.status_code == 422 and says in response.json()["detail"][0]["msg"]
    assert not Survey.objects.exists() and not LLMCall.objects.filter(purpose="survey").exists()


def test_no_one_but_staff_gets_in(run):
    User.objects.create_user("outsider", password="pw")
    outsider = Client()
    outsider.login(username="outsider", password="pw")
    for client in (Client(), outsider):
        assert client.get(f"/api/runs/{run.pk}/surveys").status_code in (401, 403)
        assert client.post(f"/api/runs/{run.pk}/surveys", {"questionnaire": EXAMPLE},
                           content_type="application/json").status_code in (401, 403)
    assert not Survey.objects.exists()
