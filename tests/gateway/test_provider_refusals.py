"""A refused structured-output form, in each provider's own words, is told from a transient fault:
the run pauses at once instead of retrying a request that cannot succeed. Each wording is checked
as a string and sent by a local server applying that provider's rules (tests/provider_servers.py);
and calls still in flight when a tick is cut short wind down without an asyncio error."""
import gc
import logging

import pytest

from tests.provider_servers import WORDS, ProviderServer
from voyage.gateway import structured
from voyage.gateway.base import ACTION, FormRefused, ModelRequest
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from world.rules.schema_dialects import BRANCHES, OPENAI_STRICT
from voyage.gateway.probe import sample_schema

ACTION_MESSAGES = [{"role": "user", "content": "Answer with ONE JSON object: exactly these six keys."}]


@pytest.mark.parametrize("provider, status, words", [
    ("openai", 400, "Invalid schema for response_format 'voyage_action': In context=(), 'anyOf' is not permitted"),
    ("openai", 400, "Invalid schema for response_format 'voyage_action': Objects provided via 'anyOf' must not share "
                    "identical first keys. Consider adding a discriminator key or rearranging the properties"),
    ("openai", 400, WORDS["openai_json"][1]),
    ("vllm", 400, "The provided JSON schema contains features not supported by xgrammar."),
    ("sglang", 400, "Failed to compile the grammar of the JSON schema"),
    ("ollama", 500, "invalid JSON schema in format"),
    ("ollama", 400, '{"error":{"message":"invalid JSON schema in format","type":"invalid_request_error"}}'),
    ("lm-studio", 400, '{"error":"\'response_format.type\' must be \'json_schema\' or \'text\'"}'),
    ("llama-cpp-python", 500, WORDS["llama-cpp-python"][1]),
    ("llama-server", 400, "JSON schema conversion failed: unrecognized schema"),
    ("gemini", 400, "Invalid JSON payload received. Unknown name \"const\" at 'generation_config.response_schema'"),
    ("openrouter", 404, "No endpoints found that can handle the requested parameters."),
])
def test_each_providers_refusal_is_recognised(provider, status, words):
    assert structured.refuses_form(status, words), provider


@pytest.mark.parametrize("status, body", [
    (500, "internal error"), (503, "response_format overloaded"), (401, "invalid api key; json schema"),
    (429, "rate limited (response_format)"), (400, "maximum context length is 8192 tokens"),
    (404, "model not found"),
])
def test_transient_and_unrelated_errors_are_not_refusals(status, body):
    assert not structured.refuses_form(status, body)


def call(server, form: str, dialect: str, *, messages=ACTION_MESSAGES, provider=None):
    gateway = OpenAIGateway(GatewayConfig(base_url=server.base_url, model="m", profile=f"{server.provider} profile",
                                          structured_output=form, schema_dialect=dialect, retries=3))
    request = ModelRequest(purpose=ACTION, tick=1, agent_id=1, messages=messages,
                           schema=sample_schema(dialect) if structured.takes_schema(form) else None)
    try:
        return gateway.complete(request)
    finally:
        gateway.close()


@pytest.mark.parametrize("provider, form, dialect, said", [
    ("openai", "json_schema", BRANCHES, "Invalid schema for response_format 'voyage_action': the root must be an object"),
    ("vllm", "json_schema", BRANCHES, None),  # compiles: taken (below, refusal of a schema it cannot compile)
    ("lm-studio", "json_object", BRANCHES, "'response_format.type' must be 'json_schema' or 'text'"),
    ("lm-studio", "json_object_schema", BRANCHES, "'response_format.type' must be 'json_schema' or 'text'"),
    ("llama-cpp-python", "json_schema", BRANCHES, "literal_error"),
])
def test_a_provider_fixture_refusing_a_form_pauses_without_a_retry(provider, form, dialect, said):
    with ProviderServer(provider) as server:
        if said is None:
            assert not call(server, form, dialect).failed
            return
        with pytest.raises(FormRefused) as refused:
            call(server, form, dialect)
        assert len(server.records) == 1 and server.records[0]["refused"]  # one request: no retry
        assert said in str(refused.value) and f"'{form}'" in str(refused.value)


def test_openai_refuses_json_object_when_no_message_says_json():
    import json
    import urllib.error
    import urllib.request

    with ProviderServer("openai") as server:
        raw = {"model": "m", "messages": [{"role": "user", "content": "Act now."}],
               "response_format": {"type": "json_object"}}
        sent = urllib.request.Request(server.base_url + "/chat/completions", data=json.dumps(raw).encode(),
                                      headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(sent)
        assert refused.value.code == 400 and "must contain the word 'json'" in refused.value.read().decode()
        # the gateway never sends json_object without the word: such a prompt goes without response_format
        assert not call(server, "json_object", OPENAI_STRICT, messages=[{"role": "user", "content": "Act now."}]).failed
        assert "response_format" not in server.records[-1]["body"] and not server.records[-1]["refused"]


def test_ollama_and_vllm_refuse_a_schema_their_engine_cannot_convert():
    bad = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=x)x$"}}, "required": ["a"]}
    for provider, words in (("ollama", "invalid JSON schema in format"), ("vllm", "not supported by xgrammar")):
        with ProviderServer(provider) as server:
            gateway = OpenAIGateway(GatewayConfig(base_url=server.base_url, model="m", structured_output="json_schema",
                                                  retries=3))
            try:
                with pytest.raises(FormRefused, match=words):
                    gateway.complete(ModelRequest(purpose=ACTION, tick=1, messages=ACTION_MESSAGES, schema=bad))
            finally:
                gateway.close()
            assert len(server.records) == 1


@pytest.mark.django_db
def test_a_refused_form_leaves_no_asyncio_error_from_the_ticks_other_calls(caplog):
    """33 calls of a simultaneous tick in flight (latencies drawn 50-600 ms); the first refusal pauses
    the run and closes the gateway while the rest are still on their way. Before the gateway wound
    them down first, each logged "Task was destroyed but it is pending!" (or "Event loop is closed")."""
    from voyage.engine.runner import advance, create_run
    from voyage.models import ModelProfile, Run
    from world.models import Scenario

    with ProviderServer("llama-cpp-python", lognormal=(150, 0.8)) as server:
        profile = ModelProfile.objects.create(name="smol", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                              model="m", structured_output="json_schema", concurrency=33)
        run = create_run(Scenario.objects.get(slug="1912"), seed=3, schedule=Run.SIMULTANEOUS, target_ticks=3,
                         profile=profile)
        with caplog.at_level(logging.DEBUG):
            advance(run, 3)
            gc.collect()  # a pending task left on the closed loop says so when it is collected
        assert run.state == Run.PAUSED and "literal_error" in run.pause_reason
        assert len(server.records) > 1  # other calls were in flight
    errors = [r.getMessage() for r in caplog.records
              if (r.name == "asyncio" and r.levelno >= logging.WARNING) or "loop is closed" in r.getMessage()]
    assert errors == []
