"""How far each agent is ahead of the slowest agent in the simultaneous schedule (`Run.leads`, which
the engine writes at each tick's commit), as the overview shows it and ship.json sends it to the live
page. The texts are made here once; the page's JavaScript only puts them in place."""
from __future__ import annotations

from collections.abc import Iterable

from voyage.models import Run


def leads_panel(run: Run, cast: Iterable[str]) -> dict | None:
    """None when there is nothing to show (the sequential schedule ignores run_ahead); otherwise
    {"lock_step", "summary", "agents": {persona key: "+N"}}. The agents' figures only while the run
    is running: a paused or finished run's last leads say nothing about now."""
    if run.schedule != Run.SIMULTANEOUS:
        return None
    if run.run_ahead == 0:
        return {"lock_step": True, "summary": "lock-step (run_ahead 0): every agent waits for every other each tick",
                "agents": {}}
    leads = run.leads or {}
    n = leads.get("n") or 0
    summary = (f"ahead of the slowest agent: mean +{leads.get('sum', 0) / n:.2f}, max +{leads.get('max', 0)} "
               f"ticks (run_ahead {run.run_ahead})") if n else ""
    now = (leads.get("now") or {}) if run.state == Run.RUNNING else {}
    return {"lock_step": False, "summary": summary, "agents": {key: f"+{now[key]}" for key in cast if key in now}}
