"""Forking a run at a tick: the fork's first N ticks are the source's, byte for byte (replayed from
its recorded answers), then it goes on live; with another seed it diverges after the fork tick and
not before. A fork records where it came from."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from voyage.engine.runner import advance, create_run
from voyage.models import Event, Run
from voyage.runs.fork import ForkError, fork
from world.models import Scenario

pytestmark = pytest.mark.django_db
TICKS, AT = 200, 120


def event_lines(run: Run) -> list[str]:
    rows = (Event.objects.filter(run=run).order_by("seq")
            .values_list("seq", "tick", "kind", "actor__persona__key", "room__key", "text", "data"))
    return [json.dumps(list(r), sort_keys=True, ensure_ascii=False) for r in rows]


@pytest.fixture
def source():
    run = create_run(Scenario.objects.get(slug="1912"), seed=1912, target_ticks=TICKS)
    return advance(run, TICKS, memory_inline=True)  # its memory calls are recorded, for the forks to replay


def test_a_fork_replays_the_first_ticks_exactly_then_goes_on(source):
    made = fork(source, AT, target_ticks=TICKS, memory_inline=True)
    assert (made.forked_from_id, made.fork_tick, made.tick, made.replay_of_id) == (source.pk, AT, AT, None)
    assert made.state == Run.PAUSED and made.seed == source.seed
    at_fork = event_lines(made)
    assert at_fork == event_lines(source)[:len(at_fork)]
    assert Event.objects.filter(run=source, seq__gte=len(at_fork)).exclude(tick__gte=AT).count() == 0

    advance(made, TICKS, memory_inline=True)  # live from here (the offline model, the same seed): it goes on
    assert made.tick == TICKS and len(event_lines(made)) > len(at_fork)
    assert event_lines(made)[:len(at_fork)] == at_fork


def test_a_fork_with_another_seed_diverges_after_the_fork_tick_and_not_before(source):
    made = fork(source, AT, seed=source.seed + 1, target_ticks=TICKS, memory_inline=True)
    at_fork = event_lines(made)
    original = event_lines(source)
    advance(made, TICKS, memory_inline=True)
    after = event_lines(made)
    assert after[:len(at_fork)] == original[:len(at_fork)]
    assert after[len(at_fork):] != original[len(at_fork):]
    first_difference = next(i for i, (a, b) in enumerate(zip(after, original)) if a != b)
    assert first_difference >= len(at_fork)


def test_fork_refuses_a_tick_the_source_has_not_reached(source):
    with pytest.raises(ForkError, match="from 1 to 200"):
        fork(source, TICKS + 1)
    with pytest.raises(ForkError, match="hot_memory_limit"):
        fork(source, AT, params={"hot_memory_limit": "many"})


def test_run_voyage_fork_with_another_parameter(source, capsys):
    call_command("run_voyage", "--fork", str(source.pk), "--at-tick", "40", "--ticks", "60",
                 "--set", "attrition_threshold=12")
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    made = Run.objects.get(pk=summary["run_id"])
    assert (made.tick, made.fork_tick, made.forked_from_id, made.attrition_threshold) == (60, 40, source.pk, 12)
    with pytest.raises(CommandError, match="--at-tick"):
        call_command("run_voyage", "--fork", str(source.pk))


def test_a_fork_copies_run_ahead_from_its_source_unless_told_otherwise(capsys):
    source = create_run(Scenario.objects.get(slug="1912"), seed=5, schedule=Run.SIMULTANEOUS, run_ahead=3,
                        target_ticks=12)
    advance(source, 12, memory_inline=True)
    assert fork(source, 6, memory_inline=True).run_ahead == 3
    assert fork(source, 6, params={"run_ahead": 0}, memory_inline=True).run_ahead == 0
    with pytest.raises(ForkError, match="run_ahead: .*got 9"):
        fork(source, 6, params={"run_ahead": 9})
    call_command("run_voyage", "--fork", str(source.pk), "--at-tick", "6", "--run-ahead", "1")
    made = Run.objects.get(pk=json.loads(capsys.readouterr().out.strip().splitlines()[-1])["run_id"])
    assert (made.forked_from_id, made.run_ahead, made.schedule) == (source.pk, 1, Run.SIMULTANEOUS)
