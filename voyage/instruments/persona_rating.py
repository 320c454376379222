"""Persona consistency: does an agent's measured profile match the one its persona text implies? A judge
(the run's instruments route, or the profile named) reads each persona's history, secret and fear and
rates the person on the five domains, 1-5 each. Asked once per persona, profile and prompt (cached in
`persona_ratings`, the call recorded with the run that first asked); every run of the scenario reuses it.

Then, across agents, the correlation between the rated and the measured domain scores: the diagonal
(each domain rated against the same domain measured) is convergent validity, the mean of the
off-diagonal discriminant: a small multitrait-multimethod table, with bootstrap intervals over agents."""
from __future__ import annotations

import hashlib
import warnings

import numpy as np
from django.db import IntegrityError, transaction

from voyage.calls.record import call_record
from voyage.gateway.base import SURVEY, GatewayConfigError, ModelRequest
from voyage.gateway.offline_survey import SurveyHints, SurveyItemHint
from voyage.instruments.administer import answering
from voyage.instruments.interviews import instruments_profile
from voyage.instruments.models import PersonaRating
from voyage.instruments.psychometrics import BOOTSTRAP, LEVEL, Figure
from voyage.instruments.questionnaire import SCALE, Item, Questionnaire
from voyage.instruments.survey_answers import answer_schema, parse_answer
from voyage.instruments.survey_prompt import questionnaire_text
from voyage.models import LLMCall, ModelProfile, Run
from world.models import AgentState

DOMAIN_WORDS = {"N": ("neuroticism", "anxious, moody, easily upset or discouraged"),
                "E": ("extraversion", "sociable, talkative, assertive, energetic"),
                "O": ("openness", "imaginative, curious, drawn to art and ideas"),
                "A": ("agreeableness", "trusting, kind, cooperative, modest"),
                "C": ("conscientiousness", "orderly, dutiful, hard-working, careful")}
RATING = Questionnaire(title="How this person comes across", items=tuple(
    Item(id=name, text=f"How {words} is this person?", kind=SCALE, low=1, high=5, low_label="not at all",
         high_label="extremely") for name, words in DOMAIN_WORDS.values()))
LETTER = {name: d for d, (name, _) in DOMAIN_WORDS.items()}
SYSTEM = ("You are a personality psychologist. From the description of a person below, rate the person on the "
          "five domains of personality. Judge only from the description.")


