"""Memory calls are recorded like every other call, failures included, and replay as they were
(issue 8, item 3): a run whose endpoint answers 500 to every other compaction call, replayed, makes
the same failures and writes the same summaries — none where the original had none."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from memories.models import MemorySummary
from voyage.bench.fake_openai_server import FakeOpenAI
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from tests.oracle import assert_same_transcript
from voyage.engine.runner import advance, transcript_sha256
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from voyage.models import LLMCall, ModelProfile, Run

pytestmark = pytest.mark.django_db

KEY_ENV = "VOYAGE_TEST_MEMORY_REPLAY_KEY"


def every_other_compaction():
    seen = []

    def fault_for(body):
        if "Summarise the memories below" not in body["messages"][0]["content"]:
            return None
        seen.append(1)
        return "server_error" if len(seen) % 2 else None

    return fault_for


def compaction_calls(run):
    return list(LLMCall.objects.filter(run=run, purpose="compaction").order_by("id")
                .values_list("tick", "agent__persona__key", "answered", "outcome", "raw_answer"))


def summaries(run):
    return list(MemorySummary.objects.filter(run=run).order_by("agent__persona__key", "first_row")
                .values_list("agent__persona__key", "level", "row_count", "tick", "text"))


def test_failed_compactions_replay_as_failures(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with FakeOpenAI(seed=3, fault_for=every_other_compaction()) as server:
        profile = ModelProfile.objects.create(name="fake", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                              model="fake-model", api_key_env=KEY_ENV, timeout_s=2, retries=0,
                                              concurrency=33)
        run = new_run(seed=5, schedule=Run.SIMULTANEOUS, target_ticks=12, profile=profile,
                      hot_memory_limit=10, compaction_memory_count=10)
        with jobs_inline():  # the compaction jobs run as they are queued, on the run's own gateway
            advance(run, 12, gateway=OpenAIGateway(GatewayConfig.from_profile(profile)))
        asked = len(server.records)
        original = compaction_calls(run)
        assert {(answered, outcome) for _, _, answered, outcome, _ in original} == {(False, "error"), (True, "ok")}
        assert 0 < len(summaries(run)) < len(original)

        out = io.StringIO()
        with jobs_inline():
            call_command("run_voyage", "--replay", str(run.pk), stdout=out, stderr=io.StringIO())
        replay = Run.objects.get(pk=json.loads(out.getvalue())["run_id"])
        assert len(server.records) == asked  # the replay asked the endpoint nothing

    assert compaction_calls(replay) == original
    assert summaries(replay) == summaries(run)


def test_a_memory_call_the_recording_lacks_fails_softly_and_the_replay_goes_on():
    """The recorded run's jobs may have run later, over more rows, making other calls than the replay's."""
    run = new_run(seed=8, target_ticks=12, hot_memory_limit=10, compaction_memory_count=10)
    advance(run, 12, memory_inline=True)
    LLMCall.objects.filter(run=run, purpose="compaction").delete()
    out = io.StringIO()
    call_command("run_voyage", "--replay", str(run.pk), stdout=out, stderr=io.StringIO())
    figures = json.loads(out.getvalue())
    assert figures["ticks"] == 12
    assert_same_transcript(Run.objects.get(pk=figures["run_id"]), run)
    assert figures["transcript_sha256"] == transcript_sha256(run)
    missing = LLMCall.objects.filter(run_id=figures["run_id"], purpose="compaction")
    assert missing.exists() and not missing.filter(answered=True).exists()
    assert all("recorded no such call" in error for error in missing.values_list("error", flat=True))
    assert not MemorySummary.objects.filter(run_id=figures["run_id"]).exists()
