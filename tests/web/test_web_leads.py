"""The agents' leads on the run overview (voyage.web.leads, Run.leads as the engine writes it): each
agent's "+N" while the run is running, the mean and max, "lock-step" at run_ahead 0, nothing for the
sequential schedule; the same figures in ship.json for the live page, never in a travelled tick."""
import pytest
from django.contrib.auth.models import User

from voyage.engine.runner import create_run
from voyage.models import Run
from voyage.web.leads import leads_panel
from world.models import Persona, Scenario

CAST = ["constance_ashcombe", "harold_ashcombe", "theodore_van_sickle"]
LEADS = {"now": {"harold_ashcombe": 2, "constance_ashcombe": 0, "theodore_van_sickle": 1}, "sum": 17.0, "n": 20,
         "max": 2}
SUMMARY = "ahead of the slowest agent: mean +0.85, max +2 ticks (run_ahead 2)"


def unsaved(**fields) -> Run:
    return Run(**{"schedule": Run.SIMULTANEOUS, "run_ahead": 2, "state": Run.RUNNING, "leads": LEADS, **fields})


def test_a_running_run_shows_each_agents_lead_and_the_mean_and_max():
    assert leads_panel(unsaved(), CAST) == {"lock_step": False, "summary": SUMMARY, "agents": {
        "constance_ashcombe": "+0", "harold_ashcombe": "+2", "theodore_van_sickle": "+1"}}


def test_a_run_that_is_not_running_keeps_the_mean_but_no_agents_figures():
    assert leads_panel(unsaved(state=Run.PAUSED), CAST) == {"lock_step": False, "summary": SUMMARY, "agents": {}}


def test_nothing_before_the_engine_writes_lock_step_at_0_and_nothing_for_the_sequential_schedule():
    assert leads_panel(unsaved(leads={}), CAST) == {"lock_step": False, "summary": "", "agents": {}}
    assert leads_panel(unsaved(run_ahead=0), CAST)["lock_step"] is True
    assert leads_panel(unsaved(run_ahead=0), CAST)["agents"] == {}
    assert leads_panel(unsaved(schedule=Run.SEQUENTIAL), CAST) is None


@pytest.fixture
def staff_client(client, db):
    client.force_login(User.objects.create_user("leads-staff", password="x", is_staff=True))
    return client


@pytest.fixture
def leading_run(db):
    scenario = Scenario.objects.get(slug="1912")
    Persona.objects.filter(scenario=scenario, key="harold_ashcombe").update(display_name="<b>Harold</b> & co")
    run = create_run(scenario, personas=scenario.personas.filter(key__in=CAST), schedule=Run.SIMULTANEOUS,
                     target_ticks=20)
    Run.objects.filter(pk=run.pk).update(state=Run.RUNNING, tick=5, leads=LEADS)
    return run


def test_the_overview_shows_the_leads_escaped(staff_client, leading_run):
    page = staff_client.get(f"/runs/{leading_run.pk}/").content.decode()
    assert f'<span id="leads-summary">{SUMMARY}</span>' in page
    assert "&lt;b&gt;Harold&lt;/b&gt; &amp; co" in page and "<b>Harold</b>" not in page
    rows = {key: page.split(f'<tr data-agent="{key}">')[1].split("</tr>")[0] for key in CAST}
    assert '<td class="num ahead">+2</td>' in rows["harold_ashcombe"]
    assert '<td class="num ahead">+1</td>' in rows["theodore_van_sickle"]
    assert '<td class="num ahead">+0</td>' in rows["constance_ashcombe"]


def test_the_overview_says_lock_step_and_shows_no_column_at_run_ahead_0(staff_client, leading_run):
    Run.objects.filter(pk=leading_run.pk).update(run_ahead=0)
    page = staff_client.get(f"/runs/{leading_run.pk}/").content.decode()
    assert "lock-step (run_ahead 0)" in page and 'class="num ahead"' not in page and ">Ahead</th>" not in page


def test_the_ship_json_carries_the_leads_now_and_none_for_a_travelled_tick(staff_client, leading_run):
    now = staff_client.get(f"/runs/{leading_run.pk}/ship.json").json()
    assert now["leads"]["summary"] == SUMMARY and now["leads"]["agents"]["harold_ashcombe"] == "+2"
    assert staff_client.get(f"/runs/{leading_run.pk}/ship.json?tick=2").json()["leads"] is None
