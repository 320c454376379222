"""The model-health measures in the studies' registry, and a run's health read from its recorded
calls (real prompts, compressed as the gateway stores them), on a real database."""
import json

import pytest

from voyage.engine.runner import create_run
from voyage.gateway.prompts import compress_messages
from voyage.health.load import health_line, health_of
from voyage.models import LLMCall
from voyage.studies.measures import evaluate
from world.models import Scenario

pytestmark = pytest.mark.django_db
GUIDE = ("Actions you may take now, and what each names: interact (a person or an item here); move (a room: a way "
         "out, or a room you know by name); communicate (a person here, or null to speak to the room); sleep (null).\n"
         "An example of the form only (choose your own action): {example}\nYour turn.")


def act(kind, target=None, dialogue="", volume=None):
    return {"action_type": kind, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": 3, "internal_monologue": "hm"}


def record(run, agent, tick, answer, example, outcome="ok", detail=""):
    messages = [{"role": "system", "content": "rules"},
                {"role": "user", "content": "situation\n" + GUIDE.format(example=json.dumps(example))}]
    LLMCall.objects.create(run=run, agent=agent, tick=tick, purpose="action", prompt_z=compress_messages(messages),
                           raw_answer=json.dumps(answer) if isinstance(answer, dict) else answer,
                           outcome=outcome, detail=detail)


@pytest.fixture
def run():
    scenario = Scenario.objects.get(slug="1912")
    run = create_run(scenario, personas=list(scenario.personas.order_by("key")[:2]), target_ticks=960)
    a, b = run.agents.order_by("persona__key")
    # day 1: a copies its example twice, b says its own line twice (the same line: one repeat)
    for tick in (1, 2):
        example = act("interact", f"thing {tick}")
        record(run, a, tick, example, example)
        record(run, b, tick, act("communicate", None, "Fine evening.", "normal"), example)
    # day 2: a walks somewhere of its own; b's answer is prose: an ACTION_FAIL
    record(run, a, 500, act("move", "Grand Staircase", volume="normal"), act("interact", "x"))  # a volume, ignored
    record(run, b, 500, "I shall wait.", act("interact", "x"), outcome="action_fail", detail="not valid JSON")
    run.tick = 960
    run.save(update_fields=["tick"])
    return run


def test_the_health_measures_per_day(run):
    rows = {row["day"]: row for row in evaluate([run.pk])}
    assert rows[1]["example_copy_share"] == 0.5  # 2 of 4
    assert rows[1]["repeat_share"] == 0.5  # a's second answer is a new example (new target); b repeats
    assert rows[1]["distinct_dialogue_share"] == 0.5  # "Fine evening." twice
    assert rows[1]["action_evenness"] == 0.5  # interact 2, communicate 2 over 4 allowed: ln 2 / ln 4
    assert rows[2]["example_copy_share"] == 0.0
    assert rows[2]["action_fail_reasons_not valid JSON"] == 0.5
    assert rows[2]["distinct_dialogue_share"] is None  # nothing said on day 2
    assert rows[1]["ignored_field_share"] == 0.0
    assert rows[2]["ignored_field_share"] == 0.5  # a's walk set a volume; b's prose is not an answer


def test_a_runs_health_and_its_json_line(run):
    health = health_of(run)
    assert health["scripted"]  # no profile: the offline policy's run, never warned about
    line = health_line(health)
    assert line["example_copy_share"] == round(2 / 6, 4)  # 2 of the 6 answered (prose is an answer too)
    assert line["action_fail_share"] == round(1 / 6, 4)
    assert line["warnings"] == [] and "script" in line["scripted"]
    key_a = run.agents.order_by("persona__key")[0].persona.key
    assert health["by_agent"][key_a]["example_copy_share"] == round(2 / 3, 4)


def test_a_run_whose_actions_a_routed_model_answered_is_judged_as_a_model(run):
    from voyage.models import ModelProfile

    ModelProfile.objects.create(name="small", kind=ModelProfile.OPENAI, base_url="http://127.0.0.1:9/v1")
    LLMCall.objects.filter(run=run).update(profile="small")  # the main profile is the offline policy's
    health = health_of(run)
    assert not health["scripted"] and health["note"] == ""


def test_a_page_keeps_the_calls_it_read_and_reads_only_new_ones(run, monkeypatch):
    """The overview's panel reads each prompt once: after new calls it equals health_of the latest
    SHOWN_CALLS, read afresh, and it decompressed only the new calls."""
    from django.core.cache import cache

    from voyage.health import load
    from voyage.web import health as page

    cache.clear()
    monkeypatch.setattr(page, "SHOWN_CALLS", 5)
    first = page.cached_health(run)
    assert first == health_of(run, recent=5) and first["partial"]
    read = []
    monkeypatch.setattr(page, "action_calls", lambda ids, since_id: (read.append(since_id),
                                                                    load.action_calls(ids, since_id))[1])
    a, b = run.agents.order_by("persona__key")
    for tick in (5, 6):
        record(run, a, tick, act("sleep", dialogue=f"late {tick}"), act("interact", "thing"))
    after = page.cached_health(run)
    assert read == [LLMCall.objects.filter(run=run).order_by("-id")[2].id]  # only the two new calls
    assert after == health_of(run, recent=5) and after["run"]["action_calls"] == 5
