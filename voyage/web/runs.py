"""The runs list (`/`) and its start / pause / resume / stop buttons, which call voyage.runs.control,
the same functions as the admin and the commands."""
from __future__ import annotations

from django.contrib import messages
from django.db.models import Count, F, Sum
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from voyage.models import LLMCall, Run
from voyage.runs import control
from voyage.web.access import staff_required
from world.time import sim_clock

VERBS = {"start": control.start, "pause": control.pause, "resume": control.resume, "stop": control.stop}


def buttons_for(state: str, tick: int, target: int) -> list[str]:
    """The controls that make sense for a run in this state (voyage.runs.control has the last word)."""
    more_to_do = tick < target
    if state in (Run.QUEUED, Run.RUNNING):
        return (["start"] if state == Run.QUEUED else []) + ["pause", "stop"]
    if state in (Run.PAUSED, Run.FAILED):
        return ["resume", "stop"]
    return ["start"] if more_to_do else []


def run_rows(runs) -> list[dict]:
    usage = {row["run"]: row for row in LLMCall.objects.filter(run__in=runs).order_by().values("run").annotate(
        calls=Count("id"), tokens=Sum(F("prompt_tokens") + F("completion_tokens")), cost=Sum("cost"))}
    rows = []
    for run in runs:
        used = usage.get(run.pk, {})
        rows.append({
            "run": run,
            "clock": sim_clock(run.tick),
            "progress_pct": round(100 * run.tick / run.target_ticks) if run.target_ticks else 100,
            "calls": used.get("calls") or 0,
            "tokens": used.get("tokens") or 0,
            "cost": used.get("cost") or 0,
            "problem": run.error or run.pause_reason,
            "buttons": buttons_for(run.state, run.tick, run.target_ticks),
        })
    return rows


def all_rows() -> list[dict]:
    return run_rows(list(Run.objects.select_related("scenario", "profile").order_by("-pk")))


@staff_required
def runs_list(request):
    return render(request, "web/runs.html", {"rows": all_rows()})


@staff_required
def runs_json(request):
    """What the runs list shows, for its script to keep the page current."""
    return JsonResponse({"runs": [{
        "id": row["run"].pk, "state": row["run"].state, "clock": row["clock"],
        "ticks": f"{row['run'].tick}/{row['run'].target_ticks}", "progress_pct": row["progress_pct"],
        "calls": str(row["calls"]), "tokens": str(row["tokens"]), "cost": f"{row['cost']:.4f}",
        "problem": row["problem"][:200],
    } for row in all_rows()]})


@staff_required
@require_POST
def run_control(request, run_id: int, verb: str):
    act = VERBS.get(verb)
    if act is None:
        raise Http404(f"no control {verb!r}")
    try:
        run = act(run_id)
    except control.ControlError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Run {run.pk}: {verb} done; it is now {run.state}.")
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        return redirect(back)
    return redirect("web:runs")
