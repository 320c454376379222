"""Same seed, same transcript — in either schedule — and an interrupted run resumes exactly."""
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from memories import job_records, jobs
from memories.models import Dream, PendingMemoryJob
from tests.conftest import manage
from tests.engine_helpers import ShipLog, people_shown
from tests.oracle import assert_same, assert_same_transcript, transcript_in
from voyage.engine.runner import advance, create_run, transcript_sha256
from voyage.models import Event, LLMCall, Run
from world.models import AgentState, Scenario

pytestmark = pytest.mark.django_db


def _run(seed: int, schedule: str, ticks: int) -> Run:
    run = create_run(Scenario.objects.get(slug="1912"), seed=seed, schedule=schedule, target_ticks=ticks)
    return advance(run, ticks)


@pytest.mark.parametrize("schedule", [Run.SEQUENTIAL, Run.SIMULTANEOUS])
def test_same_seed_same_transcript(schedule):
    first = _run(7, schedule, 90)
    assert_same_transcript(_run(7, schedule, 90), first)
    assert transcript_sha256(first) != transcript_sha256(_run(8, schedule, 90))


def _people_counts(schedule: str, ticks: int):
    """The run's transcript and, per action call: how many people its prompt showed, how many were in the agent's room at the
    start of the tick, and how many were there when its turn came (after the moves and deaths
    resolved before it in that tick), both rebuilt from the event log alone."""
    run = create_run(Scenario.objects.get(slug="1912"), seed=7, schedule=schedule, target_ticks=ticks)
    advance(run, ticks)
    key_of = dict(AgentState.objects.filter(run=run).values_list("persona__key", "id"))
    first_of_tick, turn = {}, {}
    for seq, tick, kind, actor, data in (Event.objects.filter(run=run).order_by("seq")
                                         .values_list("seq", "tick", "kind", "actor_id", "data")):
        first_of_tick.setdefault(tick, seq)
        who = key_of[data["killer"]] if kind == "death" else actor
        # the first thing it did on its turn (not waking, a reflection, or a meeting the rules forced)
        if who is not None and kind not in ("wake", "reflection") and not data.get("forced"):
            turn.setdefault((tick, who), seq)
    calls = list(LLMCall.objects.filter(run=run, purpose="action").exclude(outcome=LLMCall.SKIPPED).order_by("id"))
    cuts = {c.id: (first_of_tick[c.tick], turn[(c.tick, c.agent_id)]) for c in calls}
    ships = ShipLog(run).snapshots([s for pair in cuts.values() for s in pair])
    rows = []
    for c in calls:
        start, mine = (ships[s] for s in cuts[c.id])
        here = start.location[c.agent_id]  # nobody moves before the actions of a tick
        rows.append((len(people_shown(c.prompt[1]["content"])), len(start.in_room(here, exclude=c.agent_id)),
                     len(mine.in_room(here, exclude=c.agent_id))))
    return transcript_sha256(run), rows


def test_schedules_differ_but_both_follow_the_rules():
    """Sequential: each agent sees the room as the agents before it in the tick left it.
    Simultaneous: everyone sees the room as it was when the tick began."""
    seq, sequential = _people_counts(Run.SEQUENTIAL, 60)
    sim, simultaneous = _people_counts(Run.SIMULTANEOUS, 60)
    assert all(shown == at_turn for shown, _, at_turn in sequential)
    assert sum(at_start != at_turn for _, at_start, at_turn in sequential) > 20  # the rules differ here
    assert all(shown == at_start for shown, at_start, _ in simultaneous)
    assert sum(at_start != at_turn for _, at_start, at_turn in simultaneous) > 20
    assert seq != sim


def test_resuming_in_chunks_equals_one_go():
    whole = _run(11, Run.SEQUENTIAL, 120)
    run = create_run(Scenario.objects.get(slug="1912"), seed=11, target_ticks=120)
    for stop in (17, 18, 64, 120):  # a fresh in-memory world each time, loaded from the database
        advance(Run.objects.get(pk=run.pk), stop)
    assert_same_transcript(run, whole)
    seqs = list(Event.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))


class Killed(Exception):
    """The process died here."""


