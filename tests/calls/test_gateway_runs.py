"""Runs on the OpenAI-compatible gateway against a real local server: faults, the key, replay, budgets."""
import io
import json
import logging
import re
from collections import Counter, defaultdict

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from voyage.bench.fake_openai_server import TRANSPORT_FAULTS, FakeOpenAI, messages_digest
from tests.oracle import assert_same_transcript
from voyage.calls.usage import usage_totals
from voyage.engine.runner import advance, create_run, transcript_sha256
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from voyage.models import LLMCall, ModelProfile, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db

KEY_ENV = "VOYAGE_TEST_RUN_KEY"
KEY = "sk-voyage-leakcheck-4b8e1f0d2c"


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


@pytest.fixture
def server():
    with FakeOpenAI(fault_rate=0.2, seed=7, hang_s=0.8) as s:
        yield s


def profile_for(server, **extra) -> ModelProfile:
    fields = {"name": "fake", "kind": ModelProfile.OPENAI, "base_url": server.base_url, "model": "fake-model",
              "api_key_env": KEY_ENV, "timeout_s": 0.5, "retries": 3, "concurrency": 33, **extra}
    return ModelProfile.objects.create(**fields)


def run_on(server, ticks, schedule=Run.SIMULTANEOUS, **profile_extra) -> Run:
    profile = profile_for(server, **profile_extra)
    run = create_run(Scenario.objects.get(slug="1912"), seed=5, schedule=schedule, target_ticks=ticks,
                     profile=profile)
    gateway = OpenAIGateway(GatewayConfig.from_profile(profile), backoff_base_s=0.005, backoff_cap_s=0.02)
    return advance(run, ticks, gateway=gateway)


CLIENT_LOST = re.compile(r"^(\w+) call \(tick (\d+), ([^)]+)\) (?:attempt \d+ failed|gave up): "
                         r"(?:APITimeoutError|APIConnectionError)")


def client_lost(records) -> Counter:
    """Per call (purpose, tick, agent): the attempts whose answer the gateway's client never got (timed out, or
    the connection lost), from the gateway's own log. On a loaded machine a request can outlast the client's
    timeout without any fault injected, answered late by the server or not yet read by it at all."""
    return Counter(m.groups() for r in records if (m := CLIENT_LOST.match(r.getMessage())))


def assert_every_fault_shows(run, server, retries, log_records=()):
    """Each request the server saw belongs to a recorded call; each fault is a retry, an ACTION_FAIL or a skip.
    Beyond the faults injected, only an attempt the client logged as lost may be retried."""
    lost = client_lost(log_records)
    requests = defaultdict(list)
    for r in server.records:
        requests[r["digest"]].append(r["fault"])
    calls = list(LLMCall.objects.filter(run=run))
    grouped = defaultdict(list)
    for c in calls:
        grouped[messages_digest(c.prompt)].append(c)
    assert set(requests) <= set(grouped), "the server saw a request no call recorded"

    def slack(call, faults) -> int:  # client-side losses the injected faults do not explain
        who = call.agent.persona.key if call.agent_id else "-"
        return max(0, lost[(call.purpose, str(call.tick), who)] - faults.count("timeout") - faults.count("drop"))

    for digest, same in grouped.items():  # calls with one prompt (e.g. importance of a canned answer)
        seen_by_server = len(requests[digest])
        extra = sum(slack(c, requests[digest]) for c in same)
        assert seen_by_server <= sum(c.attempts for c in same) <= seen_by_server + extra, (same[0].purpose, same[0].tick)
    by_digest = {d: same[0] for d, same in grouped.items() if len(same) == 1}
    assert len(by_digest) > 0.9 * len(calls)
    seen = defaultdict(int)
    for digest, call in by_digest.items():
        faults = requests[digest]
        extra = slack(call, faults)
        assert len(faults) <= call.attempts <= len(faults) + extra, (call.purpose, call.tick, faults)
        # only a transport fault makes the gateway try again, or the client's own lost attempt
        assert all(f in TRANSPORT_FAULTS or f is None for f in faults[:-1]), (call.purpose, call.tick, faults)
        assert faults[:-1].count(None) <= extra, (call.purpose, call.tick, faults)
        last = faults[-1]
        if not call.answered:
            assert (last in TRANSPORT_FAULTS or extra) and call.attempts == retries + 1 and call.error
            if call.purpose == "action":
                assert call.outcome == LLMCall.ACTION_FAIL
            else:  # a logged, skipped step (memory purposes record it as an error with the reason)
                assert call.outcome in (LLMCall.SKIPPED, LLMCall.ERROR) and call.error
        elif last is not None and call.purpose == "action":  # a content fault: the action contract rejects it
            assert last not in TRANSPORT_FAULTS and call.outcome == LLMCall.ACTION_FAIL, (last, call.detail)
        elif last is not None:  # memory purposes read their answer tolerantly, or skip the step
            assert last not in TRANSPORT_FAULTS and call.outcome in (LLMCall.OK, LLMCall.SKIPPED, LLMCall.ERROR), (last, call.detail)
        for f in faults:
            if f:
                seen[f] += 1
    return seen


