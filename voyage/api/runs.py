"""Runs: list, detail, create (through voyage.runs.config, the admin's validation), start, pause,
resume, stop (voyage.runs.control), clone, replay and fork."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from ninja import Path, Query, Router, Status

from voyage.api.errors import errors, invalid
from voyage.api.schemas import MAX_ID, CloneIn, ForkIn, RunIn, RunOut, RunPage
from voyage.calls.replay import ReplayMissing
from voyage.calls.usage import run_totals
from voyage.models import Run
from voyage.runs import config as runconfig, control
from voyage.runs.fork import ForkError, fork
from world.time import day_of, sim_clock

router = Router(tags=["runs"])
RunId = Path(..., ge=1, le=MAX_ID)


def run_out(run: Run) -> dict:
    params = {}
    for name in runconfig.PARAMETERS:
        value = getattr(run, name)
        params[name] = float(value) if name == "budget_cost" and value is not None else value
    return {
        "id": run.pk, "uuid": run.uuid, "name": run.name, "scenario": run.scenario.slug, "state": run.state,
        "tick": run.tick, "target_ticks": run.target_ticks, "day": day_of(run.tick), "clock": sim_clock(run.tick),
        "seed": run.seed, "schedule": run.schedule, "profile": run.profile.name if run.profile_id else None,
        "provider": run.profile.provider if run.profile_id and run.profile.kind == "openai" else None,
        "replay_of": run.replay_of_id, "forked_from": run.forked_from_id, "fork_tick": run.fork_tick,
        "error": run.error, "pause_reason": run.pause_reason, "created_at": run.created_at,
        "parameters": params, "usage": run_totals(run),
    }


def get_run(run_id: int) -> Run:
    return get_object_or_404(Run.objects.select_related("scenario", "profile"), pk=run_id)


@router.get("/runs", response={200: RunPage, **errors()}, summary="Runs, oldest first")
def list_runs(request, after: int = Query(0, ge=0, le=MAX_ID), limit: int = Query(50, ge=1, le=200)):
    runs = list(Run.objects.select_related("scenario", "profile").filter(pk__gt=after).order_by("pk")[:limit + 1])
    more = len(runs) > limit
    runs = runs[:limit]
    return {"items": [run_out(r) for r in runs], "next": runs[-1].pk if more else None}


@router.get("/runs/{run_id}", response={200: RunOut, **errors()}, summary="A run: state, tick, clock, parameters, usage")
def run_detail(request, run_id: int = RunId):
    return run_out(get_run(run_id))


@router.post("/runs", response={201: RunOut, **errors()}, summary="Configure a new run (queued, not started)")
def create(request, body: RunIn):
    params = {k: v for k, v in body.parameters.dict().items() if v is not None}
    try:
        run = runconfig.configure_run(body.scenario, cast=body.cast, profile=body.profile, schedule=body.schedule,
                                      seed=body.seed, ticks=body.ticks, days=body.days, name=body.name, **params)
    except ValidationError as exc:
        return Status(422, invalid(exc.message_dict))
    return Status(201, run_out(get_run(run.pk)))


def _control(verb: str):
    def operation(request, run_id: int = RunId):
        get_run(run_id)
        try:
            getattr(control, verb)(run_id)
        except control.ControlError as exc:
            return Status(409, {"detail": str(exc)})
        return Status(200, run_out(get_run(run_id)))

    operation.__name__ = f"{verb}_run"
    operation.__doc__ = getattr(control, verb).__doc__
    return operation


for _verb in ("start", "pause", "resume", "stop"):
    router.post(f"/runs/{{run_id}}/{_verb}", response={200: RunOut, **errors(409)},
                summary=f"{_verb.capitalize()} the run on the worker")(_control(_verb))


@router.post("/runs/{run_id}/clone", response={201: RunOut, **errors()}, summary="A new run with this one's configuration")
def clone(request, body: CloneIn, run_id: int = RunId):
    try:
        made = runconfig.clone_run(get_run(run_id), seed=body.seed)
    except ValidationError as exc:
        return Status(422, invalid(exc.message_dict))
    return Status(201, run_out(get_run(made.pk)))


@router.post("/runs/{run_id}/replay", response={201: RunOut, **errors()},
             summary="A new run answering from this one's recorded calls (queued, not started)")
def replay(request, run_id: int = RunId):
    try:
        made = runconfig.replay_run(get_run(run_id))
    except ValidationError as exc:
        return Status(422, invalid(exc.message_dict))
    return Status(201, run_out(get_run(made.pk)))


@router.post("/runs/{run_id}/fork", response={201: RunOut, **errors(409)},
             summary="Fork at a tick: replays the first at_tick ticks now, then waits, paused, to go on live")
def fork_run(request, body: ForkIn, run_id: int = RunId):
    source = get_run(run_id)
    params = {k: v for k, v in body.parameters.dict().items() if v is not None}
    try:
        made = fork(source, body.at_tick, seed=body.seed, profile=body.profile, target_ticks=body.ticks, params=params)
    except ForkError as exc:
        return Status(422, {"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]})
    except ReplayMissing as exc:
        return Status(409, {"detail": str(exc)})
    return Status(201, run_out(get_run(made.pk)))
