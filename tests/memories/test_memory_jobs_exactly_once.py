"""Exactly once, visibly: a memory job's results and the removal of its pending row are one
transaction; a second delivery of a done job does nothing; an attempt killed part-way leaves its
calls kept but abandoned (usage shows them apart, replay never uses them) and no results, and the
rescue hands the job out again at once, which then writes exactly what an uninterrupted run writes."""
import os
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from memories import attempts, job_queue, jobs
from memories.digest import memory_tables
from memories.models import MemorySummary, PendingMemoryJob
from voyage.calls.usage import run_totals, usage_totals
from voyage.engine.runner import advance, create_run
from voyage.gateway.offline import OfflineModel
from voyage.models import LLMCall
from world.models import Scenario

pytestmark = pytest.mark.django_db

TICKS = 60
PARAMS = dict(seed=5, target_ticks=TICKS, hot_memory_limit=10, compaction_memory_count=20)


class Killed(Exception):
    """The process died here."""


class DiesAtEra(OfflineModel):
    """The run's offline model, until a compaction asks for an era: then the process 'dies' (a
    SIGKILL mid-job), its summary's call made, the era's not."""

    def complete(self, request):
        if request.purpose == "era":
            raise Killed
        return super().complete(request)


def _run():
    return create_run(Scenario.objects.get(slug="edelweiss"), **PARAMS)


@pytest.fixture
def delivered(monkeypatch):
    """What was handed to the memory cluster, in order (nothing runs it until a test does)."""
    handed = []
    monkeypatch.setattr(job_queue, "async_task", lambda func, job, name, *args, **kw: handed.append(name))
    return handed


def _reaped() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _claim_of(pid: int) -> str:
    import socket

    return f"{socket.gethostname()[:60]}:{pid}"


def rescued_as_if_never_killed(run, killed_job, reference, delivered) -> None:
    """The worker that held `killed_job` is gone: the memory cluster's rescue hands it out again at
    once, and with the run's other jobs done the run remembers, and kept the calls, of `reference`."""
    PendingMemoryJob.objects.filter(pk=killed_job.pk).update(claimed_by=_claim_of(_reaped()))
    delivered.clear()
    attempts.rescue(at_start=True)
    assert killed_job.name in delivered
    for name in list(delivered) + [n for n in PendingMemoryJob.objects.filter(run=run).values_list("name", flat=True)]:
        jobs.perform("", name)
    assert jobs.pending(run.pk) == 0
    assert memory_tables(run) == memory_tables(reference)
    kept = LLMCall.objects.filter(run=run, abandoned=False)
    assert sorted(kept.values_list("purpose", "tick", "raw_answer")) == \
        sorted(LLMCall.objects.filter(run=reference).values_list("purpose", "tick", "raw_answer"))


def test_a_second_delivery_of_a_done_job_is_a_no_op(delivered):
    run = _run()
    advance(run, TICKS)
    name = next(n for n in delivered if n.startswith("compact_agent"))
    jobs.perform("compact_agent", name)
    assert not PendingMemoryJob.objects.filter(name=name).exists()
    summaries, calls = MemorySummary.objects.filter(run=run).count(), LLMCall.objects.filter(run=run).count()
    assert summaries > 0
    assert jobs.perform("compact_agent", name) is None
    assert (MemorySummary.objects.filter(run=run).count(), LLMCall.objects.filter(run=run).count()) == (summaries, calls)


def test_a_killed_attempt_leaves_abandoned_calls_and_the_rescued_job_writes_what_an_uninterrupted_run_does(delivered):
    reference = _run()
    advance(reference, TICKS, memory_inline=True)

    run = _run()
    advance(run, TICKS)
    for first in PendingMemoryJob.objects.filter(run=run, job="compact_agent").order_by("id"):
        summaries = MemorySummary.objects.filter(run=run).count()
        try:  # the jobs in order, until one gets as far as an era: then the process dies
            attempts.perform_on(first.name, gateway=DiesAtEra(seed=run.seed))
        except Killed:
            break
    else:
        pytest.fail("no compaction reached an era: the scenario is too short")
    first.refresh_from_db()
    assert first.claimed_by and MemorySummary.objects.filter(run=run).count() == summaries  # nothing half-written
    # the summaries' calls the job made before it died (one per batch of rows), none of them kept
    killed_calls = list(LLMCall.objects.filter(run=run, abandoned=True).order_by("pk"))
    assert killed_calls and {c.purpose for c in killed_calls} == {"compaction"}
    assert run_totals(run)["abandoned_calls"] == len(killed_calls)
    assert usage_totals(run)["abandoned_by_purpose"]["compaction"]["calls"] == len(killed_calls)

    rescued_as_if_never_killed(run, first, reference, delivered)
    assert list(LLMCall.objects.filter(run=run, abandoned=True).order_by("pk").values_list("pk", flat=True)) == \
        [c.pk for c in killed_calls]


