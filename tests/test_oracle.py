"""The oracle helper (tests/oracle.py) names where two runs part, not just that their hashes differ."""
import pytest

from tests.oracle import Entry, assert_same_calls, assert_same_memory, assert_same_transcript, first_difference
from voyage.engine.runner import advance, create_run
from voyage.models import Event, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db


def _run(seed: int, ticks: int = 30) -> Run:
    run = create_run(Scenario.objects.get(slug="edelweiss"), seed=seed, schedule=Run.SEQUENTIAL, target_ticks=ticks)
    return advance(run, ticks, memory_inline=True)


def test_two_runs_of_one_seed_pass():
    one, two = _run(3), _run(3)
    assert_same_transcript(one, two)
    assert_same_calls(one, two)
    assert_same_memory(one, two)


def test_a_changed_event_is_named_with_its_tick_agent_kind_and_both_texts():
    one, two = _run(3), _run(3)
    event = Event.objects.filter(run=two, actor__isnull=False).order_by("seq")[5]
    Event.objects.filter(pk=event.pk).update(text="SOMETHING ELSE ENTIRELY")
    with pytest.raises(AssertionError) as failure:
        assert_same_transcript(one, two)
    message = str(failure.value)
    original = Event.objects.get(run=one, seq=event.seq)
    assert "the transcripts differ: they part at entry #5" in message
    assert f"tick {event.tick}, agent {event.actor.persona.key}, {event.kind}" in message
    assert repr(original.text[:300]) in message or repr(original.text[:300] + "…") in message
    assert "'SOMETHING ELSE ENTIRELY'" in message


def test_runs_of_two_seeds_part_at_their_first_different_event():
    with pytest.raises(AssertionError, match=r"they part at entry #\d+:\n  left:  tick \d+, agent .*\n  right: tick"):
        assert_same_transcript(_run(3), _run(4))


def test_a_shorter_run_is_said_to_stop_where_the_other_goes_on():
    left = [Entry(1, "a", "speech", "hello")]
    right = left + [Entry(2, "b", "move", "goes aft")]
    assert first_difference(left, right) == (
        "they agree on 1 entries, then only the right goes on (2 in all), with:\n  tick 2, agent b, move: 'goes aft'")
    assert first_difference(left, list(left)) is None
