"""The gateway's pure parts: JSON extraction, backoff, request parameters (no server, no database)."""
import json
import random
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import pytest

from voyage.gateway.base import ACTION, BULLETIN, COMPACTION, REFLECTION, TRUST, ModelRequest
from voyage.gateway.json_extract import extract_json_object, parse_json_object
from voyage.gateway.openai_client import ASK_FOR_JSON, GatewayConfig, request_params
from voyage.gateway.retry import MAX_RETRY_AFTER_S, backoff_delay, parse_retry_after

ACTION_JSON = {"action_type": "sleep", "target_character": None, "volume": None, "dialogue": "",
               "duration_minutes": 30, "internal_monologue": "rest"}


@pytest.mark.parametrize("wrap", [
    "{}",
    "```json\n{}\n```",
    "```\n{}\n```",
    "Here is my action: {} Hope that helps.",
    "Thinking... [1, 2] then {}",
    "{not json} and then {}",
])
def test_extract_finds_the_object_however_it_is_wrapped(wrap):
    text = json.dumps(ACTION_JSON)
    found = extract_json_object(wrap.replace("{}", text) if wrap != "{}" else text)
    assert json.loads(found) == ACTION_JSON


def test_extract_keeps_nested_objects_and_braces_in_strings_whole():
    value = {"a": {"b": "}{"}, "c": [1, {"d": 2}]}
    assert json.loads(extract_json_object("x " + json.dumps(value) + " y")) == value


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2, 3]", "{unterminated", '"just a string"'])
def test_extract_gives_none_without_an_object(text):
    assert extract_json_object(text) is None
    assert parse_json_object(text) is None


def test_parse_gives_the_memory_calls_their_object_from_prose():
    assert parse_json_object('Dreaming: {"identity": "a {sailor}", "places": ""} the end') == \
        {"identity": "a {sailor}", "places": ""}
    assert parse_json_object(None) is None


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    rng = random.Random(1)
    for attempt in range(1, 12):
        ceiling = min(8.0, 0.5 * 2 ** (attempt - 1))
        delays = [backoff_delay(attempt, base_s=0.5, cap_s=8.0, rng=rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1  # jitter: not in lockstep


def test_backoff_honours_retry_after_but_bounds_it():
    rng = random.Random(1)
    assert 3.0 <= backoff_delay(1, base_s=0.5, cap_s=8, rng=rng, retry_after_s=3.0) <= 3.05
    assert backoff_delay(1, base_s=0.5, cap_s=8, rng=rng, retry_after_s=10_000) <= MAX_RETRY_AFTER_S + 0.05


def test_parse_retry_after_forms():
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert 25 <= parse_retry_after({"retry-after": later}) <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after(None) is None


def _request(purpose, content="Answer with ONE JSON object.", hints=None):
    return ModelRequest(purpose=purpose, messages=[{"role": "system", "content": "rules"},
                                                   {"role": "user", "content": content}],
                        tick=3, agent_id=1, agent_key="someone", hints=hints)


def test_params_json_mode_and_reasoning_defaults():
    config = GatewayConfig(base_url="http://x/v1", model="m")
    action = request_params(config, _request(ACTION))
    assert action["response_format"] == {"type": "json_object"}
    assert action["extra_body"] == {"reasoning": {"enabled": False}}  # actions: reasoning off
    trust = request_params(config, _request(TRUST))
    assert trust["extra_body"] == {"reasoning": {"enabled": True}}   # trust: on
    assert request_params(config, _request(COMPACTION, "summarise"))["extra_body"] == {"reasoning": {"enabled": True}}
    reflection = request_params(config, _request(REFLECTION, "reflect; the JSON was bad"))
    assert "response_format" not in reflection  # prose purposes never get JSON mode
    assert reflection["extra_body"] == {"reasoning": {"enabled": False}}
    assert "hints" not in json.dumps(action)


def test_params_reasoning_per_profile_and_other_forms():
    config = GatewayConfig(base_url="http://x/v1", model="m", reasoning={"action": True, "trust": False},
                           reasoning_on={"chat_template_kwargs": {"enable_thinking": True}}, reasoning_off={})
    assert request_params(config, _request(ACTION))["extra_body"] == {"chat_template_kwargs": {"enable_thinking": True}}
    assert "extra_body" not in request_params(config, _request(TRUST))
    assert "extra_body" not in request_params(config, _request(BULLETIN, "gossip"))


def test_params_without_json_mode_ask_in_the_prompt_instead():
    config = GatewayConfig(base_url="http://x/v1", model="m", structured_output="none")
    mentions = request_params(config, _request(ACTION))
    assert "response_format" not in mentions
    assert mentions["messages"][-1]["content"] != ASK_FOR_JSON  # the prompt already asks for JSON
    silent = request_params(config, _request(TRUST, "How far do you trust them?"))
    assert silent["messages"][-1] == {"role": "user", "content": ASK_FOR_JSON}
    # the JSON-mode endpoint is not asked for JSON by a prompt that never mentions it (OpenAI rejects that)
    assert "response_format" not in request_params(GatewayConfig(base_url="u", model="m"),
                                                   _request(TRUST, "How far do you trust them?"))


def test_cost_from_profile_prices():
    config = GatewayConfig(base_url="u", model="m", price_in_per_m=0.5, price_out_per_m=2.0)
    assert config.cost(1_000_000, 500_000) == pytest.approx(1.5)
    assert config.cost(1234, 0) == pytest.approx(0.000617)
