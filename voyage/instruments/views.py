"""The interview form of the agent inspector: staff ask, the page shows the answer as text."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from voyage.instruments.interviews import InterviewError, ask
from voyage.web.access import staff_required
from voyage.web.agents import _agent


@staff_required
@require_POST
def agent_interview(request, run_id: int, agent_key: str):
    run, agent = _agent(run_id, agent_key)
    back = reverse("web:agent_inspector", args=[run.pk, agent.persona.key])
    try:
        interview = ask(run, agent, request.POST.get("question", ""), request.POST.get("tick") or None,
                        asked_by=request.user)
    except InterviewError as exc:
        messages.error(request, f"Not asked: {exc}")
        return redirect(back + "#interviews")
    return redirect(back + f"#interview-{interview.pk}")
