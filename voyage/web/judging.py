"""The believability panel of the run overview and the agent inspector: the latest judging job's
scores per dimension and per agent, always beside the judge's verdict and its self-checks; and the
form that judges a day from the page (docs/judging.md)."""
from __future__ import annotations

import time
from statistics import mean

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from voyage.instruments.models import Judging
from voyage.judging.job import MAX_SCENES, JudgeError, judge_run, save, scene_count
from voyage.judging.packets import PacketError
from voyage.judging.rubric import load_rubric
from voyage.models import Run
from voyage.web.access import staff_required


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(mean(values), 2) if values else None


SCENE = "scene:"


def believability(run: Run, agent_key: str | None = None) -> dict:
    """The latest job's figures (None: the run was never judged)."""
    job = Judging.objects.filter(run=run).first()
    if job is None:
        return {"job": None, "day": max(1, min(run.tick, 1)), "max_scenes": MAX_SCENES}
    dims = list(dict.fromkeys(s["dimension"] for s in job.scores))
    # Agents first, then any scenes judged (scene:ROOM@A-B, on the dimensions that read a scene);
    # the means are the agents'.
    agents = sorted({s["agent"] for s in job.scores}, key=lambda a: (a.startswith(SCENE), a))
    by = {(s["agent"], s["dimension"]): s for s in job.scores}
    rows = [(a, [by.get((a, d)) for d in dims]) for a in agents if agent_key in (None, a)]
    return {"job": job, "dims": [(d, _mean(s["score"] for s in job.scores if s["dimension"] == d
                                           and not s["agent"].startswith(SCENE))) for d in dims],
            "rows": rows, "checks": job.summary, "planted": sorted(job.summary.get("planted_detection", {}).items()),
            "agent": agent_key, "day": job.day, "max_scenes": MAX_SCENES,
            "scenes": len(job.summary.get("options", {}).get("scenes", []))}


@staff_required
@require_POST
def run_judge(request, run_id: int):
    run = get_object_or_404(Run.objects.select_related("scenario", "profile"), pk=run_id)
    day = request.POST.get("day", "1").strip()
    back = reverse("web:overview", args=[run.pk]) + "#believability"
    start = time.process_time()
    try:
        result = judge_run(run, load_rubric(), int(day) if day.isdigit() else -1,
                           scenes=scene_count(request.POST.get("scenes", "")))
    except (JudgeError, PacketError) as exc:
        messages.error(request, f"Not judged: {exc}")
        return redirect(back)
    job = save(result, time.process_time() - start, asked_by=request.user)
    messages.success(request, f"Day {job.day} judged: the judge is {job.verdict}.")
    return redirect(back)
