"""A study with a with/without-intervention dimension (issue 23, item 3): the arms are forks of one base
run, so each equals the base byte for byte before the fork tick and the intervention arm differs after;
the comparison page shows both arms. Bad input names what is wrong and writes nothing."""
import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from voyage.instruments.models import Intervention
from voyage.models import Event, Run
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db
N, TICKS = 20, 40
# A new object in the east corridor, where the offline policy (which picks among the objects it sees,
# not among memories) finds it: so what the arm's agents do after N changes, not only its one event.
LAMP = 'lamp={"kind": "object_place", "tick": 20, "name": "Brass lamp", "room": "east_corridor", "text": "It hums."}'


def create(*more, name="lamp", ticks=TICKS):
    out = io.StringIO()
    call_command("study", "create", "--name", name, "--scenario", "edelweiss", "--ticks", str(ticks),
                 "--vary", "intervention=none,lamp", "--no-start", *more, stdout=out)
    return json.loads(out.getvalue())


def events(run, **where):
    """Every event as the transcript hash reads it (no database ids, no wall-clock time)."""
    return list(Event.objects.filter(run=run, **where).order_by("seq")
                .values_list("seq", "tick", "kind", "actor__persona__key", "room__key", "text", "data"))


def test_the_arms_are_forks_of_one_base_run_equal_before_the_fork_tick_and_apart_after():
    made = create("--intervention", LAMP)
    assert made["axes"]["intervention"] == ["none", "lamp"] and made["runs"] == 3  # the base and two arms
    study = Study.objects.get(name="lamp")
    assert study.fork_tick == N and study.interventions["lamp"]["kind"] == "object_place"
    call_command("study", "run", "lamp", stdout=io.StringIO(), stderr=io.StringIO())
    study.refresh_from_db()
    assert study.state == Study.FINISHED
    members = list(study.members.select_related("run"))
    [base] = [m.run for m in members if m.is_base]
    arms = {m.cell["intervention"]: m.run for m in members if not m.is_base}
    assert (base.tick, base.state) == (N, Run.FINISHED)
    for arm in arms.values():
        assert (arm.tick, arm.state, arm.forked_from_id, arm.fork_tick, arm.replay_of_id) == (
            TICKS, Run.FINISHED, base.pk, N, None)
        # byte for byte the base's events before the fork tick: same seq, tick, kind, actor, room, text, data
        assert events(arm, tick__lt=N) == events(base, tick__lt=N) != []
    assert not Event.objects.filter(run=arms["none"], kind="intervention").exists()
    [event] = Event.objects.filter(run=arms["lamp"], kind="intervention")
    assert event.tick == N and event.data["by"] == "study lamp" and event.data["object"] == "Brass lamp"
    after = {k: [e[1:] for e in events(run, tick__gt=N)] for k, run in arms.items()}
    assert after["none"] != after["lamp"], "the intervention arm did not differ after the fork tick"
    assert any("Brass lamp" in str(e) for e in after["lamp"])  # someone took up the new object

    staff = Client()
    staff.force_login(User.objects.create_user("analyst", is_staff=True))
    html = staff.get(f"/studies/{study.pk}/").content.decode()
    assert '<th class="cell">intervention=none</th>' in html and '<th class="cell">intervention=lamp</th>' in html
    csv_rows = staff.get(f"/studies/{study.pk}/results.csv").content.decode().splitlines()
    assert len(csv_rows) == 1 + 2  # the arms' rows only: the base is not a cell of the grid


@pytest.mark.parametrize("more, words", [
    ((), "intervention=lamp: define it"),
    (("--intervention", "lamp:room_event@20:the_moon:Smoke."), "has no room 'the_moon'"),
    (("--intervention", "lamp:weather@20:deck:Fog."), "write NAME:room_event@TICK"),
    (("--intervention", "lamp:room_event@40:salon:Smoke."), "tick 40 is beyond the runs' length of 40 ticks"),
    (("--intervention", "lamp:room_event@0:salon:Smoke."), "give a tick from 1 to 39"),
    (("--intervention", "lamp:memory@20:nobody:I remember."), "has no agent 'nobody'"),
    (("--intervention", 'lamp={"kind": "object_move", "tick": 5, "name": "No such thing", "room": "salon"}'),
     "has no object called 'No such thing'"),
    (("--intervention", 'lamp={"kind": "room_event", "tick": 5, "room": "salon", "text": "x", "colour": "red"}'),
     "room_event takes how, room, text, not colour"),
    (("--intervention", 'lamp={"kind": "room_event", "tick": 5'), "its JSON does not parse"),
    (("--intervention", LAMP, "--intervention", "other:room_event@5:salon:Smoke."),
     "'other': defined but not a value of the intervention axis"),
])
def test_bad_input_names_what_is_wrong_and_writes_nothing(more, words):
    runs, interventions = Run.objects.count(), Intervention.objects.count()
    with pytest.raises(CommandError, match=words.replace("(", r"\(").replace(")", r"\)")):
        create(*more)
    assert not Study.objects.exists()
    assert (Run.objects.count(), Intervention.objects.count()) == (runs, interventions)


