"""Studies in the admin: made with the same checks as the command, listed with their progress."""
import pytest
from django.contrib.auth.models import User

from voyage.models import Run
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("boss", password="x"))
    return client


def form(**over):
    return {"name": "from the admin", "scenario": "1912", "ticks": "5", "days": "", "budget_cost": "",
            "axes": "seeds=2\nhot_memory_limit=30,50", "shared": "attrition_threshold=60", "parallel": "", **over}


def test_a_study_made_in_the_admin_has_its_grid_of_runs(admin_client):
    response = admin_client.post("/admin/studies/study/add/", form(judging="default@1"))
    assert response.status_code == 302, response.content.decode()[:2000]
    study = Study.objects.get(name="from the admin")
    runs = Run.objects.filter(study_member__study=study).order_by("study_member__position")
    assert [(r.hot_memory_limit, r.seed, r.attrition_threshold) for r in runs] == [
        (30, 1, 60), (30, 2, 60), (50, 1, 60), (50, 2, 60)]
    assert {r.state for r in runs} == {Run.PAUSED}  # "start" unticked: nothing queued
    assert [(j["day"], j["rubric"]) for j in study.judging] == [(1, "default")]  # the judge's day, a measure
    listing = admin_client.get("/admin/studies/study/").content.decode()
    assert "0/4" in listing and f"/studies/{study.pk}/" in listing
    page = admin_client.get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    assert all(f"/runs/{r.pk}/" in page for r in runs)


@pytest.mark.parametrize("over, words", [
    ({"axes": "hot_memory_limit=30,x"}, "hot_memory_limit=&#x27;x&#x27;"),
    ({"axes": "seeds=0"}, "seeds=N takes one count"),
    ({"shared": "fatigue_warning=95"}, "fatigue warning (95) must come before"),
    ({"ticks": ""}, "in days or in ticks"),
    ({"judging": "rubrics/../../settings@1"}, "there is no shipped rubric"),
])
def test_bad_input_is_shown_and_nothing_is_written(admin_client, over, words):
    runs = Run.objects.count()
    response = admin_client.post("/admin/studies/study/add/", form(**over))
    assert response.status_code == 200 and words in response.content.decode()
    assert Study.objects.count() == 0 and Run.objects.count() == runs


def test_starting_from_the_admin_queues_the_runs(admin_client):
    admin_client.post("/admin/studies/study/add/", form(start="on", parallel="1"))
    states = list(Run.objects.filter(study_member__study__name="from the admin")
                  .order_by("study_member__position").values_list("state", flat=True))
    assert states == [Run.QUEUED, Run.PAUSED, Run.PAUSED, Run.PAUSED]


LAMP = 'lamp={"kind": "object_place", "tick": 3, "name": "Brass lamp", "room": "salon", "text": "It hums."}'


def test_a_study_over_an_intervention_made_in_the_admin_forks_its_arms_from_a_base(admin_client):
    response = admin_client.post("/admin/studies/study/add/", form(
        scenario="edelweiss", ticks="6", axes="intervention=none,lamp", shared="", interventions=LAMP))
    assert response.status_code == 302, response.content.decode()[:2000]
    study = Study.objects.get(name="from the admin")
    assert study.fork_tick == 3 and study.interventions["lamp"]["room"] == "salon"
    members = list(study.members.select_related("run").order_by("position"))
    assert [(m.is_base, m.run.target_ticks, m.run.forked_from_id) for m in members] == [
        (True, 3, None), (False, 6, members[0].run_id), (False, 6, members[0].run_id)]
    assert [iv.name for m in members for iv in m.run.interventions.all()] == ["Brass lamp"]
    page = admin_client.get(f"/admin/studies/study/{study.pk}/change/").content.decode()
    assert "Brass lamp" in page and "fork tick" in page.lower()


@pytest.mark.parametrize("interventions, words", [
    ("lamp:room_event@3:the_moon:Smoke.", "has no room &#x27;the_moon&#x27;"),
    ("lamp:room_event@60:salon:Smoke.", "tick 60 is beyond the runs&#x27; length of 6 ticks"),
    ("lamp:weather@3:salon:Fog.", "write NAME:room_event@TICK"),
])
def test_a_bad_intervention_is_shown_and_nothing_is_written(admin_client, interventions, words):
    runs = Run.objects.count()
    response = admin_client.post("/admin/studies/study/add/", form(
        scenario="edelweiss", ticks="6", axes="intervention=none,lamp", shared="", interventions=interventions))
    assert response.status_code == 200 and words in response.content.decode()
    assert Study.objects.count() == 0 and Run.objects.count() == runs
