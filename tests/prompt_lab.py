"""Runs against the prompt-sensitive server (tests/words_server.py), each in a process of its own, on
a scratch database (voyage/bench/fleet.py ScratchDB): `run_voyage` uninterrupted, killed (SIGKILL)
and resumed, stopped and continued, forked, replayed, on the worker; and what the tests compare of
them — the transcript, the memory tables and every model call, prompt for prompt."""
from __future__ import annotations

import json
import signal
import subprocess
import time
from dataclasses import dataclass

from tests.oracle import transcript_through
from voyage.calls.replay import MEMORY_JOB_PURPOSES
from voyage.bench.fleet import MANAGE, ROOT, ScratchDB, wait_for

CALLS = """
import json, sys
from voyage.models import LLMCall
rows = (LLMCall.objects.filter(run_id=int(sys.argv[-1]), abandoned=False).order_by("id")
        .select_related("agent__persona"))
for c in rows.iterator(chunk_size=500):
    print(json.dumps({"id": c.id, "tick": c.tick, "agent": c.agent.persona.key if c.agent else None,
                      "purpose": c.purpose, "prompt": c.prompt, "answer": c.raw_answer, "recalled": len(c.recalled)}))
"""

CREATE = """
import json, sys
from voyage.engine.runner import create_run
from world.models import Scenario
scenario, seed, layout, ahead, ticks, params = json.loads(sys.argv[-1])
run = create_run(Scenario.objects.get(slug=scenario), seed=seed, schedule="simultaneous", context_layout=layout,
                 run_ahead=ahead, target_ticks=ticks, **params)
print(json.dumps({"run_id": run.pk}))
"""

INSPECT = """
import json, sys
from voyage.models import Run
from voyage.web.agents import context_now
from world.models import AgentState
run = Run.objects.get(pk=int(sys.argv[-2]))
agent = AgentState.objects.get(run=run, persona__key=sys.argv[-1])
messages, recalled = context_now(run, agent.id)
print(json.dumps({"tick": run.tick, "prompt": messages, "recalled": list(recalled)}))
"""


@dataclass(frozen=True)
class Config:
    scenario: str = "edelweiss"
    seed: int = 7
    layout: str = "seed"
    run_ahead: int = 0

    def options(self) -> list[str]:
        return ["--scenario", self.scenario, "--seed", str(self.seed), "--schedule", "simultaneous",
                "--layout", self.layout, "--run-ahead", str(self.run_ahead)]

    @property
    def name(self) -> str:
        return f"{self.scenario} {self.layout} " + (f"ahead {self.run_ahead}" if self.run_ahead else "lock-step")


