"""A run on several model profiles: call groups and listed agents routed to their own profiles
(voyage/gateway/routes.py, routing.py). Two local OpenAI-protocol servers stand in for two models;
where each call went is checked from each server's own request log."""
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from voyage.bench.fake_openai_server import FakeOpenAI, messages_digest
from voyage.calls.usage import run_totals, usage_by_profile
from tests.oracle import assert_same_transcript
from voyage.engine.runner import advance
from voyage.gateway.routes import group_of, parse_routes, profile_for, route_problems, written
from voyage.instruments.interviews import ask
from voyage.models import LLMCall, ModelProfile, Run
from voyage.runs.config import configure_run, replay_run

CAST = ["alistair_pym", "ambrose_kellaway", "anna_sjoblom"]


# --- the routes, pure ----------------------------------------------------------------------------
def test_each_purpose_has_its_group_and_an_agents_own_route_wins_for_its_actions():
    routes = {"memory": "strong", "instruments": "asker", "agent:ann": "solo"}
    assert [group_of(p) for p in ("action", "compaction", "trust", "bulletin", "interview", "survey")] == \
        ["actions", "memory", "memory", "memory", "instruments", "instruments"]
    assert profile_for(routes, "action", "bob") is None  # the main profile
    assert profile_for(routes, "action", "ann") == "solo"
    assert profile_for(routes, "reflection", "ann") == "strong"  # an agent's route is for its actions only
    assert profile_for(routes, "interview", "ann") == "asker"
    assert profile_for({"actions": "cheap", "agent:ann": "solo"}, "action", "bob") == "cheap"


def test_bad_routes_are_named():
    assert "'thinking' is not a call group" in route_problems({"thinking": "x"})[0]
    assert "no agent 'zed'" in route_problems({"agent:zed": "x"}, agent_keys={"ann"})[0]
    assert "no model profile 'ghost'" in route_problems({"memory": "ghost"}, profile_names={"real"})[0]
    assert route_problems(["memory"])  # not a mapping
    assert parse_routes("memory=strong; agent:ann=solo") == {"memory": "strong", "agent:ann": "solo"}
    assert parse_routes("none") == {} and written({"memory": "a", "actions": "b"}) == "actions=b;memory=a"
    with pytest.raises(ValueError, match="GROUP=PROFILE"):
        parse_routes("memory")


# --- two models, one run -------------------------------------------------------------------------
@pytest.fixture
def servers():
    with FakeOpenAI() as cheap, FakeOpenAI() as strong:
        yield cheap, strong


@pytest.fixture
def profiles(servers):
    cheap, strong = servers
    common = {"kind": ModelProfile.OPENAI, "model": "fake", "timeout_s": 5, "retries": 0, "concurrency": 8}
    return (ModelProfile.objects.create(name="cheap", base_url=cheap.base_url, price_in_per_m=1, **common),
            ModelProfile.objects.create(name="strong", base_url=strong.base_url, price_in_per_m=10, **common))


ROUTES = {"memory": "strong", "instruments": "strong", "agent:anna_sjoblom": "strong"}


def expected(call: LLMCall) -> str:
    key = call.agent.persona.key if call.agent_id else None
    return "strong" if (call.purpose != "action" or key == "anna_sjoblom") else "cheap"