def test_a_run_under_a_20_percent_fault_rate_completes_with_every_fault_accounted_for(server, key, caplog):
    caplog.set_level(logging.INFO, logger="voyage.gateway")
    run = run_on(server, 60)  # a day's first hour; the scheduled reflections at 15, 30, 45 and 60 included
    assert run.tick == 60
    seen = assert_every_fault_shows(run, server, retries=3, log_records=caplog.records)
    faulty = sum(1 for r in server.records if r["fault"])
    assert 0.15 < faulty / len(server.records) < 0.25
    assert set(seen) == {"timeout", "rate_limit", "server_error", "drop", "garbage", "empty_choices",
                         "not_json", "missing_key", "extra_key", "wrong_type", "fenced"}
    calls = LLMCall.objects.filter(run=run)
    assert calls.filter(attempts__gt=1).exists() and calls.filter(outcome=LLMCall.ACTION_FAIL).exists()
    # every request carried what the profile says for its purpose: JSON mode where the answer is an
    # object (action, trust), reasoning off for actions and on for trust, as the profile's defaults say
    purpose_of = {messages_digest(c.prompt): c.purpose for c in calls}
    config = GatewayConfig.from_profile(run.profile)
    purposes = set()
    for r in server.records:
        body, purpose = r["body"], purpose_of[r["digest"]]
        purposes.add(purpose)
        assert ("response_format" in body) == (purpose in ("action", "trust")), purpose
        assert body["reasoning"] == {"enabled": config.reasoning_for(purpose)}, purpose
    assert {"action", "reflection", "trust"} <= purposes
    assert config.reasoning_for("trust") and not config.reasoning_for("action")
    assert calls.filter(purpose="reflection", outcome=LLMCall.OK).exists()
    # the engine turned each final content fault into an ACTION_FAIL memory for the agent
    from memories.models import Memory
    assert Memory.objects.filter(run=run, kind="action_fail").count() >= calls.filter(outcome=LLMCall.ACTION_FAIL).count()


def test_the_sequential_schedule_works_under_faults_too(server, key, caplog):
    caplog.set_level(logging.INFO, logger="voyage.gateway")
    run = run_on(server, 12, schedule=Run.SEQUENTIAL, retries=1)
    assert run.tick == 12
    assert_every_fault_shows(run, server, retries=1, log_records=caplog.records)
    assert LLMCall.objects.filter(run=run, answered=False, outcome=LLMCall.ACTION_FAIL).exists()