class Lab:
    """A scratch database and the server's URL: runs made by `run_voyage` in processes of their own."""

    def __init__(self, db: ScratchDB, base_url: str):
        self.db, self.base_url = db, base_url

    def model(self) -> list[str]:
        return ["--base-url", self.base_url, "--model", "words", "--timeout", "20", "--concurrency", "64"]

    def voyage(self, *args: str, **env) -> dict:
        """run_voyage in a process of its own: its figures (the JSON line it prints)."""
        done = subprocess.run(MANAGE + ["run_voyage", *args], env=self.db.env(**env), cwd=ROOT, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def start(self, config: Config, ticks: int) -> dict:
        return self.voyage(*config.options(), "--ticks", str(ticks), *self.model())

    def create(self, config: Config, ticks: int, **params) -> int:
        """A new run of the configuration with other run parameters (lower memory thresholds, say),
        not started: `run_voyage --run` or `start_voyage --run` takes it on with the model."""
        spec = [config.scenario, config.seed, config.layout, config.run_ahead, ticks, params]
        return self.script(CREATE, json.dumps(spec))[0]["run_id"]

    def resume(self, run_id: int, ticks: int | None = None) -> dict:
        return self.voyage("--run", str(run_id), *(["--ticks", str(ticks)] if ticks else []))

    def killed_at(self, config: Config, ticks: int, kill_from: int) -> tuple[int, int]:
        """Start a run, SIGKILL it once it has committed `kill_from` ticks: (its id, the tick it died at)."""
        before = self.newest_run()
        victim = subprocess.Popen(MANAGE + ["run_voyage", *config.options(), "--ticks", str(ticks), *self.model()],
                                  env=self.db.env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        run_id = wait_for(lambda: max(self.newest_run(), before) - before and self.newest_run(), 120,
                          what="the victim's run")
        try:
            wait_for(lambda: self.db.run_row(run_id)[0] >= kill_from or victim.poll() is not None, 300,
                     what=f"tick {kill_from}")
        finally:
            victim.send_signal(signal.SIGKILL)
            victim.wait()
        return run_id, self.db.run_row(run_id)[0]

    def newest_run(self) -> int:
        return self.db.query("SELECT COALESCE(MAX(id), 0) FROM voyage_run")[0][0]

    def script(self, code: str, *argv) -> list[dict]:
        args = "; ".join(f"sys.argv.append({str(a)!r})" for a in argv)
        done = subprocess.run(MANAGE + ["shell", "-c", f"import sys; {args}; exec({code!r})"], env=self.db.env(),
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    def calls(self, run_id: int) -> list[dict]:
        """Every model call of the run, in the order recorded."""
        return self.script(CALLS, run_id)

    def inspect(self, run_id: int, persona_key: str) -> dict:
        """The inspector's prompt for the agent's next call, built as its page builds it."""
        return self.script(INSPECT, run_id, persona_key)[0]

    def audit(self, run_id: int, *options: str) -> dict:
        done = subprocess.run(MANAGE + ["prompts", "audit", str(run_id), *options], env=self.db.env(), cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])


class Made:
    """A run's figures (run_voyage's JSON line), its model calls and its events (as tests/oracle reads them)."""

    def __init__(self, lab: Lab, figures: dict):
        self.figures, self.run_id = figures, figures["run_id"]
        self.calls = lab.calls(self.run_id)
        self.events = transcript_through(lab.db.query, self.run_id)


def same_calls(ours: list[dict], theirs: list[dict]) -> str | None:
    """None when the calls are the same, prompt for prompt and answer for answer; else the first
    difference, said in a line. The run's own calls are compared in the order they were made; a
    memory job's (compaction, era, dream) fall among them wherever the process that did the job was
    then, so those are compared as a whole, sorted."""
    job = lambda c: c["purpose"] in MEMORY_JOB_PURPOSES  # noqa: E731
    key = lambda c: json.dumps([c[k] for k in ("tick", "agent", "purpose", "prompt", "answer")], sort_keys=True)  # noqa: E731
    ours_jobs, theirs_jobs = sorted(map(key, filter(job, ours))), sorted(map(key, filter(job, theirs)))
    if ours_jobs != theirs_jobs:
        differ = next((a for a, b in zip(ours_jobs, theirs_jobs) if a != b), None)
        return (f"{len(ours_jobs)} memory job calls against {len(theirs_jobs)}" if differ is None else
                f"memory job call {differ[:120]}... differs")
    ours, theirs = [c for c in ours if not job(c)], [c for c in theirs if not job(c)]
    for a, b in zip(ours, theirs):
        keys = ("tick", "agent", "purpose", "prompt", "answer")
        if any(a[k] != b[k] for k in keys):
            which = next(k for k in keys if a[k] != b[k])
            return f"call {a['id']} (tick {a['tick']}, {a['agent']}, {a['purpose']}): its {which} differs"
    if len(ours) != len(theirs):
        return f"{len(ours)} calls against {len(theirs)}"
    return None


def wait_finished(db: ScratchDB, run_id: int, timeout: float = 600) -> None:
    wait_for(lambda: db.run_row(run_id)[1] in ("finished", "failed", "paused"), timeout, interval=0.2,
             what=f"run {run_id} to finish")


def elapsed(since: float) -> str:
    return f"{time.monotonic() - since:.1f} s"
