"""The measures a study's surveys give (registered as `survey` in measures.py): per run, for each
survey at tick T and each item, `survey_t<T>_<item>_mean` (scales, numbers), `..._<option>` (the share
of answers choosing it; choices), and `..._missing` (the share of agents asked whose answer is
missing). One value per run (per="run"): the same on each of its day rows, the tick in the name."""
from __future__ import annotations

from collections import defaultdict

from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.questionnaire import from_dict
from voyage.instruments.survey_summary import summarise
from voyage.studies.study_surveys import MADE_BY, questionnaires

PREFIX = MADE_BY.split("{")[0]  # "study ": the surveys a study took, not those staff asked by hand


def _load(run_ids) -> dict[int, dict]:
    """run id -> {column key: value}, for every study survey of those runs."""
    surveys = list(Survey.objects.filter(run_id__in=run_ids, made_by__startswith=PREFIX, instrument="")
                   .order_by("tick", "id"))  # a standard instrument's pages are the validity measure's
    values: dict[tuple[int, str], list] = defaultdict(list)
    for survey_id, item, value in (SurveyAnswer.objects.filter(survey__in=surveys).order_by("id")
                                   .values_list("survey_id", "item", "value")):
        values[(survey_id, item)].append(value)
    out: dict[int, dict] = defaultdict(dict)
    for survey in surveys:
        for item in from_dict(survey.questionnaire).items:
            summary = summarise(item, values[(survey.pk, item.id)])
            summary.pop("n")
            out[survey.run_id].update({f"t{survey.tick}_{item.id}_{k}": v for k, v in summary.items()})
    return out


def survey_values(tables, run_id: int) -> dict:
    """The run's survey columns; loaded once for all the tables' runs."""
    cache = tables.__dict__.get("_survey_values")
    if cache is None:
        cache = tables.__dict__["_survey_values"] = _load(tables.run_ids)
    return cache.get(run_id, {})


def scale_columns(study) -> set[str]:
    """The survey columns of `study` that are the mean of a rating scale: ordered steps, not evenly
    spaced, so arms are compared on them by Cliff's delta rather than Cohen's d."""
    columns = set()
    for survey in questionnaires(study.surveys):
        for item in from_dict(survey["questionnaire"]).items:
            if item.kind == "scale":
                columns.add(f"survey_t{survey['tick']}_{item.id}_mean")
    return columns
