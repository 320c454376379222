"""Interventions through the run overview's form, the API and `manage.py intervene`: staff only;
a refused one says why and writes nothing."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from tests.api_helpers import staff_with_token
from tests.engine_helpers import new_run
from voyage.engine.runner import advance
from voyage.instruments.models import Intervention
from voyage.models import Event, Run
from world.models import AgentState

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    made = advance(new_run(seed=5, target_ticks=30), 10)
    Run.objects.filter(pk=made.pk).update(state=Run.PAUSED)
    made.refresh_from_db()
    return made


def room_of(run) -> str:
    return AgentState.objects.filter(run=run).select_related("location").first().location.key


def test_the_overview_form_is_for_staff_and_applies_at_once(run):
    url = reverse("web:run_intervene", args=[run.pk])
    body = {"kind": "room_event", "room": room_of(run), "how": "sound", "text": "<b>The lights go out.</b>",
            "tick": "10"}
    assert Client().post(url, body)["Location"].startswith("/accounts/login/")
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider"))
    assert outsider.post(url, body).status_code == 403
    assert not Intervention.objects.exists()
    staff = Client()
    staff.force_login(User.objects.create_user("keeper", is_staff=True))
    page = staff.post(url, body, follow=True).content.decode()
    assert "Intervention at tick 10 applied." in page
    assert "&lt;b&gt;The lights go out.&lt;/b&gt;" in page and "<b>The lights go out.</b>" not in page
    event = Event.objects.get(run=run, kind="intervention")
    assert event.data["by"] == "keeper" and event.text == "<b>The lights go out.</b>"
    refused = staff.post(url, {**body, "room": "the-moon"}, follow=True).content.decode()
    assert "Nothing changed: room: the scenario" in refused and Intervention.objects.count() == 1


def test_the_api_is_for_staff_and_refuses_bad_interventions_by_name(run):
    url = f"/api/runs/{run.pk}/interventions"
    body = {"kind": "room_event", "room": room_of(run), "text": "A telegram is pinned up.", "how": "sight"}
    assert Client().post(url, body, content_type="application/json").status_code == 401
    assert Client().get(url).status_code == 401
    _, secret = staff_with_token()
    client = Client(headers={"X-API-Key": secret})
    made = client.post(url, body, content_type="application/json")
    assert made.status_code == 201 and made.json()["applied"] and made.json()["made_by"] == "api-staff"
    bad = client.post(url, {**body, "room": "the-moon"}, content_type="application/json")
    assert bad.status_code == 422 and "no room 'the-moon'" in bad.json()["detail"][0]["msg"]
    assert client.post(url, {**body, "how": "smell"}, content_type="application/json").status_code == 422
    later = client.post(url, {"kind": "memory", "agent": AgentState.objects.filter(run=run).first().persona.key,
                              "text": "Look behind the clock.", "tick": 20}, content_type="application/json")
    assert later.status_code == 201 and not later.json()["applied"]
    assert [i["tick"] for i in client.get(url).json()] == [10, 20]


def test_the_command_intervenes_or_forks_and_intervenes(run):
    out = io.StringIO()
    call_command("intervene", str(run.pk), "--room", room_of(run), "--event", "The lights go out.", stdout=out)
    assert json.loads(out.getvalue())["applied"]
    with pytest.raises(CommandError, match="has no room 'the-moon'"):
        call_command("intervene", str(run.pk), "--room", "the-moon", "--event", "Smoke.", stdout=io.StringIO())
    out = io.StringIO()
    agent = AgentState.objects.filter(run=run, alive=True).first().persona.key
    call_command("intervene", str(run.pk), "--at-tick", "5", "--fork", "--agent", agent, "--memory", "A voice.",
                 stdout=out)
    line = json.loads(out.getvalue())
    child = Run.objects.get(pk=line["run_id"])
    assert child.forked_from_id == run.pk and child.tick == 5 and line["applied"]
    assert Event.objects.filter(run=child, kind="intervention").count() == 1  # the source's at tick 10 is after 5


def test_the_admin_adds_an_intervention_through_the_same_checks(run):
    admin = Client()
    admin.force_login(User.objects.create_superuser("admin", password="pw"))
    agent = AgentState.objects.filter(run=run).select_related("location").first()
    url = "/admin/instruments/intervention/add/"
    body = {"run": run.pk, "kind": "room_event", "room": agent.location_id, "how": "sight", "agent": "",
            "text": "A telegram is pinned to the notice board.", "tick": ""}
    AgentState.objects.filter(pk=agent.pk).update(alive=False)
    refused = admin.post(url, {**body, "kind": "memory", "room": "", "agent": agent.pk})
    assert refused.status_code == 200 and "is dead" in refused.content.decode()
    assert not Intervention.objects.exists()
    made = admin.post(url, body)
    assert made.status_code == 302
    iv = Intervention.objects.get()
    assert iv.applied and iv.tick == 10 and iv.made_by == "admin"
    assert Event.objects.filter(run=run, kind="intervention", data__by="admin").count() == 1


def test_the_command_places_an_object_and_changes_a_persona(run):
    out = io.StringIO()
    call_command("intervene", str(run.pk), "--place", "Green Door Key", "--room", room_of(run), "--text",
                 "A small key painted green.", stdout=out)
    assert json.loads(out.getvalue())["kind"] == "object_place"
    agent = AgentState.objects.filter(run=run).first().persona.key
    call_command("intervene", str(run.pk), "--agent", agent, "--persona", "fear", "--text", "Deep water.",
                 stdout=io.StringIO())
    with pytest.raises(CommandError, match="give one of"):
        call_command("intervene", str(run.pk), "--remove", "Green Door Key", "--event", "x", stdout=io.StringIO())
    assert list(Intervention.objects.filter(run=run).values_list("kind", "name", "field")) == \
        [("object_place", "Green Door Key", ""), ("persona", "", "fear")]


@pytest.mark.parametrize("path", ["/admin/instruments/intervention/add/", "/admin/instruments/intervention/",
                                  "/admin/instruments/interview/", "/admin/studies/study/add/"])
def test_the_admins_instruments_and_studies_are_closed_to_anonymous_and_non_staff(run, path):
    """The admin's side of "through every interface": its pages send anyone but staff to log in, and a
    post from them writes nothing (an intervention, an interview, a study over an intervention)."""
    body = {"run": run.pk, "kind": "room_event", "room": room_of(run), "how": "sound", "text": "Smoke.", "tick": "",
            "name": "x", "scenario": "1912", "ticks": "20", "axes": "intervention=none,x",
            "interventions": f"x:room_event@5:{room_of(run)}:Smoke."}
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider", password="pw"))
    runs = Run.objects.count()
    for client in (Client(), outsider):
        assert client.get(path)["Location"].startswith("/admin/login/")
        assert client.post(path, body)["Location"].startswith("/admin/login/")
    from voyage.studies.models import Study

    assert not Intervention.objects.exists() and not Study.objects.exists() and Run.objects.count() == runs
