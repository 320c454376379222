"""Structured outputs against a real local server that records every request: each profile form is
sent as the profile says, and in a run every action call carries the schema built for that agent
and turn, naming nothing its prompt does not, and the answers recorded keep it. An endpoint that
refuses a form is not retried: the run pauses saying which profile and form; the probe (and the
admin's "test this endpoint" button) says which forms an endpoint takes."""
import json
import re
from collections import Counter

import jsonschema
import pytest

from voyage.bench.contract import EXAMPLE
from voyage.bench.fake_openai_server import FakeOpenAI, messages_digest
from voyage.engine.runner import advance, create_run
from voyage.gateway.base import ACTION, TRUST, FormRefused, ModelRequest
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from tests.provider_servers import ProviderServer
from voyage.gateway.probe import ENFORCES, FAILED, REFUSES, TAKES, probe_forms, sample_schema
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


def targets_in(schema) -> list[str]:
    names = []
    for branch in schema["anyOf"]:
        names += [n for n in branch["properties"]["target_character"].get("enum", []) if n not in names]
    return names


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
    labelled, examples = 0, []
    for body in bodies:
        prompt = "\n\n".join(m["content"] for m in body["messages"])
        schema = body["response_format"]["schema"]
        example = json.loads(EXAMPLE.search(body["messages"][-1]["content"]).group(1))
        assert jsonschema.Draft202012Validator(schema).is_valid(example), example  # the example keeps the schema
        examples.append(example)
        targets = targets_in(schema)
        assert all(t in prompt for t in targets)  # the schema names nothing the prompt does not
        assert any(t in rooms for t in targets)  # the ways out, at least
        if "rung 0" in body["messages"][0]["content"]:
            assert not any(n in json.dumps(schema) for n in names)
            labelled += any(t.startswith("someone (unknown") for t in targets)
        here = re.search(r"^People here: (.+)\.$", prompt, re.M)
        for shown in here.group(1).split("; ") if here else ():  # every person the prompt shows here
            label = shown.removesuffix(", asleep")
            label = label if label.startswith("someone (unknown") else label.split(" (")[0]  # less its trust label
            assert label in targets
    assert labelled > 0  # rung-0 agents met people, and the schema named them as their prompt did
    # the examples are not one action for everyone (a model copying them would all do the same)
    assert {"interact", "move", "communicate"} <= {e["action_type"] for e in examples} <= {
        "interact", "move", "communicate", "sleep"}  # sleep only where nothing else is possible
    kinds = Counter(e["action_type"] for e in examples)
    assert max(kinds.values()) < len(examples) / 2, kinds


@pytest.mark.django_db
def test_recorded_answers_keep_the_schema_they_were_asked_with(server):
    """Each recorded answer, validated with jsonschema against the schema its request carried: the
    answers that keep it are actions the engine took (but for a target gone before its turn)."""
    profile = ModelProfile.objects.create(name="schema", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                          model="m", structured_output="json_schema", concurrency=33)
    run = create_run(Scenario.objects.get(slug="1912"), seed=4, schedule=Run.SIMULTANEOUS, target_ticks=3,
                     profile=profile)
    before = len(server.records)
    advance(run, 3)
    sent = {r["digest"]: r["body"]["response_format"]["json_schema"]["schema"] for r in server.records[before:]
            if r["body"].get("response_format", {}).get("type") == "json_schema"}
    calls = list(LLMCall.objects.filter(run=run, purpose="action"))
    assert len(calls) > 60
    for call in calls:
        schema = sent[messages_digest(call.prompt)]
        jsonschema.Draft202012Validator.check_schema(schema)
        answer = json.loads(call.raw_answer)
        assert jsonschema.Draft202012Validator(schema).is_valid(answer), (answer, call.detail)
        assert call.outcome == LLMCall.OK or "no longer here" in call.detail, call.detail
    # and the check can fail: the same answers aimed elsewhere break their schema
    wrong = {**json.loads(calls[0].raw_answer), "target_character": "Nowhere At All", "duration_minutes": 7}
    assert not jsonschema.Draft202012Validator(sent[messages_digest(calls[0].prompt)]).is_valid(wrong)


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


# --- an endpoint that does not take a form --------------------------------------------------
@pytest.fixture(scope="module")
def llama_like():
    """Refuses json_schema as llama-cpp-python's server does: HTTP 500, a literal_error on response_format."""
    with ProviderServer("llama-cpp-python") as s:
        yield s