def test_the_scheduler_starts_the_base_then_replays_each_arm_then_puts_it_live(queued):
    """start_next step by step (the worker's chunks stood in for by advance): the arms wait for their
    base, say why while it cannot be forked, replay it to the fork tick, then go on live."""
    from voyage.engine.runner import advance
    from voyage.studies.scheduler import start, start_next

    create("--intervention", LAMP)
    study = Study.objects.get(name="lamp")
    base, none, lamp = (m.run for m in study.members.select_related("run").order_by("position"))
    assert start(study) == [base.pk]  # parallel is every run, yet the arms wait for their base
    assert Run.objects.get(pk=none.pk).pause_reason == f"waiting for its base run {base.pk} to reach tick {N} (at 0)"

    def settle(run, state=Run.FINISHED):
        run.refresh_from_db()
        advance(run, run.target_ticks)
        Run.objects.filter(pk=run.pk).update(state=state)

    Run.objects.filter(pk=base.pk).update(state=Run.FAILED)
    assert start_next(study.pk) == []
    assert "which failed at tick 0: resume it" in Run.objects.get(pk=lamp.pk).pause_reason
    settle(base)
    assert start_next(study.pk) == [none.pk, lamp.pk]
    for arm in (none, lamp):
        arm.refresh_from_db()
        assert (arm.state, arm.replay_of_id, arm.target_ticks, arm.tick) == (Run.QUEUED, base.pk, N, 0)
        settle(arm)  # the replay, to the fork tick
    assert Intervention.objects.get(run=lamp).applied  # applied at the fork tick, as the replay ends there
    Study.objects.filter(pk=study.pk).update(state=Study.STOPPED)  # a stop (a budget) leaves them to go on
    assert start_next(study.pk) == [none.pk, lamp.pk]
    for arm in (none, lamp):
        arm.refresh_from_db()
        assert (arm.state, arm.replay_of_id, arm.target_ticks, arm.tick) == (Run.QUEUED, None, TICKS, N)
    assert start_next(study.pk) == []  # a second signal changes nothing


def test_with_a_model_that_never_answers_the_same_twice_the_arms_still_equal_their_base(transactional_db):
    """What forking buys over fresh runs of the same seed: a real model's answers vary from run to run
    (here a local chat-completions server that spoils a random third of its answers), so a second run
    of the same seed is another run; the arms replay their base's recorded answers instead."""
    from voyage.bench.fake_openai_server import CONTENT_FAULTS, FakeOpenAI
    from voyage.engine.runner import advance
    from voyage.models import ModelProfile
    from voyage.runs.config import configure_run

    with FakeOpenAI(fault_rate=0.35, faults=CONTENT_FAULTS, seed=11) as server:
        ModelProfile.objects.create(name="varying", kind="openai", base_url=server.base_url, model="fake",
                                    timeout_s=5, retries=0, concurrency=4)
        room = 'lamp={"kind": "room_event", "tick": 6, "room": "east_corridor", "text": "A bell rings."}'
        call_command("study", "create", "--name", "varying", "--scenario", "edelweiss", "--ticks", "10",
                     "--vary", "intervention=none,lamp", "--vary", "profile=varying", "--intervention", room,
                     "--schedule", "simultaneous", "--no-start", stdout=io.StringIO())
        call_command("study", "run", "varying", stdout=io.StringIO(), stderr=io.StringIO())
        again = configure_run("edelweiss", profile="varying", schedule="simultaneous", seed=1912, ticks=6)
        advance(again, 6)
    study = Study.objects.get(name="varying")
    base, none, lamp = (m.run for m in study.members.select_related("run").order_by("position"))
    assert [r.tick for r in (base, none, lamp)] == [6, 10, 10]
    assert events(none, tick__lt=6) == events(lamp, tick__lt=6) == events(base, tick__lt=6)
    assert Event.objects.filter(run=base, kind="action_fail").exists()  # the spoilt answers are in it
    assert events(again, tick__lt=6) != events(base, tick__lt=6)  # a fresh run of the same seed is not
