"""Out of order outside a test's transaction, as a batch run goes: the schedule writes each tick's
commit on a thread of its own while the agents go on (voyage/engine/ahead.py, `Stretch.__enter__`),
and does the memory jobs on another (memories.jobs.Behind). The other tests of the schedule run
inside a transaction, where both stay on the schedule's thread; here the threads are used, and the
run is still lock-step's: transcript, memory digest, calls, event numbering."""
import threading
import time

import pytest

from memories import jobs
from memories.context import RECALL_HEADER, hot_window
from memories.job_records import Dreams
from memories.models import Memory
from tests.engine.test_ahead import _run, assert_same_run, go
from voyage.engine.ahead import FIRST, Stretch
from voyage.engine.runner import advance
from voyage.engine.writer import TickWriter
from voyage.models import LLMCall
from world.models import AgentState

TICKS = 60  # Edelweiss's first hour: five dreams asked, at four ticks
SMALL = {"compaction_memory_count": 12}  # and compactions asked within it


@pytest.mark.django_db(transaction=True)
def test_commits_and_memory_jobs_on_threads_of_their_own_keep_the_lock_step_run(monkeypatch):
    where = {"write": set(), "jobs": set()}
    write, run_inline, start = TickWriter.write, jobs.run_inline, Stretch._start
    dreams = []  # the sleepers of the dream jobs done, with what each dream read
    early = []  # the job of each agent that started a tick before the tick that asked for the job was written

    def write_here(commit):
        where["write"].add(threading.current_thread().name.split("_")[0])
        if threading.current_thread().name.startswith("behind"):
            time.sleep(0.05)  # a slow disk: the agents go on meanwhile
        return write(commit)

    def start_here(stretch, c):
        t, first = c.tick, c.step == FIRST
        compacts = first and c.agent.id in stretch.job_agents.get(t - 1, ())
        dreams = first and any(s.agent_id == c.agent.id for s in stretch.sleepers.get(t - 1, ()))
        went = start(stretch, c)
        if went and compacts and stretch.world.run.tick < t:
            early.append("compaction")  # once its tick's rows were read for the commit, before they were written
        if went and dreams and stretch.prepared < t - 1:
            early.append("dream")  # before its tick's rows were even read: its dream's inputs were fixed already
        return went

    def jobs_here(memory_jobs, gateway=None):
        where["jobs"].add(threading.current_thread().name.split("_")[0])
        dreams.extend(s for job in memory_jobs if isinstance(job, Dreams) for s in job.sleepers)
        return run_inline(memory_jobs, gateway)

    monkeypatch.setattr(TickWriter, "write", staticmethod(write_here))
    monkeypatch.setattr(Stretch, "_start", start_here)
    monkeypatch.setattr("voyage.engine.runner.run_inline", jobs_here)
    lock = advance(_run("edelweiss", 0, TICKS, **SMALL), TICKS, memory_inline=True)
    assert where == {"write": {"MainThread"}, "jobs": {"MainThread"}}  # lock-step: as before
    lock_dreams, dreams[:] = _read(dreams), []

    where["write"].clear(), where["jobs"].clear()
    ahead = go(_run("edelweiss", 3, TICKS, **SMALL), TICKS)
    assert "behind" in where["write"], "out of order, the commits were not written on a thread of their own"
    assert where["jobs"] == {"behind"}, "out of order, the memory jobs were not done on their thread"
    # an agent compacting waits for its tick's rows to be read, not written; a dreamer for neither
    assert set(early) == {"dream", "compaction"}, \
        f"{early}: a dreamer did not start a tick before the last was read, or an agent compacting before it was written"
    assert_same_run(ahead, lock)
    # each dream read what lock-step's did (fixed at the sleeper's last step, not as the tick was read)
    assert _read(dreams) == lock_dreams and len(lock_dreams) >= 5
    # the same words sent: out of order, the prompts are compressed as their tick is written, behind
    assert _prompts(ahead) == _prompts(lock) and _prompts(ahead)


def _read(sleepers) -> list:
    """What each dream read, comparable across runs: the sleeper, its rung, whom it had judged, and how
    many of its rows come up to the newest it read (row ids differ from run to run)."""
    return sorted((AgentState.objects.get(pk=s.agent_id).persona.key, s.slept_since, s.rung, s.people,
                   Memory.objects.filter(agent_id=s.agent_id, id__lte=s.upto_row).count()) for s in sleepers)


def _prompts(run) -> list:
    return [call.prompt for call in LLMCall.objects.filter(run=run).order_by("id")]


@pytest.mark.django_db(transaction=True)
def test_a_short_log_of_rows_not_yet_written_waits_for_them_before_recall(monkeypatch):
    """The cached layout's log can be shorter than the hot window (a fifth of it, just after it moves
    on): its oldest row, where recall's search starts, may be of a tick not yet written while the hot
    window's oldest is. The prompt then waits for that commit, as lock-step's would have it written;
    searched before, it would find nothing where lock-step's finds rows (seen once, under load)."""
    write = TickWriter.write

    def write_slowly(commit):
        if threading.current_thread().name.startswith("behind"):
            time.sleep(0.05)  # a slow disk: the commits lag the agents by their lead
        return write(commit)

    waited = []  # prompts that waited for the commit of their log's oldest row, the hot window's written

    def ready(stretch, c, situation):
        went = recall_ready(stretch, c, situation)
        hot = hot_window(stretch.world, c.agent)
        if not went and hot and (hot[0].id is not None or stretch.world.run.tick > hot[0].writer_tick):
            waited.append(c.tick)
        return went

    recall_ready = Stretch._recall_ready
    monkeypatch.setattr(TickWriter, "write", staticmethod(write_slowly))
    monkeypatch.setattr(Stretch, "_recall_ready", ready)
    params = {"context_layout": "cached", "hot_memory_limit": 10}  # a log of 2 to 17 rows
    lock = advance(_run("edelweiss", 0, TICKS, **params), TICKS, memory_inline=True)
    ahead = go(_run("edelweiss", 3, TICKS, **params), TICKS)
    assert LLMCall.objects.filter(run=lock).exclude(recalled=[]).count() >= 20, "recall found rows in lock-step"
    assert_same_run(ahead, lock)
    # the offline policy's answers do not read the prompt: the words sent are compared as well
    differ = next((n for n, (a, b) in enumerate(zip(_prompts(ahead), _prompts(lock))) if a != b), None)
    assert differ is None, f"prompt #{differ} differs: {_words(ahead, differ)!r} against {_words(lock, differ)!r}"
    print(f"{len(waited)} prompts waited for their log's oldest row")
    assert len(waited) >= 5, f"{waited}: too few prompts' logs began with a row not yet written to show the wait"


def _words(run, n: int) -> str:
    """The user message of the run's n-th call, from the recalled block on, for a failure's message."""
    call = LLMCall.objects.filter(run=run).order_by("id")[n]
    user = call.prompt[-1]["content"]
    at = user.find(RECALL_HEADER)
    return f"tick {call.tick}, {call.agent.persona.key}: " + (user[at:at + 300] if at >= 0 else "no rows recalled")
