"""Who may interview an agent, through the inspector page and the API: staff only; anyone else is
refused and nothing is written. Answers are shown escaped."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from tests.api_helpers import staff_with_token
from tests.engine_helpers import new_run
from voyage.engine.runner import advance
from voyage.gateway.offline_interview import CANNED
from voyage.instruments.models import Interview
from voyage.models import LLMCall
from world.models import AgentState

pytestmark = pytest.mark.django_db
HOSTILE = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>'


@pytest.fixture
def run():
    return advance(new_run(seed=5, target_ticks=20), 20)


@pytest.fixture
def agent(run):
    return AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key").first()


def nothing_written():
    return Interview.objects.count() == 0 and not LLMCall.objects.filter(purpose="interview").exists()


def form_url(run, agent):
    return reverse("web:agent_interview", args=[run.pk, agent.persona.key])


def api_url(run, agent):
    return f"/api/runs/{run.pk}/agents/{agent.persona.key}/interviews"


def test_the_form_refuses_anyone_but_staff(run, agent):
    anonymous = Client()
    response = anonymous.post(form_url(run, agent), {"question": "Who are you?", "tick": "5"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider"))
    assert outsider.post(form_url(run, agent), {"question": "Who are you?"}).status_code == 403
    assert outsider.get(reverse("web:agent_inspector", args=[run.pk, agent.persona.key])).status_code == 403
    assert nothing_written()


def test_staff_ask_on_the_inspector_and_read_the_answer_as_text(run, agent):
    staff = Client()
    staff.force_login(User.objects.create_user("inspector", is_staff=True))
    assert staff.get(form_url(run, agent)).status_code == 405  # asking changes something: POST only
    response = staff.post(form_url(run, agent), {"question": HOSTILE, "tick": "5"})
    interview = Interview.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"#interview-{interview.pk}")
    assert interview.tick == 5 and interview.asked_by.username == "inspector"
    page = staff.get(reverse("web:agent_inspector", args=[run.pk, agent.persona.key])).content.decode()
    assert escape(HOSTILE) in page and HOSTILE not in page  # the question, and the answer echoing it
    assert escape(interview.call.raw_answer) in page and interview.call.raw_answer.startswith(CANNED)
    assert 'name="tick" min="0" max="20" value="20"' in page  # the tick field defaults to now


def test_a_refused_question_says_why_on_the_page_and_writes_nothing(run, agent):
    staff = Client()
    staff.force_login(User.objects.create_user("inspector", is_staff=True))
    response = staff.post(form_url(run, agent), {"question": "Who?", "tick": "99"}, follow=True)
    assert "Not asked: tick: run" in response.content.decode()
    assert nothing_written()


def test_the_api_refuses_anonymous_outsiders_and_sessions_without_csrf(run, agent):
    body = {"question": "Who are you?", "tick": 3}
    assert Client().post(api_url(run, agent), body, content_type="application/json").status_code == 401
    assert Client().get(api_url(run, agent)).status_code == 401
    outsider = Client()
    outsider.force_login(User.objects.create_user("outsider"))
    assert outsider.post(api_url(run, agent), body, content_type="application/json").status_code == 401
    user, _ = staff_with_token()
    session = Client(enforce_csrf_checks=True)
    session.force_login(user)
    assert session.post(api_url(run, agent), body, content_type="application/json").status_code == 403
    assert nothing_written()
    session.get("/admin/")
    made = session.post(api_url(run, agent), body, content_type="application/json",
                        headers={"X-CSRFToken": session.cookies["csrftoken"].value})
    assert made.status_code == 201 and made.json()["tick"] == 3


def test_the_api_asks_with_a_token_and_lists_the_interviews(run, agent):
    _, secret = staff_with_token()
    client = Client(headers={"X-API-Key": secret})
    made = client.post(api_url(run, agent), {"question": HOSTILE}, content_type="application/json")
    assert made.status_code == 201
    out = made.json()
    assert out["tick"] == run.tick and out["agent"] == agent.persona.key and out["answer"].startswith(CANNED)
    assert out["answered"] and out["prompt_tokens"] > 0 and out["asked_by"] == "api-staff"
    assert client.get(api_url(run, agent)).json()[0]["id"] == out["id"]
    calls = client.get(f"/api/runs/{run.pk}/calls", {"after": out["call"] - 1, "limit": 1}).json()["items"]
    assert calls[0]["purpose"] == "interview" and calls[0]["answer"] == out["answer"]
    for bad in ({"question": ""}, {"question": "Who?", "tick": 21}, {"question": "Who?", "tick": "5"},
                {"question": "Who?", "extra": 1}):
        assert client.post(api_url(run, agent), bad, content_type="application/json").status_code == 422, bad
    assert client.post(f"/api/runs/{run.pk}/agents/nobody/interviews", {"question": "Who?"},
                       content_type="application/json").status_code == 404
    assert Interview.objects.count() == 1
