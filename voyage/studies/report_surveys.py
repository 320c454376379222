"""The survey section of a study's report: for each survey the study took (a questionnaire at a tick)
and each of its items, how the answers of every agent asked in an arm's runs are spread — the share
choosing each point of a scale or each option, the mean and range of a number, and the share
missing. The results table has one mean per run; this is the distribution behind it, pooled over
the arm's runs (its seeds)."""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.questionnaire import CHOICE, CHOICES, NUMBER, SCALE, Item, from_dict
from voyage.instruments.surveys import digest
from voyage.studies.study_surveys import MADE_BY, questionnaires


@dataclass
class ArmSpread:
    arm: str
    asked: int  # agents asked, over the arm's runs
    shares: list[float | None] = field(default_factory=list)  # one per column of the item
    mean: float | None = None
    low: float | None = None
    high: float | None = None
    missing: float | None = None


@dataclass
class ItemSpread:
    tick: int
    item: Item
    columns: list[str]  # a scale's points or the options; empty for a number or text
    arms: list[ArmSpread]


def columns_of(item: Item) -> list[str]:
    if item.kind == SCALE:
        return [str(p) for p in range(int(item.low), int(item.high) + 1)]
    if item.kind in (CHOICE, CHOICES):
        return list(item.options)
    return []


def spread(item: Item, arm: str, values: list) -> ArmSpread:
    """One arm's answers to one item (None for a missing answer)."""
    given = [v for v in values if v is not None]
    out = ArmSpread(arm, len(values), missing=round((len(values) - len(given)) / len(values), 4) if values else None)
    if item.kind == SCALE:
        out.shares = [round(sum(1 for v in given if str(int(v)) == p) / len(given), 4) if given else None
                      for p in columns_of(item)]
    elif item.kind in (CHOICE, CHOICES):
        chose = (lambda v, o: v == o) if item.kind == CHOICE else (lambda v, o: o in v)
        out.shares = [round(sum(1 for v in given if chose(v, o)) / len(given), 4) if given else None
                      for o in item.options]
    if item.kind in (SCALE, NUMBER) and given:
        out.mean, out.low, out.high = round(statistics.fmean(given), 4), min(given), max(given)
    return out


def survey_spreads(study, runs_by_arm: dict[str, list[int]]) -> list[ItemSpread]:
    """Every item of every survey of the study, each arm's spread, in the study's order."""
    run_ids = [r for runs in runs_by_arm.values() for r in runs]
    surveys = Survey.objects.filter(run_id__in=run_ids, made_by=MADE_BY.format(name=study.name))
    by_key = {(s.run_id, s.tick, s.digest): s.pk for s in surveys}
    answers: dict[tuple[int, str], list] = defaultdict(list)
    for survey_id, item, value in (SurveyAnswer.objects.filter(survey_id__in=by_key.values()).order_by("id")
                                   .values_list("survey_id", "item", "value")):
        answers[(survey_id, item)].append(value)
    out = []
    for spec in questionnaires(study.surveys):
        q = from_dict(spec["questionnaire"])
        mine = {arm: [by_key[k] for k in ((r, spec["tick"], digest(q)) for r in runs) if k in by_key]
                for arm, runs in runs_by_arm.items()}
        for item in q.items:
            arms = [spread(item, arm, [v for s in ids for v in answers[(s, item.id)]]) for arm, ids in mine.items()]
            out.append(ItemSpread(spec["tick"], item, columns_of(item), arms))
    return out
