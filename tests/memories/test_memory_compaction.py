"""Compaction on a real database: the soft thresholds queue a job on the worker (the real ORM broker
once), the hard threshold compacts before the call, summaries cover exactly the rows they claim,
raw rows are never deleted, and the oldest summaries fold into eras, recursively."""
import pytest
from django_q.brokers import get_broker
from django_q.models import OrmQ
from django_q.tasks import _sync as run_package

from memories.compaction import check_before_action, compact, fold_eras
from memories.identity import identity_text
from memories.models import Memory, MemorySummary, PendingMemoryJob
from memories.thresholds import HARD, SOFT, SUMMARY_BUDGET_COUNT
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline, plant, world_and_writer
from voyage.engine.runner import advance
from voyage.gateway.offline import OfflineModel
from voyage.models import LLMCall

pytestmark = pytest.mark.django_db


def _agent_with_rows(run, older: int, older_text: str = "a quiet moment on deck", hot_text: str = "hot"):
    agent = run.agents.order_by("id").first()
    plant(run, agent.id, [older_text] * older)
    plant(run, agent.id, [hot_text] * run.hot_memory_limit, tick=1)
    return agent


def test_199_older_rows_queue_nothing_and_200_queue_a_job_on_the_orm_broker():
    OrmQ.objects.filter(key="memory").delete()  # other runs' queued jobs (rolled back after the test)
    run = new_run()
    agent = _agent_with_rows(run, 199)
    world, w = world_and_writer(run)
    gateway = OfflineModel(seed=1)
    assert check_before_action(world, w, world.agents[agent.id], gateway) is None
    assert w.memory_jobs == []

    plant(run, agent.id, ["one more"], tick=1)
    world, w = world_and_writer(run)
    with jobs_inline(False):
        assert check_before_action(world, w, world.agents[agent.id], gateway) == SOFT
        assert len(w.memory_jobs) == 1 and not MemorySummary.objects.filter(run=run).exists()  # no wait
        w.commit(run.tick + 1)  # the job is queued once the tick has committed
    broker = get_broker("memory")
    assert broker.queue_size() == 1
    [(receipt, package)] = broker.dequeue()
    with jobs_inline():  # sync keeps the test's connection open while the worker code runs it
        run_package(package)  # what a worker of the "memory" cluster does with the package
    broker.acknowledge(receipt)
    [summary] = MemorySummary.objects.filter(agent_id=agent.id)
    assert summary.level == 0 and summary.row_count == 200
    ids = list(Memory.objects.filter(agent_id=agent.id).order_by("id").values_list("id", flat=True))
    assert (summary.first_row, summary.last_row) == (ids[0], ids[199])  # the newest 50 (hot) stay out
    assert Memory.objects.filter(agent_id=agent.id).count() == 200 + run.hot_memory_limit  # nothing deleted


def test_a_job_whose_process_died_before_queueing_it_is_queued_when_the_run_goes_on():
    """The worker's way: a tick commits, its process dies before the job reaches the broker. The
    job's row, written with the tick, waits unqueued; the run's next chunk (advance) queues it."""
    OrmQ.objects.filter(key="memory").delete()
    run = new_run()
    agent = _agent_with_rows(run, 200)
    world, w = world_and_writer(run)
    with jobs_inline(False):
        assert check_before_action(world, w, world.agents[agent.id], OfflineModel(seed=1)) == SOFT

        def dies(jobs):
            raise SystemExit
        with pytest.raises(SystemExit):
            w.commit(run.tick + 1, dies)
        [row] = PendingMemoryJob.objects.filter(run=run)
        assert (row.job, row.queued) == ("compact_agent", False) and get_broker("memory").queue_size() == 0

        advance(run, run.tick)  # no tick to run: only what the dead process left
    row.refresh_from_db()
    assert row.queued and get_broker("memory").queue_size() == 1
    [(receipt, package)] = get_broker("memory").dequeue()
    with jobs_inline():
        run_package(package)
    assert MemorySummary.objects.filter(agent_id=agent.id).count() == 1
    assert not PendingMemoryJob.objects.filter(run=run).exists()


def test_characters_reach_the_soft_threshold_exactly():
    run = new_run(compaction_soft_chars=1_000, compaction_hard_chars=5_000)
    agent = run.agents.order_by("id").first()
    plant(run, agent.id, ["x" * 999])
    plant(run, agent.id, ["h"] * run.hot_memory_limit, tick=1)
    world, w = world_and_writer(run)
    assert check_before_action(world, w, world.agents[agent.id], OfflineModel(seed=1)) is None
    plant(run, agent.id, ["y"], tick=1)  # one more character leaves the hot window
    world, w = world_and_writer(run)
    assert check_before_action(world, w, world.agents[agent.id], OfflineModel(seed=1)) == SOFT


