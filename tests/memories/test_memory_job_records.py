"""Memory jobs as named records (memories/job_records.py): each kind round-trips through its pending
row by key, with its tick and agent as columns; rows queued in the shapes stored before records
(lists read by position) are rewritten by migration 0012 and still do their job."""
from __future__ import annotations

import importlib

import pytest

from memories import jobs
from memories.job_records import Compaction, Dreams, Sleeper, record, unfinished
from memories.models import Dream, MemorySummary, PendingMemoryJob
from tests.engine_helpers import new_run
from tests.memory_helpers import plant

pytestmark = pytest.mark.django_db
MIGRATION = importlib.import_module("memories.migrations.0012_pending_jobs_as_records")


def _sleeper_with_rows(run, n: int = 40):
    agent = run.agents.order_by("id").first()
    return agent, plant(run, agent.id, ["a long night on deck"] * n)


def test_each_kind_round_trips_through_its_record_and_the_database():
    run = new_run()
    first, second = run.agents.order_by("id")[:2]
    compaction = Compaction(run.pk, first.id, 12, below_row=345, rung=1)
    dreams = Dreams(run.pk, 14, (Sleeper(first.id, 13, 350, 2, (("Ada", "trusted", 0.5),)), Sleeper(second.id, 12)))
    record([compaction, dreams])
    assert unfinished(run.pk) == [compaction, dreams]
    rows = {r.job: r for r in PendingMemoryJob.objects.filter(run=run)}
    assert (rows["compact_agent"].tick, rows["compact_agent"].agent_id, rows["compact_agent"].inputs) == (
        12, first.id, {"below_row": 345, "rung": 1})
    assert (rows["dreams"].tick, rows["dreams"].agent_id) == (14, None)
    assert rows["dreams"].inputs["sleepers"][0] == {"agent_id": first.id, "slept_since": 13, "upto_row": 350,
                                                    "rung": 2, "people": [["Ada", "trusted", 0.5]]}
    assert [r.name for r in rows.values()] == [f"compact_agent-{run.pk}-{first.id}-12", f"dreams-{run.pk}-14"]


def test_a_kind_nobody_registered_is_named():
    from memories.job_records import doer

    class Unknown(Compaction):
        KIND = "unknown"

    with pytest.raises(LookupError, match="no module does memory jobs of kind 'unknown'"):
        doer(Unknown(1, 2, 3))


def _old_row(run, name: str, job: str, args: list) -> str:
    """A row as a process before records stored it, rewritten as migration 0012 rewrites it."""
    agent_id, inputs = MIGRATION.keyed(job, args)
    PendingMemoryJob.objects.create(run=run, name=name, job=job, tick=MIGRATION.tick_in(name), agent_id=agent_id,
                                    inputs=inputs)
    return name


@pytest.mark.parametrize("fixed", [False, True], ids=["as asked", "with its inputs fixed at commit"])
def test_an_old_compaction_row_still_does_its_job(fixed):
    run = new_run()
    agent, rows = _sleeper_with_rows(run, 60)
    plant(run, agent.id, ["hot"] * run.hot_memory_limit, tick=1)
    args = [run.pk, agent.id, 1] + ([rows[-1].id + 1, 1] if fixed else [])
    name = _old_row(run, f"compact_agent-{run.pk}-{agent.id}-1", "compact_agent", args)
    assert unfinished(run.pk) == [Compaction(run.pk, agent.id, 1, *(args[3:] or [None, None]))]
    jobs.perform("compact_agent", name, *args)  # the task as it was queued then: the row holds the truth
    assert not PendingMemoryJob.objects.filter(name=name).exists()
    assert MemorySummary.objects.filter(agent=agent, level=0).exists()


@pytest.mark.parametrize("fixed", [False, True], ids=["two-item sleepers", "five-item sleepers"])
def test_an_old_dreams_row_still_does_its_job(fixed):
    run = new_run()
    agent, rows = _sleeper_with_rows(run)
    sleeper = [agent.id, 0] + ([rows[-1].id, 1, [["Ada", "trusted", 0.5]]] if fixed else [])
    name = _old_row(run, f"dreams-{run.pk}-2", "dreams", [run.pk, [sleeper]])
    [job] = unfinished(run.pk)
    assert job.tick == 2 and job.sleepers[0].agent_id == agent.id and job.sleepers[0].slept_since == 0
    assert job.sleepers[0].people == ((("Ada", "trusted", 0.5),) if fixed else None)
    jobs.perform("dreams", name, run.pk, [sleeper])
    assert not PendingMemoryJob.objects.filter(name=name).exists()
    assert Dream.objects.filter(agent=agent, tick=0).exists()


def test_the_migration_goes_back_to_the_old_shapes():
    assert MIGRATION.positional("compact_agent", 1, 7, 3, {"below_row": 40, "rung": 0}) == [1, 3, 7, 40, 0]
    sleepers = MIGRATION.keyed("dreams", [1, [[3, 6, 90, 1, [["Ada", "trusted", 0.5]]]]])[1]
    assert MIGRATION.positional("dreams", 1, 7, None, sleepers) == [1, [[3, 6, 90, 1, [["Ada", "trusted", 0.5]]]]]
    assert MIGRATION.tick_in("compact_agent-1-3-17") == 17 and MIGRATION.tick_in("held") is None