@pytest.mark.django_db
def test_every_call_goes_to_the_profile_its_group_or_agent_names(servers, profiles, tmp_path):
    cheap_server, strong_server = servers
    run = configure_run("1912", cast=CAST, profile="cheap", ticks=6, profile_routes=ROUTES,
                        schedule=Run.SIMULTANEOUS, reflection_ticks=[2, 4], reflection_cooldown=1)
    advance(run, 6, memory_inline=True)
    ask(run, run.agents.get(persona__key="alistair_pym"), "What do you make of the ship?")
    calls = list(LLMCall.objects.filter(run=run).select_related("agent__persona"))
    purposes = {c.purpose for c in calls}
    assert {"action", "reflection", "interview"} <= purposes, purposes
    served = {"cheap": [r["digest"] for r in cheap_server.records], "strong": [r["digest"] for r in strong_server.records]}
    for call in calls:
        want = expected(call)
        assert call.profile == want, (call.purpose, call.agent_id, call.profile)
        assert messages_digest(call.prompt) in served[want], f"{call.purpose} call {call.pk} did not reach {want}"
    # each server saw exactly the calls routed to it: no more, no fewer
    assert len(served["cheap"]) == sum(expected(c) == "cheap" for c in calls) > 0
    assert len(served["strong"]) == sum(expected(c) == "strong" for c in calls) > 0
    # usage by profile adds up to the run's usage
    by = usage_by_profile(run)
    total = run_totals(run)
    assert set(by) == {"cheap", "strong"}
    for figure in ("calls", "tokens", "prompt_tokens", "completion_tokens"):
        assert sum(u[figure] for u in by.values()) == total[figure]
    assert round(sum(u["cost"] for u in by.values()), 6) == round(total["cost"], 6) > 0

    # replay and fork keep the mapping; the replay's calls keep the profile each was answered by
    replay = replay_run(Run.objects.get(pk=run.pk))
    assert replay.profile_routes == ROUTES
    advance(replay, 6)
    assert_same_transcript(replay, run)
    recorded = list(LLMCall.objects.filter(run=run).exclude(purpose="interview").order_by("id")
                    .values_list("tick", "purpose", "profile"))
    assert list(LLMCall.objects.filter(run=replay).order_by("id").values_list("tick", "purpose", "profile")) == recorded
    from voyage.runs.fork import fork

    forked = fork(Run.objects.get(pk=run.pk), 3)
    assert forked.profile_routes == ROUTES

    # an exported fixture keeps the mapping, and each call's profile
    import gzip

    Run.objects.filter(pk=run.pk).update(state=Run.PAUSED)
    call_command("export_run", str(run.pk), "-o", str(tmp_path / "run.jsonl.gz"), stdout=io.StringIO())
    with gzip.open(tmp_path / "run.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    [run_row] = [r for r in rows if r["model"] == "voyage.run"]
    assert run_row["fields"]["profile_routes"] == ROUTES
    exported = sorted(r["fields"]["profile"] for r in rows if r["model"] == "voyage.llmcall")
    assert exported == sorted(c.profile for c in calls)


@pytest.mark.django_db
def test_routes_are_checked_when_a_run_is_configured(profiles):
    runs = Run.objects.count()  # a session's shared runs may be there
    with pytest.raises(ValidationError) as caught:
        configure_run("1912", cast=CAST, profile="cheap", ticks=2, profile_routes={"memory": "ghost", "agent:zed": "strong"})
    message = " ".join(caught.value.message_dict["profile_routes"])
    assert "no model profile 'ghost'" in message and "no agent 'zed'" in message
    assert Run.objects.count() == runs


@pytest.mark.django_db
def test_run_voyage_takes_profile_for_and_reports_usage_by_profile(servers, profiles):
    out = io.StringIO()
    call_command("run_voyage", "--ticks", "2", "--profile", "cheap", "--profile-for", "agent:alistair_pym=strong",
                 "--profile-for", "memory=strong", stdout=out, stderr=io.StringIO())
    line = json.loads(out.getvalue())
    run = Run.objects.get(pk=line["run_id"])
    assert run.profile_routes == {"agent:alistair_pym": "strong", "memory": "strong"}
    assert set(line["usage_by_profile"]) == {"cheap", "strong"}
    assert sum(u["calls"] for u in line["usage_by_profile"].values()) == LLMCall.objects.filter(run=run).count()
    assert LLMCall.objects.filter(run=run, agent__persona__key="alistair_pym", purpose="action").exclude(profile="strong").count() == 0
    for bad, says in ((["--profile-for", "memory"], "GROUP=PROFILE"), (["--profile-for", "memory=ghost"], "ghost"),
                      (["--profile-for", "agent:nobody=strong"], "no agent 'nobody'"),
                      (["--replay", str(run.pk), "--profile-for", "memory=strong"], "--replay")):
        with pytest.raises(CommandError, match=says):
            call_command("run_voyage", "--ticks", "1", *bad, stdout=io.StringIO(), stderr=io.StringIO())


@pytest.mark.django_db
def test_a_study_varies_the_routes_and_the_main_profile(profiles):
    from voyage.studies.config import StudyError, StudyPlan, create_study
    from voyage.studies.models import StudyRun

    study = create_study(StudyPlan(name="mixed society", scenario="1912", target_ticks=2, axes={
        "profile": ["cheap", "strong"], "profile_routes": ["none", "memory=strong;agent:alistair_pym=strong"]}))
    made = [(m.run.profile.name, m.run.profile_routes) for m in StudyRun.objects.filter(study=study).order_by("position")]
    mixed = {"memory": "strong", "agent:alistair_pym": "strong"}
    assert made == [("cheap", {}), ("cheap", mixed), ("strong", {}), ("strong", mixed)]
    with pytest.raises(StudyError, match="ghost"):
        create_study(StudyPlan(name="bad", scenario="1912", target_ticks=2,
                               axes={"profile_routes": ["memory=ghost"]}))


@pytest.mark.django_db
def test_the_api_takes_and_shows_the_routes(profiles):
    from django.test import Client

    from tests.api_helpers import staff_with_token

    client = Client(headers={"X-API-Key": staff_with_token()[1]})
    bad = client.post("/api/runs", {"scenario": "1912", "profile": "cheap", "parameters": {
        "profile_routes": {"memory": "ghost"}}}, content_type="application/json")
    assert bad.status_code == 422
    assert any(d["loc"][-1] == "profile_routes" and "ghost" in d["msg"] for d in bad.json()["detail"])
    made = client.post("/api/runs", {"scenario": "1912", "ticks": 2, "profile": "cheap", "parameters": {
        "profile_routes": {"memory": "strong", "agent:alistair_pym": "strong"}}}, content_type="application/json")
    assert made.status_code == 201, made.json()
    assert made.json()["parameters"]["profile_routes"] == {"memory": "strong", "agent:alistair_pym": "strong"}
    assert Run.objects.get(pk=made.json()["id"]).profile_routes["memory"] == "strong"


@pytest.mark.django_db
def test_the_routes_of_a_run_not_yet_started_may_change_and_are_checked(profiles):
    from voyage.runs.config import update_run_params

    run = configure_run("1912", cast=CAST, profile="cheap", ticks=2)
    with pytest.raises(ValidationError, match="no agent 'zed'"):
        update_run_params(run, profile_routes={"agent:zed": "strong"})
    assert update_run_params(run, profile_routes={"memory": "strong"}).profile_routes == {"memory": "strong"}
    assert Run.objects.get(pk=run.pk).profile_routes == {"memory": "strong"}


@pytest.mark.django_db
def test_an_agent_routed_to_another_provider_gets_that_providers_schema_dialect(monkeypatch):
    """One agent's actions on OpenAI (strict six-key object), the rest on llama-cpp-python (anyOf in
    json_object + schema): each server is sent the dialect it enforces, and neither refuses a call."""
    from tests.provider_servers import ProviderServer
    from voyage.gateway.strict_rules import broken_rules

    monkeypatch.setenv("ROUTE_TEST_KEY", "sk-route-test")
    with ProviderServer("llama-cpp-python") as local, ProviderServer("openai") as openai:
        ModelProfile.for_provider("llama-cpp-python", name="local", base_url=local.base_url, model="m").save()
        ModelProfile.for_provider("openai", name="openai", base_url=openai.base_url, model="m",
                                  api_key_env="ROUTE_TEST_KEY").save()
        run = configure_run("1912", cast=CAST, profile="local", ticks=2, schedule=Run.SIMULTANEOUS,
                            profile_routes={"agent:anna_sjoblom": "openai"})
        advance(run, 2)
        local_calls, openai_calls = list(local.records), list(openai.records)
    run.refresh_from_db()
    assert run.tick == 2 and run.state != Run.PAUSED, run.pause_reason
    assert not [r for r in local_calls + openai_calls if r.get("refused")]
    assert openai_calls and local_calls
    assert all(r["enforced"] for r in local_calls + openai_calls)
    for r in openai_calls:  # anna's actions: the strict dialect, which keeps every documented rule
        assert broken_rules(r["body"]["response_format"]["json_schema"]["schema"]) == []
    for r in local_calls:  # everyone else's: the per-action anyOf, inside json_object
        assert "anyOf" in r["body"]["response_format"]["schema"]
