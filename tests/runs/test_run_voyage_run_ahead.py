"""`run_voyage --run-ahead N`: a new run takes it, a replay copies its source's unless told otherwise,
and a value outside 0..8 is refused before anything is written."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from tests.oracle import assert_same_transcript
from voyage.models import Run

pytestmark = pytest.mark.django_db


def run_voyage(capsys, *args: str) -> tuple[Run, dict]:
    call_command("run_voyage", "--ticks", "2", *args)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return Run.objects.get(pk=summary["run_id"]), summary


def test_run_voyage_takes_run_ahead_0_and_a_replay_copies_it(capsys):
    run, summary = run_voyage(capsys, "--schedule", "simultaneous", "--run-ahead", "0")
    assert (run.run_ahead, run.schedule, run.tick, run.state) == (0, Run.SIMULTANEOUS, 2, Run.FINISHED)
    replay, again = run_voyage(capsys, "--replay", str(run.pk))
    assert replay.run_ahead == 0
    assert_same_transcript(replay, run)
    other, _ = run_voyage(capsys, "--replay", str(run.pk), "--run-ahead", "4")
    assert other.run_ahead == 4


def test_run_voyage_defaults_to_2_and_refuses_values_outside_0_to_8(capsys):
    run, _ = run_voyage(capsys)
    assert run.run_ahead == 2
    before = Run.objects.count()
    for bad in ("-1", "9"):
        with pytest.raises(CommandError, match=f"--run-ahead must be a whole number of ticks from 0 .* to 8; got {bad}"):
            call_command("run_voyage", "--ticks", "2", "--run-ahead", bad)
    assert Run.objects.count() == before
