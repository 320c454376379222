"""Out of order outside a test's transaction, as a batch run goes: the schedule writes each tick's
commit on a thread of its own while the agents go on (voyage/engine/ahead.py, `Stretch.__enter__`),
and does the memory jobs on another (memories.jobs.Behind). The other tests of the schedule run
inside a transaction, where both stay on the schedule's thread; here the threads are used, and the
run is still lock-step's: transcript, memory digest, calls, event numbering."""
import threading

import pytest

from memories import jobs
from tests.engine.test_ahead import _run, assert_same_run, go
from voyage.engine.runner import advance
from voyage.engine.writer import TickWriter

TICKS = 60  # Edelweiss's first hour: five dreams asked, at four ticks


@pytest.mark.django_db(transaction=True)
def test_commits_and_memory_jobs_on_threads_of_their_own_keep_the_lock_step_run(monkeypatch):
    where = {"write": set(), "jobs": set()}
    write, run_inline = TickWriter.write, jobs.run_inline

    def write_here(commit):
        where["write"].add(threading.current_thread().name.split("_")[0])
        return write(commit)

    def jobs_here(memory_jobs, gateway=None):
        where["jobs"].add(threading.current_thread().name.split("_")[0])
        return run_inline(memory_jobs, gateway)

    monkeypatch.setattr(TickWriter, "write", staticmethod(write_here))
    monkeypatch.setattr("voyage.engine.runner.run_inline", jobs_here)
    lock = advance(_run("edelweiss", 0, TICKS), TICKS, memory_inline=True)
    assert where == {"write": {"MainThread"}, "jobs": {"MainThread"}}  # lock-step: as before

    where["write"].clear(), where["jobs"].clear()
    ahead = go(_run("edelweiss", 3, TICKS), TICKS)
    assert "behind" in where["write"], "out of order, the commits were not written on a thread of their own"
    assert where["jobs"] == {"behind"}, "out of order, the memory jobs were not done on their thread"
    assert_same_run(ahead, lock)
