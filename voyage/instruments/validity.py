"""Agents measured against people, for one run: a standard instrument asked at a tick (and again for a
retest), scored, its reliability per domain (Cronbach's alpha, McDonald's omega, the retest ICC(3,1),
each with a bootstrap interval over agents) beside people's published figures, and for every item with
a human reference the distance between the agents' answers and people's.

`validity(run, name, ...)` asks what has not been asked yet (an administration of the instrument at
the tick is reused), then computes; like every survey, asking changes nothing in the run."""
from __future__ import annotations

import numpy as np
from django.db.models import Max

from voyage.instruments.administer import Sheet, administer, scored, sheets
from voyage.instruments.distances import ReferenceItem, distance, split
from voyage.instruments.models import Survey, SurveyAnswer, ValidityReport
from voyage.instruments.persona_rating import consistency, persona_ratings
from voyage.instruments.psychometrics import OMEGA_BOOTSTRAP, Figure, cronbach_alpha, icc_3_1, mcdonald_omega, with_interval
from voyage.instruments.standard_instruments import DOMAINS, Instrument, instrument
from voyage.models import Run
from world.models import AgentState

TIDY_COLUMNS = ("run", "tick", "agent", "item", "domain", "facet", "key", "answer", "missing_reason")


def administration_at(run: Run, name: str, tick: int, exclude: str = "") -> str | None:
    found = (Survey.objects.filter(run=run, instrument=name, tick=tick).exclude(administration=exclude)
             .order_by("-id").values_list("administration", flat=True).first())
    return found or None


def ask_or_reuse(run: Run, name: str, tick, *, page_size: int | None, profile: str | None, exclude: str = "",
                 gateway=None, made_by: str = "manage.py validity", agents=None) -> tuple[str, int]:
    """(administration, tick): the instrument's latest asking at `tick` (not `exclude`), or a new one."""
    if tick is None:
        tick = run.tick
    found = None if agents else administration_at(run, name, tick, exclude)  # a chosen few: asked afresh
    if found:
        return found, tick
    pages = administer(run, name, tick, agents, page_size=page_size, profile=profile, gateway=gateway,
                       made_by=made_by)
    return pages[0].administration, pages[0].tick


def domain_matrix(inst: Instrument, sheets_: list[Sheet], domain: str) -> np.ndarray:
    """Rows: the agents who answered every item of the domain; columns: its items, reverse keys applied."""
    keys = [(k, item) for k, item in zip(inst.keys, inst.items) if k.domain == domain]
    rows = []
    for s in sheets_:
        values = [s.answers.get(k.item) for k, _ in keys]
        if all(v is not None for v in values):
            rows.append([v if k.key > 0 else int(i.low + i.high) - v for (k, i), v in zip(keys, values)])
    return np.array(rows, dtype=float).reshape(len(rows), len(keys))


def retest_matrix(first, second, domain: str) -> np.ndarray:
    a = {s.agent: sc.domains.get(domain) for s, sc in first}
    b = {s.agent: sc.domains.get(domain) for s, sc in second}
    both = [(a[k], b[k]) for k in a if k in b and a[k] is not None and b[k] is not None]
    return np.array(both, dtype=float).reshape(len(both), 2)


def reliability(inst: Instrument, first: list[Sheet], second: list[Sheet] | None, seed: int,
                persona: dict | None = None, first_scored=None) -> dict:
    human = inst.human or {}
    first_scored = scored(inst, first) if first_scored is None else first_scored
    second_scored = scored(inst, second) if second is not None else None
    out = {}
    for n, d in enumerate(DOMAINS):
        m = domain_matrix(inst, first, d)
        alpha = with_interval(cronbach_alpha, m, seed + n)
        omega = with_interval(mcdonald_omega, m, seed + 10 + n, OMEGA_BOOTSTRAP)
        if second_scored is None:
            retest = Figure(None, reason="no retest: give --retest-tick")
        else:
            retest = with_interval(icc_3_1, retest_matrix(first_scored, second_scored, d), seed + 20 + n)
        people = people_by_domain(inst, d)
        own_alpha = people["alpha"] is not None
        out[d] = {
            "name": inst.domains[d],
            "alpha": {**alpha.as_dict(), "people": {
                "value": people["alpha"] if own_alpha else human.get("alpha_mean_domains"),
                "what": "this domain's alpha" if own_alpha else "mean alpha of the five domains",
                "source": human.get("source", "")}},
            "omega": {**omega.as_dict(), "people": {"value": people["omega"], "source": human.get("source", "")}},
            "retest_icc": {**retest.as_dict(), "people": {"value": people["retest"], "source": human.get("source", "")}},
            "persona_r": {**(persona["convergent"][d] if persona else
                             Figure(None, reason="persona consistency not asked").as_dict()),
                          "people": None, "what": "correlation across agents between the judge's rating of the "
                                                  "persona text and the measured domain score (convergent)"},
        }
    return out


def people_by_domain(inst: Instrument, domain: str) -> dict:
    """People's alpha, omega and retest figure for one domain where the instrument's data file gives them
    (`human_reliability`: alpha, omega, retest, each domain letter -> value), None where not."""
    human = inst.human or {}
    return {k: (human.get(k) or {}).get(domain) for k in ("alpha", "omega", "retest")}


