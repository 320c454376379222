"""Interviews (issue 23, item 1): an agent answers from exactly what it had at tick T, and asking it
never changes the run. On a real offline run with small memory limits, so summaries, eras, dreams,
trust entries and rung climbs all exist well before its end."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from memories.models import Dream, Memory, MemorySummary, TrustHistory
from tests.engine_helpers import new_run
from tests.memory_helpers import finished_run, run_tables, secrets_in
from tests.oracle import assert_same, transcript
from voyage.calls.usage import usage_totals
from voyage.engine.budget import Budget
from voyage.gateway.offline_interview import CANNED
from voyage.gateway.prompts import prompt_text
from voyage.instruments.interviews import InterviewError, ask, ask_everyone
from voyage.instruments.models import Interview
from voyage.models import Event, LLMCall, Run
from world.models import AgentState

pytestmark = pytest.mark.django_db
TICKS = 120
HOT = 12


@pytest.fixture(scope="module")
def run(django_db_setup, django_db_blocker):
    with finished_run(django_db_blocker, TICKS, seed=7, hot_memory_limit=HOT, compaction_memory_count=20) as made:
        yield made


def climber(run) -> tuple[AgentState, int]:
    """An agent that climbed from rung 0 to 1 during the run, and the tick of its climb."""
    e = (Event.objects.filter(run=run, kind="rung", data__rung=1, tick__gte=20).select_related("actor__persona")
         .order_by("seq").first())
    return e.actor, e.tick


def text_of(interview: Interview) -> str:
    return prompt_text(interview.call.prompt)


def own_secrets(agent, tick: int) -> set[str]:
    return set().union(*(secrets_in(t) for t in Memory.objects.filter(agent=agent, tick__lte=tick)
                         .values_list("text", flat=True)))


def test_the_run_has_what_an_interview_must_reconstruct(run):
    """Without summaries, eras, dreams, trust and climbs the tests below would prove little."""
    assert MemorySummary.objects.filter(run=run, level=0).exists()
    assert MemorySummary.objects.filter(run=run, level__gt=0).exists()
    assert Dream.objects.filter(run=run).exists() and TrustHistory.objects.filter(entry__run=run).exists()
    assert climber(run)[0] is not None


@pytest.mark.parametrize("at", [15, 45, 90, TICKS])
def test_the_prompt_at_T_holds_only_the_agents_own_rows_up_to_T(run, at):
    for agent in AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key")[:6]:
        interview = ask(run, agent, "What has happened to you so far?", at)
        prompt = text_of(interview)
        # Its hot window at T, newest first, word for word: its last HOT rows stamped up to T.
        window = list(Memory.objects.filter(agent=agent, tick__lte=at).order_by("-id")[:HOT])
        assert all(row.text in prompt for row in window)
        # Every spoken code and monologue id in the prompt (hot window, summaries, eras, dream,
        # recalled rows) is in this agent's own rows up to T: nothing later, nobody else's.
        assert secrets_in(prompt) <= own_secrets(agent, at)
        later = set().union(set(), *(secrets_in(t) for t in Memory.objects.filter(agent=agent, tick__gt=at)
                                     .values_list("text", flat=True))) - own_secrets(agent, at)
        assert not secrets_in(prompt) & later
        recalled = Memory.objects.filter(id__in=interview.call.recalled)
        assert all(r.agent_id == agent.id and r.tick <= at for r in recalled)
        assert interview.call.tick == at and interview.call.purpose == "interview"


def test_no_other_agents_monologue_or_withheld_words(run):
    """Every monologue the run produced, and every code spoken where this agent could not hear it:
    none reaches its interview, at any tick."""
    agent = AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key").first()
    others = set()
    for raw in LLMCall.objects.filter(run=run, purpose="action").exclude(agent=agent).values_list("raw_answer", flat=True):
        others |= secrets_in(raw)
    withheld = others - own_secrets(agent, TICKS)
    assert withheld  # the run has words this agent never had
    for at in (30, 60, TICKS):
        assert not secrets_in(text_of(ask(run, agent, "Tell me everything you overheard.", at))) & withheld


def test_identity_is_what_the_rung_at_T_allowed(run):
    agent, climbed = climber(run)
    persona = agent.persona
    before = text_of(ask(run, agent, "Who are you?", climbed - 1))
    assert "rung 0" in before and persona.display_name not in before
    assert "You do not know who you are" in before
    for hidden in (persona.history, persona.fear, persona.secret):
        assert hidden[:40] not in before
    assert "The people you know" not in before  # no names, no trust labels at rung 0
    after = ask(run, agent, "Who are you?", climbed)
    assert after.rung == 1 and f"You are {persona.display_name}." in text_of(after)
    assert persona.secret[:40] not in text_of(after)  # rung 1 does not reveal the secret


def test_summaries_and_dream_are_those_of_time_before_T(run):
    agent = (AgentState.objects.filter(run=run, summaries__level__gt=0).select_related("persona").distinct()
             .order_by("persona__key").first())
    era = MemorySummary.objects.filter(agent=agent, level__gt=0).order_by("id").first()
    late = era.tick + 40
    prompt = text_of(ask(run, agent, "What do you remember of this morning?", late))
    hot_start = Memory.objects.filter(agent=agent, tick__lte=late).order_by("-id")[HOT - 1].id
    for s in MemorySummary.objects.filter(agent=agent):
        folded_in_view = s.folded_into_id and s.folded_into.last_row < hot_start
        assert (s.text in prompt) == (s.last_row < hot_start and not folded_in_view), s
    dream = Dream.objects.filter(agent=agent, tick__lte=late).order_by("-tick").first()
    if dream is not None:
        assert dream.text in prompt
    for later in Dream.objects.filter(agent=agent, tick__gt=late):
        assert later.identity not in prompt


def test_interviews_change_neither_the_transcript_nor_any_memory(run):
    events, tables = transcript(run), run_tables(run)
    agent = AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key").last()
    for at in (0, 1, 33, 77, TICKS):
        ask(run, agent, f"What do you make of tick {at}?", at)
    ask_everyone(run, "Who is not who they claim to be?", 50)
    call_command("interview", str(run.pk), "--all", "What are you looking forward to?", stdout=io.StringIO())
    call_command("interview", str(run.pk), agent.persona.key, "Anything else?", "--at-tick", "10", stdout=io.StringIO())
    assert_same(transcript(run), events)
    assert run_tables(run) == tables
    assert Interview.objects.filter(run=run).count() == LLMCall.objects.filter(run=run, purpose="interview").count()


def test_the_offline_answer_is_canned_deterministic_and_counted(run):
    agent = AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key")[2]
    one, two = (ask(run, agent, "What are you looking forward to?", 60) for _ in range(2))
    assert one.call.raw_answer == two.call.raw_answer and one.call.raw_answer.startswith(CANNED)
    assert "What are you looking forward to?" in one.call.raw_answer
    assert one.call.prompt_tokens > 0 and one.call.completion_tokens > 0
    assert usage_totals(run)["by_purpose"]["interview"]["calls"] >= 2


def test_the_batch_asks_everyone_alive_and_writes_a_csv(run, tmp_path):
    out = tmp_path / "answers.csv"
    call_command("interview", str(run.pk), "--all", "Who are you?", "--at-tick", "40", "--output", str(out),
                 stderr=io.StringIO())
    import csv

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    living = AgentState.objects.filter(run=run).exclude(
        id__in=Event.objects.filter(run=run, kind="death", tick__lte=40).values("actor_id"))
    assert [r["agent"] for r in rows] == sorted(living.values_list("persona__key", flat=True))
    assert set(rows[0]) == {"agent", "rung", "tick", "question", "answer"}
    assert all(r["tick"] == "40" and r["question"] == "Who are you?" and r["answer"].startswith(CANNED) for r in rows)
    for r in rows:
        agent = living.get(persona__key=r["agent"])
        assert int(r["rung"]) == max([0] + [e.data["rung"] for e in Event.objects.filter(
            run=run, actor=agent, kind="rung", tick__lte=40)])


@pytest.mark.parametrize("question, at, says", [
    ("", None, "question"), ("   ", 5, "question"), ("x" * 2001, 5, "at most 2000"),
    ("Who?", -1, "from 0 to"), ("Who?", TICKS + 1, "from 0 to"), ("Who?", "soon", "whole number"),
])
def test_a_bad_question_or_tick_is_refused_and_nothing_is_written(run, question, at, says):
    agent = AgentState.objects.filter(run=run).first()
    calls = LLMCall.objects.count()
    with pytest.raises(InterviewError, match=says):
        ask(run, agent, question, at)
    assert LLMCall.objects.count() == calls


def test_the_dead_give_no_interviews_after_their_death():
    run = new_run(seed=3, target_ticks=10)
    agent = AgentState.objects.filter(run=run).select_related("persona").first()
    Event.objects.create(run=run, tick=4, seq=0, kind="death", actor=agent, room_id=agent.location_id)
    Run.objects.filter(pk=run.pk).update(tick=8)
    run.refresh_from_db()
    assert ask(run, agent, "How are you?", 3).call.answered
    with pytest.raises(InterviewError, match="died at tick 4"):
        ask(run, agent, "How are you?", 4)
    assert [iv.agent_id for iv in ask_everyone(run, "How are you?", 6)].count(agent.id) == 0


def test_a_replay_is_interviewed_through_its_model_not_its_records(run):
    replay = new_run(seed=run.seed, target_ticks=5, replay_of=run)
    agent = AgentState.objects.filter(run=replay).first()
    assert ask(replay, agent, "Where are you?").call.raw_answer.startswith(CANNED)


def test_interviews_do_not_count_against_the_budget(run):
    Run.objects.filter(pk=run.pk).update(budget_tokens=10**12)
    run.refresh_from_db()
    try:
        spent = Budget(run).tokens
        ask(run, AgentState.objects.filter(run=run).first(), "A long question? " * 50)
        assert Budget(run).tokens == spent
    finally:
        Run.objects.filter(pk=run.pk).update(budget_tokens=None)
        run.refresh_from_db()


def test_the_call_record_is_the_prompt_and_the_answer(run):
    agent = AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key")[3]
    iv = ask(run, agent, 'Say "</p><script>alert(1)</script>"', 70)
    assert iv.call.prompt[-1]["content"].endswith('Say "</p><script>alert(1)</script>"')
    assert iv.call.agent_id == agent.id and json.loads(json.dumps(iv.call.prompt))  # plain JSON messages
