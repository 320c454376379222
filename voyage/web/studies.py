"""The studies pages (staff only): the list at /studies/, the comparison page /studies/<id>/ with
live progress (its JSON, polled every second), the measures by cell, a chart of one measure by day,
and the tidy CSV."""
from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from voyage.studies import between, compare
from voyage.studies.chart import line_chart
from voyage.studies.grid import SEED
from voyage.studies.models import Study
from voyage.studies.progress import study_progress
from voyage.studies.results import csv_text, study_rows
from voyage.web.access import staff_required
from voyage.web.study_report import report


@staff_required
def study_list(request):
    studies = [study_progress(s)["study"] for s in Study.objects.select_related("scenario")]
    return render(request, "studies/list.html", {"studies": studies})


@staff_required
def study_detail(request, study_id: int):
    study = get_object_or_404(Study.objects.select_related("scenario"), pk=study_id)
    header, rows = study_rows(study)
    axes = [a for a in study.axes if a != SEED]
    measures = header[header.index("day") + 1:]
    days = sorted({int(r["day"]) for r in rows})
    day = _choice(request.GET.get("day"), [str(d) for d in days], str(days[-1]) if days else "")
    chosen = _choice(request.GET.get("measure"), measures, "agents_rung_1" if "agents_rung_1" in measures
                     else (measures[0] if measures else ""))
    table = compare.table(rows, axes, measures, int(day)) if day else {}
    arms = compare.cells_in_order(rows, axes)
    baseline = _choice(request.GET.get("baseline"), arms, between.pick_baseline(arms, None) if arms else "")
    return render(request, "studies/detail.html", {
        "study": study, "progress": study_progress(study), "cells": compare.cells_in_order(rows, axes),
        "table": [(m, _doc(m), [table[m][c] for c in compare.cells_in_order(rows, axes)]) for m in measures],
        "days": days, "day": day, "measures": measures, "measure": chosen,
        "chart": line_chart(compare.series(rows, axes, chosen), chosen) if chosen else "",
        "arms": arms, "baseline": baseline,
        "between": between.between(study.name, rows, axes, chosen, int(day), baseline,
                                   scale=between.is_scale(study, chosen)) if day and chosen else [],
    })


@staff_required
def study_progress_json(request, study_id: int):
    return JsonResponse(study_progress(get_object_or_404(Study, pk=study_id)))


@staff_required
def study_results_csv(request, study_id: int):
    study = get_object_or_404(Study, pk=study_id)
    response = HttpResponse(csv_text(study), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-results.csv"'
    return response


def _choice(value, allowed: list[str], default: str) -> str:
    """A query-string choice, kept only when it names something offered."""
    return value if value in allowed else default


def _doc(column: str) -> str:
    """The declared definition of a measure column (`words_shout` is the `words` measure's)."""
    declared = between.measure_of(column)
    return declared.doc if declared else ""


@staff_required
def study_report(request, study_id: int):
    study = get_object_or_404(Study.objects.select_related("scenario"), pk=study_id)
    return render(request, "studies/report.html", {**report(study, request.GET.get("day")),
                                                   "rank_url": reverse("studies:rank", args=[study.pk])})


@staff_required
def study_report_file(request, study_id: int):
    """The same report as one HTML file to keep: its style inline, no script, nothing to fetch."""
    study = get_object_or_404(Study.objects.select_related("scenario"), pk=study_id)
    html = render_to_string("studies/report_file.html", {**report(study, request.GET.get("day")),
                                                         "made": timezone.now().strftime("%Y-%m-%d %H:%M UTC")})
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-report.html"'
    return response
