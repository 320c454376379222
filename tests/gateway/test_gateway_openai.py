"""The OpenAI-compatible gateway against a real local chat-completions server (no database)."""
import asyncio
import json
import time

import pytest

from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.gateway.base import ACTION, REFLECTION, TRUST, ModelRequest
from voyage.gateway.openai_client import GatewayConfig, GatewayConfigError, OpenAIGateway
from world.rules.actions import Action, parse_action
from world.rules.prompt_text import RULES

KEY_ENV = "VOYAGE_TEST_GATEWAY_KEY"
KEY = "sk-test-gw-7f3a9c0e55d1"


@pytest.fixture
def server():
    with FakeOpenAI() as s:
        yield s


@pytest.fixture
def make_gateway(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    made = []

    def make(**config):
        fields = {"base_url": server.base_url, "model": "test-model", "api_key_env": KEY_ENV, "timeout_s": 0.5,
                  "retries": 3, **config}
        gw = OpenAIGateway(GatewayConfig(**fields), backoff_base_s=0.01, backoff_cap_s=0.05)
        made.append(gw)
        return gw

    yield make
    for gw in made:
        gw.close()


def action_request(n=0, hints=None):
    user = (f"It is Day 1, 07:{n:02d}.\nYou are in the Reading Room (small, quiet). Books.\nNobody else is here.\n"
            "Items here: writing desk, brass lamp.\nWays out: Promenade.\n\nYour turn. Answer with the one JSON object only.")
    return ModelRequest(purpose=ACTION, messages=[{"role": "system", "content": RULES}, {"role": "user", "content": user}],
                        tick=n, agent_id=n, agent_key=f"agent_{n}", hints=hints)


def reflection_request(n=0):
    return ModelRequest(purpose=REFLECTION, tick=n, agent_id=n, agent_key=f"agent_{n}", messages=[
        {"role": "system", "content": "Reflect silently. Begin with [reflection]."},
        {"role": "user", "content": f"memory {n}"}])


def test_a_plain_call_answers_a_valid_action_and_counts_its_tokens(server, make_gateway):
    answer = make_gateway(price_in_per_m=1.0, price_out_per_m=4.0).complete(action_request())
    assert isinstance(parse_action(answer.text), Action)
    assert answer.attempts == 1 and answer.error == ""
    assert answer.prompt_tokens > 100 and answer.completion_tokens > 10 and answer.cached_tokens > 0
    assert answer.cost == pytest.approx((answer.prompt_tokens * 1.0 + answer.completion_tokens * 4.0) / 1e6)
    assert answer.latency_ms > 0
    assert server.records[0]["authorization"] == f"Bearer {KEY}"  # the key came from the environment


@pytest.mark.parametrize("fault", ["timeout", "rate_limit", "server_error", "drop", "garbage", "empty_choices"])
def test_each_transport_fault_is_retried(server, make_gateway, fault):
    server.hang_s = 1.0
    server.force(fault)
    answer = make_gateway().complete(action_request())
    assert isinstance(parse_action(answer.text), Action), answer.error
    assert answer.attempts == 2
    assert [r["fault"] for r in server.records] == [fault, None]


def test_429_retry_after_is_honoured(server, make_gateway):
    server.retry_after = "1"
    server.force("rate_limit")
    answer = make_gateway().complete(action_request())
    assert answer.attempts == 2 and answer.text
    gap = server.records[1]["at"] - server.records[0]["at"]
    assert gap >= 0.95, gap  # the backoff alone would have waited about 0.01 s
    assert answer.latency_ms >= 950


def test_a_call_that_keeps_failing_comes_back_without_text(server, make_gateway):
    server.force("server_error", "drop", "server_error")
    answer = make_gateway(retries=2).complete(action_request())
    assert answer.text is None and answer.failed
    assert answer.attempts == 3
    assert "InternalServerError" in answer.error and "after 3 attempts" in answer.error
    assert len(server.records) == 3


def test_a_4xx_other_than_429_is_not_retried_and_does_not_leak_the_key(server, make_gateway):
    server.force("unauthorized")
    answer = make_gateway().complete(action_request())
    assert answer.failed and answer.attempts == 1 and "401" in answer.error
    assert KEY not in answer.error


@pytest.mark.parametrize("fault,reason", [("not_json", "not valid JSON"), ("missing_key", "missing key"),
                                          ("extra_key", "unexpected key"), ("wrong_type", "duration_minutes"),
                                          ("fenced", "not valid JSON")])
def test_content_faults_reach_the_action_contract(server, make_gateway, fault, reason):
    server.force(fault)
    answer = make_gateway().complete(action_request())
    assert answer.attempts == 1 and answer.text
    assert reason in parse_action(answer.text).reason


def test_without_json_mode_fenced_or_wrapped_json_is_extracted(server, make_gateway):
    gw = make_gateway(structured_output="none")
    server.force("fenced")
    fenced = gw.complete(action_request(1))
    assert isinstance(parse_action(fenced.text), Action)
    assert "response_format" not in server.records[0]["body"]


def test_requests_carry_response_format_and_reasoning_per_purpose(server, make_gateway):
    gw = make_gateway(reasoning={"reflection": True})
    gw.complete(action_request())
    gw.complete(reflection_request())
    gw.complete(ModelRequest(purpose=TRUST, tick=1, agent_key="a", messages=[
        {"role": "user", "content": "Rate your trust in them as a JSON object."}]))
    action, reflection, trust = (r["body"] for r in server.records)
    assert action["response_format"] == {"type": "json_object"}
    assert action["reasoning"] == {"enabled": False}
    assert "response_format" not in reflection and reflection["reasoning"] == {"enabled": True}  # the profile's choice
    assert trust["response_format"] == {"type": "json_object"} and trust["reasoning"] == {"enabled": True}
    assert {action["model"], action["temperature"], action["max_tokens"]} == {"test-model", 0.8, 800}


def test_hints_never_reach_the_endpoint(server, make_gateway):
    make_gateway().complete(action_request(hints={"secret_fact": "zanzibar-hint-991"}))
    assert "zanzibar-hint-991" not in json.dumps(server.records[0]["body"])
    assert set(server.records[0]["body"]) <= {"model", "messages", "temperature", "max_tokens", "response_format",
                                              "reasoning"}


def test_complete_many_runs_concurrently_within_the_profile_bound(server, make_gateway):
    server.latency_s = 0.2
    requests = [action_request(n) for n in range(20)]
    began = time.perf_counter()
    answers = make_gateway(concurrency=32).complete_many(requests)
    wide = time.perf_counter() - began
    assert [a.attempts for a in answers] == [1] * 20 and all(a.text for a in answers)
    assert wide < 0.6, wide  # 20 calls of 0.2 s: about one call's latency, not twenty
    began = time.perf_counter()
    make_gateway(concurrency=4).complete_many(requests)
    narrow = time.perf_counter() - began
    assert narrow >= 5 * 0.2 * 0.95, narrow  # at most 4 in flight: five waves


def test_answers_come_back_in_request_order(server, make_gateway):
    requests = [action_request(n) for n in range(8)] + [reflection_request(n) for n in range(8)]
    answers = make_gateway().complete_many(requests)
    assert [a.text.startswith("[reflection]") for a in answers] == [False] * 8 + [True] * 8


def test_complete_works_from_a_thread_running_its_own_event_loop(server, make_gateway):
    gw = make_gateway()

    async def inside():
        return gw.complete(action_request())

    assert asyncio.run(inside()).text


def test_a_missing_key_variable_is_a_clear_error(server, monkeypatch):
    monkeypatch.delenv("VOYAGE_UNSET_KEY", raising=False)
    with pytest.raises(GatewayConfigError, match=r"\$VOYAGE_UNSET_KEY, which is not set"):
        OpenAIGateway(GatewayConfig(base_url=server.base_url, model="m", api_key_env="VOYAGE_UNSET_KEY"))


def test_usage_is_read_off_the_decoded_answer_and_odd_values_count_nothing():
    from voyage.gateway.openai_client import Usage

    usage = Usage()
    usage.add({"usage": {"prompt_tokens": 900, "completion_tokens": 40, "cost": 0.0021,
                         "completion_tokens_details": {"reasoning_tokens": 25},
                         "prompt_tokens_details": {"cached_tokens": 512}}})
    usage.add({"usage": {"prompt_tokens": "many", "completion_tokens": -3, "cost": True,
                         "completion_tokens_details": None, "prompt_tokens_details": [1]}})
    usage.add({"choices": []})  # no usage reported
    usage.add("<html>not a completion</html>")
    assert (usage.prompt, usage.completion, usage.reasoning, usage.cached) == (900, 40, 25, 512)
    answer = usage.answer(GatewayConfig(base_url="http://127.0.0.1:9/v1", model="m"), "{}", 1, None)
    assert answer.cost == 0.0021  # no prices in the profile: the endpoint's own figure


def test_an_answer_that_is_not_a_chat_completion_is_retried_then_reported(make_gateway, server):
    server.force("empty_choices", "empty_choices", "empty_choices", "empty_choices")
    answer = make_gateway(retries=3).complete(action_request())
    assert answer.failed and "no choices" in answer.error and answer.attempts == 4