def score_rows(scored_sheets) -> list[dict]:
    return [{"agent": s.agent, "norm": sc.norm, "domains": sc.domains, "domain_z": sc.domain_z,
             "facets": sc.facets, "facet_z": sc.facet_z} for s, sc in scored_sheets]


def references_for(inst: Instrument, year: int | None, extra: list[ReferenceItem]) -> list[ReferenceItem]:
    refs = [split(r.item, r.published, r.share, inst.item(r.item).options, f"{r.source} (year {r.year})")
            for r in inst.reference(year)] if inst.references else []
    return refs + list(extra)


def distances(refs: list[ReferenceItem], answers: dict, seed: int) -> list[dict]:
    """`answers`: item id -> the agents' answers (as text)."""
    out = []
    for n, ref in enumerate(refs):
        given = [str(a) for a in answers.get(ref.item, []) if a is not None]
        if ref.split:
            published = ref.options[0]
            given = [a if a == published else "any other answer" for a in given]
        row = {"item": ref.item, "group": ref.group, "options": list(ref.options), "source": ref.source,
               **distance(given, ref, seed + 100 + n)}
        if ref.split:
            row["split"] = ref.split
        if not given:
            row["reason"] = f"no agent answered {ref.item} in this run at this tick"
        out.append(row)
    return out


def item_answers(run: Run, tick: int, administration: str, items) -> dict:
    """item id -> the agents' answers, for the `items` wanted: the administration's, and for an item it
    lacks, the answers of the latest survey at the same tick that asked it (a user's reference may concern
    any questionnaire)."""
    wanted = set(items)
    found: dict[str, list] = {}
    for item, value in (SurveyAnswer.objects.filter(survey__run=run, survey__administration=administration,
                                                    item__in=wanted).values_list("item", "value")):
        found.setdefault(item, []).append(value)
    latest = dict(SurveyAnswer.objects.filter(survey__run=run, survey__tick=tick, item__in=wanted - set(found))
                  .values("item").annotate(latest=Max("survey_id")).values_list("item", "latest"))
    for item, value, survey_id in (SurveyAnswer.objects.filter(survey_id__in=set(latest.values()),
                                                               item__in=list(latest))
                                   .values_list("item", "value", "survey_id")):
        if latest[item] == survey_id:
            found.setdefault(item, []).append(value)
    return found


def validity(run: Run, name: str, *, at_tick=None, retest_tick=None, reference: list[ReferenceItem] = (),
             year: int | None = None, profile: str | None = None, page_size: int | None = None, gateway=None,
             agents=None) -> dict:
    inst = instrument(name)
    first, tick = ask_or_reuse(run, name, at_tick, page_size=page_size, profile=profile, gateway=gateway,
                               agents=agents)
    report = {"run": run.pk, "instrument": inst.name, "title": inst.title, "tick": tick, "administration": first,
              "scripted": Survey.objects.filter(administration=first, scripted=False).count() == 0,
              "sources": list(inst.sources)}
    first_sheets = sheets(run, first)
    report["agents"] = len(first_sheets)
    if inst.scaled:
        second = None
        if retest_tick is not None:
            exclude = first if retest_tick == tick else ""
            second_id, t2 = ask_or_reuse(run, name, retest_tick, page_size=page_size, profile=profile,
                                         exclude=exclude, gateway=gateway, agents=agents)
            report["retest_tick"], report["retest_administration"] = t2, second_id
            second = sheets(run, second_id)
        first_scored = scored(inst, first_sheets)
        measured = {s.agent: sc.domains for s, sc in first_scored}
        agents = list(AgentState.objects.filter(run=run, persona__key__in=list(measured))
                      .select_related("persona").order_by("persona__key"))
        rated = persona_ratings(run, agents, profile=profile, gateway=gateway)
        report["persona_consistency"] = consistency(rated, measured, run.seed + 50)
        report["domains"] = reliability(inst, first_sheets, second, run.seed, report["persona_consistency"],
                                        first_scored)
        report["scores"] = score_rows(first_scored)
    refs = references_for(inst, year, list(reference))
    report["references"] = distances(refs, item_answers(run, tick, first, {r.item for r in refs}), run.seed)
    return report


def save_report(run: Run, report: dict, made_by: str) -> ValidityReport:
    return ValidityReport.objects.create(run=run, instrument=report["instrument"], tick=report["tick"],
                                         retest_tick=report.get("retest_tick"), report=report, made_by=made_by[:150])


def tidy_rows(run: Run, name: str, administration: str) -> list[dict]:
    inst = instrument(name)
    keys = inst.key_of()
    tick = Survey.objects.filter(administration=administration).values_list("tick", flat=True).first()
    rows = []
    for s in sheets(run, administration):
        for item in inst.items:
            k = keys.get(item.id)
            value = s.answers.get(item.id)
            rows.append({"run": run.pk, "tick": tick, "agent": s.agent, "item": item.id,
                         "domain": k.domain if k else "", "facet": k.facet if k else "", "key": k.key if k else "",
                         "answer": "" if value is None else value, "missing_reason": s.missing.get(item.id, "")})
    return rows
