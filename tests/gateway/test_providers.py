"""Providers by name (voyage.gateway.providers): what choosing one fills in, what its requests carry,
and, against a local server applying that provider's rules (tests/provider_servers.py), a short 1912
run through `run_voyage --provider NAME` with no refused request, and the endpoint check's verdict
on each form."""
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.provider_servers import PROVIDERS, ProviderServer
from voyage.gateway import providers
from voyage.gateway.base import ACTION, TRUST, ModelRequest
from voyage.gateway.openai_client import GatewayConfig, Usage, request_params
from voyage.gateway.probe import ENFORCES, FAILED, IGNORES, REFUSES, TAKES
from voyage.gateway.strict_rules import broken_rules
from voyage.models import LLMCall, ModelProfile, Run

KEY_ENV = "VOYAGE_PROVIDER_TEST_KEY"
FILLED = ("base_url", "structured_output", "schema_dialect", "reasoning_on", "reasoning_off", "cached_tokens_at",
          "extra_body")


def test_every_provider_the_issue_names_has_defaults():
    assert set(providers.NAMES) == set(PROVIDERS)
    with pytest.raises(ValueError, match="unknown provider 'azure'; known: openai, openrouter"):
        providers.provider("azure")


def test_other_keeps_what_a_profile_did_before_providers_had_names():
    before, other = ModelProfile(kind=ModelProfile.OPENAI), ModelProfile.for_provider("other", base_url="http://x/v1")
    for name in FILLED[1:]:
        assert getattr(other, name) == getattr(before, name), name


def test_choosing_a_provider_fills_in_what_it_needs_and_every_field_stays_editable():
    openai = ModelProfile.for_provider("openai", model="gpt-4o-mini")
    assert (openai.base_url, openai.structured_output, openai.schema_dialect, openai.api_key_env) == (
        "https://api.openai.com/v1", "json_schema", "openai_strict", "OPENAI_API_KEY")
    lm = ModelProfile.for_provider("lm-studio", base_url="http://10.0.0.5:1234/v1", structured_output="none")
    assert lm.base_url == "http://10.0.0.5:1234/v1" and lm.structured_output == "none"  # what is given wins
    assert ModelProfile.for_provider("llama-cpp-python").structured_output == "json_object_schema"
    assert ModelProfile.for_provider("anthropic").structured_output == "none"  # it ignores response_format


def params(provider: str, purpose=ACTION) -> dict:
    config = GatewayConfig.from_profile(ModelProfile.for_provider(provider, base_url="http://x/v1", name="p"))
    request = ModelRequest(purpose=purpose, tick=1, messages=[{"role": "user", "content": "One JSON object."}],
                           schema={"type": "object"})
    return request_params(config, request)


