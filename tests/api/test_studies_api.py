"""Studies through the API: made with the same checks as the command, followed, tabulated."""
import csv
import io

import pytest

from tests.api_helpers import staff_with_token
from voyage.models import Run
from voyage.studies.foreground import run_study
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def token():
    return staff_with_token()[1]


def post(client, token, body):
    return client.post("/api/studies", body, content_type="application/json", HTTP_X_API_KEY=token)


def test_a_study_made_through_the_api_is_followed_and_tabulated(client, token, queued):
    body = {"name": "api", "ticks": 3, "axes": {"seeds": [2], "hot_memory_limit": [30, 50]},
            "shared": {"attrition_threshold": 60}, "parallel": 2}
    made = post(client, token, body)
    assert made.status_code == 201, made.content
    out = made.json()
    assert [(m["cell"], m["seed"], m["state"]) for m in out["members"]] == [
        ("hot_memory_limit=30", "1", "queued"), ("hot_memory_limit=30", "2", "queued"),
        ("hot_memory_limit=50", "1", "paused"), ("hot_memory_limit=50", "2", "paused")]
    assert {r.attrition_threshold for r in Run.objects.filter(study_member__study_id=out["id"])} == {60}
    run_study(Study.objects.get(pk=out["id"]), io.StringIO())
    detail = client.get(f"/api/studies/{out['id']}", HTTP_X_API_KEY=token).json()
    assert detail["state"] == "finished" and detail["finished"] == 4
    response = client.get(f"/api/studies/{out['id']}/results.csv", HTTP_X_API_KEY=token)
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["hot_memory_limit"], r["seed"], r["day"]) for r in rows] == [
        ("30", "1", "1"), ("30", "2", "1"), ("50", "1", "1"), ("50", "2", "1")]
    listed = client.get("/api/studies", HTTP_X_API_KEY=token).json()
    assert [s["name"] for s in listed["items"]] == ["api"]


@pytest.mark.parametrize("body, words", [
    ({"name": "x", "ticks": 3, "axes": {"hot_memory_limit": [30, -1]}}, "hot_memory_limit"),
    ({"name": "x", "ticks": 3, "axes": {"bogus": [1]}}, "bogus: not a run parameter"),
    ({"name": "x", "axes": {}}, "ticks or as days"),
    ({"name": "x", "ticks": 3, "axes": {"seeds": [0]}}, "seeds=N takes one count"),
    ({"name": "x", "ticks": 3, "judge": ["/etc/passwd@1"]}, "there is no shipped rubric '/etc/passwd'"),
    ({"name": "x", "ticks": 3, "judge": ["default@2"]}, "judge a day from 1 to 1"),
])
def test_bad_input_is_a_422_naming_it_and_writes_nothing(client, token, body, words):
    runs = Run.objects.count()
    response = post(client, token, body)
    assert response.status_code == 422 and words in response.json()["detail"][0]["msg"]
    assert Study.objects.count() == 0 and Run.objects.count() == runs


def test_anonymous_callers_get_401(client):
    assert client.get("/api/studies").status_code == 401
    assert client.post("/api/studies", {}, content_type="application/json").status_code == 401


LAMP = {"kind": "object_place", "tick": 20, "name": "Brass lamp", "room": "east_corridor", "text": "It hums."}


def arms_body(**change):
    return {"name": "arms", "scenario": "edelweiss", "ticks": 40, "start": False,
            "axes": {"intervention": ["none", "lamp"]}, "interventions": {"lamp": LAMP}, **change}


def test_a_study_over_an_intervention_made_through_the_api_forks_its_arms_from_one_base(client, token):
    made = post(client, token, arms_body())
    assert made.status_code == 201, made.content
    out = made.json()
    assert out["fork_tick"] == 20 and out["interventions"]["lamp"]["name"] == "Brass lamp"
    [base] = [m for m in out["members"] if m["base"]]
    assert (base["target_ticks"], base["cell"]) == (20, "base")
    arms = [m for m in out["members"] if not m["base"]]
    assert [(m["cell"], m["forked_from"], m["fork_tick"], m["target_ticks"]) for m in arms] == [
        ("intervention=none", base["run_id"], 20, 40), ("intervention=lamp", base["run_id"], 20, 40)]
    assert all(m["note"] == f"waiting for its base run {base['run_id']} to reach tick 20" for m in arms)
    run_study(Study.objects.get(pk=out["id"]), io.StringIO())
    detail = client.get(f"/api/studies/{out['id']}", HTTP_X_API_KEY=token).json()
    assert detail["state"] == "finished" and [m["tick"] for m in detail["members"]] == [20, 40, 40]
    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/studies/{out['id']}/results.csv",
                                                      HTTP_X_API_KEY=token).content.decode())))
    assert [r["intervention"] for r in rows] == ["none", "lamp"]


@pytest.mark.parametrize("change, words", [
    ({"interventions": {"lamp": {**LAMP, "room": "the_moon"}}}, "has no room 'the_moon'"),
    ({"interventions": {"lamp": {**LAMP, "tick": 40}}}, "tick 40 is beyond the runs' length of 40 ticks"),
    ({"interventions": {"lamp": {"kind": "memory", "tick": 5, "agent": "nobody", "text": "x"}}}, "no agent 'nobody'"),
    ({"interventions": {"lamp": {"kind": "memory", "tick": 5, "text": "x"}}}, "memory needs agent"),
    ({"interventions": {}}, "intervention=lamp: define it"),
    ({"axes": {"seeds": [2]}}, "'lamp': defined but not varied"),
])
def test_a_bad_intervention_is_a_422_naming_it_and_writes_nothing(client, token, change, words):
    runs = Run.objects.count()
    response = post(client, token, arms_body(**change))
    assert response.status_code == 422 and words in response.json()["detail"][0]["msg"], response.content
    assert Study.objects.count() == 0 and Run.objects.count() == runs


def test_a_tick_before_1_is_refused_by_the_schema(client, token):
    response = post(client, token, arms_body(interventions={"lamp": {**LAMP, "tick": 0}}))
    assert response.status_code == 422 and "tick" in str(response.json()["detail"])
    assert Study.objects.count() == 0


def test_only_staff_make_studies_over_interventions(client, token):
    from django.contrib.auth.models import User
    from django.test import Client

    body = arms_body()
    assert Client().post("/api/studies", body, content_type="application/json").status_code == 401
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider", password="pw"))
    assert outsider.post("/api/studies", body, content_type="application/json").status_code in (401, 403)
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(User.objects.create_user("keeper", password="pw", is_staff=True))
    assert staff.post("/api/studies", body, content_type="application/json").status_code == 403  # no CSRF header
    assert not Study.objects.exists()


def test_a_study_made_through_the_api_judges_a_day(client, token):
    made = post(client, token, {"name": "judged", "ticks": 3, "judge": ["default@1"], "start": False})
    assert made.status_code == 201, made.content
    study = Study.objects.get(pk=made.json()["id"])
    assert [(j["day"], j["rubric"], j["source"]) for j in study.judging] == [(1, "default", "default")]
