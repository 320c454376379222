"""What django-q2 stores by path keeps running after the code moved: a chunk queued, and a schedule
made, under the old layout's names (voyage.tasks.*) are taken off the broker and run by django-q2's
own worker loop on the new one (voyage/runs/tasks.py), and every path the code has ever stored
still names a function."""
from __future__ import annotations

import pydoc
import queue
from multiprocessing import Value

import pytest
from django_q.brokers import get_broker
from django_q.models import Schedule
from django_q.scheduler import scheduler
from django_q.signing import SignedPackage
from django_q.tasks import async_task
from django_q.worker import worker

from voyage.engine.runner import create_run
from voyage.models import Run
from voyage.runs import tasks
from voyage.studies import scheduler as studies_scheduler
from world.models import Scenario

pytestmark = pytest.mark.django_db

# Every function path the code has queued or scheduled, old layouts' included.
STORED_PATHS = ("voyage.tasks.run_chunk", "voyage.tasks.rescue_task", tasks.RUN_CHUNK, tasks.RESCUE_TASK,
                "voyage.studies.scheduler.pump", "memories.jobs.perform", "memories.attempts.rescue_task",
                "voyage.drafting.jobs.draft_task")


@pytest.mark.parametrize("path", STORED_PATHS)
def test_every_stored_path_names_a_function(path):
    assert callable(pydoc.locate(path))  # what django-q2's worker does with a task's func


def work_off_the_broker() -> list[dict]:
    """Dequeue what the broker holds and run it through django-q2's worker loop, in this process."""
    broker = get_broker()
    todo, done = queue.Queue(), queue.Queue()
    for ack_id, payload in broker.dequeue() or []:
        task = SignedPackage.loads(payload)
        task["sync"] = True  # keep this test's database connection (a worker process would close it)
        todo.put(task)
        broker.acknowledge(ack_id)
    todo.put("STOP")
    worker(todo, done, Value("f", -1), timeout=0)
    return [done.get() for _ in range(done.qsize())]


def test_a_chunk_queued_by_the_old_layout_runs_on_the_new_one(settings, queued):
    settings.VOYAGE_CHUNK_TICKS = 3
    run = create_run(Scenario.objects.get(slug="1912"), seed=7, target_ticks=6)
    Run.objects.filter(pk=run.pk).update(state=Run.QUEUED)
    async_task("voyage.tasks.run_chunk", run.pk, 0, cluster=tasks.tick_queue())  # as it was stored before
    [task] = [t for t in work_off_the_broker() if t["func"] == "voyage.tasks.run_chunk"]
    assert task["success"], task["result"]
    assert task["result"]["outcome"] == "chained"
    run.refresh_from_db()
    assert run.tick == 3
    assert (run.pk, 3) in queued  # the next chunk is queued under the new path (queue_chunk)


def test_a_schedule_made_by_the_old_layout_runs_and_is_pointed_at_the_new_path(monkeypatch):
    # keep this test's database connection (the cluster's scheduler process would close it)
    monkeypatch.setattr("django_q.scheduler.close_old_django_connections", lambda: None)
    Schedule.objects.create(name=tasks.RESCUE_SCHEDULE, func="voyage.tasks.rescue_task", schedule_type=Schedule.MINUTES,
                            minutes=1, repeats=-1)
    scheduler(get_broker())  # django-q2's scheduler: a due schedule becomes a queued task
    [task] = [t for t in work_off_the_broker() if t["func"] == "voyage.tasks.rescue_task"]
    assert task["success"], task["result"]
    tasks.ensure_rescue_schedule()  # what a tick worker does when it starts
    assert Schedule.objects.get(name=tasks.RESCUE_SCHEDULE).func == tasks.RESCUE_TASK


def test_a_chunk_of_either_layout_counts_as_a_chunk_for_the_studies():
    assert {"voyage.tasks.run_chunk", tasks.RUN_CHUNK} <= set(studies_scheduler.CHUNK_PATHS)
