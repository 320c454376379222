"""Benchmark: an offline study on real worker processes, in a scratch database of its own (as
`bench worker`), then the time to compute every declared measure for all its runs.

Prints runs, days (per run), workers, wall_s (from `study create` queueing the runs to the last
one finishing), runs_per_hour, measures_s (evaluate() over all the runs: every measure, every day),
rows, and the machine's cpus and load average."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from voyage.bench.fleet import Worker, manage_json, wait_for
from voyage.bench.worker import scratch_like_settings
from voyage.studies import scheduler
from voyage.studies.config import StudyPlan, create_study
from voyage.studies.measures import evaluate
from voyage.studies.models import Study
from world.time import TICKS_PER_DAY



def outer(runs: int, workers: int, days: float) -> dict:
    with scratch_like_settings() as db:
        figures = manage_json(db.env(), "bench", "study", "--inner", "--runs", str(runs), "--workers",
                              str(workers), "--days", str(days))[-1]
    figures["database"] = db.kind
    return figures


def inner(runs: int, workers: int, days: float) -> dict:
    """On the scratch database (the caller set DATABASE_URL): a tick cluster of `workers` processes
    and a memory cluster, a study of `runs` seeds, measured once it has finished."""
    with tempfile.TemporaryDirectory(prefix="voyage-bench-study-") as tmp:
        env = {**os.environ, "VOYAGE_WORKERS": str(workers)}
        fleet = [Worker(env, Path(tmp) / "ticks.log"), Worker(env, Path(tmp) / "memory.log", cluster="memory")]
        try:
            for w in fleet:
                wait_for(lambda: " running." in w.log(), 60, what="a worker to start")
            began = time.perf_counter()
            study = create_study(StudyPlan(name="bench", scenario="1912", target_ticks=round(days * TICKS_PER_DAY),
                                           axes={"seed": [str(n) for n in range(1, runs + 1)]}))
            scheduler.start(study)

            def finished() -> bool:
                state = Study.objects.values_list("state", flat=True).get(pk=study.pk)
                if study.members.filter(run__state="failed").exists():
                    raise RuntimeError("a bench run failed")
                return state == Study.FINISHED

            wait_for(finished, 3600, interval=0.2, what="the bench study")
            wall = time.perf_counter() - began
        finally:
            for w in fleet:
                w.kill()
    run_ids = list(study.members.values_list("run_id", flat=True))
    began = time.perf_counter()
    rows = evaluate(run_ids)
    measures_s = time.perf_counter() - began
    return {
        "bench": "study",
        "runs": runs,
        "days": days,
        "workers": workers,
        "wall_s": round(wall, 2),
        "runs_per_hour": round(runs / wall * 3600, 1),
        "measures_s": round(measures_s, 3),
        "rows": len(rows),
        "cpus": os.cpu_count(),
        "load_1m_after": round(os.getloadavg()[0], 2),
    }
