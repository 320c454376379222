"""Runs in the admin: the add form configures a ready run through voyage.runs.config (errors at their
field, nothing written), the change form keeps a started run's configuration, and the actions report
what they did and what they refused."""
import pytest
from django.contrib.messages import get_messages

from voyage.models import Run
from voyage.runs.config import PARAMETERS, configure_run
from world.models import AgentState, Persona

pytestmark = pytest.mark.django_db
CAST = ["anton_kessler", "ilse_marr", "edmund_hale", "vivian_hale", "jonas_weber"]


def add_form(**changes) -> dict:
    run = Run()
    data = {"name": "five at the sanatorium", "scenario": Persona.objects.get(key="anton_kessler").scenario_id,
            "cast": [p.pk for p in Persona.objects.filter(key__in=CAST)], "profile": "", "schedule": "sequential",
            "seed": "11", "length": "40", "length_unit": "ticks"}
    for name in PARAMETERS:
        value = getattr(run, name)
        data[name] = "[]" if name == "reflection_ticks" else "" if value is None else str(value)
    data.update(changes)
    return data


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_adding_a_run_makes_it_ready_with_its_cast(superuser):
    response = superuser.post("/admin/voyage/run/add/", add_form())
    assert response.status_code == 302, response.content.decode()[:3000]
    run = Run.objects.get(name="five at the sanatorium")
    assert (run.target_ticks, run.seed, run.scenario.slug, run.profile) == (40, 11, "edelweiss", None)
    assert sorted(run.agents.values_list("persona__key", flat=True)) == sorted(CAST)
    assert any("ready to start: 5 agents" in t for t in texts(response))


def test_a_bad_value_shows_at_its_field_and_creates_nothing(superuser):
    before = (Run.objects.count(), AgentState.objects.count())
    response = superuser.post("/admin/voyage/run/add/", add_form(compaction_soft_chars="900000"))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "must be below the hard limit (800,000)" in errors["compaction_soft_chars"][0]
    response = superuser.post("/admin/voyage/run/add/", add_form(cast=[Persona.objects.get(key="ilse_marr").pk],
                                                             length="0"))
    errors = response.context["adminform"].form.errors
    assert "at least two personas" in errors["cast"][0] and "at least one tick" in errors["length"][0]
    assert (Run.objects.count(), AgentState.objects.count()) == before


def test_a_started_run_keeps_its_configuration_but_may_grow(superuser):
    run = configure_run("edelweiss", cast=CAST, ticks=40)
    Run.objects.filter(pk=run.pk).update(tick=10, state=Run.PAUSED)
    page = superuser.get(f"/admin/voyage/run/{run.pk}/change/")
    assert f'href="/runs/{run.pk}/"' in page.content.decode()
    form = page.context["adminform"].form
    assert set(form.fields) == {"name", "target_ticks", "budget_tokens", "budget_cost"}
    data = {"name": "renamed", "target_ticks": "30", "budget_tokens": "", "budget_cost": ""}
    response = superuser.post(f"/admin/voyage/run/{run.pk}/change/", data)
    assert "may only grow (it is 40)" in response.context["adminform"].form.errors["target_ticks"][0]
    response = superuser.post(f"/admin/voyage/run/{run.pk}/change/", {**data, "target_ticks": "90"})
    assert response.status_code == 302
    run.refresh_from_db()
    assert (run.name, run.target_ticks, run.seed) == ("renamed", 90, 1912)


def test_actions_report_what_they_did_and_refused(superuser, queued, django_capture_on_commit_callbacks):
    run = configure_run("edelweiss", cast=CAST, ticks=40)

    def act(action, **extra):
        return texts(superuser.post("/admin/voyage/run/", {"action": action, "_selected_action": [run.pk], **extra},
                                follow=True))

    with django_capture_on_commit_callbacks(execute=True):
        assert "Started: run %d." % run.pk in act("start_runs")
    assert queued == [(run.pk, 0)]
    assert "Paused: run %d." % run.pk in act("pause_runs")
    assert any("Pause refused" in t and "is paused" in t for t in act("pause_runs"))
    assert "Resumed: run %d." % run.pk in act("resume_runs")
    messages = act("clone_runs", seed="77")
    clone = Run.objects.exclude(pk=run.pk).get()
    assert clone.seed == 77 and clone.agents.count() == 5 and clone.target_ticks == 40
    assert any(f"Clone of run {run.pk}" in t and "seed 77, 5 agents" in t for t in messages)
    assert any("Replay of run" in t and "nothing to replay" in t for t in act("replay_runs"))
    assert "Stopped: run %d." % run.pk in act("stop_runs")
    assert any("Stop refused" in t and "already finished" in t for t in act("stop_runs"))
    assert Run.objects.count() == 2


def test_the_add_page_shows_every_run_parameter(superuser):
    """A parameter the form requires but the page leaves out would refuse every save from a browser."""
    page = superuser.get("/admin/voyage/run/add/").content.decode()
    for name in PARAMETERS:
        assert f'name="{name}"' in page, name


def test_run_ahead_is_set_on_the_add_form_and_refused_out_of_range(superuser):
    before = Run.objects.count()
    response = superuser.post("/admin/voyage/run/add/", add_form(schedule="simultaneous", run_ahead="9"))
    assert "from 0 (lock-step) to 8; got 9" in response.context["adminform"].form.errors["run_ahead"][0]
    assert Run.objects.count() == before
    response = superuser.post("/admin/voyage/run/add/", add_form(schedule="simultaneous", run_ahead="0"))
    assert response.status_code == 302
    assert Run.objects.get(name="five at the sanatorium").run_ahead == 0