def test_a_refused_form_is_not_retried_and_names_the_profile_and_the_form(llama_like):
    gateway = OpenAIGateway(GatewayConfig(base_url=llama_like.base_url, model="m", profile="local smol",
                                          structured_output="json_schema", retries=3))
    request = ModelRequest(purpose=ACTION, tick=1, agent_id=1, schema=SCHEMA,
                           messages=[{"role": "user", "content": "Answer with ONE JSON object: exactly these six keys."}])
    before = len(llama_like.records)
    try:
        with pytest.raises(FormRefused) as refused:
            gateway.complete(request)
    finally:
        gateway.close()
    assert len(llama_like.records) == before + 1  # one request: no retry
    message = str(refused.value)
    assert message.startswith("model profile 'local smol': the endpoint refuses structured output 'json_schema'")
    assert "HTTP 500" in message and "literal_error" in message


@pytest.mark.django_db
def test_a_run_on_an_endpoint_refusing_its_form_pauses_saying_why(llama_like):
    import io

    from django.core.management import call_command

    from voyage.web.runs import all_rows

    profile = ModelProfile.objects.create(name="smol on llama-cpp-python", kind=ModelProfile.OPENAI,
                                          base_url=llama_like.base_url, model="m", structured_output="json_schema")
    run = create_run(Scenario.objects.get(slug="1912"), seed=3, target_ticks=5, profile=profile)
    before = len(llama_like.records)
    advance(run, 5)
    run.refresh_from_db()
    assert run.state == Run.PAUSED and run.tick == 1  # tick 0 wakes everyone; tick 1 asks, and is not committed
    assert run.pause_reason.startswith("model profile 'smol on llama-cpp-python': the endpoint refuses structured "
                                       "output 'json_schema'")
    assert len(llama_like.records) - before <= 33  # each agent's first call at most: none retried
    assert not LLMCall.objects.filter(run=run).exists()
    out = io.StringIO()
    call_command("voyage_status", "--json", "--run", str(run.pk), stdout=out)
    assert json.loads(out.getvalue())["pause_reason"] == run.pause_reason
    out = io.StringIO()
    call_command("voyage_status", "--run", str(run.pk), stdout=out)
    assert "model profile 'smol on llama-cpp-python': the endpoint refuses" in out.getvalue()
    assert [row["problem"] for row in all_rows() if row["run"].pk == run.pk] == [run.pause_reason]

    # the profile fixed, the run resumes at the tick it paused in
    ModelProfile.objects.filter(pk=profile.pk).update(structured_output="json_object_schema")
    run = Run.objects.get(pk=run.pk)
    advance(run, 3)
    assert run.tick == 3 and LLMCall.objects.filter(run=run, purpose="action", tick=1).count() == 33


def test_the_probe_says_which_forms_the_endpoint_takes(llama_like):
    verdicts = probe_forms(GatewayConfig(base_url=llama_like.base_url, model="m", profile="p"))
    assert [(v.form, v.outcome) for v in verdicts] == [
        ("none", TAKES), ("json_object", TAKES), ("json_schema", REFUSES), ("json_object_schema", ENFORCES)]
    assert "HTTP 500" in verdicts[2].detail and str(verdicts[2]).startswith("json_schema: refuses it (")
    bodies = [r["body"] for r in llama_like.records[-4:]]
    assert [b.get("response_format", {}).get("type") for b in bodies] == [None, "json_object", "json_schema", "json_object"]
    assert bodies[3]["response_format"]["schema"] == sample_schema("anyof")  # a real action schema


def test_the_probe_of_an_endpoint_that_is_not_there_says_each_call_failed():
    with FakeOpenAI() as gone:
        url = gone.base_url
    verdicts = probe_forms(GatewayConfig(base_url=url, model="m", timeout_s=2))
    assert {v.outcome for v in verdicts} == {FAILED}
    assert all(("APIConnectionError" in v.detail or "APITimeoutError" in v.detail) for v in verdicts)


@pytest.mark.django_db
def test_the_admin_button_tests_the_endpoint_form_by_form(client, llama_like):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("staff", "s@example.com", "pw"))
    profile = ModelProfile.objects.create(name="smol", kind=ModelProfile.OPENAI, base_url=llama_like.base_url,
                                          model="m", structured_output="json_schema")
    page = client.get(f"/admin/voyage/modelprofile/{profile.pk}/change/").content.decode()
    url = f"/admin/voyage/modelprofile/{profile.pk}/test-endpoint/"
    assert f'formaction="{url}"' in page and "Test this endpoint" in page
    assert client.get(url).status_code == 405  # only a POST sends requests
    response = client.post(url, follow=True)
    shown = [str(m) for m in response.context["messages"]]
    assert shown[:2] == ["Endpoint of smol: none: takes it", "Endpoint of smol: json_object: takes it"]
    assert shown[2].startswith("Endpoint of smol: json_schema: refuses it (response_format type 'json_schema'; HTTP 500")
    assert shown[3] == "Endpoint of smol: json_object_schema: takes it and enforces it"
    assert response.redirect_chain[-1][0].endswith(f"/admin/voyage/modelprofile/{profile.pk}/change/")
