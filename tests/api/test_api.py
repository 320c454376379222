"""The API as a client uses it: token auth (made, used, revoked, wrong), staff sessions with CSRF,
anonymous refused, runs made through the admin's validation, memory search, events by cursor, a
room's transcript in two forms, model calls, tables as CSV, and a fork."""
from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from memories.models import Memory
from tests.api_helpers import staff_with_token
from voyage.engine.runner import advance, create_run
from voyage.models import ApiToken, Event, LLMCall, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    return staff_with_token()


@pytest.fixture
def client(staff):
    return Client(headers={"X-API-Key": staff[1]})


@pytest.fixture
def run():
    made = create_run(Scenario.objects.get(slug="1912"), seed=3, target_ticks=40)
    return advance(made, 40)


def test_a_token_is_stored_only_as_its_digest_and_can_be_revoked(staff, run):
    user, secret = staff
    token = ApiToken.objects.get(user=user)
    assert secret not in str(token.__dict__) and token.digest == ApiToken.digest_of(secret)
    ok = Client(headers={"X-API-Key": secret}).get(f"/api/runs/{run.pk}")
    assert ok.status_code == 200 and ok.json()["tick"] == 40
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert Client(headers={"X-API-Key": secret[:-1] + "x"}).get(f"/api/runs/{run.pk}").status_code == 401
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert Client(headers={"X-API-Key": secret}).get(f"/api/runs/{run.pk}").status_code == 401


def test_a_token_of_someone_no_longer_staff_is_refused(staff, run):
    user, secret = staff
    User.objects.filter(pk=user.pk).update(is_staff=False)
    assert Client(headers={"X-API-Key": secret}).get("/api/runs").status_code == 401


def test_the_admin_shows_a_new_token_once_and_stores_its_digest(staff):
    user, _ = staff
    User.objects.filter(pk=user.pk).update(is_superuser=True)
    browser = Client()
    browser.force_login(user)
    page = browser.post("/admin/voyage/apitoken/add/", {"name": "notebook", "user": user.pk, "revoked_at": ""},
                        follow=True)
    shown = [str(m) for m in page.context["messages"]]
    secret = next(w for m in shown for w in m.split() if w.startswith(ApiToken.PREFIX))
    made = ApiToken.objects.get(name="notebook")
    assert made.digest == ApiToken.digest_of(secret)
    assert Client(headers={"X-API-Key": secret}).get("/api/runs").status_code == 200
    assert secret not in browser.get(f"/admin/voyage/apitoken/{made.pk}/change/").content.decode()


def test_anonymous_and_outsiders_get_401(run):
    anonymous = Client()
    assert anonymous.get("/api/runs").status_code == 401
    assert anonymous.post(f"/api/runs/{run.pk}/pause").status_code == 401
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider", password="pw"))
    assert outsider.get("/api/runs").status_code == 401


def test_a_staff_session_reads_and_needs_csrf_to_write(staff, run):
    session = Client(enforce_csrf_checks=True)
    session.force_login(staff[0])
    assert session.get(f"/api/runs/{run.pk}/agents").status_code == 200
    assert session.post(f"/api/runs/{run.pk}/stop").status_code == 403
    session.get("/admin/")  # sets the csrftoken cookie
    token = session.cookies["csrftoken"].value
    stopped = session.post(f"/api/runs/{run.pk}/stop", headers={"X-CSRFToken": token})
    assert stopped.status_code == 200 and stopped.json()["state"] == Run.FINISHED


def test_create_goes_through_the_admins_validation(client):
    bad = client.post("/api/runs", {"scenario": "1912", "cast": ["nobody"], "parameters": {"fatigue_warning": 90}},
                      content_type="application/json")
    assert bad.status_code == 422
    fields = {d["loc"][-1] for d in bad.json()["detail"]}
    assert {"cast", "fatigue_warning"} <= fields
    made = client.post("/api/runs", {"scenario": "1912", "ticks": 20, "seed": 9, "parameters": {"hot_memory_limit": 30}},
                       content_type="application/json")
    assert made.status_code == 201
    body = made.json()
    assert (body["state"], body["target_ticks"], body["seed"], body["parameters"]["hot_memory_limit"]) == (
        Run.QUEUED, 20, 9, 30)
    assert Run.objects.get(pk=body["id"]).agents.count() == 33


