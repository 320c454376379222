"""Structured outputs against a real local server that records every request: each profile form is
sent as the profile says, and in a run every action call carries the schema built for that agent
and turn, naming nothing its prompt does not."""
import json
import re

import pytest

from tests.fake_openai_server import FakeOpenAI
from voyage.engine.runner import advance, create_run
from voyage.gateway.base import ACTION, TRUST, ModelRequest
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from voyage.models import LLMCall, ModelProfile, Run
from world.models import Persona, Room, Scenario

SCHEMA = {"type": "object", "properties": {"action_type": {"type": "string", "enum": ["sleep"]}},
          "required": ["action_type"], "additionalProperties": False}


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as s:
        yield s


def sent(server, form: str, purpose: str = ACTION, schema=SCHEMA) -> dict:
    gateway = OpenAIGateway(GatewayConfig(base_url=server.base_url, model="m", structured_output=form, retries=0))
    request = ModelRequest(purpose=purpose, tick=1, agent_id=1, schema=schema,
                           messages=[{"role": "user", "content": "Answer with ONE JSON object: exactly these six keys."}])
    try:
        before = len(server.records)
        assert not gateway.complete(request).failed
        (record,) = server.records[before:]
    finally:
        gateway.close()
    return record["body"]


def test_json_schema_form_is_sent_as_openai_describes_it(server):
    assert sent(server, "json_schema")["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "voyage_action", "schema": SCHEMA, "strict": True}}


def test_json_object_schema_form_is_sent_as_llama_cpp_python_takes_it(server):
    assert sent(server, "json_object_schema")["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_json_object_and_none_send_no_schema(server):
    assert sent(server, "json_object")["response_format"] == {"type": "json_object"}
    assert "response_format" not in sent(server, "none")


def test_a_call_without_a_schema_gets_plain_json_mode(server):
    assert sent(server, "json_schema", purpose=TRUST, schema=None)["response_format"] == {"type": "json_object"}


@pytest.mark.django_db
def test_every_action_call_of_a_run_carries_its_own_schema(server):
    profile = ModelProfile.objects.create(name="schema", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                          model="m", structured_output="json_object_schema", concurrency=33)
    scenario = Scenario.objects.get(slug="1912")
    run = create_run(scenario, seed=3, schedule=Run.SIMULTANEOUS, target_ticks=4, profile=profile)
    before = len(server.records)
    advance(run, 4)
    bodies = [r["body"] for r in server.records[before:] if "schema" in r["body"].get("response_format", {})]
    actions = LLMCall.objects.filter(run=run, purpose="action").count()
    assert actions > 60 and len(bodies) == actions  # every action call, and only they, carried a schema
    names = list(Persona.objects.filter(scenario=scenario).values_list("display_name", flat=True))
    rooms = set(Room.objects.filter(scenario=scenario).values_list("name", flat=True))
    labelled = 0
    for body in bodies:
        prompt = "\n\n".join(m["content"] for m in body["messages"])
        target = body["response_format"]["schema"]["properties"]["target_character"]
        targets = target["anyOf"][0]["enum"]
        assert all(t in prompt for t in targets)  # the schema names nothing the prompt does not
        assert any(t in rooms for t in targets)  # the ways out, at least
        if "rung 0" in body["messages"][0]["content"]:
            assert not any(n in json.dumps(target) for n in names)
            labelled += any(t.startswith("someone (unknown") for t in targets)
        here = re.search(r"^People here: (.+)\.$", prompt, re.M)
        for shown in here.group(1).split("; ") if here else ():  # every person the prompt shows here
            label = shown.removesuffix(", asleep")
            label = label if label.startswith("someone (unknown") else label.split(" (")[0]  # less its trust label
            assert label in targets
    assert labelled > 0  # rung-0 agents met people, and the schema named them as their prompt did


@pytest.mark.django_db
def test_run_voyage_one_off_profile_takes_the_form(server):
    import io

    from django.core.management import call_command

    before = len(server.records)
    call_command("run_voyage", "--ticks", "2", "--base-url", server.base_url, "--model", "m",
                 "--structured-output", "json_schema", stdout=io.StringIO(), stderr=io.StringIO())
    assert ModelProfile.objects.get(base_url=server.base_url).structured_output == "json_schema"
    actions = [r["body"] for r in server.records[before:] if "exactly these six keys" in r["body"]["messages"][0]["content"]]
    assert actions and all(b["response_format"]["type"] == "json_schema" for b in actions)
