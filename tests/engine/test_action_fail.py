"""Malformed model answers become ACTION_FAIL memories with the reason, cost one simulated minute
and never stop the run."""
import pytest

from memories.models import Memory
from voyage.engine.runner import advance, create_run
from voyage.models import Event, LLMCall
from world.models import Scenario

pytestmark = pytest.mark.django_db


def test_malformed_answers_fail_cleanly_and_the_run_goes_on():
    run = create_run(Scenario.objects.get(slug="1912"), seed=3, malformed_rate=0.3, target_ticks=80)
    advance(run, 80)
    calls = LLMCall.objects.filter(run=run, purpose="action")
    failed = calls.filter(outcome=LLMCall.ACTION_FAIL)
    assert run.tick == 80
    assert 0.2 < failed.count() / calls.count() < 0.45
    reasons = set(failed.values_list("detail", flat=True))
    assert any("not valid JSON" in r for r in reasons)
    assert any("missing key" in r for r in reasons)
    assert any("unexpected key" in r for r in reasons)
    assert any("duration_minutes" in r for r in reasons)
    assert any("unknown target" in r for r in reasons)
    asked = set(calls.values_list("agent_id", "tick"))
    dead = set(Event.objects.filter(run=run, kind="death").values_list("actor_id", flat=True))
    again = 0
    for call in failed:
        memory = Memory.objects.get(agent_id=call.agent_id, tick=call.tick, kind="action_fail")
        assert call.detail in memory.text
        if call.tick + 1 < 80 and call.agent_id not in dead:
            # one simulated minute lost, no more: the agent is asked again on the very next tick
            assert (call.agent_id, call.tick + 1) in asked, f"agent {call.agent_id} failed at {call.tick}"
            again += 1
    assert again > 100
    assert Event.objects.filter(run=run, kind="action_fail").count() == failed.count()


def test_a_clean_run_has_no_action_fail():
    run = create_run(Scenario.objects.get(slug="1912"), seed=3, target_ticks=40)
    advance(run, 40)
    assert not LLMCall.objects.filter(run=run, outcome=LLMCall.ACTION_FAIL).exists()