def test_run_ahead_round_trips_and_is_checked(client):
    made = client.post("/api/runs", {"scenario": "1912", "ticks": 5, "schedule": "simultaneous",
                                      "parameters": {"run_ahead": 0}}, content_type="application/json")
    assert made.status_code == 201 and made.json()["parameters"]["run_ahead"] == 0
    assert client.get(f"/api/runs/{made.json()['id']}").json()["parameters"]["run_ahead"] == 0
    default = client.post("/api/runs", {"scenario": "1912", "ticks": 5}, content_type="application/json")
    assert default.json()["parameters"]["run_ahead"] == 2
    before = Run.objects.count()
    for bad in (-1, 9, "two"):
        refused = client.post("/api/runs", {"scenario": "1912", "ticks": 5, "parameters": {"run_ahead": bad}},
                              content_type="application/json")
        assert refused.status_code == 422 and refused.json()["detail"][0]["loc"][-1] == "run_ahead"
    assert Run.objects.count() == before


def test_control_refusals_are_409(client, run, queued):
    Run.objects.filter(pk=run.pk).update(state=Run.FINISHED)
    refused = client.post(f"/api/runs/{run.pk}/pause")
    assert refused.status_code == 409 and "finished" in refused.json()["detail"]
    assert client.post("/api/runs/999999/pause").status_code == 404


def test_memory_search_finds_a_row_by_a_word_of_it(client, run):
    agent = run.agents.select_related("persona").order_by("persona__key").first()
    Memory.objects.create(run=run, agent=agent, tick=39, kind="seen", text="A brass astrolabe glints under the piano.")
    found = client.get(f"/api/runs/{run.pk}/agents/{agent.persona.key}/memories/search", {"q": "astrolabe"}).json()
    assert any("astrolabe" in r["text"] for r in found)
    assert client.get(f"/api/runs/{run.pk}/agents/nobody/memories/search", {"q": "x"}).status_code == 404


def test_memory_stream_pages_by_cursor(client, run):
    key = run.agents.select_related("persona").order_by("persona__key").first().persona.key
    seen, after = [], 0
    while True:
        page = client.get(f"/api/runs/{run.pk}/agents/{key}/memories", {"after": after, "limit": 7}).json()
        seen += [m["id"] for m in page["items"]]
        if page["next"] is None:
            break
        after = page["next"]
    assert seen == list(Memory.objects.filter(run=run, agent__persona__key=key).order_by("id").values_list("id", flat=True))


def test_events_filter_and_page_by_seq(client, run):
    page = client.get(f"/api/runs/{run.pk}/events", {"kind": "communicate", "tick_from": 5, "tick_to": 30,
                                                       "limit": 1000}).json()
    expected = Event.objects.filter(run=run, kind="communicate", tick__gte=5, tick__lte=30).count()
    assert len(page["items"]) == expected > 0
    assert all(e["kind"] == "communicate" and 5 <= e["tick"] <= 30 for e in page["items"])
    first = client.get(f"/api/runs/{run.pk}/events", {"limit": 10}).json()
    rest = client.get(f"/api/runs/{run.pk}/events", {"after": first["next"], "limit": 5}).json()
    assert [e["seq"] for e in first["items"] + rest["items"]] == list(range(15))


def test_a_rooms_transcript_as_json_and_markdown(client, run):
    room = Event.objects.filter(run=run, kind="communicate").select_related("room").first().room
    as_json = client.get(f"/api/runs/{run.pk}/rooms/{room.key}/transcript").json()
    assert as_json["items"] and all(e["room"] == room.key for e in as_json["items"])
    md = client.get(f"/api/runs/{run.pk}/rooms/{room.key}/transcript.md")
    assert md["Content-Type"].startswith("text/markdown") and room.name in md.content.decode()


def test_model_calls_carry_prompt_answer_and_usage(client, run):
    page = client.get(f"/api/runs/{run.pk}/calls", {"purpose": "action", "limit": 3}).json()
    call = LLMCall.objects.get(pk=page["items"][0]["id"])
    assert page["items"][0]["prompt"] == call.prompt and page["items"][0]["answer"] == call.raw_answer
    assert page["items"][0]["prompt_tokens"] == call.prompt_tokens


def test_tables_download_as_csv(client, run):
    response = client.get(f"/api/runs/{run.pk}/tables/events.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == Event.objects.filter(run=run).count()


def test_fork_through_the_api(client, run):
    made = client.post(f"/api/runs/{run.pk}/fork", {"at_tick": 20, "seed": 4}, content_type="application/json")
    assert made.status_code == 201
    assert (made.json()["forked_from"], made.json()["fork_tick"], made.json()["tick"], made.json()["seed"]) == (
        run.pk, 20, 20, 4)
    too_far = client.post(f"/api/runs/{run.pk}/fork", {"at_tick": 41}, content_type="application/json")
    assert too_far.status_code == 422


def test_the_docs_and_schema_load_nothing_from_the_internet():
    docs = Client().get("/api/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    schema = Client().get("/api/openapi.json").json()
    assert {"TokenAuth", "StaffSession"} <= set(schema["components"]["securitySchemes"])