def test_memory_jobs_a_killed_process_left_are_done_when_the_run_resumes(monkeypatch):
    """The kill test below, with the kill placed where it is rarest: a tick has committed and its
    memory jobs have not run. The resumed run does them before its next tick and ends exactly as a
    run never interrupted: same transcript, dreams and calls, nothing left pending."""
    edelweiss = Scenario.objects.get(slug="edelweiss")

    def figures(run):
        dreams = Dream.objects.filter(run=run).order_by("id")
        calls = LLMCall.objects.filter(run=run).order_by("id")
        return (transcript_sha256(run), list(dreams.values_list("agent__persona__key", "tick", "identity", "people")),
                list(calls.values_list("purpose", "tick", "agent__persona__key")))

    reference = create_run(edelweiss, seed=5, target_ticks=40)
    advance(reference, 40, memory_inline=True)
    assert Dream.objects.filter(run=reference).exists()

    def dies(*args, **kwargs):
        raise Killed
    run = create_run(edelweiss, seed=5, target_ticks=40)
    with monkeypatch.context() as patch:
        patch.setitem(job_records.DOERS, "dreams", dies)
        with pytest.raises(Killed):
            advance(run, 40, memory_inline=True)
    run.refresh_from_db()
    assert 0 < run.tick < 40
    assert not Dream.objects.filter(run=run).exists()
    assert list(PendingMemoryJob.objects.filter(run=run).values_list("job", flat=True)) == ["dreams"]

    advance(run, 40, memory_inline=True)
    assert figures(run) == figures(reference)
    assert jobs.pending(run.pk) == 0


def _tick_of(db, run_id):
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute("SELECT tick FROM voyage_run WHERE id=?", (run_id,)).fetchone()
            return row[0] if row else 0
    except sqlite3.OperationalError:
        return 0


DAY_RUN = ["--scenario", "edelweiss", "--days", "1", "--seed", "5"]  # the small world: 8 agents, a whole day


# Out of order, in a process of its own: the run's offline answers after short seeded latencies
# (voyage/bench/latent.py; the offline policy alone answers at once, and keeps to lock-step).
AHEAD_RUN = """
import json, sys
from voyage.bench.latent import Latent
from voyage.calls.factory import gateway_for
from voyage.engine.runner import advance, create_run, run_summary
from voyage.models import Run
from world.models import Scenario
run_id = int(sys.argv[-1])
run = (create_run(Scenario.objects.get(slug="edelweiss"), seed=5, schedule=Run.SIMULTANEOUS, target_ticks=480,
                  run_ahead=3) if run_id == 0 else Run.objects.get(pk=run_id))
advance(run, 480, gateway=Latent(gateway_for(run), run.seed, 0.002, 0.8), memory_inline=True)
print(json.dumps(run_summary(run, 0.0)))
"""


@pytest.mark.parametrize("ahead", [False, True], ids=["sequential", "simultaneous-ahead"])
def test_a_killed_run_continues_to_the_same_transcript(tmp_path, ahead):
    """Kill the batch runner mid-day (SIGKILL), continue it: same transcript as a run that was never
    interrupted, and an event log with no gap and no duplicate. Out of order, the kill finds agents
    ahead of the committed tick; the reference runs in lock-step."""
    db = tmp_path / "voyage.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
    subprocess.run(manage("migrate", "-v", "0"), env=env, check=True)
    schedule = ["--schedule", "simultaneous" if ahead else "sequential", "--run-ahead", "0"]
    reference = subprocess.run(manage("run_voyage", *DAY_RUN, *schedule), env=env, check=True,
                               capture_output=True, text=True)
    expected = json.loads(reference.stdout)
    script = tmp_path / "ahead.py"
    script.write_text(AHEAD_RUN)

    def runner(run_id: int | None = None) -> list[str]:
        if ahead:
            return manage("shell", "-c", f"import sys; sys.argv.append('{run_id or 0}'); exec(open({str(script)!r}).read())")
        return manage("run_voyage", *(["--run", str(run_id)] if run_id else [*DAY_RUN, *schedule]))

    victim = subprocess.Popen(runner(), env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    run_id = expected["run_id"] + 1
    deadline = time.time() + 60
    while _tick_of(db, run_id) < 150 and time.time() < deadline:
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    interrupted_at = _tick_of(db, run_id)
    assert 150 <= interrupted_at < 480, "the runner was not killed mid-day"

    resumed = subprocess.run(runner(run_id), env=env, check=True, capture_output=True, text=True)
    figures = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert figures["ticks"] == 480
    if figures["transcript_sha256"] != expected["transcript_sha256"]:
        assert_same(transcript_in(db, expected["run_id"]), transcript_in(db, run_id))
    for key in ("actions", "memories", "llm_calls", "rung_counts"):
        assert figures[key] == expected[key], key
    assert (figures["lead_max"] >= 1) == ahead and expected["lead_max"] == 0
    with sqlite3.connect(db) as conn:
        seqs = [r[0] for r in conn.execute("SELECT seq FROM event_log WHERE run_id=? ORDER BY seq", (run_id,))]
    assert seqs == list(range(len(seqs)))
