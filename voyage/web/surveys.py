"""The run's surveys page (staff put a questionnaire to the run's agents as of a tick) and a survey's
answers (a summary per item, every answer as text, the tidy CSV). Staff only, as interviews are."""
from __future__ import annotations

import io

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from voyage.instruments.models import Questionnaire, Survey
from voyage.instruments.questionnaire import QuestionnaireError, from_dict, read_questionnaire
from voyage.instruments.survey_summary import summarise
from voyage.instruments.survey_table import shown, write_csv
from voyage.instruments.surveys import SurveyError, answers_of, take_survey
from voyage.models import Run
from voyage.web.access import staff_required


@staff_required
def run_surveys(request, run_id: int):
    run = get_object_or_404(Run, pk=run_id)
    return render(request, "instruments/surveys.html", {
        "run": run, "surveys": Survey.objects.filter(run=run).select_related("asked_by").order_by("-id"),
        "questionnaires": Questionnaire.objects.order_by("name"), "text": request.session.pop("survey_text", "")})


def _questionnaire(post):
    """The questionnaire the form gives: a saved one, or the YAML typed in (one of the two)."""
    saved, text = post.get("saved", "").strip(), post.get("text", "")
    if saved and text.strip():
        raise QuestionnaireError(["choose a saved questionnaire or write one, not both"])
    if saved:
        found = Questionnaire.objects.filter(pk=saved).first() if saved.isdigit() else None
        if found is None:
            raise QuestionnaireError([f"there is no saved questionnaire {saved!r}"])
        return read_questionnaire(found.text)
    return read_questionnaire(text)


@staff_required
@require_POST
def run_survey(request, run_id: int):
    run = get_object_or_404(Run, pk=run_id)
    back = reverse("web:run_surveys", args=[run.pk])
    post = request.POST
    try:
        questionnaire = _questionnaire(post)
        agents = [k for k in post.get("agents", "").split(",") if k.strip()]
        survey = take_survey(run, questionnaire, post.get("tick") or None, agents or None, asked_by=request.user)
    except (QuestionnaireError, SurveyError) as exc:
        request.session["survey_text"] = post.get("text", "")  # keep what was typed
        problems = exc.problems if isinstance(exc, QuestionnaireError) else [str(exc)]
        for problem in problems:
            messages.error(request, f"Not asked: {problem}")
        return redirect(back + "#new-survey")
    messages.success(request, f"{survey.agents} agents answered {survey.title!r} as of tick {survey.tick}.")
    return redirect("web:run_survey_answers", run.pk, survey.pk)


@staff_required
def survey_answers(request, run_id: int, survey_id: int):
    survey = get_object_or_404(Survey.objects.select_related("run", "asked_by"), pk=survey_id, run_id=run_id)
    questionnaire = from_dict(survey.questionnaire)
    answers = list(answers_of(survey))
    by_item = {item.id: [a.value for a in answers if a.item == item.id] for item in questionnaire.items}
    summaries = [(item, summarise(item, by_item[item.id])) for item in questionnaire.items]
    texts = {item.id: item.text for item in questionnaire.items}
    rows = [(a, texts.get(a.item, a.item), shown(a.value)) for a in answers]
    return render(request, "instruments/survey_answers.html", {"run": survey.run, "survey": survey,
                                                                "summaries": summaries, "rows": rows})


@staff_required
def survey_csv(request, run_id: int, survey_id: int):
    survey = get_object_or_404(Survey, pk=survey_id, run_id=run_id)
    out = io.StringIO()
    write_csv([survey], out)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run{run_id}-survey{survey.pk}.csv"'
    return response