def test_the_hard_threshold_compacts_before_the_call():
    run = new_run(compaction_soft_chars=1_000, compaction_hard_chars=5_000, compaction_memory_count=10_000)
    agent = run.agents.order_by("id").first()
    plant(run, agent.id, ["z" * 4_999])
    plant(run, agent.id, ["h"] * run.hot_memory_limit, tick=1)
    world, w = world_and_writer(run)
    a = world.agents[agent.id]
    assert check_before_action(world, w, a, OfflineModel(seed=1)) == SOFT  # 4,999: only queued
    plant(run, agent.id, ["!"], tick=1)
    world, w = world_and_writer(run)
    a = world.agents[agent.id]
    assert check_before_action(world, w, a, OfflineModel(seed=1)) == HARD
    summary = MemorySummary.objects.get(agent_id=agent.id)  # written (committed) before returning
    assert summary.row_count == 2
    assert world.memory.load[a.id].older(len(world.hot[a.id]), sum(len(h.text) for h in world.hot[a.id])) == (0, 0)
    assert summary.shown_from == w.tick
    assert [s.text for s in world.memory.summaries_at(a.id, w.tick)] == [summary.text]  # the call about to be made sees it


def test_in_a_run_the_hard_path_puts_the_summary_into_that_very_action_prompt():
    run = new_run(compaction_soft_chars=10**8, compaction_memory_count=10**6, compaction_hard_chars=4_000,
                  target_ticks=40)
    advance(run, 40)
    first = MemorySummary.objects.filter(run=run).order_by("id").first()
    assert first is not None
    made_at = LLMCall.objects.get(run=run, purpose="compaction", agent_id=first.agent_id, tick=first_tick(first))
    action = LLMCall.objects.filter(run=run, purpose="action", agent_id=first.agent_id, tick=made_at.tick).get()
    assert action.id > made_at.id and first.text in action.prompt[0]["content"]


def first_tick(summary):
    return LLMCall.objects.filter(agent_id=summary.agent_id, purpose="compaction").order_by("id").first().tick


def test_summaries_cover_exactly_their_rows_and_fold_into_eras_recursively():
    run = new_run(compaction_memory_count=20)
    agent = run.agents.order_by("id").first()
    gateway = OfflineModel(seed=3)
    for round_ in range(12):
        plant(run, agent.id, [f"round {round_} moment {i}" for i in range(30)], tick=round_)
        compact(agent.id, gateway=gateway, tick=round_)
    level0 = list(MemorySummary.objects.filter(agent_id=agent.id, level=0).order_by("first_row"))
    for s in level0:
        assert Memory.objects.filter(agent_id=agent.id, id__range=(s.first_row, s.last_row)).count() == s.row_count
    for before, after in zip(level0, level0[1:]):  # contiguous, no overlap
        assert Memory.objects.filter(agent_id=agent.id, id__gt=before.last_row, id__lt=after.first_row).count() == 0
    eras = MemorySummary.objects.filter(agent_id=agent.id, level__gt=0)
    assert eras.exists() and eras.filter(level__gte=2).exists()  # eras fold into higher eras
    for era in eras:
        folded = list(era.folded.all())
        assert len(folded) >= 2 and sum(s.row_count for s in folded) == era.row_count
        assert min(s.first_row for s in folded) == era.first_row and max(s.last_row for s in folded) == era.last_row
    active = MemorySummary.objects.filter(agent_id=agent.id, folded_into__isnull=True).order_by("first_row")
    assert 0 < active.count() <= SUMMARY_BUDGET_COUNT
    assert active.first().first_row == level0[0].first_row  # the whole past is still covered
    assert Memory.objects.filter(agent_id=agent.id).count() == 12 * 30  # raw rows untouched


def test_fold_eras_does_nothing_within_budget():
    run = new_run()
    agent = run.agents.select_related("persona", "run__scenario").order_by("id").first()
    plant(run, agent.id, ["a"] * 3)
    MemorySummary.objects.create(run=run, agent=agent, level=0, first_row=1, last_row=3, row_count=3, tick=0, text="s")
    assert fold_eras(agent, OfflineModel(seed=1), identity_text(agent)) == []


def test_compaction_jobs_run_through_the_worker_path_when_sync():
    run = new_run(compaction_memory_count=40, target_ticks=60)
    with jobs_inline():
        advance(run, 60)
    assert MemorySummary.objects.filter(run=run).count() >= 20
    assert LLMCall.objects.filter(run=run, purpose="compaction", outcome="ok").count() == \
        MemorySummary.objects.filter(run=run, level=0).count()


def test_a_broker_that_refuses_a_job_does_not_fail_the_committed_tick(monkeypatch):
    import memories.job_queue

    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(memories.job_queue, "async_task", refuse)
    run = new_run()
    agent = _agent_with_rows(run, 200)
    world, w = world_and_writer(run)
    assert check_before_action(world, w, world.agents[agent.id], OfflineModel(seed=1)) == SOFT
    w.commit(run.tick + 1)
    run.refresh_from_db()
    assert run.tick == 1 and not MemorySummary.objects.filter(run=run).exists()
