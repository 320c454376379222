"""start / pause / resume / stop, the commands built on them (start_voyage, voyage_status) and the
Run admin's actions."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from voyage.engine.runner import advance, create_run
from voyage.models import Run
from voyage.runs import control, tasks
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    return create_run(Scenario.objects.get(slug="1912"), seed=3, target_ticks=6)


def test_start_queues_the_chain_only_once_committed(run, queued, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        control.start(run.pk)
        assert queued == []  # nothing is pushed for a transaction that might still roll back
    assert len(callbacks) == 1 and queued == []
    callbacks[0]()  # the commit
    assert queued == [(run.pk, 0)]
    run.refresh_from_db()
    assert run.state == "queued"


def test_pause_then_resume_continues_from_the_committed_tick(run, queued, django_capture_on_commit_callbacks):
    advance(run, 2)
    Run.objects.filter(pk=run.pk).update(state="running")
    assert control.pause(run.pk).state == "paused"
    assert tasks.run_chunk(run.pk, 2)["outcome"] == "skipped"  # a paused run is not advanced
    with django_capture_on_commit_callbacks(execute=True):
        assert control.resume(run.pk).state == "queued"
    assert queued == [(run.pk, 2)]


def test_a_failed_run_shows_its_error_and_resumes_once_fixed(run, queued, django_capture_on_commit_callbacks):
    Run.objects.filter(pk=run.pk).update(state="failed", error="ConnectionError: model endpoint unreachable")
    out = io.StringIO()
    call_command("voyage_status", stdout=out)
    assert "failed" in out.getvalue() and "ConnectionError: model endpoint unreachable" in out.getvalue()
    with django_capture_on_commit_callbacks(execute=True):
        control.resume(run.pk)
    run.refresh_from_db()
    assert (run.state, run.error) == ("queued", "")
    assert queued == [(run.pk, 0)]


@pytest.mark.parametrize("setup, verb, message", [
    ({"state": "finished"}, "pause", "is finished: only a queued or running run can be paused"),
    ({"state": "running"}, "resume", "is running: only a run that is paused or failed can be resumed"),
    ({"state": "running"}, "start", "is running: only a run that is queued or paused or failed or finished"),
    ({"state": "paused", "tick": 6}, "start", "has reached its target of 6 ticks"),
    ({"state": "finished"}, "stop", "is already finished"),
])
def test_refusals_say_why(run, queued, setup, verb, message):
    Run.objects.filter(pk=run.pk).update(**setup)
    with pytest.raises(control.ControlError, match=message):
        getattr(control, verb)(run.pk)
    assert queued == []


def test_unknown_run_is_a_clear_error(queued):
    with pytest.raises(control.ControlError, match="there is no run 999"):
        control.start(999)


def test_stop_ends_the_run_where_it_is(run, queued):
    advance(run, 2)
    stopped = control.stop(run.pk)
    assert (stopped.state, stopped.tick, stopped.target_ticks) == ("finished", 2, 2)
    assert tasks.run_chunk(run.pk, 2)["outcome"] == "skipped"


def test_start_voyage_prints_one_json_line_and_returns_at_once(queued, django_capture_on_commit_callbacks):
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("start_voyage", "--ticks", "30", "--seed", "5", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    run = Run.objects.get(pk=figures["run_id"])
    assert (run.tick, run.target_ticks, run.seed, run.state) == (0, 30, 5, "queued")
    assert queued == [(run.pk, 0)]


def test_start_voyage_rejects_bad_options_and_queues_nothing(queued):
    with pytest.raises(CommandError, match="no scenario 'atlantis'"):
        call_command("start_voyage", "--scenario", "atlantis", stdout=io.StringIO())
    with pytest.raises(CommandError, match="has reached its target"):
        run = create_run(Scenario.objects.get(slug="1912"), target_ticks=0)
        call_command("start_voyage", "--run", str(run.pk), stdout=io.StringIO())
    assert queued == []


def test_voyage_status_json_has_one_line_per_run(run):
    advance(run, 3)
    other = create_run(Scenario.objects.get(slug="1912"), target_ticks=4)
    out = io.StringIO()
    call_command("voyage_status", "--json", stdout=out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    rows = [r for r in rows if r["run_id"] in (run.pk, other.pk)]  # the session's shared runs aside
    assert [(r["run_id"], r["tick"], r["state"], r["error"]) for r in rows] == [
        (run.pk, 3, "queued", ""), (other.pk, 0, "queued", "")]
    assert len(rows[0]["transcript_sha256"]) == 64 and rows[0]["transcript_sha256"] != rows[1]["transcript_sha256"]


def test_admin_actions_start_pause_and_resume(client, run, queued, django_capture_on_commit_callbacks):
    client.force_login(User.objects.create_superuser("staff", "s@example.com", "pw"))
    url = "/admin/voyage/run/"

    def act(action):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, {"action": action, "_selected_action": [run.pk]}, follow=True)

    act("start_runs")
    assert Run.objects.get(pk=run.pk).state == "queued" and queued == [(run.pk, 0)]
    act("pause_runs")
    assert Run.objects.get(pk=run.pk).state == "paused"
    refused = act("pause_runs")
    assert "only a queued or running run can be paused" in refused.content.decode()
    Run.objects.filter(pk=run.pk).update(state="failed", error="ValueError: bad profile")
    page = client.get(f"{url}{run.pk}/change/").content.decode()
    assert "ValueError: bad profile" in page
    act("resume_runs")
    assert Run.objects.get(pk=run.pk).state == "queued"


def test_voyage_control_command_pauses_and_refuses_clearly(run, queued):
    Run.objects.filter(pk=run.pk).update(state="running")
    out = io.StringIO()
    call_command("voyage_control", "pause", str(run.pk), stdout=out)
    assert json.loads(out.getvalue()) == {"run_id": run.pk, "state": "paused", "tick": 0, "target_ticks": 6}
    with pytest.raises(CommandError, match="only a queued or running run can be paused"):
        call_command("voyage_control", "pause", str(run.pk), stdout=io.StringIO())