def test_the_api_key_never_leaks(server, key, caplog):
    server.fault_rate = 0.05  # some, for the error paths; the command's real backoff makes many slow
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="voyage")  # settings keep it at WARNING
    out = io.StringIO()
    call_command("run_voyage", "--ticks", "16", "--schedule", "simultaneous", "--base-url", server.base_url,
                 "--api-key-env", KEY_ENV, "--timeout", "0.3", "--concurrency", "8", stdout=out, stderr=io.StringIO())
    run = Run.objects.get(pk=json.loads(out.getvalue())["run_id"])
    assert run.tick == 16 and run.profile.api_key_env == KEY_ENV
    assert {r["authorization"] for r in server.records} == {f"Bearer {KEY}"}  # it was used, from the environment
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert KEY not in dump.getvalue() and KEY_ENV in dump.getvalue()
    for call in LLMCall.objects.filter(run=run):
        assert KEY not in json.dumps(call.prompt) + call.raw_answer + call.detail + call.error
    assert KEY not in caplog.text and KEY not in out.getvalue()
    names = {r.name.split(".")[0] for r in caplog.records}
    assert {"openai", "voyage"} <= names, names  # the SDK's debug log (request options, headers) was captured too


def test_replaying_a_recorded_run_gives_the_identical_transcript(server, key):
    recorded = run_on(server, 30, retries=1)  # faults included: failed calls replay as the same failures
    assert LLMCall.objects.filter(run=recorded, answered=False).exists()
    out = io.StringIO()
    call_command("run_voyage", "--replay", str(recorded.pk), stdout=out, stderr=io.StringIO())
    figures = json.loads(out.getvalue())
    replay = Run.objects.get(pk=figures["run_id"])
    assert replay.replay_of == recorded and replay.tick == 30 and replay.seed == recorded.seed
    assert replay.schedule == recorded.schedule and replay.profile is None
    assert_same_transcript(replay, recorded)
    assert figures["transcript_sha256"] == transcript_sha256(recorded)
    served = len(server.records)
    assert served == len(server.records)  # the replay asked the server nothing
    assert (list(LLMCall.objects.filter(run=replay).values_list("tick", "purpose", "raw_answer", "outcome", "detail"))
            == list(LLMCall.objects.filter(run=recorded).values_list("tick", "purpose", "raw_answer", "outcome", "detail")))


def test_replaying_an_offline_run_gives_the_identical_transcript():
    out = io.StringIO()
    call_command("run_voyage", "--ticks", "50", "--malformed-rate", "0.1", stdout=out, stderr=io.StringIO())
    original = json.loads(out.getvalue())
    out = io.StringIO()
    call_command("run_voyage", "--replay", str(original["run_id"]), stdout=out, stderr=io.StringIO())
    again = json.loads(out.getvalue())
    assert_same_transcript(Run.objects.get(pk=again["run_id"]), Run.objects.get(pk=original["run_id"]))
    assert again["transcript_sha256"] == original["transcript_sha256"]


def test_a_missing_recorded_answer_is_a_clear_error():
    out = io.StringIO()
    call_command("run_voyage", "--ticks", "5", stdout=out, stderr=io.StringIO())
    source = json.loads(out.getvalue())["run_id"]
    with pytest.raises(CommandError, match=r"no recorded 'action' answer .* at tick 5"):  # past the recording
        call_command("run_voyage", "--replay", str(source), "--ticks", "6", stdout=io.StringIO(), stderr=io.StringIO())
    victim = LLMCall.objects.filter(run_id=source, tick=3, purpose="action").select_related("agent__persona").first()
    who = victim.agent.persona.key
    victim.delete()
    with pytest.raises(CommandError, match=rf"replay of run {source}: no recorded 'action' answer for agent {who} at tick 3"):
        call_command("run_voyage", "--replay", str(source), stdout=io.StringIO(), stderr=io.StringIO())
    failed = Run.objects.filter(replay_of_id=source).first()
    assert failed.state == Run.FAILED and "ReplayMissing" in failed.error


