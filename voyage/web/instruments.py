"""The interview form of the agent inspector (staff ask, the page shows the answer as text) and the
intervention form of the run overview."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from voyage.instruments.interventions import InterventionError, intervene
from voyage.instruments.interviews import InterviewError, ask
from voyage.models import Run
from voyage.web.access import staff_required
from voyage.web.agents import run_agent


@staff_required
@require_POST
def agent_interview(request, run_id: int, agent_key: str):
    run, agent = run_agent(run_id, agent_key)
    back = reverse("web:agent_inspector", args=[run.pk, agent.persona.key])
    try:
        interview = ask(run, agent, request.POST.get("question", ""), request.POST.get("tick") or None,
                        asked_by=request.user)
    except InterviewError as exc:
        messages.error(request, f"Not asked: {exc}")
        return redirect(back + "#interviews")
    return redirect(back + f"#interview-{interview.pk}")


@staff_required
@require_POST
def run_intervene(request, run_id: int):
    run = get_object_or_404(Run, pk=run_id)
    post = request.POST
    tick = post.get("tick", "").strip()
    try:
        made = intervene(run, post.get("kind", ""), post.get("text", ""),
                         tick=int(tick) if tick.lstrip("-").isdigit() else (tick or None),
                         room=post.get("room") or None, how=post.get("how", "sound"), agent=post.get("agent") or None,
                         name=post.get("name", ""), field=post.get("field", ""), made_by=request.user.get_username())
    except InterventionError as exc:
        messages.error(request, f"Nothing changed: {exc}")
    else:
        messages.success(request, f"Intervention at tick {made.tick}"
                                  + (" applied." if made.applied else ": it waits for its tick."))
    return redirect(reverse("web:overview", args=[run.pk]) + "#interventions")
