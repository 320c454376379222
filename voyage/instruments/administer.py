"""Asking a standard instrument (standard_instruments.py) of a run's agents: in pages of `page_size`
items, each page an ordinary survey under its own schema, every page at the same tick, the pages tied
together by one `administration`. Then reading an administration back as answer sheets, and scoring
them. Like every survey it changes nothing in the run (no event, memory row, state or budget)."""
from __future__ import annotations

import uuid
from contextlib import closing, nullcontext
from dataclasses import dataclass
from types import SimpleNamespace

from voyage.calls.factory import gateway_for, routed_profiles
from voyage.gateway.base import GatewayConfigError
from voyage.gateway.offline_survey import TRUST_LEAN
from voyage.instruments.interviews import instruments_profile, interview_gateway
from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.scoring import Scores, score_sheet
from voyage.instruments.standard_instruments import Instrument, instrument
from voyage.instruments.surveys import PageOf, SurveyError, surveyed, take_survey
from voyage.models import INSTRUMENT_PAGE_SIZE, ModelProfile, Run

DEFAULT_PAGE_SIZE = INSTRUMENT_PAGE_SIZE  # without a model profile (the offline policy)


def profile_gateway(run: Run, profile: str | None):
    """The gateway that answers: the named model profile, or the run's instruments route."""
    if not profile:
        return interview_gateway(run)
    try:
        chosen = routed_profiles({"instruments": profile})[profile]
    except GatewayConfigError:
        raise SurveyError(f"--profile {profile}: no such model profile") from None
    return gateway_for(SimpleNamespace(replay_of_id=None, profile=chosen, profile_routes={}, seed=run.seed,
                                       malformed_rate=0.0, scenario=run.scenario))


def page_size_for(run: Run, profile: str | None) -> int:
    """Items a call when `profile` (or, without one, the run's instruments route) answers: that model
    profile's instrument_page_size; the offline policy's default without a profile."""
    if profile:
        chosen = ModelProfile.objects.filter(name=profile).values_list("instrument_page_size", flat=True).first()
        if chosen is None:
            raise SurveyError(f"--profile {profile}: no such model profile")
        return chosen
    try:
        routed = instruments_profile(run)
    except GatewayConfigError as exc:
        raise SurveyError(str(exc)) from None
    return routed.instrument_page_size if routed is not None else DEFAULT_PAGE_SIZE


def answering(run: Run, profile: str | None, gateway=None):
    """A context giving the gateway that answers: the one passed (left open for its owner), or one made
    here for the run or the profile named (closed after)."""
    return nullcontext(gateway) if gateway is not None else closing(profile_gateway(run, profile))


def administer(run: Run, name: str, tick=None, agents=None, *, page_size: int | None = None,
               profile: str | None = None, made_by: str = "manage.py", asked_by=None, gateway=None) -> list[Survey]:
    """Ask instrument `name` of the run's agents as they stood at `tick`; its pages' surveys, saved. Pages
    of `page_size` items, or (None) of the answering profile's instrument_page_size."""
    inst = instrument(name)
    if page_size is None:
        page_size = page_size_for(run, profile)
    tick, chosen = surveyed(run, tick, agents)  # one tick for every page, resolved once
    keys = [a.persona.key for a in chosen]
    pages = inst.pages(page_size)
    traits = {k.item: (k.domain, k.key) for k in inst.keys} | {item: (TRUST_LEAN, 1) for item in inst.leans}
    administration = uuid.uuid4().hex
    surveys = []
    with answering(run, profile, gateway) as gw:
        for n, q in enumerate(pages, 1):
            page = PageOf(inst.name, administration, n, {i.id: traits[i.id] for i in q.items if i.id in traits})
            surveys.append(take_survey(run, q, tick, keys, asked_by=asked_by, made_by=made_by, gateway=gw, page=page))
    return surveys


@dataclass(frozen=True)
class Sheet:
    """One agent's answers to every item of one administration."""
    agent: str  # persona key
    sex: str
    age: int | None
    answers: dict  # item id -> answer or None
    missing: dict  # item id -> why


def administrations(run: Run, name: str) -> list[tuple[str, int]]:
    """(administration, tick) of every complete asking of `name` in the run, oldest first."""
    rows = (Survey.objects.filter(run=run, instrument=name).order_by("id")
            .values_list("administration", "tick", "page"))
    seen: dict[str, int] = {}
    for administration, tick, _ in rows:
        seen.setdefault(administration, tick)
    return list(seen.items())


def sheets(run: Run | int, administration: str) -> list[Sheet]:
    """The administration's answer sheets, one per agent (run: the run or its id)."""
    rows = (SurveyAnswer.objects.filter(survey__run=run, survey__administration=administration)
            .order_by("agent__persona__key", "id")
            .values_list("agent__persona__key", "agent__persona__sex", "agent__persona__age", "item", "value",
                         "missing_reason"))
    by_agent: dict[str, Sheet] = {}
    for key, sex, age, item, value, missing_reason in rows:
        sheet = by_agent.get(key)
        if sheet is None:
            sheet = by_agent[key] = Sheet(key, sex, age, {}, {})
        sheet.answers[item] = value
        if missing_reason:
            sheet.missing[item] = missing_reason
    return list(by_agent.values())


def scored(inst: Instrument, sheets_: list[Sheet]) -> list[tuple[Sheet, Scores]]:
    return [(s, score_sheet(inst, s.answers, s.sex, s.age)) for s in sheets_]
