"""Interviews: ask an agent a question as it stood at tick T, through the run's own model.

`ask` is the one way in (the inspector page, the API and `manage.py interview` call it). It builds
the prompt from the agent's mind at T (memories.as_of), asks the run's model profile, and records the
call (purpose "interview") with its Interview row. It writes nothing else: no event, no memory row,
no agent state, so the run's transcript and every agent's memory are as they were. A replay or a
fork never asks for an interview's answer (replay matches calls by purpose)."""
from __future__ import annotations

import copy
from contextlib import closing
from types import SimpleNamespace

from django.db import transaction

from memories.as_of import living_at, mind_at
from memories.identity import identity_text
from voyage.calls.factory import gateway_for, routed_profiles
from voyage.calls.record import call_record
from voyage.gateway.base import INTERVIEW, ModelRequest
from voyage.gateway.offline_interview import InterviewHints
from voyage.gateway.routes import profile_for
from voyage.instruments.interview_prompt import interview_messages
from voyage.instruments.models import Interview
from voyage.instruments.text import clean_text
from voyage.models import LLMCall, Run
from world.models import AgentState
from world.rules.ladder import OWN_NAME, SETTING, knows
from world.time import part_of_day, sim_clock

MAX_QUESTION = 2_000


class InterviewError(ValueError):
    """The interview cannot be made as asked; the message says why."""


def clean_question(question) -> str:
    return clean_text(question, field="question", empty="ask something", limit=MAX_QUESTION, error=InterviewError)


def clean_tick(run: Run, tick) -> int:
    """None: now (the run's committed ticks)."""
    if tick is None or tick == "":
        return run.tick
    try:
        tick = int(tick)
    except (TypeError, ValueError):
        raise InterviewError(f"tick: a whole number from 0 to {run.tick}, not {tick!r}") from None
    if not 0 <= tick <= run.tick:
        raise InterviewError(f"tick: run {run.pk} has {run.tick} committed ticks: ask at a tick from 0 to {run.tick}")
    return tick


def instruments_profile(run: Run):
    """The model profile that answers the run's instruments: its `instruments` route, or its main profile
    (None: the offline policy)."""
    name = profile_for(run.profile_routes or {}, INTERVIEW, None)
    return routed_profiles({"instruments": name})[name] if name else run.profile


def interview_gateway(run: Run):
    """The run's model for instruments (its `instruments` profile route, or its main profile). A
    replay answers from recorded calls, and no call recorded an interview: a replay (or a fork still
    replaying) is asked through its model profile instead."""
    profile = instruments_profile(run)
    return gateway_for(SimpleNamespace(replay_of_id=None, profile=profile, profile_routes={}, seed=run.seed,
                                       malformed_rate=0.0, scenario=run.scenario))


def ask(run: Run, agent: AgentState, question: str, tick=None, *, asked_by=None, gateway=None) -> Interview:
    """Ask `agent` (of `run`) `question` as it stood at `tick` (None: now); the Interview, saved."""
    question = clean_question(question)
    tick = clean_tick(run, tick)
    agent = AgentState.objects.select_related("persona", "run__scenario").get(pk=agent.pk, run=run)
    mind = mind_at(agent, tick, question)
    if not mind.alive:
        raise InterviewError(f"{agent.persona.display_name} died at tick {mind.died_tick}: "
                             f"the dead give no interviews (ask at a tick before {mind.died_tick})")
    request = interview_request(agent, mind, question)
    if gateway is None:
        with closing(interview_gateway(run)) as gateway:
            answer = gateway.complete(request)
    else:
        answer = gateway.complete(request)
    with transaction.atomic():
        call = call_record(run.pk, request, answer, LLMCall.OK if not answer.failed else LLMCall.ERROR)
        call.save()
        return Interview.objects.create(run=run, agent=agent, tick=tick, rung=mind.rung, question=question,
                                        call=call, asked_by=asked_by)


def interview_request(agent: AgentState, mind, question: str) -> ModelRequest:
    rungs = agent.run.scenario.rung_specs()
    then = copy.copy(agent)
    then.rung = mind.rung  # who it knew itself to be at T (the copy is never saved)
    messages = interview_messages(mind, identity_text(then, upto_tick=mind.tick), question, rungs)
    named = knows(rungs, mind.rung, OWN_NAME)
    hints = InterviewHints(question=question, subject=agent.persona.display_name if named else "",
                           clock=sim_clock(mind.tick) if knows(rungs, mind.rung, SETTING) else part_of_day(mind.tick),
                           lines=tuple(r.text for r in reversed(mind.rows)))
    return ModelRequest(purpose=INTERVIEW, messages=messages, tick=mind.tick, agent_id=agent.id,
                        agent_key=agent.persona.key, hints=hints, recalled=tuple(r.id for r in mind.recalled))


def ask_everyone(run: Run, question: str, tick=None, *, asked_by=None) -> list[Interview]:
    """The same question to every agent alive at `tick`, in persona-key order, on one gateway."""
    question = clean_question(question)
    tick = clean_tick(run, tick)
    with closing(interview_gateway(run)) as gateway:
        return [ask(run, agent, question, tick, asked_by=asked_by, gateway=gateway) for agent in living_at(run, tick)]


def interviews_of(agent: AgentState, limit: int = 50) -> list[Interview]:
    return list(Interview.objects.filter(agent=agent).select_related("call", "asked_by").defer("call__prompt_z")
                .order_by("-id")[:limit])
