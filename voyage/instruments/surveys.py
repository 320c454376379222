"""Surveys: one questionnaire put to every agent alive at tick T (or a listed few), as interviews ask.

`take_survey` is the one way in (the run's survey page, the API, `manage.py survey` and studies call
it). Each agent answers from its own mind at T (memories.as_of), through the run's model profile, in
one call of purpose `survey` whose schema holds each item to its kind (survey_answers.answer_schema);
the calls go out as one batch, which an endpoint's gateway runs concurrently as a tick's are. Each
answer is then judged item by item: one outside its kind is stored as missing with the reason. It
writes the calls, the Survey and its answers, and nothing else: no event, no memory row, no agent
state, and no budget (voyage.calls.usage leaves instrument calls out)."""
from __future__ import annotations

import copy
import hashlib
import json
from contextlib import closing
from dataclasses import dataclass

from django.db import transaction

from memories.as_of import living_at, mind_at
from memories.identity import identity_text
from voyage.calls.record import call_record
from voyage.gateway.base import SURVEY, ModelRequest
from voyage.gateway.offline_survey import SurveyHints, SurveyItemHint
from voyage.instruments.interviews import InterviewError, clean_tick, interview_gateway
from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.questionnaire import Questionnaire
from voyage.instruments.survey_answers import answer_schema, parse_answer
from voyage.instruments.survey_prompt import recall_words, survey_messages
from voyage.models import LLMCall, Run
from world.models import AgentState
from world.rules.ladder import OWN_NAME, SETTING, knows
from world.time import part_of_day, sim_clock


@dataclass(frozen=True)
class PageOf:
    """A questionnaire that is one page of an asking (`administration`) of a standard instrument."""
    instrument: str
    administration: str
    page: int
    traits: dict  # item id -> (domain, key), for the items that measure a trait

    def fields(self) -> dict:
        return {"instrument": self.instrument, "administration": self.administration, "page": self.page}


class SurveyError(ValueError):
    """The survey cannot be made as asked; the message says why."""


def digest(q: Questionnaire) -> str:
    return hashlib.sha256(json.dumps(q.as_dict(), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def surveyed(run: Run, tick, agents=None) -> tuple[int, list[AgentState]]:
    """(the tick, the agents to ask): every agent alive at it, or those `agents` names (persona keys)."""
    try:
        tick = clean_tick(run, tick)
    except InterviewError as exc:
        raise SurveyError(str(exc)) from None
    living = living_at(run, tick)
    if not agents:
        return tick, living
    keys = list(dict.fromkeys(k.strip() for k in agents if k.strip()))
    alive = {a.persona.key: a for a in living}
    unknown = [k for k in keys if k not in alive]
    if unknown:
        known = set(AgentState.objects.filter(run=run).values_list("persona__key", flat=True))
        dead = [k for k in unknown if k in known]
        strangers = [k for k in unknown if k not in known]
        problems = ([f"run {run.pk} has no agent {', '.join(strangers)}"] if strangers else []) + \
                   ([f"{', '.join(dead)} died by tick {tick}: the dead answer no questionnaire"] if dead else [])
        raise SurveyError("agents: " + "; ".join(problems))
    return tick, [alive[k] for k in keys]


def take_survey(run: Run, q: Questionnaire, tick=None, agents=None, *, asked_by=None, made_by: str = "manage.py",
                gateway=None, page: PageOf | None = None) -> Survey:
    """Ask `q` of the run's agents as they stood at `tick` (None: now); the Survey, saved. `page`: this
    questionnaire is one page of a standard instrument (its items' traits go in the offline hints)."""
    tick, chosen = surveyed(run, tick, agents)
    if not chosen:
        raise SurveyError(f"nobody is alive at tick {tick} to answer")
    schema = answer_schema(q)
    traits = page.traits if page else {}
    asked = [survey_request(agent, q, tick, schema, traits) for agent in chosen]
    if gateway is None:
        with closing(interview_gateway(run)) as gateway:
            answers = gateway.complete_many([request for request, _ in asked])
    else:
        answers = gateway.complete_many([request for request, _ in asked])
    with transaction.atomic():
        survey = Survey.objects.create(run=run, tick=tick, title=q.title, questionnaire=q.as_dict(), digest=digest(q),
                                       agents=len(chosen), scripted=gateway.name == "offline", asked_by=asked_by,
                                       made_by=(asked_by.get_username() if asked_by else made_by)[:150],
                                       **(page.fields() if page else {}))
        calls = LLMCall.objects.bulk_create([call_record(run.pk, request, answer, LLMCall.ERROR if answer.failed
                                                         else LLMCall.OK) for (request, _), answer in zip(asked, answers)])
        rows = []
        for (request, rung), answer, call in zip(asked, answers, calls):
            parsed = parse_answer(q, answer.text, answer.error)
            rows += [SurveyAnswer(survey=survey, agent_id=request.agent_id, rung=rung, item=item.id, kind=item.kind,
                                  value=parsed.values.get(item.id), missing_reason=parsed.missing.get(item.id, ""),
                                  call=call) for item in q.items]
        SurveyAnswer.objects.bulk_create(rows)
    return survey


def survey_request(agent: AgentState, q: Questionnaire, tick: int, schema: dict,
                   traits: dict | None = None) -> tuple[ModelRequest, int]:
    """The agent's call (its prompt built from its mind at `tick`) and its rung then."""
    mind = mind_at(agent, tick, recall_words(q))
    rungs = agent.run.scenario.rung_specs()
    then = copy.copy(agent)
    then.rung = mind.rung  # who it knew itself to be at T (the copy is never saved)
    messages = survey_messages(mind, identity_text(then, upto_tick=tick), q, rungs)
    traits = traits or {}
    hints = SurveyHints(items=tuple(SurveyItemHint(i.id, i.kind, i.options, i.low, i.high, *traits.get(i.id, ("", 0)))
                                    for i in q.items),
                        subject=agent.persona.display_name if knows(rungs, mind.rung, OWN_NAME) else "",
                        clock=sim_clock(tick) if knows(rungs, mind.rung, SETTING) else part_of_day(tick),
                        lines=tuple(r.text for r in reversed(mind.rows)),
                        trust_labels=tuple(label for _, label, _ in mind.trust), persona=agent.persona.key)
    request = ModelRequest(purpose=SURVEY, messages=messages, tick=tick, agent_id=agent.id,
                           agent_key=agent.persona.key, hints=hints, schema=schema,
                           recalled=tuple(r.id for r in mind.recalled))
    return request, mind.rung


def answers_of(survey: Survey):
    return (SurveyAnswer.objects.filter(survey=survey).select_related("agent__persona")
            .order_by("agent__persona__key", "id"))
