"""A study with a with/without-intervention dimension (issue 23, item 3): each arm's runs are the same
seeds, the intervention arm's runs carry it at its tick, and the comparison page shows both arms."""
import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from voyage.models import Event
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db
LIGHTS = "lights:room_event@10:grand_staircase:The lights go out."


def create(*more):
    out = io.StringIO()
    call_command("study", "create", "--name", "lights", "--ticks", "20", "--vary", "seed=3",
                 "--vary", "intervention=none,lights", "--no-start", *more, stdout=out)
    return json.loads(out.getvalue())


def test_a_study_varies_with_and_without_an_intervention_and_compares_both_arms():
    made = create("--intervention", LIGHTS)
    assert made["axes"]["intervention"] == ["none", "lights"] and made["runs"] == 2
    call_command("study", "run", "lights", stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(name="lights")
    arms = {m.cell["intervention"]: m.run for m in study.members.select_related("run")}
    assert all(run.tick == 20 for run in arms.values())
    assert not Event.objects.filter(run=arms["none"], kind="intervention").exists()
    [event] = Event.objects.filter(run=arms["lights"], kind="intervention")
    assert event.tick == 10 and event.text == "The lights go out." and event.data["by"] == "study lights"

    def before(run):
        return list(Event.objects.filter(run=run, tick__lt=10).order_by("seq").values_list("kind", "text", "data"))

    assert before(arms["none"]) == before(arms["lights"])  # the same seed: the same run until the intervention
    staff = Client()
    staff.force_login(User.objects.create_user("analyst", is_staff=True))
    html = staff.get(f"/studies/{study.pk}/").content.decode()
    assert "intervention=none" in html and "intervention=lights" in html


def test_an_undefined_or_impossible_intervention_makes_no_study():
    with pytest.raises(CommandError, match="intervention=lights: define it"):
        create()
    with pytest.raises(CommandError, match="has no room 'the_moon'"):
        create("--intervention", "lights:room_event@10:the_moon:Smoke.")
    with pytest.raises(CommandError, match="write NAME:room_event@TICK"):
        create("--intervention", "lights:weather@10:deck:Fog.")
    assert not Study.objects.exists()