def test_rescue_hands_out_again_only_what_no_live_process_holds(delivered):
    run = _run()
    advance(run, 30)
    PendingMemoryJob.objects.all().delete()  # the rescue looks at every run's jobs: only this test's rows
    delivered.clear()
    now = timezone.now()
    live = _claim_of(os.getppid())  # our parent: alive
    rows = {
        "held": dict(claimed_by=live, lease_until=now + timedelta(seconds=60), queued_at=now - timedelta(minutes=5)),
        "lease-ran-out": dict(claimed_by=live, lease_until=now - timedelta(seconds=1), queued_at=now),
        "claimant-dead": dict(claimed_by=_claim_of(_reaped()), lease_until=now + timedelta(seconds=60), queued_at=now),
        "never-begun": dict(queued=True, queued_at=now - timedelta(minutes=2)),
        "just-queued": dict(queued=True, queued_at=now),
    }
    for name, fields in rows.items():
        PendingMemoryJob.objects.create(run=run, name=name, job="dreams", tick=0, inputs={"sleepers": []},
                                        **fields)
        PendingMemoryJob.objects.filter(name=name).update(**fields)  # queued_at is auto_now_add on create
    assert sorted(attempts.rescue()) == ["claimant-dead", "lease-ran-out", "never-begun"]
    assert sorted(delivered) == ["claimant-dead", "lease-ran-out", "never-begun"]
    assert attempts.rescue() == []  # handed out once, not at every look
    assert PendingMemoryJob.objects.get(name="held").claimed_by == live


class Dies(Exception):
    """The process died here (a model behind a real HTTP server)."""


@pytest.fixture
def model_server():
    from voyage.bench.fake_openai_server import FakeOpenAI

    with FakeOpenAI(lognormal=(3, 0.5)) as server:  # answers and latencies seeded by each request
        yield server


def test_with_a_model_server_a_killed_attempts_calls_are_abandoned_and_the_rescue_writes_what_an_uninterrupted_run_does(
        delivered, model_server):
    """The same as above with a local OpenAI-protocol server standing in for the model: the killed
    attempt's summary call reached the server and is kept, abandoned; the rescued job asks again and
    the run remembers what a run never interrupted remembers, call for call."""
    from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
    from voyage.models import ModelProfile

    profile = ModelProfile.objects.create(name="local", kind=ModelProfile.OPENAI, base_url=model_server.base_url,
                                          model="fake", timeout_s=10, retries=0, concurrency=8)

    class DiesAtEraOverHttp(OpenAIGateway):
        def complete(self, request):
            if request.purpose == "era":
                raise Dies
            return super().complete(request)

    reference = create_run(Scenario.objects.get(slug="edelweiss"), profile=profile, **PARAMS)
    advance(reference, TICKS, memory_inline=True)
    run = create_run(Scenario.objects.get(slug="edelweiss"), profile=profile, **PARAMS)
    advance(run, TICKS)
    served = len(model_server.records)
    dying = DiesAtEraOverHttp(GatewayConfig.from_profile(profile))
    try:
        for first in PendingMemoryJob.objects.filter(run=run, job="compact_agent").order_by("id"):
            try:
                attempts.perform_on(first.name, gateway=dying)
            except Dies:
                break
        else:
            pytest.fail("no compaction reached an era: the scenario is too short")
    finally:
        dying.close()
    assert len(model_server.records) > served  # the killed attempt's call went out and was paid for
    killed_calls = list(LLMCall.objects.filter(run=run, abandoned=True))
    assert killed_calls and {c.purpose for c in killed_calls} == {"compaction"}
    assert run_totals(run)["abandoned_calls"] == len(killed_calls)

    rescued_as_if_never_killed(run, first, reference, delivered)
