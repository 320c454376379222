"""Surveys (issue 32, part 1): a questionnaire put to every living agent as it stood at tick T, through
the run's model, leaving no trace in the run; the offline policy answers deterministically and says it
is scripted; on an endpoint the calls go out together, with the answer's schema."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.models import Memory
from voyage.bench.fake_openai_server import FakeOpenAI
from tests.engine_helpers import new_run
from tests.memory_helpers import finished_run, run_tables
from tests.oracle import assert_same, transcript
from tests.instruments.test_questionnaire import EXAMPLE
from voyage.engine.budget import Budget
from voyage.gateway.offline_interview import CANNED
from voyage.gateway.prompts import prompt_text
from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.questionnaire import read_questionnaire
from voyage.instruments.survey_answers import answer_schema
from voyage.instruments.surveys import SurveyError, take_survey
from voyage.models import Event, LLMCall, ModelProfile, Run
from world.models import AgentState

pytestmark = pytest.mark.django_db
TICKS = 60
Q = read_questionnaire(EXAMPLE)


@pytest.fixture(scope="module")
def run(django_db_setup, django_db_blocker):
    with finished_run(django_db_blocker, TICKS, seed=11, hot_memory_limit=12, compaction_memory_count=20) as made:
        yield made


def living(run, tick):
    dead = Event.objects.filter(run=run, kind="death", tick__lte=tick).values("actor_id")
    return list(AgentState.objects.filter(run=run).exclude(id__in=dead).order_by("persona__key")
                .values_list("persona__key", flat=True))


def test_a_survey_leaves_transcript_memories_and_budget_as_they_were(run):
    Run.objects.filter(pk=run.pk).update(budget_tokens=10**12)
    run.refresh_from_db()
    try:
        events, tables, spent = transcript(run), run_tables(run), Budget(run).tokens
        take_survey(run, Q, 30)
        take_survey(run, Q)
        call_command("survey", str(run.pk), "--questionnaire", "-", stdin=io.StringIO(EXAMPLE), stdout=io.StringIO())
        assert_same(transcript(run), events)
        assert run_tables(run) == tables
        assert Budget(run).tokens == spent
        asked = sum(Survey.objects.filter(run=run).values_list("agents", flat=True))
        assert asked >= 3 * len(living(run, TICKS))
        assert LLMCall.objects.filter(run=run, purpose="survey").count() == asked
    finally:
        Run.objects.filter(pk=run.pk).update(budget_tokens=None)
        run.refresh_from_db()


def test_every_living_agent_answers_every_item_deterministically_and_scripted(run):
    one, two = take_survey(run, Q, 40), take_survey(run, Q, 40)
    assert one.scripted and one.agents == len(living(run, 40)) and one.tick == 40
    rows = list(SurveyAnswer.objects.filter(survey=one).order_by("id").values_list(
        "agent__persona__key", "item", "kind", "value", "missing_reason"))
    assert [r[0] for r in rows[::len(Q.items)]] == living(run, 40)
    assert [r[1] for r in rows[:len(Q.items)]] == ["safe", "leader", "worries", "days", "wish"]
    assert all(reason == "" for *_, reason in rows)  # the offline policy keeps to every item's kind
    assert rows == list(SurveyAnswer.objects.filter(survey=two).order_by("id").values_list(
        "agent__persona__key", "item", "kind", "value", "missing_reason"))
    values = {(agent, item): value for agent, item, _, value, _ in rows}
    assert all(1 <= values[(a, "safe")] <= 7 and values[(a, "leader")] in Q.items[1].options
               and 0 <= values[(a, "days")] <= 365 and values[(a, "wish")].startswith(CANNED) for a in living(run, 40))
    assert len({values[(a, "safe")] for a in living(run, 40)}) > 1  # not one canned number for all
    other_seed = take_survey(run, Q, 39)
    assert list(other_seed.answers.values_list("value", flat=True)) != [r[3] for r in rows]


def test_the_prompt_is_the_agents_own_mind_at_T_and_the_call_carries_the_schema(run):
    survey = take_survey(run, Q, 25, agents=living(run, 25)[:2])
    calls = LLMCall.objects.filter(id__in=survey.answers.values("call_id")).order_by("id")
    assert [c.agent.persona.key for c in calls] == living(run, 25)[:2]
    for call in calls:
        prompt = prompt_text(call.prompt)
        assert call.purpose == "survey" and call.tick == 25
        window = Memory.objects.filter(agent_id=call.agent_id, tick__lte=25).order_by("-id")[:12]
        assert all(row.text in prompt for row in window)
        assert "How safe do you feel here? — a whole number from 1 (not at all) to 7 (completely)" in prompt
        assert '"safe", "leader", "worries", "days", "wish"' in prompt
        later = Memory.objects.filter(agent_id=call.agent_id, tick__gt=25).order_by("id").first()
        assert later is None or later.text not in prompt or Memory.objects.filter(
            agent_id=call.agent_id, tick__lte=25, text=later.text).exists()


@pytest.mark.parametrize("tick, agents, says", [
    (-1, None, "from 0 to"), (TICKS + 1, None, "from 0 to"), ("soon", None, "whole number"),
    (10, ["nobody_here"], "has no agent nobody_here"),
])
def test_a_bad_tick_or_agent_is_refused_and_nothing_is_written(run, tick, agents, says):
    before = (Survey.objects.count(), LLMCall.objects.count())
    with pytest.raises(SurveyError, match=says):
        take_survey(run, Q, tick, agents)
    assert (Survey.objects.count(), LLMCall.objects.count()) == before


def test_the_dead_answer_no_questionnaire():
    run = new_run(seed=3, target_ticks=10)
    agent = AgentState.objects.filter(run=run).select_related("persona").first()
    Event.objects.create(run=run, tick=4, seq=0, kind="death", actor=agent, room_id=agent.location_id)
    Run.objects.filter(pk=run.pk).update(tick=8)
    run.refresh_from_db()
    assert agent.id not in set(take_survey(run, Q, 6).answers.values_list("agent_id", flat=True))
    with pytest.raises(SurveyError, match=f"{agent.persona.key} died by tick 5"):
        take_survey(run, Q, 5, [agent.persona.key])


def test_the_command_writes_a_tidy_csv(run, tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text(EXAMPLE, encoding="utf-8")
    out = tmp_path / "answers.csv"
    keys = living(run, 20)[:3]
    call_command("survey", str(run.pk), "--questionnaire", str(path), "--at-tick", "20", "--agents", ",".join(keys),
                 "-o", str(out), stderr=io.StringIO())
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["run", "tick", "agent", "rung", "item", "kind", "answer", "missing_reason"]
    assert [(r["agent"], r["item"]) for r in rows] == [(k, i.id) for k in keys for i in Q.items]
    assert all(r["run"] == str(run.pk) and r["tick"] == "20" and r["missing_reason"] == "" for r in rows)
    worries = [json.loads(r["answer"]) for r in rows if r["item"] == "worries"]
    assert all(isinstance(w, list) and set(w) <= set(Q.items[2].options) for w in worries)


def test_the_command_names_what_is_wrong(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: T\nitems:\n  - {id: a, text: A?, kind: rating}\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 3: items\[0\] \(a\).kind: must be one of"):
        call_command("survey", str(run.pk), "--questionnaire", str(bad))
    with pytest.raises(CommandError, match="no such file"):
        call_command("survey", str(run.pk), "--questionnaire", str(tmp_path / "none.yaml"))
    with pytest.raises(CommandError, match="has no agent zz"):
        call_command("survey", str(run.pk), "--questionnaire", "-", "--agents", "zz", stdin=io.StringIO(EXAMPLE))


def test_on_an_endpoint_the_calls_go_out_together_with_the_schema(run, monkeypatch):
    monkeypatch.setenv("VOYAGE_TEST_SURVEY_KEY", "sk-test")
    with FakeOpenAI(latency_ms=400) as server:
        profile = ModelProfile.objects.create(
            name="survey-fake", kind=ModelProfile.OPENAI, base_url=server.base_url, model="fake-model",
            api_key_env="VOYAGE_TEST_SURVEY_KEY", timeout_s=5, retries=0, concurrency=33,
            structured_output="json_schema")
        Run.objects.filter(pk=run.pk).update(profile=profile)
        run.refresh_from_db()
        try:
            keys = living(run, 30)[:8]
            survey = take_survey(run, Q, 30, keys)
        finally:
            Run.objects.filter(pk=run.pk).update(profile=None)
            run.refresh_from_db()
        records = list(server.records)
    assert len(records) == 8 and not survey.scripted
    starts = sorted(r["at"] for r in records)
    assert starts[-1] - starts[0] < 0.4  # every call was in flight before the first was answered
    for r in records:
        fmt = r["body"]["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == answer_schema(Q)
    # The fake endpoint answers a json_schema request in prose: every item missing, saying why.
    reasons = set(survey.answers.values_list("missing_reason", flat=True))
    assert reasons == {"the answer holds no JSON object"}
    assert set(survey.answers.values_list("value", flat=True)) == {None}


def test_a_saved_questionnaire_is_checked_whole_and_asked_from_the_runs_page(run):
    from django.contrib.auth.models import User
    from django.core.exceptions import ValidationError
    from django.test import Client

    from voyage.instruments.models import Questionnaire

    broken = Questionnaire(name="broken", text="title: T\nitems:\n  - {id: a, text: A?, kind: rate}\n")
    with pytest.raises(ValidationError, match=r"line 3: items\[0\] \(a\).kind: must be one of"):
        broken.full_clean()
    saved = Questionnaire.objects.create(name="house", text=EXAMPLE)
    staff = User.objects.create_user("surveyor", password="pw", is_staff=True)
    client = Client()
    client.force_login(staff)
    response = client.post(f"/runs/{run.pk}/surveys/new/", {"saved": saved.pk, "tick": "15"})
    survey = Survey.objects.filter(run=run).order_by("-id").first()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/surveys/{survey.pk}/"
    assert (survey.tick, survey.title, survey.made_by) == (15, "Life in the house", "surveyor")
    both = client.post(f"/runs/{run.pk}/surveys/new/", {"saved": saved.pk, "text": EXAMPLE}, follow=True)
    assert "not both" in both.content.decode() and Survey.objects.filter(run=run).order_by("-id").first() == survey


def test_the_benchmark_surveys_every_agent_with_ten_items():
    from voyage.bench.survey import inner

    figures = inner(3, 1)
    assert (figures["agents"], figures["items"], figures["answers"], figures["missing"]) == (33, 10, 330, 0)
    assert figures["cpu_s"] > 0 and figures["bench"] == "survey"
