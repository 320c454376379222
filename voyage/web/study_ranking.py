"""The ranking section of a study's report (its own include, studies/report_ranking.html): the latest
`study rank` as a picture — each arm's Bradley–Terry score with its bootstrap interval — beside the
judge's verdict and figures; and the form that ranks the arms from the report."""
from __future__ import annotations

import time

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from voyage.judging.answers import BatteryError
from voyage.judging.job import JudgeError
from voyage.judging.rubric import load_rubric
from voyage.studies.models import Study
from voyage.studies.rank import RankError, rank_study, save
from voyage.web.access import staff_required

ROW, LEFT, WIDTH = 28, 220, 360


def picture(arms: list[dict]) -> str:
    """An SVG: one row per arm, best first, its interval as a line and its score as a dot."""
    low = min(a["ci_low"] for a in arms)
    high = max(a["ci_high"] for a in arms)
    span = (high - low) or 1.0

    def x(v: float) -> float:
        return round(LEFT + (v - low) / span * WIDTH, 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="ranking" width="{LEFT + WIDTH + 80}" '
             f'height="{ROW * len(arms) + 24}" aria-label="arms ranked, with 95% intervals">']
    if low < 0 < high:
        parts.append(f'<line x1="{x(0)}" x2="{x(0)}" y1="4" y2="{ROW * len(arms) + 4}" stroke="#bbb" '
                     f'stroke-dasharray="3 3"/>')
    for i, a in enumerate(arms):
        y = ROW * i + 18
        parts.append(f'<text x="4" y="{y + 4}" font-size="12">{a["rank"]}. {escape(a["arm"])}</text>'
                     f'<line x1="{x(a["ci_low"])}" x2="{x(a["ci_high"])}" y1="{y}" y2="{y}" stroke="#333" '
                     f'stroke-width="2"/><circle cx="{x(a["score"])}" cy="{y}" r="5" fill="#1f5fa8"/>'
                     f'<text x="{LEFT + WIDTH + 8}" y="{y + 4}" font-size="11">{a["score"]:+.2f}</text>')
    parts.append(f'<text x="{LEFT}" y="{ROW * len(arms) + 20}" font-size="10">{low:+.2f}</text>'
                 f'<text x="{LEFT + WIDTH - 30}" y="{ROW * len(arms) + 20}" font-size="10">{high:+.2f}</text></svg>')
    return "".join(parts)


def ranking_section(study: Study) -> dict:
    latest = study.rankings.first()
    return {"row": latest, "picture": mark_safe(picture(latest.arms)) if latest and latest.arms else "",
            "planted": sorted((latest.checks.get("planted_detection") or {}).items()) if latest else []}


@staff_required
@require_POST
def study_rank(request, study_id: int):
    study = get_object_or_404(Study.objects.select_related("scenario"), pk=study_id)
    back = reverse("studies:report", args=[study.pk]) + "#report-ranking"
    start = time.process_time()
    try:
        found = rank_study(study, load_rubric())
    except (RankError, BatteryError, JudgeError) as exc:
        messages.error(request, f"Not ranked: {exc}")
        return redirect(back)
    row = save(study, found, time.process_time() - start)
    messages.success(request, f"Arms ranked at tick {row.tick}: the judge is {row.verdict}.")
    return redirect(back)