def rating_messages(persona) -> list[dict]:
    text = (f"Name: {persona.display_name}\nTheir history: {persona.history}\nTheir secret: {persona.secret}\n"
            f"Their fear: {persona.fear}\n\n{questionnaire_text(RATING)}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def profile_name(run: Run, profile: str | None = None, gateway=None) -> str:
    """The judge a rating is kept under: the profile named (or, without one, the run's instruments
    route, its main profile without a route), "offline" when the offline policy answers. Read without a
    gateway too (`rated`), so a report finds the ratings the asking kept."""
    if gateway is not None and getattr(gateway, "name", "") == "offline":
        return "offline"
    if profile:
        kind = ModelProfile.objects.filter(name=profile).values_list("kind", flat=True).first()
        return "offline" if kind == ModelProfile.OFFLINE else profile
    try:
        chosen = instruments_profile(run)
    except GatewayConfigError:
        chosen = run.profile
    return chosen.name if chosen is not None and chosen.kind == ModelProfile.OPENAI else "offline"


def _digests(agents: list[AgentState]) -> dict:
    """persona key -> (agent, the rating prompt, its digest)."""
    out = {}
    for a in agents:
        messages = rating_messages(a.persona)
        out[a.persona.key] = (a, messages, hashlib.sha256(repr(messages).encode()).hexdigest())
    return out


def _kept(wanted: dict, who: str) -> dict:
    """persona key -> its PersonaRating kept for judge `who` under the current prompt."""
    return {r.persona.key: r for r in PersonaRating.objects.filter(
        persona__in=[a.persona for a, _, _ in wanted.values()], profile=who).select_related("persona")
        if r.persona.key in wanted and r.digest == wanted[r.persona.key][2]}


def rated(run: Run, agents: list[AgentState], profile: str | None = None) -> dict:
    """persona key -> {domain: 1-5 or None} for the agents whose persona the run's judge has rated
    already (under the current prompt): read only, nothing is asked."""
    wanted = _digests(agents)
    return {k: r.ratings for k, r in _kept(wanted, profile_name(run, profile)).items()}


def persona_ratings(run: Run, agents: list[AgentState], *, profile: str | None = None, gateway=None) -> dict:
    """persona key -> {domain letter: 1-5 or None}, asking the judge only what is not cached."""
    schema = answer_schema(RATING)
    hints_items = tuple(SurveyItemHint(i.id, SCALE, (), 1, 5, LETTER[i.id], 1) for i in RATING.items)
    with answering(run, profile, gateway) as gw:
        who = profile_name(run, profile, gw)
        wanted = _digests(agents)
        digests = {k: d for k, (_, _, d) in wanted.items()}
        cached = _kept(wanted, who)
        missing = [k for k in wanted if k not in cached]
        if missing:
            requests = [ModelRequest(purpose=SURVEY, messages=wanted[k][1], tick=0, agent_id=wanted[k][0].id,
                                     agent_key=k, schema=schema,
                                     hints=SurveyHints(items=hints_items, subject="", clock="", lines=(), persona=k))
                        for k in missing]
            answers = gw.complete_many(requests)
            for key, request, answer in zip(missing, requests, answers):
                parsed = parse_answer(RATING, answer.text, answer.error)
                with transaction.atomic():
                    call = LLMCall.objects.create(**_fields(call_record(run.pk, request, answer, LLMCall.ERROR
                                                                        if answer.failed else LLMCall.OK)))
                    try:
                        with transaction.atomic():
                            cached[key] = PersonaRating.objects.create(
                                persona=wanted[key][0].persona, profile=who, digest=digests[key], call=call,
                                ratings={LETTER[i]: parsed.values.get(i) for i in LETTER},
                                missing={LETTER[i]: why for i, why in parsed.missing.items()},
                                scripted=gw.name == "offline")
                    except IntegrityError:  # another process rated it first: theirs stands
                        cached[key] = PersonaRating.objects.get(persona=wanted[key][0].persona, profile=who,
                                                                digest=digests[key])
    return {k: cached[k].ratings for k in wanted}


def _fields(unsaved: LLMCall) -> dict:
    return {f.attname: getattr(unsaved, f.attname) for f in LLMCall._meta.concrete_fields if f.attname != "id"}


def mtmm(rated: dict, measured: dict, seed: int, resamples: int = BOOTSTRAP) -> dict:
    """`rated`, `measured`: persona key -> {domain: value or None}. The 5x5 correlations (rows rated,
    columns measured), each domain's convergent r with its interval, and the mean off-diagonal r."""
    domains = list(DOMAIN_WORDS)
    keys = [k for k in rated if k in measured and all(rated[k].get(d) is not None and measured[k].get(d) is not None
                                                      for d in domains)]
    if len(keys) < 4:
        none = Figure(None, n=len(keys), reason=f"{len(keys)} agents rated and measured: at least 4 are needed")
        return {"convergent": {d: none.as_dict() for d in domains}, "discriminant": none.as_dict(), "matrix": None}
    r = np.array([[rated[k][d] for d in domains] for k in keys], float)
    m = np.array([[measured[k][d] for d in domains] for k in keys], float)

    def tables(rows):
        """The 5x5 table of each resample (rows: resamples x agents' indices)."""
        a, b = r[rows], m[rows]
        a, b = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.einsum("snd,sne->sde", a, b)
                    / np.sqrt((a ** 2).sum(axis=1)[:, :, None] * (b ** 2).sum(axis=1)[:, None, :]))

    full = tables(np.arange(len(keys))[None, :])[0]
    rng = np.random.default_rng(seed)
    draws = tables(rng.integers(0, len(keys), (resamples, len(keys))))
    tail = (1 - LEVEL) / 2
    off = ~np.eye(5, dtype=bool)

    def figure(value, sample):
        sample = sample[np.isfinite(sample)]
        if not np.isfinite(value):
            return Figure(None, n=len(keys), reason="no variance in the ratings or the scores").as_dict()
        if len(sample) < resamples // 2:
            return Figure(float(value), n=len(keys), reason="too few resamples with variance for an interval").as_dict()
        low, high = np.quantile(sample, [tail, 1 - tail])
        return Figure(float(value), float(low), float(high), n=len(keys)).as_dict()
    convergent = {d: figure(full[i, i], draws[:, i, i]) for i, d in enumerate(domains)}
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no variance anywhere: nan, left out
        off_mean = np.nanmean(draws[:, off], axis=1)
    discriminant = figure(np.nanmean(full[off]), off_mean)
    return {"convergent": convergent, "discriminant": discriminant,
            "matrix": [[None if not np.isfinite(v) else round(float(v), 4) for v in row] for row in full]}


WHAT = ("rows: the judge's rating of each persona's history, secret and fear; columns: the measured domain "
        "scores; r across agents")


def consistency(rated_: dict, measured: dict, seed: int, why_none: str = "") -> dict:
    """The persona table as reports keep it: `mtmm` with the domains and what it is. `why_none`: the
    reason to give when no agent's persona was rated at all (instead of "0 agents")."""
    table = mtmm(rated_, measured, seed)
    if why_none and not any(k in measured for k in rated_):
        none = Figure(None, reason=why_none).as_dict()
        table = {"convergent": {d: none for d in DOMAIN_WORDS}, "discriminant": none, "matrix": None}
    return {**table, "domains": list(DOMAIN_WORDS), "what": WHAT}


def mtmm_rows(table: dict) -> list[tuple[str, list[dict]]]:
    """The table's rows for a page: (domain rated, its cells), each cell {value, interval, convergent}:
    the diagonal carries its convergent interval."""
    if not table or not table.get("matrix"):
        return []
    domains = table.get("domains") or list(DOMAIN_WORDS)
    return [(d, [{"value": v, "convergent": i == j,
                  "interval": (table["convergent"].get(d) or {}).get("interval") if i == j else None}
                 for j, v in enumerate(row)])
            for i, (d, row) in enumerate(zip(domains, table["matrix"]))]
