"""Where a study stands: each run's tick, target and state, and the study's totals. One shape for
the `study status` command, the comparison page's live JSON and the admin's list."""
from __future__ import annotations

from voyage.models import Run
from voyage.studies.models import Study, StudyRun
from voyage.studies.scheduler import spent


def run_note(run: Run, started: bool) -> str:
    """Why a run is where it is: its error, why it paused, or that it waits for its turn."""
    if run.state == Run.FAILED:
        return run.error.splitlines()[0][:200] if run.error else "failed"
    if run.state == Run.PAUSED:
        return run.pause_reason if run.pause_reason or started else "paused"
    if run.replay_of_id and run.replay_of_id == run.forked_from_id:
        return f"replaying its base run {run.forked_from_id} to the fork tick {run.fork_tick}"
    return ""


def study_progress(study: Study) -> dict:
    members = list(StudyRun.objects.filter(study=study).select_related("run").order_by("position"))
    runs = [{
        "run_id": m.run_id, "position": m.position + 1, "cell": m.label, "seed": m.seed,
        "tick": m.run.tick, "target_ticks": m.run.target_ticks, "state": m.run.state,
        "percent": round(100 * m.run.tick / m.run.target_ticks, 1) if m.run.target_ticks else 100.0,
        "started": m.started_at is not None, "note": run_note(m.run, m.started_at is not None),
        "base": m.is_base, "forked_from": m.run.forked_from_id, "fork_tick": m.run.fork_tick,
    } for m in members]
    return {
        "study": {
            "id": study.pk, "name": study.name, "state": study.state, "stop_reason": study.stop_reason,
            "runs": len(runs), "finished": sum(r["state"] == Run.FINISHED for r in runs),
            "ticks": sum(r["tick"] for r in runs), "target_ticks": sum(r["target_ticks"] for r in runs),
            "spent": float(spent(study)),
            "budget_cost": float(study.budget_cost) if study.budget_cost is not None else None,
            "interventions": study.interventions, "fork_tick": study.fork_tick,
        },
        "runs": runs,
    }