def test_each_providers_request_carries_its_switches():
    assert params("openrouter")["extra_body"] == {"provider": {"require_parameters": True},
                                                  "reasoning": {"enabled": False}}
    assert params("openrouter", TRUST)["extra_body"]["reasoning"] == {"enabled": True}
    assert params("vllm")["extra_body"] == {"chat_template_kwargs": {"enable_thinking": False}}
    assert params("sglang", TRUST)["extra_body"] == {"chat_template_kwargs": {"enable_thinking": True}}
    assert params("ollama", TRUST)["extra_body"] == {"think": True}
    assert params("openai", TRUST)["extra_body"] == {"reasoning_effort": "medium"}
    assert "extra_body" not in params("openai")  # a model that does not reason is sent nothing
    assert params("openai")["response_format"]["type"] == "json_schema"
    assert params("llama-cpp-python")["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    assert "response_format" not in params("anthropic")


def test_cached_tokens_are_read_where_the_provider_reports_them():
    answer = {"usage": {"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 64}},
              "timings": {"cache_n": 80}}
    for path, cached in ((providers.USAGE_CACHED, 64), ("timings.cache_n", 80), ("", 0), ("usage.nothing", 0)):
        usage = Usage()
        usage.add(answer, path)
        assert (usage.prompt, usage.cached) == (100, cached), path
    assert providers.provider("llama-server").cached_tokens_at == "timings.cache_n"


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-provider-key")


ENFORCED_EVERY_ACTION = {"openai", "vllm", "lm-studio", "openrouter", "sglang", "ollama", "llama-server",
                         "llama-cpp-python", "gemini"}


@pytest.mark.django_db
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_1912_run_with_each_provider_reaches_its_last_tick_with_no_refused_request(provider, key):
    out = io.StringIO()
    with ProviderServer(provider) as server:
        call_command("run_voyage", "--ticks", "2", "--schedule", "simultaneous", "--provider", provider,
                     "--base-url", server.base_url, "--model", "m", "--api-key-env", KEY_ENV,
                     stdout=out, stderr=io.StringIO())
        records = list(server.records)
    run = Run.objects.get(pk=json.loads(out.getvalue().strip().splitlines()[-1])["run_id"])
    assert run.profile.provider == provider and run.tick == 2 and run.state != Run.PAUSED, run.pause_reason
    assert not [r for r in records if r.get("refused")]
    actions = [r for r in records if "exactly these six keys" in r["body"]["messages"][0]["content"]]
    assert len(actions) == LLMCall.objects.filter(run=run, purpose="action").count() > 30
    if provider in ENFORCED_EVERY_ACTION:  # every action call carries a schema that provider enforces
        assert all(r["enforced"] for r in actions), provider
    elif provider == "anthropic":  # response_format would be ignored: none is sent, the prompt asks for JSON
        assert not any("response_format" in r["body"] for r in actions)
    else:  # other: as before providers had names, plain JSON mode
        assert all(r["body"]["response_format"] == {"type": "json_object"} for r in actions)
    if run.profile.schema_dialect == "openai_strict":
        assert all(broken_rules(r["body"]["response_format"]["json_schema"]["schema"]) == [] for r in actions)
    outcomes = set(LLMCall.objects.filter(run=run, purpose="action").values_list("outcome", flat=True))
    assert LLMCall.OK in outcomes
    if provider in ("openai", "anthropic"):  # the API says who serves the run's model
        from django.test import Client

        from tests.api_helpers import staff_with_token

        shown = Client(headers={"X-API-Key": staff_with_token()[1]}).get(f"/api/runs/{run.pk}").json()
        assert (shown["profile"], shown["provider"]) == (run.profile.name, provider)


EXPECTED = {  # form: none, json_object, json_schema, json_object_schema
    "openai": (TAKES, TAKES, ENFORCES, IGNORES),
    "openrouter": (TAKES, TAKES, ENFORCES, IGNORES),
    "vllm": (TAKES, TAKES, ENFORCES, IGNORES),
    "sglang": (TAKES, TAKES, ENFORCES, IGNORES),
    "ollama": (TAKES, TAKES, ENFORCES, IGNORES),
    "llama-server": (TAKES, TAKES, ENFORCES, ENFORCES),
    "llama-cpp-python": (TAKES, TAKES, REFUSES, ENFORCES),
    "lm-studio": (TAKES, REFUSES, ENFORCES, REFUSES),
    "gemini": (TAKES, TAKES, ENFORCES, IGNORES),
    "anthropic": (TAKES, TAKES, IGNORES, IGNORES),
    "other": (TAKES, TAKES, ENFORCES, ENFORCES),
}


@pytest.mark.django_db
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_endpoint_check_tells_what_each_provider_does_with_each_form(provider, key):
    profiles = ModelProfile.objects.count()  # a session's shared rows may be there
    with ProviderServer(provider) as server:
        out = io.StringIO()
        call_command("endpoint", "check", "--provider", provider, "--base-url", server.base_url, "--model", "m",
                     "--api-key-env", KEY_ENV, "--json", stdout=out)
        sent = [r["body"] for r in server.records]
    report = json.loads(out.getvalue())
    assert [f["outcome"] for f in report["forms"]] == list(EXPECTED[provider])
    assert report["schema_dialect"] == providers.provider(provider).schema_dialect
    schemas = [b["response_format"]["json_schema"]["schema"] for b in sent
               if b.get("response_format", {}).get("type") == "json_schema"]
    assert schemas and all("action_type" in json.dumps(s) for s in schemas)  # a real action schema
    for verdict in report["forms"]:
        if verdict["outcome"] == REFUSES:
            assert verdict["detail"]  # in the provider's words
        if verdict["outcome"] == IGNORES:
            assert '{"probe": "free"}' in verdict["detail"]
    assert ModelProfile.objects.count() == profiles  # a one-off check writes nothing


def test_the_endpoint_check_of_an_endpoint_that_is_not_there_says_failed(key):
    with ProviderServer("vllm") as gone:
        url = gone.base_url
    out = io.StringIO()
    call_command("endpoint", "check", "--provider", "vllm", "--base-url", url, "--model", "m", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and all(f": {FAILED} (" in line for line in lines[1:])


@pytest.mark.django_db
def test_the_endpoint_check_says_what_is_wrong_with_its_options():
    with pytest.raises(CommandError, match="give --profile NAME or --provider NAME"):
        call_command("endpoint", "check")
    with pytest.raises(CommandError, match="there is no model profile 'nope'"):
        call_command("endpoint", "check", "--profile", "nope")
    with pytest.raises(CommandError, match="--provider other has no base URL of its own"):
        call_command("endpoint", "check", "--provider", "other", "--model", "m")
    with pytest.raises(CommandError, match="NAME of an environment variable"):
        call_command("endpoint", "check", "--provider", "vllm", "--api-key-env", "sk-abc-123")


@pytest.mark.django_db
def test_run_voyage_provider_says_what_is_missing_and_writes_nothing(monkeypatch):
    runs, profiles = Run.objects.count(), ModelProfile.objects.count()  # a session's shared rows may be there
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(CommandError, match=r"read from \$OPENAI_API_KEY, which is not set"):
        call_command("run_voyage", "--ticks", "1", "--provider", "openai", "--model", "gpt-4o-mini",
                     stdout=io.StringIO())
    with pytest.raises(CommandError, match="--provider other has no base URL of its own"):
        call_command("run_voyage", "--ticks", "1", "--provider", "other", stdout=io.StringIO())
    assert (ModelProfile.objects.count(), Run.objects.count()) == (profiles, runs)


@pytest.mark.django_db
def test_the_admin_fills_in_a_chosen_providers_fields_but_what_was_typed(client):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("staff", "s@example.com", "pw"))
    data = {"name": "qwen on vllm", "kind": "openai", "provider": "vllm", "base_url": "", "model": "Qwen/Qwen3-8B",
            "api_key_env": "", "structured_output": "json_object", "schema_dialect": "anyof",
            "extra_body": "{}", "cached_tokens_at": providers.USAGE_CACHED, "reasoning": "{}",
            "reasoning_on": json.dumps({"reasoning": {"enabled": True}}),  # the defaults, as the add form shows them
            "reasoning_off": json.dumps({"reasoning": {"enabled": False}}), "temperature": "0.8",
            "max_tokens": "800", "timeout_s": "60", "retries": "3", "concurrency": "16", "price_in_per_m": "0",
            "price_out_per_m": "0", "instrument_page_size": "30"}
    # a callable default's field carries its initial value in a hidden input, as the browser posts it
    data.update({f"initial-{k}": data[k] for k in ("reasoning_on", "reasoning_off", "extra_body", "reasoning")})
    response = client.post("/admin/voyage/modelprofile/add/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    saved = ModelProfile.objects.get(name="qwen on vllm")
    assert (saved.base_url, saved.structured_output, saved.reasoning_on) == (
        "http://localhost:8000/v1", "json_schema", {"chat_template_kwargs": {"enable_thinking": True}})
    # edited after: what the form changes stays, the provider unchanged fills in nothing
    data.update(structured_output="json_object_schema", base_url="http://gpu-box.lan:8000/v1",
                reasoning_on=json.dumps(saved.reasoning_on), reasoning_off=json.dumps(saved.reasoning_off))
    data.update({f"initial-{k}": data[k] for k in ("reasoning_on", "reasoning_off", "extra_body", "reasoning")})
    response = client.post(f"/admin/voyage/modelprofile/{saved.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    saved.refresh_from_db()
    assert (saved.base_url, saved.structured_output) == ("http://gpu-box.lan:8000/v1", "json_object_schema")


@pytest.mark.django_db
def test_the_endpoint_check_of_a_saved_profile_prints_a_line_per_form():
    with ProviderServer("lm-studio") as server:
        profile = ModelProfile.for_provider("lm-studio", name="qwen on lm studio", base_url=server.base_url,
                                            model="qwen3-4b")
        profile.save()
        out = io.StringIO()
        call_command("endpoint", "check", "--profile", "qwen on lm studio", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"qwen on lm studio (lm-studio, {server.base_url}, dialect anyof):"
    assert lines[1:3] == ["  none: takes it", "  json_object: refuses it (response_format type 'json_object'; HTTP 400: "
                          "{\"error\": {\"message\": \"'response_format.type' must be 'json_schema' or 'text'\", "
                          "\"type\": \"invalid_request_error\"}})"]
    assert lines[3] == "  json_schema: takes it and enforces it"