def test_a_run_pauses_when_its_token_budget_is_reached_and_says_why(server, key):
    server.fault_rate = 0
    out, err = io.StringIO(), io.StringIO()
    call_command("run_voyage", "--ticks", "30", "--schedule", "simultaneous", "--base-url", server.base_url,
                 "--api-key-env", KEY_ENV, "--budget-tokens", "60000", stdout=out, stderr=err)
    figures = json.loads(out.getvalue())
    run = Run.objects.get(pk=figures["run_id"])
    assert run.state == Run.PAUSED and 0 < run.tick < 30
    assert run.pause_reason.startswith("token budget reached") and figures["paused"] == run.pause_reason
    assert figures["usage"]["tokens"] >= 60000
    # raising the budget lets it go on
    call_command("run_voyage", "--run", str(run.pk), "--budget-tokens", "10000000", stdout=io.StringIO(),
                 stderr=io.StringIO())
    run.refresh_from_db()
    assert run.tick == 30 and run.state == Run.FINISHED and run.pause_reason == ""


def test_a_cost_budget_uses_the_profile_prices(server, key):
    server.fault_rate = 0
    profile = profile_for(server, price_in_per_m=1000, price_out_per_m=1000)
    out = io.StringIO()
    call_command("run_voyage", "--ticks", "20", "--profile", profile.name, "--budget-cost", "0.5", stdout=out,
                 stderr=io.StringIO())
    run = Run.objects.get(pk=json.loads(out.getvalue())["run_id"])
    assert run.state == Run.PAUSED and run.pause_reason.startswith("cost budget reached")
    assert usage_totals(run)["run"]["cost"] >= 0.5


def test_usage_totals_per_run_agent_and_purpose_add_up(server, key):
    run = run_on(server, 20, price_in_per_m=2, price_out_per_m=8, reasoning={"reflection": True})
    totals = usage_totals(run)
    whole = totals["run"]
    assert totals["by_purpose"]["reflection"]["reasoning_tokens"] > 0  # reported by the endpoint, kept per call
    assert totals["by_purpose"]["action"]["reasoning_tokens"] == 0     # actions: reasoning off
    assert whole["calls"] == LLMCall.objects.filter(run=run).count() and whole["tokens"] > 0 and whole["cost"] > 0
    assert whole["retries"] > 0 and whole["cached_tokens"] > 0
    for part in ("by_agent", "by_purpose"):
        assert sum(t["calls"] for t in totals[part].values()) == whole["calls"]
        assert sum(t["tokens"] for t in totals[part].values()) == whole["tokens"]
        assert sum(t["cost"] for t in totals[part].values()) == pytest.approx(whole["cost"])
    assert set(totals["by_purpose"]) >= {"action", "reflection"} and len(totals["by_agent"]) == 33
    out = io.StringIO()
    call_command("usage", "--run", str(run.pk), stdout=out)
    assert json.loads(out.getvalue()) == json.loads(json.dumps(totals))


def test_model_options_are_checked():
    def run(*args):
        call_command("run_voyage", "--ticks", "1", *args, stdout=io.StringIO(), stderr=io.StringIO())

    with pytest.raises(CommandError, match="no model profile 'nope'"):
        run("--profile", "nope")
    with pytest.raises(CommandError, match="not both"):
        run("--profile", "x", "--base-url", "http://localhost:1/v1")
    with pytest.raises(CommandError, match="go with --base-url"):
        run("--model", "m")
    with pytest.raises(CommandError, match="not an http"):
        run("--base-url", "ftp://x")
    with pytest.raises(CommandError) as pasted:
        run("--base-url", "http://localhost:1/v1", "--api-key-env", "sk-or-v1-abcdef0123")
    assert "sk-or-v1-abcdef0123" not in str(pasted.value) and "NAME of an environment variable" in str(pasted.value)
    with pytest.raises(CommandError, match=r"\$VOYAGE_NOT_SET_ANYWHERE, which is not set"):
        run("--base-url", "http://localhost:1/v1", "--api-key-env", "VOYAGE_NOT_SET_ANYWHERE")
    with pytest.raises(CommandError, match="--replay takes every answer"):
        run("--replay", "1", "--base-url", "http://localhost:1/v1")
    with pytest.raises(CommandError, match="no run 99999 to replay"):
        run("--replay", "99999")
    with pytest.raises(CommandError, match="--budget-cost 'lots' is not a number"):
        run("--budget-cost", "lots")
